//! The AVX-512 kernel's short rows built in registers
//! (`kernel/avx512_rows.rs`), called directly: every block count and every
//! length it takes, at every group count, after a prefix of whole blocks
//! (a start no batch form gives it yet), against `Md5::digest` of the
//! prefix and the row.

extern crate std;

use super::Rng;
use crate::multi::kernel::{Kernel, Row};
use crate::multi::scheduler::pad::padded_blocks;
use crate::multi::scheduler::source::Start;
use crate::{Digest, Md5};
use std::{println, vec::Vec};

#[test]
fn rows_of_every_length_after_a_prefix() {
    let k = Kernel::detect();
    if !k.builds_rows() {
        return println!(
            "skipping rows in registers: the {} kernel does not build them",
            k.name()
        );
    }
    let mut rng = Rng(0x726f_7773_0001);
    let data = rng.bytes(64 * 16 * 64);
    for prefix_blocks in [0, 2] {
        let prefix = rng.bytes(64 * prefix_blocks);
        let mut state = md5x_block::consts::STATE_INIT;
        md5x_block::compress(&mut state, prefix.as_chunks::<64>().0);
        let start = Start {
            state,
            len: prefix.len() as u64,
        };
        for blocks in 1..=4 {
            let lens: Vec<usize> = (0..248).filter(|&n| padded_blocks(n) == blocks).collect();
            // Enough calls at each group count for every length, in
            // scrambled lanes (5 is prime to the 56 or 64 lengths).
            let calls = |n: usize| 0..lens.len().div_ceil(n);
            let sizes = (1..=k.max_groups()).map(|g| (g, k.group_lanes() * g));
            for (groups, call) in
                sizes.flat_map(|(g, n)| calls(n).map(move |c| (g, c * n..c * n + n)))
            {
                let rows: Vec<Row> = call
                    .map(|i| {
                        let len = lens[(i * 5 + groups) % lens.len()];
                        let at = rng.below(data.len() - len);
                        (data[at..].as_ptr(), len)
                    })
                    .collect();
                let mut out = std::vec![[0u8; 16]; rows.len()];
                // SAFETY: the kernel builds rows; each row lies in `data`,
                // of `blocks` blocks with padding, and the prefix is whole
                // blocks.
                unsafe { k.rows(&rows, blocks, start, &mut out) };
                for (&(p, len), got) in rows.iter().zip(&out) {
                    // SAFETY: `p` and `len` were cut from `data` above.
                    let row = unsafe { core::slice::from_raw_parts(p, len) };
                    let want = Md5::new()
                        .chain_update(&prefix)
                        .chain_update(row)
                        .finalize();
                    assert_eq!(
                        got[..],
                        want[..],
                        "{len}-byte row, {groups} groups, {prefix_blocks}-block prefix"
                    );
                }
            }
        }
    }
}
