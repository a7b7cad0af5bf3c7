//! An Arrow array's rows hashed as one `md5x::multi` batch, read in place:
//! offset columns straight from their offsets and values buffer, view
//! columns from their views (inline rows from the view itself), fixed-width
//! columns from their values, dictionaries by hashing their values once.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::buffer::{Buffer, ScalarBuffer};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result};

/// Where a batch's results go: one slot per row, in row order.
pub(crate) enum Slots<'o> {
    /// Lowercase hex, as `md5(x)` writes it.
    Hex(&'o mut [[u8; 32]]),
    /// The 16 bytes.
    Digests(&'o mut [[u8; 16]]),
}

impl Slots<'_> {
    fn len(&self) -> usize {
        match self {
            Slots::Hex(out) => out.len(),
            Slots::Digests(out) => out.len(),
        }
    }
}

/// Rows a chunk of row slices covers: the slices and the chunk's digests
/// stay in cache between hashing and writing.
const CHUNK: usize = 4096;

/// Hashes every row of `array` into `slots` (one slot per row). A null
/// row's slot gets some digest; the caller marks it null.
pub(crate) fn hash_into(array: &dyn Array, slots: Slots<'_>) -> Result<()> {
    if slots.len() != array.len() {
        return exec_err!(
            "md5x: {} output slots for {} rows",
            slots.len(),
            array.len()
        );
    }
    match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            offsets_into(a.values(), a.value_offsets(), slots);
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            offsets_into(a.values(), a.value_offsets(), slots);
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            offsets_into(a.values(), a.value_offsets(), slots);
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            offsets_into(a.values(), a.value_offsets(), slots);
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            views_into(a.views(), a.data_buffers(), array, slots)?;
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            views_into(a.views(), a.data_buffers(), array, slots)?;
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            let data = a.value_data();
            let width = usize::try_from(a.value_length()).unwrap_or(0);
            slices_into(|row| Ok(fixed_row(data, width, row)), slots)?;
        }
        DataType::Dictionary(_, _) => dictionary_into(array, slots)?,
        // Every row is null: no bytes to read.
        DataType::Null => {}
        other => return exec_err!("md5x: cannot hash a column of {other}"),
    }
    Ok(())
}

/// An offsets column, hashed in one call (the library checks the offsets).
fn offsets_into<O: md5x::multi::Offset>(values: &[u8], offsets: &[O], slots: Slots<'_>) {
    match slots {
        Slots::Hex(out) => md5x::multi::hex_offsets_into(values, offsets, out),
        Slots::Digests(out) => md5x::multi::digest_offsets_into(values, offsets, out),
    }
}

/// A view column, hashed in one call that checks each view as it reads
/// it. Arrow asks a null row's view to follow the rules too, yet a foreign
/// producer's may not: where the call refuses a column with nulls, it is
/// called again on a copy of the views whose null rows are empty.
fn views_into(
    views: &ScalarBuffer<u128>,
    buffers: &[Buffer],
    array: &dyn Array,
    mut slots: Slots<'_>,
) -> Result<()> {
    let data: Vec<&[u8]> = buffers.iter().map(|b| b.as_slice()).collect();
    let mut hash = |views: &[u128]| match &mut slots {
        Slots::Hex(out) => md5x::multi::hex_views_into(views, &data, out),
        Slots::Digests(out) => md5x::multi::digest_views_into(views, &data, out),
    };
    let hashed = match (hash(views), array.nulls()) {
        (Err(_), Some(nulls)) => {
            // A view of length 0, inline: an empty row.
            let views: Vec<u128> = views
                .iter()
                .zip(nulls.iter())
                .map(|(&view, valid)| if valid { view } else { 0 })
                .collect();
            hash(&views)
        }
        (hashed, _) => hashed,
    };
    hashed.or_else(|e| exec_err!("md5x: {e}"))
}

/// Rows given as slices by `row`, hashed a chunk at a time.
fn slices_into<'a>(row: impl Fn(usize) -> Result<&'a [u8]>, slots: Slots<'_>) -> Result<()> {
    let rows = slots.len();
    let mut slices: Vec<&[u8]> = Vec::with_capacity(rows.min(CHUNK));
    let mut digests = vec![[0u8; 16]; rows.min(CHUNK)];
    let mut slots = slots;
    for start in (0..rows).step_by(CHUNK) {
        let end = rows.min(start + CHUNK);
        slices.clear();
        for r in start..end {
            slices.push(row(r)?);
        }
        match &mut slots {
            Slots::Hex(out) => {
                let digests = &mut digests[..end - start];
                md5x::multi::digest_many_into(&slices, digests);
                md5x::multi::hex_into(digests, &mut out[start..end]);
            }
            Slots::Digests(out) => md5x::multi::digest_many_into(&slices, &mut out[start..end]),
        }
    }
    Ok(())
}

/// Row `row` of a fixed-width column's values, `width` bytes each.
fn fixed_row(data: &[u8], width: usize, row: usize) -> &[u8] {
    let start = row.saturating_mul(width);
    data.get(start..start.saturating_add(width)).unwrap_or(&[])
}

/// A dictionary column: its values hashed once, then each row's digest
/// taken by its key.
fn dictionary_into(array: &dyn Array, slots: Slots<'_>) -> Result<()> {
    let dictionary = array.as_any_dictionary();
    let values = dictionary.values();
    if values.is_empty() {
        // No values: every key is null (Arrow's rule), so is every row.
        return Ok(());
    }
    let mut value_digests = vec![[0u8; 16]; values.len()];
    hash_into(values.as_ref(), Slots::Digests(&mut value_digests))?;
    // Each in 0..values.len() (a null key's clamped there).
    let keys = dictionary.normalized_keys();
    match slots {
        Slots::Digests(out) => {
            for (slot, &key) in out.iter_mut().zip(&keys) {
                *slot = value_digests[key];
            }
        }
        Slots::Hex(out) => {
            let mut chunk = Vec::with_capacity(out.len().min(CHUNK));
            for (out, keys) in out.chunks_mut(CHUNK).zip(keys.chunks(CHUNK)) {
                chunk.clear();
                chunk.extend(keys.iter().map(|&key| value_digests[key]));
                md5x::multi::hex_into(&chunk, out);
            }
        }
    }
    Ok(())
}
