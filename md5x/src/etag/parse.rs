//! [`Etag`]'s `FromStr`: S3's form, with or without its double quotes.

use super::Etag;
use core::{fmt, num::NonZeroU64, str::FromStr};

/// Why a string is not an ETag, from [`Etag`]'s `FromStr`.
///
/// ```
/// use md5x::etag::{Etag, ParseEtagError};
///
/// let e = "\"d41d8cd98f00b204e9800998ecf8427e-2".parse::<Etag>().unwrap_err();
/// assert_eq!(e, ParseEtagError::Quotes);
/// assert_eq!(
///     "d41d8cd98f00b204e9800998ecf8427e-0".parse::<Etag>(),
///     Err(ParseEtagError::PartCount)
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseEtagError {
    /// A double quote at one end only, or one inside.
    Quotes,
    /// It does not start with 32 hexadecimal digits followed by `-` or the
    /// end.
    Digest,
    /// What follows the `-` is not a part count: a decimal number from 1
    /// to `u64::MAX`, without sign, leading zeros or anything after it.
    PartCount,
}

impl fmt::Display for ParseEtagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseEtagError::Quotes => {
                "an ETag has double quotes at both ends or at neither, and none inside"
            }
            ParseEtagError::Digest => {
                "an ETag is 32 hexadecimal digits, then '-' and the part count or nothing"
            }
            ParseEtagError::PartCount => {
                "an ETag's part count, after the '-', is a decimal number from 1 to \
                 18446744073709551615 without sign or leading zeros"
            }
        })
    }
}

impl core::error::Error for ParseEtagError {}

impl FromStr for Etag {
    type Err = ParseEtagError;

    /// Reads `<32 hex digits>-<N>` (a multipart upload's ETag) or `<32 hex
    /// digits>` (an object uploaded whole), either in double quotes as S3
    /// returns it. Nothing else is accepted: no spaces, no weak `W/` prefix.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.as_bytes();
        let inner = match (s.first(), s.last()) {
            (Some(b'"'), Some(b'"')) if s.len() >= 2 => &s[1..s.len() - 1],
            (Some(b'"'), _) | (_, Some(b'"')) => return Err(ParseEtagError::Quotes),
            _ => s,
        };
        if inner.contains(&b'"') {
            return Err(ParseEtagError::Quotes);
        }
        let (hex, count) = match inner.get(32) {
            None if inner.len() == 32 => (inner, None),
            Some(b'-') => (&inner[..32], Some(&inner[33..])),
            _ => return Err(ParseEtagError::Digest),
        };
        let mut digest = [0u8; 16];
        for (byte, pair) in digest.iter_mut().zip(hex.chunks_exact(2)) {
            let (Some(hi), Some(lo)) = (hex_value(pair[0]), hex_value(pair[1])) else {
                return Err(ParseEtagError::Digest);
            };
            *byte = hi << 4 | lo;
        }
        match count {
            None => Ok(Etag::from_md5(digest)),
            Some(count) => Ok(Etag::multipart(digest, part_count(count)?)),
        }
    }
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// A part count as `Display` writes it: decimal digits, the first not 0.
fn part_count(digits: &[u8]) -> Result<NonZeroU64, ParseEtagError> {
    if digits.first().is_none_or(|&d| d == b'0') {
        return Err(ParseEtagError::PartCount);
    }
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return Err(ParseEtagError::PartCount);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
            .ok_or(ParseEtagError::PartCount)?;
    }
    NonZeroU64::new(n).ok_or(ParseEtagError::PartCount)
}
