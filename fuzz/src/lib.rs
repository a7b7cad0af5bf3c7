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

/// Every kernel the CPU has, the AVX-512 one at 1 to 4 groups (16 to 64
/// lanes), chosen by the input's length so that its bytes parse as they
/// always have: the targets meet every width that kernel can have.
pub fn kernels(data: &[u8]) -> impl Iterator<Item = md5::multi::kernel_choice::Choice> {
    let groups = 1 + data.len() % 4;
    md5::multi::kernel_choice::kernels().map(move |name| {
        let choice = md5::multi::kernel_choice::Choice::new(name);
        match name {
            "avx512" => choice.groups(groups),
            _ => choice,
        }
    })
}

/// The one kernel of [`kernels`] an input checks against its oracle besides
/// the one the build selects, chosen by the input's length: one kernel an
/// execution, not all of them, keeps executions cheap, and the inputs of a
/// run meet every kernel at every AVX-512 width.
pub fn one_kernel(data: &[u8]) -> md5::multi::kernel_choice::Choice {
    let count = md5::multi::kernel_choice::kernels().count();
    kernels(data)
        .nth(data.len() / 4 % count)
        .expect("every CPU has the portable kernel")
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

/// MD5 of `msg` from `md5x_block::soft::compress` and RFC 1321's padding, written
/// out here: the oracle for everything that is not the soft backend itself.
/// The whole blocks are read in place; only the padded tail is copied.
pub fn soft_digest(msg: &[u8]) -> [u8; 16] {
    let mut state = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let (whole, tail) = msg.as_chunks::<64>();
    md5x_block::soft::compress(&mut state, whole);
    // The tail, the marker, zeros to 56 bytes into a block, the bit length.
    let mut padded = [0u8; 128];
    padded[..tail.len()].copy_from_slice(tail);
    padded[tail.len()] = 0x80;
    let end = if tail.len() < 56 { 64 } else { 128 };
    padded[end - 8..end].copy_from_slice(&((msg.len() as u64).wrapping_mul(8)).to_le_bytes());
    md5x_block::soft::compress(&mut state, &padded.as_chunks::<64>().0[..end / 64]);
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
