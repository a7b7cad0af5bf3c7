//! What the scheduler hashes: a batch of messages (a [`Source`]), each a
//! [`Message`], which is one slice or pieces hashed as their concatenation.
//! Every public batch function is a `Source`: slices of the caller's
//! containers here, Arrow offsets in `forms/offsets.rs`, Arrow views in
//! `forms/views.rs`, pieces in `forms/pieces.rs`.

pub(crate) use crate::multi::lane_state::Start;

/// One message as the scheduler reads it: its length, copies of its bytes,
/// and the whole blocks it can hash in place, from the caller's memory.
pub(crate) trait Message<'a>: Copy + Default {
    /// Whether every message of this type is one slice,
    /// [`Message::plain`]: then whole-block messages of one length share
    /// their padding block, and run as one kernel call a set.
    const PLAIN: bool;

    /// The length in bytes (of the concatenation).
    fn len(&self) -> usize;

    /// The message as one slice. Only called where [`Message::PLAIN`].
    fn plain(&self) -> &'a [u8];

    /// A run of whole blocks that can be hashed in place: its byte offset
    /// in the message, a multiple of 64, and its bytes, a non-zero
    /// multiple of 64 long; `None` if there is none.
    fn in_place(&self) -> Option<(usize, &'a [u8])>;

    /// Copies bytes `from..to` of the message to `dst`.
    ///
    /// # Safety
    ///
    /// `from <= to <= self.len()`, and `dst` is valid for writes of `to -
    /// from` bytes and overlaps none of the message's bytes.
    unsafe fn copy(&self, from: usize, to: usize, dst: *mut u8);

    /// Asks the CPU to bring the first 256 bytes of the message and its
    /// last byte into cache, for its hashing soon after, when its bucket
    /// fills (`buckets.rs`). Nothing by default.
    #[inline(always)]
    fn prefetch(&self) {}
}

impl<'a> Message<'a> for &'a [u8] {
    const PLAIN: bool = true;

    #[inline(always)]
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    #[inline(always)]
    fn plain(&self) -> &'a [u8] {
        self
    }

    #[inline(always)]
    fn in_place(&self) -> Option<(usize, &'a [u8])> {
        let whole = self.len() / 64;
        (whole > 0).then(|| (0, &self[..64 * whole]))
    }

    #[inline(always)]
    unsafe fn copy(&self, from: usize, to: usize, dst: *mut u8) {
        // SAFETY: the caller vouches for `to - from` bytes at `dst`, apart
        // from the message.
        unsafe { super::copy::copy_bytes(&self[from..to], dst) }
    }

    #[inline(always)]
    fn prefetch(&self) {
        super::copy::prefetch_row(self);
    }
}

/// A batch of messages, read by index, each once.
pub(crate) trait Source<'a> {
    type Message: Message<'a>;

    /// How many messages.
    fn count(&self) -> usize;

    /// Message `i`, for `i < self.count()`.
    fn get(&self, i: usize) -> Self::Message;

    /// Where every message starts (the chaining value after a shared
    /// prefix's whole blocks).
    fn start(&self) -> Start {
        Start::INIT
    }

    /// Messages `i..i + 16` at once, for a source that knows their
    /// lengths without building each (a column's offsets or views): `None`
    /// by default, and where fewer than 16 are left. Only where the
    /// AVX-512 buckets are built (`column_buckets.rs`).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F, BW and VL.
    #[cfg(md5_sse2)]
    #[inline(always)]
    unsafe fn sixteen(&self, i: usize) -> Option<Sixteen<'a>> {
        let _ = i;
        None
    }

    /// Rows `i..i + 16` into `rows`, each as [`Message::plain`] gives it,
    /// for a source that decodes sixteen at once (a view column), where
    /// each is `blocks` blocks long with its padding (1 to 4): `true`. Else
    /// `false`, with `rows` unspecified, and always by default. Only
    /// where the kernel builds rows in registers (`Scheduler::run_direct`).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F, BW and VL, and `i + 16 <= self.count()`.
    #[cfg(md5_sse2)]
    #[inline(always)]
    unsafe fn sixteen_rows(
        &self,
        i: usize,
        blocks: usize,
        rows: &mut [core::mem::MaybeUninit<crate::multi::kernel::Row>; 16],
    ) -> bool {
        let _ = (i, blocks, rows);
        false
    }
}

/// Sixteen messages: their lengths (any past `u32::MAX` as `u32::MAX`)
/// and, where they lie back to back, the bytes they span (empty where
/// they do not: a view column's rows).
#[cfg(md5_sse2)]
pub(crate) struct Sixteen<'a> {
    pub(crate) lens: [u32; 16],
    pub(crate) bytes: &'a [u8],
}

/// The caller's containers, each asked for its bytes once.
pub(crate) struct Slices<'a, T>(pub(crate) &'a [T]);

impl<'a, T: AsRef<[u8]>> Source<'a> for Slices<'a, T> {
    type Message = &'a [u8];

    #[inline(always)]
    fn count(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn get(&self, i: usize) -> &'a [u8] {
        self.0[i].as_ref()
    }
}
