//! The rows of an imported array, checked before anything is read (the
//! producer's memory is untrusted: lengths, offsets, views and null counts
//! are checked against each other), then hashed in one batch through
//! `md5x::multi`.

use crate::ffi::ArrowArray;
use crate::format::{Layout, Shape};
use crate::region;
use crate::stepwise::{self, LONG, STEP_BYTES};
use crate::stop::{Stop, Stopped};
use md5x::multi::Offset;
use std::borrow::Cow;
use std::ffi::c_void;

/// Why rows were not hashed.
#[derive(Debug)]
pub enum Refused {
    /// The array breaks the format's rules: a `ValueError`'s message.
    Malformed(String),
    /// The call was interrupted (its caller raises the signal's exception).
    Stopped,
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Self::Malformed(message)
    }
}

impl From<Stopped> for Refused {
    fn from(_: Stopped) -> Self {
        Self::Stopped
    }
}

/// The checked rows of one array, in the window its `offset` and `length`
/// give.
pub struct Rows<'a> {
    len: usize,
    validity: Option<Validity>,
    data: Data<'a>,
}

/// Which rows are null, as a bitmap from bit 0 (the input's window moved to
/// the start), and how many.
pub struct Validity {
    pub bits: Vec<u8>,
    pub nulls: usize,
    /// Rows it covers.
    pub len: usize,
}

enum Data<'a> {
    Empty,
    Offsets32(&'a [u8], Cow<'a, [i32]>),
    Offsets64(&'a [u8], Cow<'a, [i64]>),
    Views(ViewRows<'a>),
}

/// A view array's views in the window and its data buffers, each a slice
/// of the size its producer gave, so that a row's bytes are found by a
/// checked slice.
struct ViewRows<'a> {
    views: &'a [[u8; 16]],
    data: Vec<&'a [u8]>,
}

/// What [`Rows::digest_range_into`] reuses from one range to the next.
#[derive(Default)]
pub(crate) struct Scratch<'a> {
    rows: Vec<&'a [u8]>,
    views: Vec<u128>,
    offsets32: Vec<i32>,
    offsets64: Vec<i64>,
}

/// Hashes the rows `offsets` (a range's, borrowed from the producer) mark
/// in `values`, reading each offset once: copied into `copy`, checked
/// there (in order, within `values`), and hashed from the copy, so that a
/// producer's thread rewriting them while they are hashed cannot make a
/// row reach past `values` (it gets `Malformed`, or the rows of what was
/// read). A range of more than a step's work goes in steps.
fn digest_offsets<'a, O: Offset + Bound>(
    values: &'a [u8],
    offsets: &[O],
    out: &mut [[u8; 16]],
    copy: &mut Vec<O>,
    rows: &mut Vec<&'a [u8]>,
    stop: &Stop,
) -> Result<(), Refused> {
    copy.clear();
    copy.extend_from_slice(offsets);
    let bad = copy.windows(2).any(|w| w[0] > w[1])
        || usize::try_from(copy[copy.len() - 1].into()).map_or(true, |end| end > values.len())
        || copy[0].into() < 0;
    if bad {
        return Err(Refused::Malformed(
            "its offsets changed while they were read".into(),
        ));
    }
    let bytes = (copy[copy.len() - 1].into() - copy[0].into()) as usize;
    let long = bytes > LONG
        && copy
            .windows(2)
            .any(|w| (w[1].into() - w[0].into()) as usize > LONG);
    if stepwise::work(out.len(), bytes) <= STEP_BYTES && !long {
        md5x::multi::digest_offsets_into(values, copy, out);
        return Ok(());
    }
    rows.clear();
    rows.extend(
        copy.windows(2)
            .map(|w| &values[w[0].into() as usize..w[1].into() as usize]),
    );
    Ok(stepwise::digest_rows(rows, out, stop)?)
}

