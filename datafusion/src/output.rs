//! The result columns, each built in one allocation per batch: the views
//! (or offsets) and the values written into one buffer, which the array's
//! buffers then share. The input's null buffer is shared, not copied.

use crate::rows::{hash_into, Slots};
use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, StringViewArray};
use datafusion::arrow::buffer::{Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::common::{exec_err, Result};
use std::sync::Arc;

/// Rows of 32 hex bytes one view data buffer holds: a view's offset is an
/// `i32`.
const HEX_ROWS_PER_BUFFER: usize = i32::MAX as usize / 32;

/// `array`'s rows as lowercase hex, a `Utf8View` column (the type
/// DataFusion's `md5` returns), null where `array` is.
pub(crate) fn hex_view_column(array: &dyn Array) -> Result<ArrayRef> {
    let rows = array.len();
    let (views_len, total) = match rows.checked_mul(16).zip(rows.checked_mul(48)) {
        Some(sizes) => sizes,
        None => return exec_err!("md5x: a batch of {rows} rows is too large to index"),
    };
    let mut buffer = MutableBuffer::from_len_zeroed(total);
    let (views, hex) = buffer.as_slice_mut().split_at_mut(views_len);
    let hex = hex.as_chunks_mut::<32>().0;
    hash_into(array, Slots::Hex(&mut *hex))?;
    let views = views.as_chunks_mut::<16>().0;
    for (row, (view, hex)) in views.iter_mut().zip(hex.iter()).enumerate() {
        let index = row / HEX_ROWS_PER_BUFFER;
        let offset = (row % HEX_ROWS_PER_BUFFER) * 32;
        view[..4].copy_from_slice(&32u32.to_le_bytes());
        view[4..8].copy_from_slice(&hex[..4]);
        // Both fit: `index` < rows / 67,108,863 and `offset` < i32::MAX.
        view[8..12].copy_from_slice(&(index as u32).to_le_bytes());
        view[12..].copy_from_slice(&(offset as u32).to_le_bytes());
    }
    let buffer: Buffer = buffer.into();
    let data: Vec<Buffer> = (0..rows.div_ceil(HEX_ROWS_PER_BUFFER))
        .map(|k| {
            let start = views_len + k * HEX_ROWS_PER_BUFFER * 32;
            let len = (rows - k * HEX_ROWS_PER_BUFFER).min(HEX_ROWS_PER_BUFFER) * 32;
            buffer.slice_with_length(start, len)
        })
        .collect();
    // The views are the buffer's first `views_len` bytes, at its start (an
    // allocation aligned for u128).
    let views = ScalarBuffer::<u128>::new(buffer, 0, rows);
    // SAFETY: each view written above holds 32 (> 12) bytes, starting with
    // the 4 it carries as its prefix, at an offset within data buffer
    // `index`, which holds that row's 32 bytes; those bytes are ASCII hex,
    // valid UTF-8; there is one view per row and `nulls_of(array)` is
    // `rows` long.
    let column = unsafe { StringViewArray::new_unchecked(views, data, nulls_of(array)) };
    Ok(Arc::new(column))
}

/// `array`'s rows as 16-byte digests, a `Binary` column, null where
/// `array` is.
pub(crate) fn binary_column(array: &dyn Array) -> Result<ArrayRef> {
    let rows = array.len();
    let sizes = rows
        .checked_mul(16)
        .filter(|&bytes| bytes <= i32::MAX as usize)
        .map(|bytes| (4 * (rows + 1), bytes));
    let Some((offsets_len, values_len)) = sizes else {
        return exec_err!(
            "md5x_binary: a batch of {rows} rows is more than a Binary column holds \
             ({} rows of 16 bytes); use smaller batches (datafusion.execution.batch_size)",
            i32::MAX / 16
        );
    };
    let mut buffer = MutableBuffer::from_len_zeroed(offsets_len + values_len);
    let (offsets, values) = buffer.as_slice_mut().split_at_mut(offsets_len);
    hash_into(array, Slots::Digests(values.as_chunks_mut::<16>().0))?;
    for (row, offset) in offsets.as_chunks_mut::<4>().0.iter_mut().enumerate() {
        // At most 16 * rows, checked above to fit in an i32.
        *offset = ((row * 16) as i32).to_le_bytes();
    }
    let buffer: Buffer = buffer.into();
    let values = buffer.slice(offsets_len);
    let offsets = ScalarBuffer::<i32>::new(buffer, 0, rows + 1);
    // SAFETY: the offsets written above start at 0 and rise by 16 to
    // 16 * rows, the length of `values`.
    let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
    let column = BinaryArray::try_new(offsets, values, nulls_of(array))?;
    Ok(Arc::new(column))
}

/// The result's nulls: `array`'s logical nulls (a dictionary's keys' and
/// values' together), shared, or none where no row is null, as DataFusion's
/// `md5` leaves them.
fn nulls_of(array: &dyn Array) -> Option<NullBuffer> {
    array.logical_nulls().filter(|nulls| nulls.null_count() > 0)
}
