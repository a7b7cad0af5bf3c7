//! Hash mode: one checksum line per input, in argument order.

use crate::engine::{self, Step};
use crate::output::Out;
use crate::{binary_mode, input_for, Ctx};
use md5sum::record::{self, Style};
use std::ffi::OsString;

/// Prints one checksum line per file; false if any file failed.
pub fn hash_files(cx: &Ctx<'_>, files: &[OsString], out: &mut Out<'_>) -> bool {
    let o = cx.o;
    let mut ok = true;
    let items = files
        .iter()
        .map(|f| (Some(input_for(f.as_encoded_bytes())), f.as_encoded_bytes()));
    let mut rec = Vec::new();
    let run = engine::run(&cx.engine, items, |step: Step<&[u8]>| {
        let (name, r) = match step {
            Step::Idle => return out.flush(),
            Step::Item(name, Some(r)) => (name, r),
            Step::Item(_, None) => return,
        };
        match r {
            Ok(d) => {
                let style = if o.tag {
                    Style::Tag
                } else if binary_mode(o.binary, name) {
                    Style::Binary
                } else {
                    Style::Text
                };
                rec.clear();
                record::write_line(&mut rec, &d, name, style, o.zero);
                out.record(&rec);
            }
            Err(e) => {
                ok = false;
                cx.file_error(out, name, &e.err);
            }
        }
    });
    ok && run.is_ok()
}
