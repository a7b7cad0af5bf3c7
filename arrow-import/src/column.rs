//! A column of digests, in the buffers it is exported from: fixed-width
//! values (16 bytes, or 32 hex or 24 base64 characters, a row), the input's
//! validity, and, for the string forms, offsets stepping by the width or
//! views of each row, made for the type an export asks for (a view
//! input's views while it is hashed). A column of many rows is hashed in
//! parts of consecutive rows, on threads of their own.

use crate::rows::{Refused, Rows, Scratch, Validity};
use crate::stop::Stop;
use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::sync::{Mutex, OnceLock};

/// What `hash_array` writes for each row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// 32 lowercase hex digits, in a utf8 (or large_utf8) column.
    Hex,
    /// The 16-byte digest, in a fixed_size_binary(16) column.
    Binary,
    /// 24 base64 characters, padded (HTTP's Content-MD5), in a utf8 (or
    /// large_utf8) column.
    Base64,
}

impl Output {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "hex" => Some(Self::Hex),
            "binary" => Some(Self::Binary),
            "base64" => Some(Self::Base64),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Hex => "hex",
            Self::Binary => "binary",
            Self::Base64 => "base64",
        }
    }

    /// Bytes a row.
    pub fn width(self) -> usize {
        match self {
            Self::Hex => 32,
            Self::Binary => 16,
            Self::Base64 => 24,
        }
    }
}

/// The Arrow type a column of digests is exported as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exported {
    /// utf8, i32 offsets: while `width × rows` fits in an i32.
    Utf8,
    /// large_utf8, i64 offsets: past that (67,108,864 rows of hex).
    LargeUtf8,
    /// utf8_view: for a view input (Polars' strings, DataFusion's), whose
    /// consumers then take the digests without building views themselves.
    Utf8View,
    /// fixed_size_binary(16).
    FixedBinary,
}

impl Exported {
    /// The type digests of `output` are exported as unless a consumer asks
    /// otherwise: strings in the input's family (views for views), large
    /// ones where utf8's i32 offsets would overflow.
    pub fn choose(output: Output, views: bool, columns: &[&Column]) -> Self {
        match output {
            Output::Binary => Self::FixedBinary,
            _ if views => Self::Utf8View,
            _ if columns.iter().all(|c| c.fits_utf8()) => Self::Utf8,
            _ => Self::LargeUtf8,
        }
    }

    pub fn format(self) -> &'static CStr {
        match self {
            Self::Utf8 => c"u",
            Self::LargeUtf8 => c"U",
            Self::Utf8View => c"vu",
            Self::FixedBinary => c"w:16",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Utf8 => "string",
            Self::LargeUtf8 => "large_string",
            Self::Utf8View => "string_view",
            Self::FixedBinary => "fixed_size_binary[16]",
        }
    }

    /// The type of `format`, if a column of `output` can be exported as it.
    pub fn parse(format: &str, output: Output) -> Option<Self> {
        match (format, output) {
            ("w:16", Output::Binary) => Some(Self::FixedBinary),
            ("u", Output::Hex | Output::Base64) => Some(Self::Utf8),
            ("U", Output::Hex | Output::Base64) => Some(Self::LargeUtf8),
            ("vu", Output::Hex | Output::Base64) => Some(Self::Utf8View),
            _ => None,
        }
    }
}

/// A utf8_view column's views and data buffers over one values buffer:
/// each buffer at most `i32::MAX` bytes, as a view's offset is an i32.
pub struct Views {
    pub views: Vec<[u8; 16]>,
    /// Where each data buffer starts in the values.
    pub starts: Vec<usize>,
    /// Each data buffer's size, the C interface's last buffer.
    pub sizes: Vec<i64>,
}

/// One column of digests.
pub struct Column {
    pub output: Output,
    pub len: usize,
    pub values: Vec<u8>,
    pub validity: Option<Validity>,
    offsets32: OnceLock<Vec<i32>>,
    offsets64: OnceLock<Vec<i64>>,
    views: OnceLock<Views>,
}