impl<'a> Rows<'a> {
    /// Checks `array`, of type `shape`, and borrows its rows.
    ///
    /// # Safety
    ///
    /// `array` is an array of type `shape` as its producer made it: each
    /// pointer NULL or pointing to what the C Data Interface says (its
    /// buffer pointers, its children), each buffer holding what its
    /// fields claim for `offset + length` slots wherever a buffer can be
    /// that large, nothing writing to them while `'a` lasts. Its counts,
    /// offsets and views are not trusted further: they are checked here,
    /// against one another and against what any buffer can hold, before
    /// anything they name is read.
    pub unsafe fn new(array: &'a ArrowArray, shape: Shape) -> Result<Self, String> {
        if !shape.in_struct {
            return Self::read(array, shape.layout, Window::Own);
        }
        // A struct of one column (a record batch of one column): its
        // child's rows, in the struct's window, null where either is.
        let (offset, len) = span(array)?;
        if array.n_children != 1 || array.children.is_null() {
            return Err(format!(
                "a struct of one column has 1 child, this one has {}",
                array.n_children
            ));
        }
        let buffers = buffers(array, 1)?;
        // SAFETY: a live struct array's `children` holds `n_children`
        // (1, checked) pointers to live arrays.
        let child = unsafe { *array.children };
        if child.is_null() {
            return Err("its child is NULL".into());
        }
        // SAFETY: as above, checked not NULL.
        let child = unsafe { &*child };
        let (_, child_len) = span(child)?;
        // Both within `usize`, with one to spare (`span`).
        if child_len < offset + len {
            return Err(format!(
                "its child has {child_len} rows, fewer than the struct's offset + length \
                 ({offset} + {len})"
            ));
        }
        // The child first: its data's extent bounds the struct's window
        // before the struct's validity bitmap is read.
        let mut rows = Self::read(child, shape.layout, Window::Within { offset, len })?;
        let outer = validity(buffers[0], array.null_count, len, offset, len)?;
        rows.validity = and(rows.validity, outer);
        Ok(rows)
    }

