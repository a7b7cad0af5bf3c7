//! A chunk's input column as DuckDB hands it to a scalar function: flat
//! (DuckDB's C API flattens constant and dictionary vectors before the
//! call), `count` values of `duckdb_string_t` and a validity mask, null
//! when every row is valid.

use crate::capi::{Api, DataChunk, StringT, Vector, STRING_INLINE_LENGTH};

/// One `VARCHAR` or `BLOB` value of a chunk, read where DuckDB keeps it:
/// in the struct when it is 12 bytes or shorter, else behind its pointer.
///
/// Only [`Column`] makes these, from values DuckDB says are valid, so its
/// pointer, when it has one, points to `length` bytes that live for the
/// call.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct Value(StringT);

impl AsRef<[u8]> for Value {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        // SAFETY: both forms of the union start with the length.
        let length = unsafe { self.0.inlined.length } as usize;
        if length <= STRING_INLINE_LENGTH {
            // SAFETY: a value this short is the inlined form, its bytes the
            // first `length` of `inlined`.
            unsafe { &self.0.inlined.inlined[..length] }
        } else {
            // SAFETY: a longer value is the pointer form, and (the type's
            // invariant) a valid row's pointer to `length` bytes that live
            // while DuckDB runs the function on this chunk.
            unsafe { core::slice::from_raw_parts(self.0.pointer.ptr, length) }
        }
    }
}

/// The first column of a chunk.
pub struct Column<'a> {
    pub values: &'a [Value],
    /// One bit a row, set when the row is valid; `None` when all are.
    pub validity: Option<&'a [u64]>,
}

impl Column<'_> {
    /// The chunk's first column, as DuckDB passes it to a `VARCHAR` or
    /// `BLOB` overload.
    ///
    /// # Safety
    ///
    /// `input` is the chunk DuckDB passed to the function now running, whose
    /// first column is a flat `VARCHAR` or `BLOB` vector; the column lives
    /// until the function returns.
    pub unsafe fn first(api: &Api, input: DataChunk) -> Option<Self> {
        // SAFETY: `input` is a live chunk (the caller's contract).
        let rows = usize::try_from(unsafe { (api.data_chunk_get_size)(input) }).ok()?;
        // SAFETY: as above; every overload has one parameter, column 0.
        let vector: Vector = unsafe { (api.data_chunk_get_vector)(input, 0) };
        // SAFETY: a flat vector's data is an array of `rows` values of its
        // type, `duckdb_string_t` for VARCHAR and BLOB.
        let data = unsafe { (api.vector_get_data)(vector) }.cast::<Value>();
        // SAFETY: as above; the mask, when there is one, has a bit for
        // each of the `rows` rows.
        let mask = unsafe { (api.vector_get_validity)(vector) };
        if data.is_null() && rows > 0 {
            return None;
        }
        let values = if rows == 0 {
            &[][..]
        } else {
            // SAFETY: `data` is non-null and points to `rows` values that
            // live for the call; `Value` is `duckdb_string_t`, transparent.
            unsafe { core::slice::from_raw_parts(data, rows) }
        };
        let validity = if mask.is_null() {
            None
        } else {
            // SAFETY: the mask holds a bit for each row, in u64 words.
            Some(unsafe { core::slice::from_raw_parts(mask, rows.div_ceil(64)) })
        };
        Some(Column { values, validity })
    }

    /// Whether `row` holds a value (not NULL).
    #[inline]
    pub fn is_valid(&self, row: usize) -> bool {
        self.validity
            .is_none_or(|words| words[row / 64] >> (row % 64) & 1 == 1)
    }

    /// Whether every row holds a value.
    pub fn all_valid(&self) -> bool {
        let Some(words) = self.validity else {
            return true;
        };
        let rows = self.values.len();
        let full = rows / 64;
        words[..full].iter().all(|&w| w == u64::MAX)
            && (rows.is_multiple_of(64) || words[full] | (u64::MAX << (rows % 64)) == u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::{StringInlined, StringPointer};

    fn inlined(bytes: &[u8]) -> Value {
        let mut inlined = [0u8; 12];
        inlined[..bytes.len()].copy_from_slice(bytes);
        let length = bytes.len() as u32;
        Value(StringT {
            inlined: StringInlined { length, inlined },
        })
    }

    fn pointer(bytes: &'static [u8]) -> Value {
        let mut prefix = [0u8; 4];
        prefix.copy_from_slice(&bytes[..4]);
        let length = bytes.len() as u32;
        Value(StringT {
            pointer: StringPointer {
                length,
                prefix,
                ptr: bytes.as_ptr(),
            },
        })
    }

    #[test]
    fn inline_and_pointer_forms() {
        for n in 0..=12 {
            let bytes = &b"abcdefghijkl"[..n];
            assert_eq!(inlined(bytes).as_ref(), bytes);
        }
        let long: &'static [u8] = b"thirteen byte and more";
        for n in 13..=long.len() {
            assert_eq!(pointer(&long[..n]).as_ref(), &long[..n]);
        }
    }

    #[test]
    fn validity() {
        fn column<'a>(values: &'a [Value], words: &'a [u64]) -> Column<'a> {
            let validity = Some(words);
            Column { values, validity }
        }
        let values = vec![inlined(b""); 130];
        let mut words = [u64::MAX, u64::MAX, 0b11];
        assert!(column(&values, &words).all_valid());
        // Bits past the last row do not count.
        words[2] = u64::MAX ^ 0b100;
        assert!(column(&values, &words).all_valid());
        words[1] ^= 1 << 5;
        let c = column(&values, &words);
        assert!(!c.all_valid());
        assert!(!c.is_valid(64 + 5));
        assert!(c.is_valid(64 + 4) && c.is_valid(129));
        let validity = None;
        assert!(Column {
            values: &values,
            validity
        }
        .all_valid());
    }
}
