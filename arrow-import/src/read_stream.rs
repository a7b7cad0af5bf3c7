//! An imported `ArrowArrayStream` read to its end: its schema checked
//! once, each array pulled with `get_next`, checked and hashed into a
//! column of digests, then released before the next is pulled.

use crate::column::{Column, Exported, Output};
use crate::ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Imported};
use crate::format::{self, Layout};
use crate::rows::{Refused, Rows};
use crate::stop::Stop;
use std::ffi::CStr;

/// Why reading a stream failed.
#[derive(Debug)]
pub enum StreamError {
    /// Its type is not one `hash_array` reads.
    Type(String),
    /// An array of it breaks the format's rules.
    Malformed(String),
    /// Its producer reported an error.
    Producer(String),
    /// The call was interrupted.
    Stopped,
}

/// Hashes each array of `stream` as `output` on up to `jobs` threads, and
/// picks the one type that all the results are exported as. Gives up with
/// `Stopped` between arrays, or between steps of one, once `stop` is set.
pub fn read_stream(
    stream: &mut Imported<ArrowArrayStream>,
    output: Output,
    jobs: usize,
    stop: &Stop,
) -> Result<(Vec<Column>, Exported), StreamError> {
    let (Some(get_schema), Some(get_next)) = (stream.get_schema, stream.get_next) else {
        return Err(StreamError::Malformed(
            "the stream has no get_schema or get_next".into(),
        ));
    };
    let mut schema = Imported::<ArrowSchema>::empty();
    // SAFETY: a live stream's callback (an `Imported` holds one its
    // producer filled), given the stream and a released schema to fill.
    let code = unsafe { get_schema(stream.as_mut_ptr(), schema.as_mut_ptr()) };
    check(stream, code)?;
    // SAFETY: the producer's schema, filled by its callback.
    let shape = unsafe { format::shape(&schema) }.map_err(StreamError::Type)?;
    let mut chunks = Vec::new();
    // Each array is released once hashed, without the GIL: the C stream
    // interface's consumers (pyarrow's among them) pull and release arrays
    // with it released, so producers take it where they need it.
    loop {
        stop.check().map_err(|_| StreamError::Stopped)?;
        let mut array = Imported::<ArrowArray>::empty();
        // SAFETY: as above, with a released array to fill.
        let code = unsafe { get_next(stream.as_mut_ptr(), array.as_mut_ptr()) };
        check(stream, code)?;
        if !array.is_live() {
            break; // The end of the stream.
        }
        // SAFETY: an array of the stream's type, filled by its producer's
        // callback, held until its digests are made.
        let rows = unsafe { Rows::new(&array, shape) }.map_err(StreamError::Malformed)?;
        chunks.push(Column::hash(rows, output, jobs, stop).map_err(|e| match e {
            Refused::Malformed(m) => StreamError::Malformed(m),
            Refused::Stopped => StreamError::Stopped,
        })?);
    }
    let columns: Vec<&Column> = chunks.iter().collect();
    let exported = Exported::choose(output, shape.layout == Layout::View, &columns);
    chunks.iter().for_each(|c| c.prepare(exported));
    Ok((chunks, exported))
}

/// The producer's error, where `code` (an errno value) is not 0.
fn check(stream: &mut Imported<ArrowArrayStream>, code: i32) -> Result<(), StreamError> {
    if code == 0 {
        return Ok(());
    }
    let message = stream
        .get_last_error
        // SAFETY: a live stream's callback; its result, if not NULL, is a
        // NUL-terminated string valid until the next call on the stream.
        .map(|f| unsafe { f(stream.as_mut_ptr()) })
        .filter(|m| !m.is_null())
        // SAFETY: as above.
        .map(|m| unsafe { CStr::from_ptr(m) }.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(StreamError::Producer(format!(
        "the Arrow stream failed (error {code}){}{message}",
        if message.is_empty() { "" } else { ": " }
    )))
}