    /// Checks `array`, of type `layout`, and borrows the rows of `window`.
    fn read(array: &'a ArrowArray, layout: Layout, window: Window) -> Result<Self, String> {
        let (own_offset, own_len) = span(array)?;
        let (offset, len) = match window {
            Window::Own => (own_offset, own_len),
            Window::Within { offset, len } => (
                own_offset
                    .checked_add(offset)
                    .ok_or("offset + the struct's offset overflows")?,
                len,
            ),
        };
        if array.n_children != 0 {
            return Err(format!(
                "a byte-string array has no children, this one has {}",
                array.n_children
            ));
        }
        let n_buffers = count(array.n_buffers, "n_buffers")?;
        let wanted = match layout {
            Layout::Offsets32 | Layout::Offsets64 => n_buffers == 3,
            Layout::View => n_buffers >= 3,
        };
        if !wanted {
            return Err(format!(
                "{n_buffers} buffers, where the type has {}",
                match layout {
                    Layout::View => "3 or more (validity, views, data..., sizes)",
                    _ => "3 (validity, offsets, values)",
                }
            ));
        }
        let buffers = buffers(array, n_buffers)?;
        // The data's extent first, the array's own as its fields claim it
        // (not only the window read, which a struct may make small): a
        // length no buffer can have is refused before the validity bitmap
        // (whose extent is 1/8 of it) or any row is read.
        if own_len > 0 {
            let slots = own_len.checked_add(1).ok_or("its length overflows")?;
            match layout {
                Layout::Offsets32 => {
                    region::start::<i32>(buffers[1], own_offset, slots, "offsets").map(drop)?
                }
                Layout::Offsets64 => {
                    region::start::<i64>(buffers[1], own_offset, slots, "offsets").map(drop)?
                }
                Layout::View => {
                    region::start::<[u8; 16]>(buffers[1], own_offset, own_len, "views").map(drop)?
                }
            }
        }
        let data = match layout {
            _ if len == 0 => Data::Empty,
            Layout::Offsets32 => {
                // SAFETY: an array of this type with `offset + length` rows
                // has at least that many i32 offsets plus one.
                let offsets = unsafe { offsets_window::<i32>(buffers[1], offset, len)? };
                Data::Offsets32(values(buffers[2], &offsets)?, offsets)
            }
            Layout::Offsets64 => {
                // SAFETY: as above, with i64 offsets.
                let offsets = unsafe { offsets_window::<i64>(buffers[1], offset, len)? };
                Data::Offsets64(values(buffers[2], &offsets)?, offsets)
            }
            Layout::View => Data::Views(views(buffers, offset, len)?),
        };
        let validity = validity(buffers[0], array.null_count, own_len, offset, len)?;
        Ok(Self {
            len,
            validity,
            data,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the rows are a view array's.
    pub(crate) fn is_views(&self) -> bool {
        matches!(self.data, Data::Views(_))
    }

    /// The rows' null bitmap and count, `None` where no row is null.
    pub(crate) fn take_validity(&mut self) -> Option<Validity> {
        self.validity.take()
    }

    /// The work of hashing the rows (bytes, and a block a row), at least.
    pub fn work(&self) -> usize {
        let bytes = match &self.data {
            Data::Empty => 0,
            Data::Offsets32(values, _) | Data::Offsets64(values, _) => values.len(),
            Data::Views(views) => views.bytes(),
        };
        stepwise::work(self.len, bytes)
    }

    /// Hashes rows `start..start + out.len()` into `out` (nulls too,
    /// whatever bytes they cover: their slots are masked by the validity
    /// bitmap; a null view is read as empty), in steps that look at
    /// `stop`. `scratch` holds the rows between calls, so that it is
    /// allocated once.
    pub(crate) fn digest_range_into(
        &self,
        start: usize,
        out: &mut [[u8; 16]],
        scratch: &mut Scratch<'a>,
        stop: &Stop,
    ) -> Result<(), Refused> {
        let end = start + out.len();
        match &self.data {
            Data::Empty => {}
            Data::Offsets32(values, offsets) => digest_offsets(
                values,
                &offsets[start..=end],
                out,
                &mut scratch.offsets32,
                &mut scratch.rows,
                stop,
            )?,
            Data::Offsets64(values, offsets) => digest_offsets(
                values,
                &offsets[start..=end],
                out,
                &mut scratch.offsets64,
                &mut scratch.rows,
                stop,
            )?,
            Data::Views(views) => {
                stop.check()?;
                if views.digest_in_one_call(start, out, &mut scratch.views) {
                    return Ok(());
                }
                let rows = &mut scratch.rows;
                rows.clear();
                let bits = self.validity.as_ref().map(|v| &v.bits[..]);
                for i in start..end {
                    let null = bits.is_some_and(|b| b[i / 8] >> (i % 8) & 1 == 0);
                    rows.push(if null { &[] } else { views.row(i)? });
                }
                stepwise::digest_rows(rows, out, stop)?;
            }
        }
        Ok(())
    }
}

impl<'a> ViewRows<'a> {
    /// Hashes rows `start..start + out.len()` in one
    /// `md5x::multi::digest_views_into` call, which reads each row where
    /// its view says, from a copy of the views (in `copy`: read once, so a
    /// producer's thread rewriting them meanwhile changes nothing read);
    /// `false`, having hashed nothing that counts, where that call would
    /// not be one step's work (a row longer than [`LONG`], or more than
    /// [`STEP_BYTES`] in all) or where it refuses a view (which a null
    /// row's may break: the caller reads the rows one by one, nulls as
    /// empty, and names the row).
    fn digest_in_one_call(&self, start: usize, out: &mut [[u8; 16]], copy: &mut Vec<u128>) -> bool {
        let (mut bytes, mut longest) = (0usize, 0u32);
        copy.clear();
        copy.extend(self.views[start..start + out.len()].iter().map(|&v| {
            let len = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            bytes = bytes.saturating_add(len as usize);
            longest = longest.max(len);
            u128::from_ne_bytes(v)
        }));
        if longest as usize > LONG || stepwise::work(out.len(), bytes) > STEP_BYTES {
            return false;
        }
        md5x::multi::digest_views_into(copy, &self.data, out).is_ok()
    }

    /// Row `i`'s bytes: in its view if 12 or fewer, else in the data
    /// buffer and at the offset the view names, checked to lie inside it.
    /// The view is read once: its fields are copied, checked and used
    /// from the copy.
    #[inline]
    fn row(&self, i: usize) -> Result<&'a [u8], String> {
        let view: &'a [u8; 16] = &self.views[i];
        let fields = read_once(view);
        let [size, index, start] = [0, 64, 96].map(|at| (fields >> at) as u32 as i32);
        if (0..=12).contains(&size) {
            return Ok(&view[4..4 + size as usize]);
        }
        let bad = || bad_view(i, [size, index, start], &self.data);
        let (Ok(length), Ok(buffer), Ok(first)) = (
            usize::try_from(size),
            usize::try_from(index),
            usize::try_from(start),
        ) else {
            return Err(bad());
        };
        self.data
            .get(buffer)
            .and_then(|data| data.get(first..first.checked_add(length)?))
            .ok_or_else(bad)
    }

    /// The rows' bytes in all (nulls' too), as the views say.
    fn bytes(&self) -> usize {
        self.views
            .iter()
            .map(|v| i32::from_le_bytes([v[0], v[1], v[2], v[3]]).max(0) as usize)
            .fold(0usize, usize::saturating_add)
    }
}

/// The 16 bytes of a view as one number, read once: its fields are
/// checked and used from this copy, so that a producer's thread rewriting
/// the view meanwhile cannot make a checked field differ from the one
/// used (the compiler may not read a volatile load's memory again).
#[inline]
fn read_once(view: &[u8; 16]) -> u128 {
    // SAFETY: `view` is a reference to 16 bytes in the views buffer,
    // readable (the producer's promise, its extent checked by `region`);
    // `[u8; 16]` needs no alignment.
    u128::from_le_bytes(unsafe { std::ptr::read_volatile(view) })
}

/// Why the view of row `i`, of these length, buffer index and offset, was
/// refused, over `data` buffers.
#[cold]
fn bad_view(i: usize, [size, index, start]: [i32; 3], data: &[&[u8]]) -> String {
    if size < 0 {
        return format!("row {i}'s length is {size}");
    }
    match usize::try_from(index).ok().and_then(|b| data.get(b)) {
        None => format!("row {i}'s view names data buffer {index} of {}", data.len()),
        Some(buffer) => format!(
            "row {i}'s view ({start} + {size} bytes) is past the end of data buffer {index} \
             ({} bytes)",
            buffer.len()
        ),
    }
}

/// Which rows of an array to read.
enum Window {
    /// Its own: `offset..offset + length`.
    Own,
    /// `len` rows from `offset` within its own (a struct's window over its
    /// child).
    Within { offset: usize, len: usize },
}

/// An array's `offset` and `length`, checked not negative and, with the
/// one offset past the end, within `usize`.
fn span(array: &ArrowArray) -> Result<(usize, usize), String> {
    let len = count(array.length, "length")?;
    let offset = count(array.offset, "offset")?;
    offset
        .checked_add(len)
        .and_then(|end| end.checked_add(1))
        .ok_or("offset + length overflows")?;
    Ok((offset, len))
}

/// An array's buffer pointers, `n_buffers` of them (at least `at_least`).
fn buffers(array: &ArrowArray, at_least: usize) -> Result<&[*const c_void], String> {
    let n = count(array.n_buffers, "n_buffers")?;
    if n < at_least || array.buffers.is_null() {
        return Err(format!(
            "{n} buffers (pointer NULL: {})",
            array.buffers.is_null()
        ));
    }
    // SAFETY: a live array's `buffers` holds `n_buffers` pointers, aligned.
    unsafe { region::slice(array.buffers.cast(), 0, n, "buffer pointers") }
}

/// Rows null where either bitmap says so.
fn and(a: Option<Validity>, b: Option<Validity>) -> Option<Validity> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            for (x, y) in a.bits.iter_mut().zip(&b.bits) {
                *x &= y;
            }
            let valid: usize = a.bits.iter().map(|b| b.count_ones() as usize).sum();
            a.nulls = a.len - valid;
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// A non-negative count from the array's struct.
fn count(value: i64, what: &str) -> Result<usize, String> {
    usize::try_from(value).map_err(|_| format!("its {what} is negative ({value})"))
}

/// The null bitmap of rows `offset..offset + len`, moved to bit 0, and its
/// null count; `None` where no row is null.
fn validity(
    buffer: *const c_void,
    null_count: i64,
    array_len: usize,
    offset: usize,
    len: usize,
) -> Result<Option<Validity>, String> {
    if null_count == 0 || len == 0 {
        return Ok(None);
    }
    if null_count < -1 || null_count > array_len as i64 {
        return Err(format!("null_count is {null_count}, for {array_len} rows"));
    }
    if buffer.is_null() {
        return if null_count == -1 {
            Ok(None)
        } else {
            Err(format!(
                "null_count is {null_count} but there is no validity bitmap"
            ))
        };
    }
    let first = offset / 8;
    // `offset + len` fits, with one to spare (`span`).
    let bytes = (offset + len).div_ceil(8) - first;
    // SAFETY: a validity bitmap has a bit for each of the array's
    // `offset + length` slots, so bytes `first..first + bytes` exist (u8:
    // no alignment to meet).
    let source: &[u8] = unsafe { region::slice(buffer, first, bytes, "validity bitmap")? };
    let shift = offset % 8;
    let mut bits: Vec<u8> = if shift == 0 {
        source.to_vec()
    } else {
        (0..len.div_ceil(8))
            .map(|i| {
                let low = source[i] >> shift;
                let high = source.get(i + 1).map_or(0, |b| b << (8 - shift));
                low | high
            })
            .collect()
    };
    bits.truncate(len.div_ceil(8));
    if !len.is_multiple_of(8) {
        // Bits past the last row are not the window's.
        *bits.last_mut().expect("len > 0") &= (1u8 << (len % 8)) - 1;
    }
    let valid: usize = bits.iter().map(|b| b.count_ones() as usize).sum();
    let nulls = len - valid;
    Ok((nulls > 0).then_some(Validity { bits, nulls, len }))
}

/// The offsets of rows `offset..offset + len` (`len + 1` of them),
/// borrowed where aligned, copied where not (the C interface recommends
/// alignment but does not require it).
///
/// # Safety
///
/// `buffer`, unless NULL, holds at least `offset + len + 1` values of `T`.
unsafe fn offsets_window<'a, T: Copy>(
    buffer: *const c_void,
    offset: usize,
    len: usize,
) -> Result<Cow<'a, [T]>, String> {
    let n = len.checked_add(1).ok_or("its length overflows")?;
    let start = region::start::<T>(buffer, offset, n, "offsets")?;
    if start.is_aligned() {
        // SAFETY: `n` values from `start` (the caller's promise, the
        // extent checked by `region`), aligned (checked).
        Ok(Cow::Borrowed(unsafe {
            region::slice(buffer, offset, n, "offsets")?
        }))
    } else {
        // SAFETY: as above; each read is unaligned-tolerant.
        Ok(Cow::Owned(
            (0..n)
                .map(|i| unsafe { start.add(i).read_unaligned() })
                .collect(),
        ))
    }
}

