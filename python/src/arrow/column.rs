//! A column of digests, in the buffers it is exported from: fixed-width
//! values (16 bytes, or 32 hex or 24 base64 characters, a row), the input's
//! validity, and, for the string forms, offsets stepping by the width or
//! views of each row, made for the type an export asks for.

use super::rows::{Refused, Rows, Scratch, Validity};
use crate::stop::Stop;
use std::ffi::CStr;
use std::sync::OnceLock;

/// What `hash_array` writes for each row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
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
pub(crate) enum Exported {
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
pub(crate) struct Views {
    pub views: Vec<[u8; 16]>,
    /// Where each data buffer starts in the values.
    pub starts: Vec<usize>,
    /// Each data buffer's size, the C interface's last buffer.
    pub sizes: Vec<i64>,
}

/// One column of digests.
pub(crate) struct Column {
    pub output: Output,
    pub len: usize,
    pub values: Vec<u8>,
    pub validity: Option<Validity>,
    offsets32: OnceLock<Vec<i32>>,
    offsets64: OnceLock<Vec<i64>>,
    views: OnceLock<Views>,
}

impl Column {
    /// Hashes `rows` and writes the digests as `output`, `CHUNK` rows at
    /// a time: the digests of a chunk stay in cache until encoded, and no
    /// buffer of every digest is made (its pages would cost more than its
    /// copies). Gives up with `Stopped` between steps once `stop` is set.
    ///
    /// The digests' buffer is allocated only if its size fits and the
    /// memory is there: `Malformed` otherwise (the rows, checked already,
    /// are then in memory, so this is a true lack of memory, not a length
    /// made up).
    pub fn hash(mut rows: Rows<'_>, output: Output, stop: &Stop) -> Result<Self, Refused> {
        const CHUNK: usize = 4096;
        let len = rows.len();
        let width = output.width();
        let size = len
            .checked_mul(width)
            .filter(|&s| s <= isize::MAX as usize)
            .ok_or_else(|| format!("{len} rows of digests cannot be held in memory"))?;
        let mut values = Vec::new();
        values
            .try_reserve_exact(size)
            .map_err(|_| format!("no memory for {len} digests ({size} bytes)"))?;
        values.resize(size, 0u8);
        let mut digests = vec![[0u8; 16]; CHUNK.min(len)];
        let mut scratch = Scratch::default();
        for (i, out) in values.chunks_mut(CHUNK * width).enumerate() {
            let (start, n) = (i * CHUNK, out.len() / width);
            let digests = &mut digests[..n];
            match output {
                Output::Binary => {
                    rows.digest_range_into(start, out.as_chunks_mut().0, &mut scratch, stop)?
                }
                Output::Hex => {
                    rows.digest_range_into(start, digests, &mut scratch, stop)?;
                    md5x::multi::hex_into(digests, out.as_chunks_mut().0);
                }
                Output::Base64 => {
                    rows.digest_range_into(start, digests, &mut scratch, stop)?;
                    md5x::multi::base64_into(digests, out.as_chunks_mut().0);
                }
            }
        }
        Ok(Self {
            output,
            len,
            values,
            validity: rows.take_validity(),
            offsets32: OnceLock::new(),
            offsets64: OnceLock::new(),
            views: OnceLock::new(),
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

    /// utf8_view's views: every row is 24 or 32 bytes, past the 12 that
    /// fit in a view, so each is its length, its first 4 bytes, a buffer
    /// index and an offset.
    pub fn views(&self) -> &Views {
        self.views.get_or_init(|| {
            let width = self.output.width();
            let per_buffer = i32::MAX as usize / width;
            let buffers = self.len.div_ceil(per_buffer);
            let starts: Vec<usize> = (0..buffers).map(|b| b * per_buffer * width).collect();
            let sizes = (0..buffers)
                .map(|b| ((self.len - b * per_buffer).min(per_buffer) * width) as i64)
                .collect();
            // Buffer by buffer, so that no row needs a division.
            let mut views = Vec::with_capacity(self.len);
            for (b, &start) in starts.iter().enumerate() {
                let rows = (self.len - b * per_buffer).min(per_buffer);
                let values = &self.values[start..start + rows * width];
                views.extend(values.chunks_exact(width).enumerate().map(|(j, value)| {
                    let mut view = [0u8; 16];
                    view[0..4].copy_from_slice(&(width as i32).to_le_bytes());
                    view[4..8].copy_from_slice(&value[..4]);
                    view[8..12].copy_from_slice(&(b as i32).to_le_bytes());
                    view[12..16].copy_from_slice(&((j * width) as i32).to_le_bytes());
                    view
                }));
            }
            Views {
                views,
                starts,
                sizes,
            }
        })
    }

    /// large_utf8's offsets.
    pub fn offsets64(&self) -> &[i64] {
        let width = self.output.width() as i64;
        self.offsets64
            .get_or_init(|| (0..=self.len as i64).map(|i| i * width).collect())
    }
}
