//! Arrow's layout of a column of byte strings: one `values` buffer and `n +
//! 1` offsets, row `i` being `values[offsets[i]..offsets[i + 1]]`. The
//! offsets are checked once, up front, in one pass that the compiler
//! vectorises; the rows are then read straight from `values`, with no
//! slice per row built first.

use crate::multi::kernel::Kernel;
use crate::multi::scheduler::digest_batch;
#[cfg(md5_sse2)]
use crate::multi::scheduler::source::Sixteen;
use crate::multi::scheduler::source::Source;
use core::fmt::Display;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for usize {}
}

/// An offset type of a column in Arrow's layout: `i32` (Arrow's `Utf8` and
/// `Binary`), `i64` (`LargeUtf8`, `LargeBinary`), and `u32`, `u64` and
/// `usize`. Implemented for those five only.
pub trait Offset: Copy + Ord + Display + sealed::Sealed {
    /// The offset as an index, if it is one (not negative, and within
    /// `usize`).
    #[doc(hidden)]
    fn to_index(self) -> Option<usize>;

    /// The offset as an index, for offsets already checked to be one.
    #[doc(hidden)]
    fn index(self) -> usize;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl Offset for $t {
            #[inline(always)]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }

            #[inline(always)]
            fn index(self) -> usize {
                self as usize
            }
        }
    )*};
}
offset!(i32, i64, u32, u64, usize);

/// Hashes each row of a column in Arrow's layout, row `i` being
/// `values[offsets[i]..offsets[i + 1]]`, into `out[i]`.
///
/// This is the layout of Arrow's `Utf8` and `Binary` arrays (`i32`
/// offsets), `LargeUtf8` and `LargeBinary` (`i64`), and of many a
/// hand-made column (`u32`, `u64`, `usize`): one buffer of every row's
/// bytes, and `n + 1` offsets for `n` rows. The rows are read straight from
/// `values`, with no slice per row built first. The offsets need not start
/// at 0 (a slice of an Arrow array keeps its parent's offsets), and an
/// empty column may have no offsets at all. Each digest equals
/// `Md5::digest` of its row.
///
/// # Panics
///
/// With a message that says which rule is broken, before hashing anything,
/// if `out.len()` is not `offsets.len() - 1` (0 for no offsets), if an
/// offset is negative, if offsets decrease, or if the last is past the end
/// of `values`.
///
/// ```
/// // A column of three strings, "abc", "" and "message digest", as Arrow
/// // lays out a `StringArray`.
/// let values = b"abcmessage digest";
/// let offsets: [i32; 4] = [0, 3, 3, 17];
/// let mut digests = [[0u8; 16]; 3];
/// md5x::multi::digest_offsets_into(values, &offsets, &mut digests);
/// assert_eq!(digests[0], md5x::const_digest(b"abc"));
/// assert_eq!(digests[1], md5x::const_digest(b""));
/// assert_eq!(digests[2], md5x::const_digest(b"message digest"));
///
/// // A slice of it, rows 1 and 2: the same values, the offsets from 3.
/// let mut two = [[0u8; 16]; 2];
/// md5x::multi::digest_offsets_into(values, &offsets[1..], &mut two);
/// assert_eq!(two, digests[1..]);
/// ```
pub fn digest_offsets_into<O: Offset>(values: &[u8], offsets: &[O], out: &mut [[u8; 16]]) {
    let rows = Offsets::new("digest_offsets_into", values, offsets, out.len());
    digest_batch(Kernel::detect(), &rows, out);
}

/// The rows of a column, its offsets checked.
pub(crate) struct Offsets<'a, O> {
    values: &'a [u8],
    offsets: &'a [O],
}

impl<'a, O: Offset> Offsets<'a, O> {
    /// The rows of `values` and `offsets`, for an output of `out_len`
    /// digests.
    ///
    /// # Panics
    ///
    /// With a message that starts with `what` and says which rule is
    /// broken: if `out_len` is not `offsets.len() - 1` (0 where `offsets` is
    /// empty, an empty column as some writers store it), an offset is
    /// negative, offsets decrease, or the last is past the end of `values`.
    pub(crate) fn new(what: &str, values: &'a [u8], offsets: &'a [O], out_len: usize) -> Self {
        let rows = offsets.len().saturating_sub(1);
        assert!(
            out_len == rows,
            "md5x::multi::{what}: {} offsets make {rows} rows, but there are {out_len} output slots",
            offsets.len()
        );
        if let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) {
            // Offsets that never decrease lie between the first and the last.
            let rises = offsets
                .iter()
                .zip(&offsets[1..])
                .fold(true, |ok, (a, b)| ok & (a <= b));
            if !rises {
                let i = offsets
                    .windows(2)
                    .position(|w| w[0] > w[1])
                    .unwrap_or_default();
                panic!(
                    "md5x::multi::{what}: offsets decrease: offsets[{i}] = {} > offsets[{}] = {}",
                    offsets[i],
                    i + 1,
                    offsets[i + 1]
                );
            }
            assert!(
                first.to_index().is_some(),
                "md5x::multi::{what}: offsets[0] = {first} is negative"
            );
            assert!(
                last.to_index().is_some_and(|end| end <= values.len()),
                "md5x::multi::{what}: offsets[{rows}] = {last} is past the end of values ({} bytes)",
                values.len()
            );
        }
        Self { values, offsets }
    }

    /// The bytes of every row.
    #[cfg(feature = "rayon")]
    pub(crate) fn bytes(&self) -> u64 {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(first), Some(last)) => (last.index() - first.index()) as u64,
            _ => 0,
        }
    }

    /// Rows `range` of the column, already checked.
    pub(crate) fn sub(&self, range: core::ops::Range<usize>) -> Self {
        Self {
            values: self.values,
            offsets: &self.offsets[range.start..range.end + 1],
        }
    }
}

impl<'a, O: Offset> Source<'a> for Offsets<'a, O> {
    type Message = &'a [u8];

    #[inline(always)]
    fn count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    #[inline(always)]
    fn get(&self, i: usize) -> &'a [u8] {
        // Checked in `new`: `0 <= offsets[i] <= offsets[i + 1] <=
        // values.len()`, so `index` is exact and the slice in bounds.
        &self.values[self.offsets[i].index()..self.offsets[i + 1].index()]
    }

    #[cfg(md5_sse2)]
    #[inline(always)]
    unsafe fn sixteen(&self, i: usize) -> Option<Sixteen<'a>> {
        let o = self.offsets.get(i..i + 17)?;
        let mut lens = [0; 16];
        for (len, w) in lens.iter_mut().zip(o.windows(2)) {
            // Checked in `new`: the offsets rise, within `values`.
            *len = u32::try_from(w[1].index() - w[0].index()).unwrap_or(u32::MAX);
        }
        Some(Sixteen {
            lens,
            bytes: &self.values[o[0].index()..o[16].index()],
        })
    }
}