/// An offset type, for the checks that do not depend on its width.
trait Bound: Copy + Ord + Into<i64> {}
impl Bound for i32 {}
impl Bound for i64 {}

/// The values buffer, up to the last of `offsets`, once the offsets are
/// checked: the first not negative, none below the one before.
fn values<'a, O: Bound>(buffer: *const c_void, offsets: &[O]) -> Result<&'a [u8], String> {
    let first: i64 = offsets[0].into();
    if first < 0 {
        return Err(format!("its first offset is negative ({first})"));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!(
            "its offsets decrease at row {i} ({} > {})",
            offsets[i].into(),
            offsets[i + 1].into()
        ));
    }
    let end = usize::try_from(offsets[offsets.len() - 1].into()).map_err(|e| e.to_string())?;
    if end == 0 {
        return Ok(&[]);
    }
    if buffer.is_null() {
        return Err(format!(
            "its values buffer is NULL but its offsets reach {end}"
        ));
    }
    // SAFETY: the values buffer of a byte-string array holds at least as
    // many bytes as its last offset says (the C interface carries no
    // buffer sizes; this is the layout's own rule), `end` here.
    unsafe { region::slice(buffer, 0, end, "values") }
}

/// A view array's views in the window, and its data buffers as slices of
/// the sizes the C interface's last buffer gives.
fn views<'a>(
    buffers: &'a [*const c_void],
    offset: usize,
    len: usize,
) -> Result<ViewRows<'a>, String> {
    let n = buffers.len();
    let data = &buffers[2..n - 1];
    if buffers[1].is_null() {
        return Err("its views buffer is NULL".into());
    }
    let sizes = if data.is_empty() {
        std::ptr::null()
    } else {
        region::start::<i64>(buffers[n - 1], 0, data.len(), "variadic sizes")?
    };
    let data = data
        .iter()
        .enumerate()
        .map(|(i, &pointer)| {
            // SAFETY: the last buffer of a view array in the C interface
            // holds one i64 size per data buffer (`n - 3` of them), not
            // necessarily aligned.
            let size = unsafe { sizes.add(i).read_unaligned() };
            let size =
                usize::try_from(size).map_err(|_| format!("data buffer {i}'s size is {size}"))?;
            if size == 0 {
                return Ok(&[][..]);
            }
            if pointer.is_null() {
                return Err(format!("data buffer {i} is NULL but of {size} bytes"));
            }
            // SAFETY: data buffer `i` holds the `size` bytes its producer
            // gives in the sizes buffer (u8: no alignment to meet).
            unsafe { region::slice(pointer, 0, size, "data buffer") }
        })
        .collect::<Result<Vec<_>, String>>()?;
    // SAFETY: the views buffer holds one 16-byte view per slot, `offset +
    // len` of them; a `[u8; 16]` needs no alignment.
    let views: &[[u8; 16]] = unsafe { region::slice(buffers[1], offset, len, "views")? };
    Ok(ViewRows { views, data })
}