impl Column {
    /// Hashes `rows` and writes the digests as `output`, on up to `jobs`
    /// threads (this one among them) where the column has many rows:
    /// each part of `PART_ROWS` or more consecutive rows is hashed into
    /// its own part of the buffers by `hash_part`. For a view input the
    /// views of hex or base64 digests are written as the digests come,
    /// since a view input's digests are exported as views
    /// ([`Exported::choose`]). Gives up with `Stopped` between steps once
    /// `stop` is set.
    ///
    /// The digests' buffers are allocated only if their sizes fit and the
    /// memory is there: `Malformed` otherwise (the rows, checked already,
    /// are then in memory, so this is a true lack of memory, not a length
    /// made up). They are written once, not zeroed first.
    pub fn hash(
        mut rows: Rows<'_>,
        output: Output,
        jobs: usize,
        stop: &Stop,
    ) -> Result<Self, Refused> {
        let len = rows.len();
        let width = output.width();
        let mut values = reserve::<u8>(len, width, "digests")?;
        let mut views = if rows.is_views() && output != Output::Binary {
            Some(reserve::<[u8; 16]>(len, 1, "views")?)
        } else {
            None
        };
        let parts = jobs.min(len / PART_ROWS).max(1);
        // Whole chunks a part, but for the last (none for no rows).
        let per_part = len.div_ceil(parts).next_multiple_of(CHUNK).max(CHUNK);
        let mut view_parts = views
            .as_mut()
            .map(|v| v.spare_capacity_mut()[..len].chunks_mut(per_part));
        let parts: Vec<Mutex<Option<Part<'_>>>> = values.spare_capacity_mut()[..len * width]
            .chunks_mut(per_part * width)
            .enumerate()
            .map(|(i, values)| {
                let views = view_parts.as_mut().and_then(Iterator::next);
                Mutex::new(Some(Part {
                    first: i * per_part,
                    values,
                    views,
                }))
            })
            .collect();
        hash_parts(&rows, &parts, output, stop)?;
        // SAFETY: `hash_parts` returned `Ok`, so every part was hashed
        // whole (`hash_part` writes every item of its part, or fails):
        // the first `len * width` bytes of `values`' capacity, and the
        // first `len` views of `views`' where there are views, are
        // written.
        unsafe {
            values.set_len(len * width);
            if let Some(views) = &mut views {
                views.set_len(len);
            }
        }
        let made = OnceLock::new();
        if let Some(views) = views {
            drop(made.set(Views::new(views, len, width)));
        }
        Ok(Self {
            output,
            len,
            values,
            validity: rows.take_validity(),
            offsets32: OnceLock::new(),
            offsets64: OnceLock::new(),
            views: made,
        })
    }

    pub fn nulls(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.nulls)
    }

    /// Makes the buffers an export as `exported` reads, once: hashing
    /// threads call this without the GIL, so exports find them made.
    pub fn prepare(&self, exported: Exported) {
        match exported {
            Exported::Utf8 => drop(self.offsets32()),
            Exported::LargeUtf8 => drop(self.offsets64()),
            Exported::Utf8View => drop(self.views()),
            Exported::FixedBinary => {}
        }
    }

    /// Whether its characters fit utf8's i32 offsets.
    pub fn fits_utf8(&self) -> bool {
        self.values.len() <= i32::MAX as usize
    }

    /// utf8's offsets: 0, width, 2 × width, ... (`fits_utf8` checked).
    pub fn offsets32(&self) -> &[i32] {
        let width = self.output.width() as i32;
        self.offsets32
            .get_or_init(|| (0..=self.len as i32).map(|i| i * width).collect())
    }

    /// utf8_view's views of the digests (made while hashing for a view
    /// input, else here).
    pub fn views(&self) -> &Views {
        self.views.get_or_init(|| {
            let width = self.output.width();
            let mut place = ViewPlace::at(0, width);
            let views = self.values.chunks_exact(width).map(|v| place.next(v));
            Views::new(views.collect(), self.len, width)
        })
    }

    /// large_utf8's offsets.
    pub fn offsets64(&self) -> &[i64] {
        let width = self.output.width() as i64;
        self.offsets64
            .get_or_init(|| (0..=self.len as i64).map(|i| i * width).collect())
    }
}

/// An empty vector with room for `len` items of `width` `T`s, if that
/// many fit in memory: the digests' text, or their views.
fn reserve<T>(len: usize, width: usize, what: &str) -> Result<Vec<T>, String> {
    let size = len
        .checked_mul(width)
        .filter(|&s| {
            s.checked_mul(size_of::<T>())
                .is_some_and(|b| b <= isize::MAX as usize)
        })
        .ok_or_else(|| format!("{len} rows of {what} cannot be held in memory"))?;
    let mut vector = Vec::new();
    vector
        .try_reserve_exact(size)
        .map_err(|_| format!("no memory for {len} {what} ({size} items)"))?;
    Ok(vector)
}

/// Rows of a chunk: hashed, encoded and written at once, its digests
/// staying in cache until encoded (no buffer of every digest is made: its
/// pages would cost more than its copies).
const CHUNK: usize = 4096;

/// The fewest rows a part hashed on a thread of its own has: at least
/// 2 MiB of work (a block a row), some hundreds of microseconds, against a
/// thread's start of tens.
const PART_ROWS: usize = 1 << 15;

/// Consecutive rows of a column, from row `first`, and where their
/// digests (and views, where there are) go: memory not yet written.
struct Part<'p> {
    first: usize,
    values: &'p mut [MaybeUninit<u8>],
    views: Option<&'p mut [MaybeUninit<[u8; 16]>]>,
}

