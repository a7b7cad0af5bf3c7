//! The single-stream compression function. This module is the one place that
//! chooses its backend; everything else calls [`compress`].

pub(crate) mod soft; // always built: the fallback, the test oracle, const_digest

cfg_if::cfg_if! {
    // Miri cannot run inline asm.
    if #[cfg(any(md5_backend = "soft", feature = "force-soft", miri))] {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    } else if #[cfg(target_arch = "x86_64")] {
        mod x86_64_asm;
        use x86_64_asm::compress as compress_inner;
        const BACKEND: &str = "x86_64-asm";
    } else if #[cfg(all(target_arch = "aarch64", target_endian = "little"))] {
        mod aarch64_asm;
        use aarch64_asm::compress as compress_inner;
        const BACKEND: &str = "aarch64-asm";
    } else if #[cfg(target_arch = "loongarch64")] {
        mod loongarch64_asm;
        use loongarch64_asm::compress as compress_inner;
        const BACKEND: &str = "loongarch64-asm";
    } else {
        use soft::compress as compress_inner;
        const BACKEND: &str = "soft";
    }
}

/// Compresses `blocks` into `state` with the backend chosen for this build.
#[inline]
pub(crate) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress_inner(state, blocks);
}

/// The name of the backend [`compress`] runs.
pub(crate) const fn backend() -> &'static str {
    BACKEND
}

// The tests' seeded generator, shared with the crate's other unit tests;
// each package under compat/ that compiles this file has a link to it at
// tests/common/rng.rs.
#[cfg(test)]
#[path = "../tests/common/rng.rs"]
pub(crate) mod test_rng;

/// Checks a backend's `compress` against [`soft::compress`] on seeded random
/// input: no blocks, one block, many blocks, and a run of single blocks
/// threaded through the same state. Each backend's own test calls this.
#[cfg(test)]
pub(crate) fn check_against_soft(backend: fn(&mut [u32; 4], &[[u8; 64]])) {
    let mut rng = test_rng::Rng(0x0123_4567_89ab_cdef);
    let mut blocks = [[0u8; 64]; 37];
    for block in blocks.iter_mut() {
        for byte in block.iter_mut() {
            *byte = rng.next() as u8;
        }
    }
    // Edge patterns: all zero and all ones.
    blocks[1] = [0; 64];
    blocks[2] = [0xff; 64];
    for n in 0..=blocks.len() {
        let init = [0; 4].map(|_: u32| rng.next() as u32);
        let (mut want, mut got) = (init, init);
        soft::compress(&mut want, &blocks[..n]);
        backend(&mut got, &blocks[..n]);
        assert_eq!(got, want, "{n} blocks");
    }
    let (mut want, mut got) = (crate::consts::STATE_INIT, crate::consts::STATE_INIT);
    for block in &blocks {
        soft::compress(&mut want, core::slice::from_ref(block));
        backend(&mut got, core::slice::from_ref(block));
        assert_eq!(got, want);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn selected_backend_matches_soft() {
        super::check_against_soft(super::compress);
    }
}
