//! The [`Digest`] type: 16 bytes, formatted as hex as the `md5` crate
//! formats them.

use core::fmt;
use core::ops::{Deref, DerefMut};

/// A digest.
#[derive(Clone, Copy, Eq, Hash, PartialEq)]
pub struct Digest(pub [u8; 16]);

impl From<Digest> for [u8; 16] {
    #[inline]
    fn from(digest: Digest) -> Self {
        digest.0
    }
}

impl Deref for Digest {
    type Target = [u8; 16];

    #[inline]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Digest {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// Writes the 32 hex digits, ignoring width, fill and `#`, as the `md5`
/// crate does.
fn write_hex(digest: &Digest, f: &mut fmt::Formatter<'_>, alphabet: &[u8; 16]) -> fmt::Result {
    let mut out = [0u8; 32];
    for (pair, byte) in out.chunks_exact_mut(2).zip(digest.0) {
        pair[0] = alphabet[usize::from(byte >> 4)];
        pair[1] = alphabet[usize::from(byte & 0xf)];
    }
    // Every byte is an ASCII hex digit.
    f.write_str(core::str::from_utf8(&out).map_err(|_| fmt::Error)?)
}

impl fmt::LowerHex for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(self, f, b"0123456789abcdef")
    }
}

impl fmt::UpperHex for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(self, f, b"0123456789ABCDEF")
    }
}

/// Lowercase hex, as `{:x}`.
impl fmt::Debug for Digest {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(self, f)
    }
}
