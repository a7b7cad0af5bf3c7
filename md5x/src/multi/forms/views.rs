//! Arrow's view layout of a column of byte strings (`Utf8View`,
//! `BinaryView`): one 16-byte view a row, which holds the row itself up to
//! 12 bytes, else its length, a buffer index and an offset into one of the
//! column's data buffers. Each view is checked as the hashing reads it, and
//! the row read where the view says, with no slice per row built first; on
//! AVX-512, sixteen views at a time (`views/avx512.rs`).

#[cfg(md5_sse2)]
mod avx512;

use super::encoded::encoded_by_chunks;
use super::{base64, hex};
use crate::multi::kernel::Kernel;
#[cfg(md5_sse2)]
use crate::multi::kernel::Row;
use crate::multi::scheduler::digest_batch;
#[cfg(md5_sse2)]
use crate::multi::scheduler::source::Sixteen;
use crate::multi::scheduler::source::Source;
use core::cell::Cell;
use core::fmt;

/// Rows a view holds itself; a longer row is in a data buffer.
const INLINE: u32 = 12;

/// Why a view column was refused: the first view, in row order, that
/// breaks Arrow's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ViewError {
    /// The row, from the first view given.
    pub row: usize,
    /// The view's length, buffer index and offset.
    pub view: [u32; 3],
    /// How many data buffers were given, and the length of the one the
    /// view names (`None` where there is no such buffer).
    pub buffers: (usize, Option<usize>),
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [len, index, offset] = self.view;
        let row = self.row;
        match self.buffers {
            (count, None) => write!(f, "row {row}'s view names data buffer {index}, of {count}"),
            (_, Some(size)) => write!(
                f,
                "row {row}'s view ({offset} + {len} bytes) is past the end of data buffer \
                 {index} ({size} bytes)"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ViewError {}

/// Hashes each row of a column in Arrow's view layout into `out[i]`.
///
/// `views` are the column's views as Arrow lays them out in memory (as
/// arrow-rs's `StringViewArray::views()` gives them), one a row; `buffers`
/// are its data buffers, in order. A row of up to 12 bytes is read from
/// its view; a longer one from the buffer and at the offset its view
/// names. Each digest equals `Md5::digest` of its row.
///
/// # Errors
///
/// [`ViewError`], naming the first view that breaks Arrow's rules (a
/// buffer index past `buffers`, or bytes past the end of the buffer).
/// Rows before it may be hashed by then; `out` is otherwise unspecified.
///
/// # Panics
///
/// If `views` and `out` have different lengths.
///
/// ```
/// // A Utf8View column ["abc", "a longer row than twelve bytes"]: the
/// // first row inline, the second in data buffer 0 at offset 0.
/// let data = b"a longer row than twelve bytes";
/// let mut inline = [0u8; 16];
/// inline[..4].copy_from_slice(&3u32.to_le_bytes());
/// inline[4..7].copy_from_slice(b"abc");
/// let mut long = [0u8; 16];
/// long[..4].copy_from_slice(&(data.len() as u32).to_le_bytes());
/// long[4..8].copy_from_slice(&data[..4]); // the prefix
/// // buffer index 0 and offset 0 are the last eight bytes, left zero
/// let views = [u128::from_ne_bytes(inline), u128::from_ne_bytes(long)];
///
/// let mut digests = [[0u8; 16]; 2];
/// md5x::multi::digest_views_into(&views, &[&data[..]], &mut digests).unwrap();
/// assert_eq!(digests[0], md5x::const_digest(b"abc"));
/// assert_eq!(digests[1], md5x::const_digest(data));
///
/// // A view past its buffer's end is an error, not a panic.
/// let err = md5x::multi::digest_views_into(&views, &[&data[..8]], &mut digests);
/// assert_eq!(err.unwrap_err().row, 1);
/// ```
pub fn digest_views_into(
    views: &[u128],
    buffers: &[&[u8]],
    out: &mut [[u8; 16]],
) -> Result<(), ViewError> {
    super::check_out("digest_views_into", views.len(), out.len());
    let bad = Cell::new(usize::MAX);
    let rows = Views::new(views, buffers, &bad);
    digest_batch(Kernel::detect(), &rows, out);
    rows.check(0)
}

/// Hashes each row of a column in Arrow's view layout (as
/// [`digest_views_into`] reads it) and writes its digest in lowercase hex
/// to `out[i]`, a chunk of rows at a time, as
/// [`hex_offsets_into`](crate::multi::hex_offsets_into) does.
///
/// # Errors
///
/// As `digest_views_into`.
///
/// # Panics
///
/// If `views` and `out` have different lengths.
pub fn hex_views_into(
    views: &[u128],
    buffers: &[&[u8]],
    out: &mut [[u8; 32]],
) -> Result<(), ViewError> {
    super::check_out("hex_views_into", views.len(), out.len());
    by_chunks(views, buffers, out, hex::encode_all)
}

/// Hashes each row of a column in Arrow's view layout (as
/// [`digest_views_into`] reads it) and writes its digest in base64 (as
/// [`base64_into`](crate::multi::base64_into) writes it) to `out[i]`.
///
/// # Errors
///
/// As `digest_views_into`.
///
/// # Panics
///
/// If `views` and `out` have different lengths.
pub fn base64_views_into(
    views: &[u128],
    buffers: &[&[u8]],
    out: &mut [[u8; 24]],
) -> Result<(), ViewError> {
    super::check_out("base64_views_into", views.len(), out.len());
    by_chunks(views, buffers, out, base64::encode_all)
}

/// Hashes the views' rows a chunk at a time, each chunk's views checked
/// as it is hashed, and `encode`s each chunk's digests into `out`.
fn by_chunks<const N: usize>(
    views: &[u128],
    buffers: &[&[u8]],
    out: &mut [[u8; N]],
    encode: fn(&[[u8; 16]], &mut [[u8; N]]),
) -> Result<(), ViewError> {
    let kernel = Kernel::detect();
    // One for every chunk: the first chunk with a bad view ends the call.
    let bad = Cell::new(usize::MAX);
    let rows = Views::new(views, buffers, &bad);
    encoded_by_chunks(out, encode, |range, digests| {
        let chunk = rows.sub(range.clone());
        digest_batch(kernel, &chunk, digests);
        chunk.check(range.start)
    })
}

/// The rows of a view column, each view checked where the hashing reads
/// it (a pass before would read every view from memory twice): a bad one
/// reads as an empty row, and the first such row is kept for the error,
/// in a cell apart: one inside would keep the compiler from holding the
/// fields in registers across the scheduler's stores.
pub(crate) struct Views<'a> {
    views: &'a [[u8; 16]],
    buffers: &'a [&'a [u8]],
    /// The first row whose view broke a rule, or `usize::MAX`.
    bad: &'a Cell<usize>,
}