/// Hashes every part of `parts`: this thread takes them in order, and up
/// to one thread each for the others takes one too, so a part runs once,
/// on whichever thread takes it first (where no thread starts, this one
/// hashes them all). `Ok` once every part is written whole; else the
/// error of the first part that failed (`Malformed` before `Stopped`).
fn hash_parts(
    rows: &Rows<'_>,
    parts: &[Mutex<Option<Part<'_>>>],
    output: Output,
    stop: &Stop,
) -> Result<(), Refused> {
    let run = |i: usize| {
        let part = parts[i].lock().ok()?.take()?;
        Some((i, hash_part(rows, part, output, stop)))
    };
    let mut done: Vec<(usize, Result<(), Refused>)> = std::thread::scope(|s| {
        let threads: Vec<_> = (1..parts.len())
            .filter_map(|i| {
                let thread = std::thread::Builder::new().name("md5x-arrow".into());
                thread.spawn_scoped(s, move || run(i)).ok()
            })
            .collect();
        let mut done: Vec<_> = (0..parts.len()).filter_map(run).collect();
        for thread in threads {
            // A panic (a bug) goes on as if here, for the caller to catch.
            done.extend(
                thread
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        done
    });
    done.sort_by_key(|&(i, _)| i);
    let mut stopped = false;
    for (_, result) in &mut done {
        match std::mem::replace(result, Ok(())) {
            Ok(()) => {}
            Err(Refused::Stopped) => stopped = true,
            Err(malformed) => return Err(malformed),
        }
    }
    if stopped {
        return Err(Refused::Stopped);
    }
    if done.len() != parts.len() {
        return Err(Refused::Malformed(format!(
            "internal error: {} of {} parts hashed",
            done.len(),
            parts.len()
        )));
    }
    Ok(())
}

/// Hashes the rows of `part`, `CHUNK` at a time, and writes every item of
/// its digests (and views); or fails, having written some.
fn hash_part(rows: &Rows<'_>, part: Part<'_>, output: Output, stop: &Stop) -> Result<(), Refused> {
    let width = output.width();
    let n = part.values.len() / width;
    let mut digests = vec![[0u8; 16]; CHUNK.min(n)];
    let mut text = vec![0u8; CHUNK.min(n) * width];
    let mut scratch = Scratch::default();
    let mut place = ViewPlace::at(part.first, width);
    let mut views = part.views.map(|v| v.chunks_mut(CHUNK));
    for (i, out) in part.values.chunks_mut(CHUNK * width).enumerate() {
        let digests = &mut digests[..out.len() / width];
        rows.digest_range_into(part.first + i * CHUNK, digests, &mut scratch, stop)?;
        let text = &mut text[..out.len()];
        let encoded: &[u8] = match output {
            Output::Binary => digests.as_flattened(),
            Output::Hex => {
                md5x::multi::hex_into(digests, text.as_chunks_mut().0);
                text
            }
            Output::Base64 => {
                md5x::multi::base64_into(digests, text.as_chunks_mut().0);
                text
            }
        };
        // As long as `out`: every item written.
        for (slot, &byte) in out.iter_mut().zip(encoded) {
            slot.write(byte);
        }
        // The views of the same rows, as many.
        if let Some(views) = views.as_mut().and_then(Iterator::next) {
            for (slot, value) in views.iter_mut().zip(encoded.chunks_exact(width)) {
                slot.write(place.next(value));
            }
        }
    }
    Ok(())
}

impl Views {
    /// The views of `len` rows of `width` bytes, and the data buffers
    /// [`ViewPlace`] cuts their values into.
    fn new(views: Vec<[u8; 16]>, len: usize, width: usize) -> Self {
        let per_buffer = i32::MAX as usize / width;
        let buffers = len.div_ceil(per_buffer);
        Self {
            views,
            starts: (0..buffers).map(|b| b * per_buffer * width).collect(),
            sizes: (0..buffers)
                .map(|b| ((len - b * per_buffer).min(per_buffer) * width) as i64)
                .collect(),
        }
    }
}

/// Where the utf8_view view of each row of digests points, row after row,
/// `width` bytes a row: every row is 24 or 32 bytes, past the 12 that fit
/// in a view, so each view is its length, its first 4 bytes, a data
/// buffer's index and an offset in it. The data buffers are windows of
/// the one values buffer, each of at most `i32::MAX` bytes (a view's
/// offset is an i32), `per_buffer` rows each.
struct ViewPlace {
    width: usize,
    per_buffer: usize,
    /// The buffer the next row is in, and its place there.
    buffer: usize,
    row: usize,
}

impl ViewPlace {
    /// The place of row `first`.
    fn at(first: usize, width: usize) -> Self {
        let per_buffer = i32::MAX as usize / width;
        Self {
            width,
            per_buffer,
            buffer: first / per_buffer,
            row: first % per_buffer,
        }
    }

    /// The view of the next row, whose value is `value`.
    fn next(&mut self, value: &[u8]) -> [u8; 16] {
        if self.row == self.per_buffer {
            (self.buffer, self.row) = (self.buffer + 1, 0);
        }
        let prefix = u32::from_le_bytes([value[0], value[1], value[2], value[3]]);
        // Both below `i32::MAX`: `per_buffer` rows of `width` bytes fit
        // in an i32, and buffers are fewer than rows.
        let (buffer, offset) = (self.buffer as u32, (self.row * self.width) as u32);
        self.row += 1;
        let view = self.width as u128
            | (prefix as u128) << 32
            | (buffer as u128) << 64
            | (offset as u128) << 96;
        view.to_le_bytes()
    }
}
