//! Opening an input of the files layer that is not a regular file: one
//! whose reads can wait for ever (a FIFO, a terminal, any character
//! device) is opened without blocking, and its reads wait in ticks,
//! looking at the stop flag.

use super::fds::{open_waiting, Opened};
use super::Control;
use std::fs::Metadata;
use std::io::{self, Read};
use std::path::Path;

/// An input that is not a regular file, open for reading in order.
pub(super) struct Stream<'c> {
    file: Opened,
    /// Reads wait in ticks of [`Control::WAIT_TICK`] for the file to be
    /// readable (a file opened without blocking).
    polled: bool,
    control: Control<'c>,
}

/// Opens `path`, whose metadata is `meta`, for reading, as [`open_waiting`]
/// opens (`release` may close files the caller holds, where no descriptor
/// is left). A file whose reads can wait (on Linux) is opened without
/// blocking (a FIFO's open does not wait for a writer), and its reads then
/// wait in ticks, so that the stop flag is looked at while nothing comes.
pub(super) fn open_stream<'c>(
    path: &Path,
    meta: &Metadata,
    control: Control<'c>,
    release: impl FnMut() -> bool,
) -> io::Result<Stream<'c>> {
    let polled = may_wait(meta) && poll::WORKS;
    let file = open_waiting(|| poll::open(path, polled), release, &control)?;
    Ok(Stream {
        file,
        polled,
        control,
    })
}

/// Whether a read of the file can wait for ever: anything but a regular
/// file or a block device (a FIFO, a socket, a character device such as a
/// terminal, `/dev/kmsg` or a serial port), whose data comes when someone
/// else sends it.
#[cfg(unix)]
fn may_wait(meta: &Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    !(t.is_file() || t.is_block_device())
}

#[cfg(not(unix))]
fn may_wait(_meta: &Metadata) -> bool {
    false
}

cfg_if::cfg_if! {
    // Opening without blocking and waiting to read, on Linux targets whose
    // `O_NONBLOCK` is the generic 0o4000 (not Alpha, MIPS, PA-RISC or
    // SPARC) and whose `poll` takes an `unsigned long` count.
    if #[cfg(all(
        target_os = "linux",
        any(
            target_arch = "x86",
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "powerpc64",
            target_arch = "s390x"
        )
    ))] {
        mod poll {
            use std::fs::File;
            use std::io;
            use std::path::Path;

            pub(super) const WORKS: bool = true;

            pub(super) fn open(path: &Path, nonblocking: bool) -> io::Result<File> {
                use std::os::unix::fs::OpenOptionsExt;
                const O_NONBLOCK: i32 = 0o4000;
                let flags = if nonblocking { O_NONBLOCK } else { 0 };
                File::options().read(true).custom_flags(flags).open(path)
            }

            /// Waits up to `tick` for `file` to be readable (or its writer to have
            /// left); whether it is.
            pub(super) fn wait_readable(file: &File, tick: core::time::Duration) -> io::Result<bool> {
                use std::os::fd::AsRawFd;
                use std::os::raw::{c_int, c_short, c_ulong};
                #[repr(C)]
                struct PollFd {
                    fd: c_int,
                    events: c_short,
                    revents: c_short,
                }
                extern "C" {
                    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
                }
                const POLLIN: c_short = 1;
                let mut fd = PollFd {
                    fd: file.as_raw_fd(),
                    events: POLLIN,
                    revents: 0,
                };
                let ms = c_int::try_from(tick.as_millis()).unwrap_or(c_int::MAX);
                // SAFETY: `fd` is one valid `struct pollfd`, which `poll` reads and
                // writes (`revents`) during the call only; the descriptor is open
                // for as long as `file` is borrowed.
                let n = unsafe { poll(&mut fd, 1, ms) };
                match n {
                    -1 => {
                        let e = io::Error::last_os_error();
                        if e.kind() == io::ErrorKind::Interrupted {
                            Ok(false)
                        } else {
                            Err(e)
                        }
                    }
                    0 => Ok(false),
                    _ => Ok(true),
                }
            }
        }
    } else {
        // Elsewhere: a blocking open, and reads that block.
        mod poll {
            use std::fs::File;
            use std::io;
            use std::path::Path;

            pub(super) const WORKS: bool = false;

            pub(super) fn open(path: &Path, _nonblocking: bool) -> io::Result<File> {
                File::open(path)
            }

            pub(super) fn wait_readable(_file: &File, _tick: core::time::Duration) -> io::Result<bool> {
                Ok(true)
            }
        }
    }
}

impl Read for Stream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.polled {
            return self.file.read(buf);
        }
        // A FIFO opened without blocking reads 0 (its end) before any
        // writer has opened it, and a terminal fails with `WouldBlock`
        // while nothing is typed: read only once it is readable, which a
        // FIFO is once a writer has written or left.
        loop {
            self.control.check()?;
            if !poll::wait_readable(self.file.file(), Control::WAIT_TICK)? {
                continue;
            }
            match self.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => return r,
            }
        }
    }
}
