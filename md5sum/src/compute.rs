//! Hash mode: one checksum line per input, in argument order.
//!
//! With `--etag=SIZE`, the engine hashes the regular files shorter than a
//! part (uploaded whole, their ETag is their MD5), and the others are
//! hashed here in turn, in their place in the order, by [`etag`].

use crate::context::{binary_mode, input_for, Ctx};
use crate::engine::{self, Input, Step};
use crate::etag::{upload_etag, PartSize};
use crate::output::Out;
use md5sum::record::{self, Style};
use md5x::etag::{self, Etag};
use std::ffi::OsString;

/// Whether the ETag of `input` for parts of `part_size` is its MD5, as its
/// metadata tells (`md5x::etag::uploaded_whole`): then the engine hashes it
/// with the other MD5s.
fn uploaded_whole(input: &Input, part_size: u64) -> bool {
    match input {
        Input::Stdin => false,
        Input::Path(p) => std::fs::metadata(p).is_ok_and(|m| etag::uploaded_whole(&m, part_size)),
    }
}

/// Prints one checksum line per file; false if any file failed.
pub fn hash_files(cx: &Ctx<'_>, files: &[OsString], out: &mut Out<'_>) -> bool {
    let o = cx.o;
    let part_size = match o.etag {
        Some(PartSize::Fixed(p)) => Some(p),
        Some(PartSize::Auto) | None => None,
    };
    let mut ok = true;
    let items = files.iter().map(|f| {
        let input = input_for(f.as_encoded_bytes());
        let md5 = part_size.is_none_or(|p| uploaded_whole(&input, p));
        (md5.then_some(input), f.as_encoded_bytes())
    });
    let mut rec = Vec::new();
    let run = engine::run(&cx.engine, items, |step: Step<&[u8]>| {
        let (name, r) = match (step, part_size) {
            (Step::Idle, _) => return out.flush(),
            (Step::Item(name, Some(r)), None) => (name, r.map(Sum::Md5)),
            (Step::Item(name, Some(r)), Some(_)) => (name, r.map(|d| Sum::Etag(Etag::from_md5(d)))),
            (Step::Item(name, None), Some(p)) => {
                out.flush();
                (
                    name,
                    upload_etag(&input_for(name), p, cx.engine.jobs).map(Sum::Etag),
                )
            }
            (Step::Item(_, None), None) => return,
        };
        match r {
            Ok(sum) => {
                let style = if o.tag {
                    Style::Tag
                } else if binary_mode(o.binary, name) {
                    Style::Binary
                } else {
                    Style::Text
                };
                rec.clear();
                match sum {
                    Sum::Md5(d) => record::write_line(&mut rec, &d, name, style, o.zero),
                    Sum::Etag(e) => record::write_etag_line(&mut rec, &e, name, style, o.zero),
                }
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

/// What a line gives: an MD5 (from the engine), or an ETag.
enum Sum {
    Md5([u8; 16]),
    Etag(Etag),
}
