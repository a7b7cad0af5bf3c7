//! What both modes share: the settings of a run, how a name on the
//! command line or in a list becomes an input, and how a file's error is
//! reported.

use crate::args::Opts;
use crate::engine::{self, Input};
use crate::output::{reason, Out};
use crate::quote;
#[cfg(unix)]
use std::ffi::OsStr;
use std::io::{self, IsTerminal};
use std::path::PathBuf;

/// The input a name stands for: `-` is standard input.
pub fn input_for(name: &[u8]) -> Input {
    if name == b"-" {
        Input::Stdin
    } else {
        Input::Path(path_from_bytes(name))
    }
}

/// A file name as bytes (for a name from the command line, as the
/// platform gives it: its bytes on Unix, UTF-8 on Windows) back to a path.
fn path_from_bytes(name: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        // A name that is not UTF-8 names no Windows file; the lossy one
        // fails to open as it should.
        PathBuf::from(String::from_utf8_lossy(name).into_owned())
    }
}

/// Whether a name is printed as read in binary mode. Without `-b` or `-t`,
/// GNU md5sum's builds for Windows (where the C library translates line
/// ends in text mode) read in binary mode, standard input too unless it
/// is a terminal; elsewhere text mode is the default, and the same bytes
/// are read in either mode.
pub fn binary_mode(explicit: Option<bool>, name: &[u8]) -> bool {
    explicit.unwrap_or(cfg!(windows) && !(name == b"-" && io::stdin().is_terminal()))
}

/// Settings shared by both modes.
pub struct Ctx<'a> {
    pub o: &'a Opts,
    pub engine: engine::Config<'a>,
    pub utf8: bool,
}

impl Ctx<'_> {
    pub fn file_error(&self, out: &mut Out<'_>, name: &[u8], e: &io::Error) {
        let mut msg = quote::quotef(name, self.utf8);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(reason(e).as_bytes());
        out.diag(&msg);
    }
}
