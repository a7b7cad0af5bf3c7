//! A column of digests, in the buffers it is exported from: fixed-width
//! values (16 bytes, or 32 hex or 24 base64 characters, a row), the input's
//! validity, and, for the string forms, offsets stepping by the width, made
//! in the offset width an export asks for.

use super::rows::{Rows, Validity};
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
    /// fixed_size_binary(16).
    FixedBinary,
}

impl Exported {
    pub fn format(self) -> &'static CStr {
        match self {
            Self::Utf8 => c"u",
            Self::LargeUtf8 => c"U",
            Self::FixedBinary => c"w:16",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Utf8 => "string",
            Self::LargeUtf8 => "large_string",
            Self::FixedBinary => "fixed_size_binary[16]",
        }
    }

    /// The type of `format`, if a column of `output` can be exported as it.
    pub fn parse(format: &str, output: Output) -> Option<Self> {
        match (format, output) {
            ("w:16", Output::Binary) => Some(Self::FixedBinary),
            ("u", Output::Hex | Output::Base64) => Some(Self::Utf8),
            ("U", Output::Hex | Output::Base64) => Some(Self::LargeUtf8),
            _ => None,
        }
    }
}

/// One column of digests.
pub(crate) struct Column {
    pub output: Output,
    pub len: usize,
    pub values: Vec<u8>,
    pub validity: Option<Validity>,
    offsets32: OnceLock<Vec<i32>>,
    offsets64: OnceLock<Vec<i64>>,
}

impl Column {
    /// Hashes `rows` and writes the digests as `output`.
    pub fn hash(mut rows: Rows<'_>, output: Output) -> Self {
        let len = rows.len();
        let mut values = vec![0u8; len * output.width()];
        match output {
            Output::Binary => rows.digest_into(values.as_chunks_mut().0),
            Output::Hex | Output::Base64 => {
                let mut digests = vec![[0u8; 16]; len];
                rows.digest_into(&mut digests);
                match output {
                    Output::Hex => md5x::multi::hex_into(&digests, values.as_chunks_mut().0),
                    _ => md5x::multi::base64_into(&digests, values.as_chunks_mut().0),
                }
            }
        }
        Self {
            output,
            len,
            values,
            validity: rows.take_validity(),
            offsets32: OnceLock::new(),
            offsets64: OnceLock::new(),
        }
    }

    pub fn nulls(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.nulls)
    }

    /// The type this column is exported as unless asked otherwise.
    pub fn default_type(&self) -> Exported {
        match self.output {
            Output::Binary => Exported::FixedBinary,
            _ if self.fits_utf8() => Exported::Utf8,
            _ => Exported::LargeUtf8,
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

    /// large_utf8's offsets.
    pub fn offsets64(&self) -> &[i64] {
        let width = self.output.width() as i64;
        self.offsets64
            .get_or_init(|| (0..=self.len as i64).map(|i| i * width).collect())
    }
}
