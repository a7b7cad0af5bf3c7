//! What the `md5` 0.7 and 0.8 packages of this repository share: the
//! [`Digest`] type, and the buffering and padding around the compression
//! function behind their `Context`. `compat/md5-0.7/src/state.rs` is a link
//! to this file.

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

/// A running MD5 computation: the chaining value, the message length in
/// bytes and the bytes of an unfinished block.
#[derive(Clone)]
pub(crate) struct State {
    state: [u32; 4],
    /// Bytes consumed, modulo 2^64 (MD5 appends the length in bits modulo
    /// 2^64, so this keeps every bit it needs).
    len: u64,
    buffer: [u8; 64],
}

impl State {
    #[inline]
    pub(crate) const fn new() -> Self {
        Self {
            state: crate::consts::STATE_INIT,
            len: 0,
            buffer: [0; 64],
        }
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        let pos = (self.len % 64) as usize;
        self.len = self.len.wrapping_add(data.len() as u64);
        if pos != 0 {
            let n = data.len().min(64 - pos);
            self.buffer[pos..pos + n].copy_from_slice(&data[..n]);
            data = &data[n..];
            if pos + n < 64 {
                return;
            }
            crate::compress::compress(&mut self.state, core::slice::from_ref(&self.buffer));
        }
        let (blocks, tail) = data.as_chunks::<64>();
        crate::compress::compress(&mut self.state, blocks);
        self.buffer[..tail.len()].copy_from_slice(tail);
    }

    pub(crate) fn finalize(mut self) -> Digest {
        let pos = (self.len % 64) as usize;
        let bit_len = self.len.wrapping_mul(8).to_le_bytes();
        self.buffer[pos] = 0x80;
        self.buffer[pos + 1..].fill(0);
        if pos >= 56 {
            // No room for the length: it goes in a block of its own.
            crate::compress::compress(&mut self.state, core::slice::from_ref(&self.buffer));
            self.buffer = [0; 64];
        }
        self.buffer[56..].copy_from_slice(&bit_len);
        crate::compress::compress(&mut self.state, core::slice::from_ref(&self.buffer));
        let mut out = [0u8; 16];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Digest(out)
    }
}
