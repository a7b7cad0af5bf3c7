//! The state every room of `md5x::multi` shares: the lanes' chaining values
//! and block pointers, where a batch's messages start from, the most lanes
//! a kernel may have, and a set's first block loaded ahead by the kernel
//! for the scheduler. It imports nothing from `md5x::multi`.

use md5x_block::consts::STATE_INIT;

/// The most lanes a kernel may have: room for four groups of 16 (AVX-512).
pub(crate) const MAX_LANES: usize = 64;

/// Chaining values of up to [`MAX_LANES`] messages, word-major: `rows[0]`
/// holds the `a` word of every lane, so a kernel loads a whole row with one vector
/// load and no transposition.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct LaneStates {
    pub(crate) rows: [[u32; MAX_LANES]; 4],
}

impl LaneStates {
    pub(crate) const fn new() -> Self {
        Self {
            rows: [[0; MAX_LANES]; 4],
        }
    }

    pub(crate) fn get(&self, lane: usize) -> [u32; 4] {
        [
            self.rows[0][lane],
            self.rows[1][lane],
            self.rows[2][lane],
            self.rows[3][lane],
        ]
    }

    pub(crate) fn set(&mut self, lane: usize, v: [u32; 4]) {
        for (row, x) in self.rows.iter_mut().zip(v) {
            row[lane] = x;
        }
    }
}

/// One pointer per lane to the next 64-byte block of that lane's message.
pub(crate) type BlockPtrs = [*const u8; MAX_LANES];

/// The first block of the next set of equal messages, each lane's words
/// loaded and transposed by the call that hashes the set before it, while
/// that set's shared padding block runs (it loads nothing), for the call
/// that hashes the set: at a set's start, its loads and transposition
/// would fill the core's window and leave the steps waiting on them.
#[repr(C, align(64))]
pub(crate) struct SetAhead {
    /// The kernel's words, as its lane vectors lay them out: at most 16
    /// words of [`MAX_LANES`] lanes.
    pub(crate) words: core::mem::MaybeUninit<[u32; 16 * MAX_LANES]>,
    /// How many lanes' words `words` holds: 0 for none.
    pub(crate) lanes: usize,
    /// The first of the pointers they were loaded from.
    pub(crate) first: *const u8,
}

impl SetAhead {
    pub(crate) const fn new() -> Self {
        Self {
            words: core::mem::MaybeUninit::uninit(),
            lanes: 0,
            first: core::ptr::null(),
        }
    }
}

/// The chaining value every message of a batch starts from, after `len`
/// bytes already hashed (a shared prefix's whole blocks).
#[derive(Clone, Copy)]
pub(crate) struct Start {
    pub(crate) state: [u32; 4],
    pub(crate) len: u64,
}

impl Start {
    /// A message's own start: MD5's initial chaining value.
    pub(crate) const INIT: Start = Start {
        state: STATE_INIT,
        len: 0,
    };
}
