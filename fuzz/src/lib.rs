//! What the fuzz targets share: a reader for the control bytes at the front
//! of an input, and the test oracle, an MD5 built here from the portable
//! compression function alone (its own padding and length, none of the
//! crate's buffering or finalization code).

/// Reads control values from the front of a fuzz input; past the end it
/// yields zeros, so every input is valid.
pub struct Cursor<'a> {
    data: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Everything not read yet.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// On an AVX-512 CPU, makes the AVX-512 kernel run 1 to 4 groups (16 to 64
/// lanes), chosen by the input's length so that its bytes parse as they
/// always have: the targets meet every width that kernel can have.
pub fn vary_avx512_width(data: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if md5::multi::__bench::kernels().any(|k| k == "avx512") {
        md5::multi::__bench::set_avx512_groups(1 + data.len() % 4);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// The one kernel of [`md5::multi::__bench::kernels`] an input checks
/// against its oracle besides the one the build selects, chosen by the
/// input's length (apart from `vary_avx512_width`'s choice): one kernel an
/// execution, not all of them, keeps executions cheap, and the inputs of a
/// run meet every kernel.
pub fn one_kernel(data: &[u8]) -> &'static str {
    let kernels: Vec<&'static str> = md5::multi::__bench::kernels().collect();
    kernels[data.len() / 4 % kernels.len()]
}

/// `len` bytes made from `pool` repeated (zeros for an empty pool), each
/// repetition offset by its index so that long messages do not repeat with
/// a period of one block.
pub fn fill(pool: &[u8], len: usize) -> Vec<u8> {
    if pool.is_empty() {
        return vec![0; len];
    }
    // Repetition by repetition, with no division per byte (it cost more
    // than the hashing of short batches, under the sanitizer).
    let mut out = Vec::with_capacity(len);
    for r in 0.. {
        let take = pool.len().min(len - out.len());
        out.extend(pool[..take].iter().map(|b| b.wrapping_add(r as u8)));
        if out.len() == len {
            break;
        }
    }
    out
}

/// MD5 of `msg` from `md5::__soft_compress` and RFC 1321's padding, written
/// out here: the oracle for everything that is not the soft backend itself.
pub fn soft_digest(msg: &[u8]) -> [u8; 16] {
    let mut state = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut padded = msg.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((msg.len() as u64).wrapping_mul(8)).to_le_bytes());
    md5::__soft_compress(&mut state, &blocks(&padded));
    let mut out = [0; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// The whole 64-byte blocks of `data`.
pub fn blocks(data: &[u8]) -> Vec<[u8; 64]> {
    data.chunks_exact(64)
        .map(|c| c.try_into().unwrap())
        .collect()
}
