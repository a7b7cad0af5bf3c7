//! A running MD5 computation over a chosen backend: the buffering and
//! padding around the compression function that an API without `digest`
//! (the `md5` crate's `Context`) needs.

use core::marker::PhantomData;

/// A compression backend a [`State`] runs.
pub trait Backend {
    /// Compresses `blocks` into `state`.
    fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]);
}

/// The fastest backend of this build: [`compress`](crate::compress).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fastest;

/// The portable backend: [`soft::compress`](crate::soft::compress).
#[derive(Clone, Copy, Debug, Default)]
pub struct Soft;

impl Backend for Fastest {
    #[inline]
    fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        crate::compress(state, blocks);
    }
}

impl Backend for Soft {
    #[inline]
    fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        crate::soft::compress(state, blocks);
    }
}

/// A running MD5 computation: the chaining value, the message length in
/// bytes and the bytes of an unfinished block.
#[derive(Clone)]
pub struct State<B: Backend = Fastest> {
    state: [u32; 4],
    /// Bytes consumed, modulo 2^64 (MD5 appends the length in bits modulo
    /// 2^64, so this keeps every bit it needs).
    len: u64,
    buffer: [u8; 64],
    backend: PhantomData<B>,
}

/// The state of the empty message, over any backend:
/// `State::<Soft>::default()`.
impl<B: Backend> Default for State<B> {
    #[inline]
    fn default() -> Self {
        Self {
            state: crate::consts::STATE_INIT,
            len: 0,
            buffer: [0; 64],
            backend: PhantomData,
        }
    }
}

impl<B: Backend> core::fmt::Debug for State<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("State { ... }")
    }
}

impl State {
    /// The state of the empty message, over the fastest backend.
    #[inline]
    pub const fn new() -> Self {
        Self {
            state: crate::consts::STATE_INIT,
            len: 0,
            buffer: [0; 64],
            backend: PhantomData,
        }
    }
}

impl<B: Backend> State<B> {
    /// Appends `data` to the message.
    pub fn update(&mut self, mut data: &[u8]) {
        let pos = (self.len % 64) as usize;
        self.len = self.len.wrapping_add(data.len() as u64);
        if pos != 0 {
            let n = data.len().min(64 - pos);
            self.buffer[pos..pos + n].copy_from_slice(&data[..n]);
            data = &data[n..];
            if pos + n < 64 {
                return;
            }
            B::compress(&mut self.state, core::slice::from_ref(&self.buffer));
        }
        let (blocks, tail) = data.as_chunks::<64>();
        B::compress(&mut self.state, blocks);
        self.buffer[..tail.len()].copy_from_slice(tail);
    }

    /// Pads the message and returns its digest.
    pub fn finalize(mut self) -> [u8; 16] {
        let pos = (self.len % 64) as usize;
        let bit_len = self.len.wrapping_mul(8).to_le_bytes();
        self.buffer[pos] = 0x80;
        self.buffer[pos + 1..].fill(0);
        if pos >= 56 {
            // No room for the length: it goes in a block of its own.
            B::compress(&mut self.state, core::slice::from_ref(&self.buffer));
            self.buffer = [0; 64];
        }
        self.buffer[56..].copy_from_slice(&bit_len);
        B::compress(&mut self.state, core::slice::from_ref(&self.buffer));
        crate::pad::to_bytes(self.state)
    }
}

#[cfg(test)]
mod tests {
    use super::{Backend, Fastest, Soft, State};
    use crate::soft::digest;
    use md5x_testkit::{rfc::RFC1321, Rng};

    #[test]
    fn known_answers() {
        for (msg, want) in RFC1321 {
            let mut state = State::new();
            state.update(msg);
            assert_eq!(state.finalize(), want);
        }
    }

    /// Every length to 200 (the padding's edges at 55, 56 and 64 among
    /// them), fed in random pieces, against the one-shot `const` digest.
    fn pieces_match<B: Backend + Clone>(seed: u64) {
        let mut rng = Rng(seed);
        for len in 0..=200 {
            let msg = rng.bytes(len);
            let mut state = State::<B>::default();
            let mut rest = &msg[..];
            while !rest.is_empty() {
                let (piece, tail) = rest.split_at(rng.below(rest.len() + 1));
                state.update(piece);
                rest = tail;
            }
            assert_eq!(state.clone().finalize(), digest(&msg), "{len} bytes");
        }
    }

    #[test]
    fn pieces_match_the_const_digest() {
        pieces_match::<Fastest>(0x5747_0001);
        pieces_match::<Soft>(0x5747_0002);
    }
}
