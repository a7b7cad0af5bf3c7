//! One message on the single-stream backend (`crate::compress`): the
//! portable kernel's way with every message, the scheduler's with a lone
//! last one (faster than a mostly idle vector) and with pieces whose layout
//! no lane plan fits, and [`Lanes`](crate::multi::Lanes)' last piece.

use super::pad::{padded_blocks, write_end};
use super::source::{Message, Start};
use md5x_block::pad::{fill_pad, to_bytes};

/// The digest of `msg`, continuing from `start`.
pub(crate) fn digest<'a, M: Message<'a>>(msg: &M, start: Start) -> [u8; 16] {
    let len = msg.len();
    let total = start.len.wrapping_add(len as u64);
    if M::PLAIN {
        return finish_single(start.state, msg.plain(), total);
    }
    let mut state = start.state;
    let run = msg.in_place();
    let mut at = 0;
    while len - at >= 64 {
        match run {
            Some((from, blocks)) if from == at && blocks.len() <= len - at => {
                md5x_block::compress(&mut state, blocks.as_chunks::<64>().0);
                at += blocks.len();
            }
            _ => {
                let mut block = [0u8; 64];
                // SAFETY: `at + 64 <= len`; `block` is 64 bytes of its own.
                unsafe { msg.copy(at, at + 64, block.as_mut_ptr()) };
                md5x_block::compress(&mut state, &[block]);
                at += 64;
            }
        }
    }
    let mut pad = [0u8; 128];
    let blocks = padded_blocks(len - at);
    // SAFETY: fewer than 64 bytes are left, whose padding takes at most the
    // 128 bytes of `pad`, a buffer of its own.
    unsafe { write_end(pad.as_mut_ptr(), msg, at, blocks, total) };
    md5x_block::compress(&mut state, &pad.as_chunks::<64>().0[..blocks]);
    to_bytes(state)
}

/// Finishes one message on the single-stream backend: `rest` (whole blocks
/// first, then a tail under 64 bytes) of a message `total` bytes long.
pub(crate) fn finish_single(mut state: [u32; 4], rest: &[u8], total: u64) -> [u8; 16] {
    let (blocks, tail) = rest.as_chunks::<64>();
    md5x_block::compress(&mut state, blocks);
    let mut pad = [0u8; 128];
    let blocks = fill_pad(&mut pad, tail, total);
    md5x_block::compress(&mut state, &pad.as_chunks::<64>().0[..blocks]);
    to_bytes(state)
}