/// A view's length, buffer index and offset.
#[inline(always)]
fn fields(view: &[u8; 16]) -> [u32; 3] {
    let word = |at: usize| u32::from_le_bytes([view[at], view[at + 1], view[at + 2], view[at + 3]]);
    [word(0), word(8), word(12)]
}

impl<'a> Views<'a> {
    /// The rows of `views` over `buffers`; `bad` is `usize::MAX`, or
    /// becomes the first bad row's index.
    pub(crate) fn new(views: &'a [u128], buffers: &'a [&'a [u8]], bad: &'a Cell<usize>) -> Self {
        // SAFETY: a `u128` is 16 bytes, and `[u8; 16]` has no alignment
        // or validity rule a `u128`'s bytes could break; the slice borrows
        // `views` for as long.
        let views = unsafe { core::slice::from_raw_parts(views.as_ptr().cast(), views.len()) };
        Self {
            views,
            buffers,
            bad,
        }
    }

    /// Row `i`'s bytes, `None` where its view breaks a rule.
    #[inline(always)]
    fn row(&self, i: usize) -> Option<&'a [u8]> {
        let view = &self.views[i];
        let [len, index, offset] = fields(view);
        if len <= INLINE {
            return Some(&view[4..4 + len as usize]);
        }
        let (len, offset) = (len as usize, offset as usize);
        self.buffers
            .get(index as usize)?
            .get(offset..offset.checked_add(len)?)
    }

    /// An empty row in place of row `i`, whose view breaks a rule, kept
    /// for the error if it is the first.
    #[cold]
    #[inline(never)]
    fn refuse(&self, i: usize) -> &'a [u8] {
        self.bad.set(self.bad.get().min(i));
        &[]
    }

    /// The error for the first bad view met, from row `first` of the
    /// caller's views.
    pub(crate) fn check(&self, first: usize) -> Result<(), ViewError> {
        let i = self.bad.get();
        if i == usize::MAX {
            return Ok(());
        }
        let [len, index, offset] = fields(&self.views[i]);
        Err(ViewError {
            row: first + i,
            view: [len, index, offset],
            buffers: (
                self.buffers.len(),
                self.buffers.get(index as usize).map(|b| b.len()),
            ),
        })
    }

    /// Rows `range`.
    fn sub(&self, range: core::ops::Range<usize>) -> Self {
        Self {
            views: &self.views[range],
            buffers: self.buffers,
            bad: self.bad,
        }
    }
}

impl<'a> Source<'a> for Views<'a> {
    type Message = &'a [u8];

    #[inline(always)]
    fn count(&self) -> usize {
        self.views.len()
    }

    #[inline(always)]
    fn get(&self, i: usize) -> &'a [u8] {
        self.row(i).unwrap_or_else(|| self.refuse(i))
    }

    #[cfg(md5_sse2)]
    #[inline(always)]
    unsafe fn sixteen(&self, i: usize) -> Option<Sixteen<'a>> {
        let views: &[_; 16] = self.views.get(i..i.wrapping_add(16))?.try_into().ok()?;
        // SAFETY: the caller vouches for the CPU.
        if let Some(six) = unsafe { avx512::sixteen(views, self.buffers) } {
            return Some(six);
        }
        let mut lens = [0; 16];
        for (j, len) in lens.iter_mut().enumerate() {
            // As `get` reads it: a bad row is 0 bytes here too.
            *len = self.get(i + j).len() as u32;
        }
        // A bad view among them, or rows in several buffers: nothing to
        // prefetch as one.
        Some(Sixteen { lens, bytes: &[] })
    }

    #[cfg(md5_sse2)]
    #[inline(always)]
    unsafe fn sixteen_rows(
        &self,
        i: usize,
        blocks: usize,
        rows: &mut [core::mem::MaybeUninit<Row>; 16],
    ) -> bool {
        let Some(views) = self.views.get(i..i.wrapping_add(16)) else {
            return false;
        };
        let Ok(views) = views.try_into() else {
            return false;
        };
        // SAFETY: the caller vouches for the CPU.
        unsafe { avx512::sixteen_rows(views, self.buffers, blocks, rows) }
    }
}
