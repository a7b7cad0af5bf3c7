//! The bodies of `md5x`, `md5x_number` and `md5x_binary`: each chunk of
//! rows DuckDB hands over is hashed as one batch by `md5x::multi`, and the
//! digests written into the output vector as DuckDB's own `md5`,
//! `md5_number` and `unhex(md5(..))` write them.

use core::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::capi::{
    Api, DataChunk, FunctionInfo, Idx, StringInlined, StringPointer, StringT, Uhugeint, Vector,
};
use crate::values::{Column, Value};

/// What a function writes for each digest.
#[derive(Clone, Copy)]
enum Form {
    /// `VARCHAR`, 32 lowercase hex digits (`md5`).
    Hex,
    /// `UHUGEINT` (`HUGEINT` before DuckDB 1.3, the same bytes), the
    /// digest's bytes read little-endian (`md5_number`).
    Number,
    /// `BLOB`, the digest's 16 bytes (`unhex(md5(..))`).
    Binary,
}

/// `md5x(VARCHAR | BLOB) -> VARCHAR`.
pub unsafe extern "C" fn md5x_hex(info: FunctionInfo, input: DataChunk, output: Vector) {
    run(info, input, output, Form::Hex);
}

/// `md5x_number(VARCHAR | BLOB) -> UHUGEINT` (`HUGEINT` before DuckDB 1.3).
pub unsafe extern "C" fn md5x_number(info: FunctionInfo, input: DataChunk, output: Vector) {
    run(info, input, output, Form::Number);
}

/// `md5x_binary(VARCHAR | BLOB) -> BLOB`.
pub unsafe extern "C" fn md5x_binary(info: FunctionInfo, input: DataChunk, output: Vector) {
    run(info, input, output, Form::Binary);
}

/// Runs one chunk, turning a failure into the query's error: a panic must
/// not unwind into DuckDB.
fn run(info: FunctionInfo, input: DataChunk, output: Vector, form: Form) {
    // The functions are registered only after the API is stored.
    let Some(api) = crate::api() else {
        return;
    };
    // SAFETY: DuckDB calls a registered function with a live chunk of one
    // flat VARCHAR or BLOB column (the overloads' only parameter) and an
    // output vector of the function's return type with room for its rows.
    let done = catch_unwind(AssertUnwindSafe(|| unsafe {
        hash_chunk(api, input, output, form)
    }));
    let message = match done {
        Ok(Ok(())) => return,
        Ok(Err(message)) => message,
        Err(_) => c"md5x: internal error (a panic), please report it",
    };
    // SAFETY: `info` is the call's function info; the message is a C string.
    unsafe { (api.scalar_function_set_error)(info, message.as_ptr()) };
}

/// The rows that hold a value: all of them, or the valid ones' indices.
enum Rows {
    All,
    Valid(Vec<usize>),
}

impl Rows {
    /// The row of the `k`th value hashed.
    #[inline]
    fn row(&self, k: usize) -> usize {
        match self {
            Rows::All => k,
            Rows::Valid(rows) => rows[k],
        }
    }
}

/// # Safety
///
/// As [`Column::first`] for `input`; `output` is the call's output vector,
/// of the type `form` writes, with room for the chunk's rows.
unsafe fn hash_chunk(
    api: &Api,
    input: DataChunk,
    output: Vector,
    form: Form,
) -> Result<(), &'static CStr> {
    // SAFETY: the caller's contract.
    let column = unsafe { Column::first(api, input) }.ok_or(c"md5x: a chunk without data")?;
    let gathered: Vec<Value>;
    let (rows, values) = if column.all_valid() {
        (Rows::All, column.values)
    } else {
        let valid: Vec<usize> = (0..column.values.len())
            .filter(|&row| column.is_valid(row))
            .collect();
        gathered = valid.iter().map(|&row| column.values[row]).collect();
        (Rows::Valid(valid), &gathered[..])
    };
    let mut digests = vec![[0u8; 16]; values.len()];
    md5x::multi::digest_many_into(values, &mut digests);

    // SAFETY: the caller's contract for `output`.
    unsafe { copy_validity(api, &column, output) }?;
    match form {
        Form::Number => {
            // SAFETY: a UHUGEINT (or HUGEINT, the same layout) vector's
            // data, room for the chunk's rows.
            let data = unsafe { (api.vector_get_data)(output) }.cast::<Uhugeint>();
            for (k, digest) in digests.iter().enumerate() {
                let value = u128::from_le_bytes(*digest);
                let number = Uhugeint {
                    lower: value as u64,
                    upper: (value >> 64) as u64,
                };
                // SAFETY: `row(k)` is a row of the chunk.
                unsafe { data.add(rows.row(k)).write(number) };
            }
            Ok(())
        }
        Form::Hex => {
            let mut hex = vec![[0u8; 32]; digests.len()];
            md5x::multi::hex_into(&digests, &mut hex);
            // SAFETY: the caller's contract: a VARCHAR output vector.
            unsafe { write_strings(api, output, &rows, &hex) }
        }
        // SAFETY: the caller's contract: a BLOB output vector.
        Form::Binary => unsafe { write_strings(api, output, &rows, &digests) },
    }
}

/// Marks NULL the output rows whose input is NULL, and the others valid.
///
/// # Safety
///
/// `output` is the call's output vector, with room for the column's rows.
unsafe fn copy_validity(api: &Api, column: &Column, output: Vector) -> Result<(), &'static CStr> {
    let words = column.values.len().div_ceil(64);
    match column.validity {
        Some(input) if !column.all_valid() => {
            // SAFETY: `output` is live; this gives it a mask of its own.
            unsafe { (api.vector_ensure_validity_writable)(output) };
            // SAFETY: as above.
            let mask = unsafe { (api.vector_get_validity)(output) };
            if mask.is_null() {
                return Err(c"md5x: the output vector has no validity mask");
            }
            // SAFETY: the mask has a bit for each of the vector's rows; the
            // input's mask is another vector's.
            unsafe { core::ptr::copy_nonoverlapping(input.as_ptr(), mask, words) };
        }
        _ => {
            // SAFETY: `output` is live.
            let mask = unsafe { (api.vector_get_validity)(output) };
            if !mask.is_null() {
                // SAFETY: the mask has a bit for each of the vector's rows.
                unsafe { core::ptr::write_bytes(mask, 0xff, words) };
            }
        }
    }
    Ok(())
}

/// Writes the `k`th of `encoded` as the string of row `rows.row(k)`.
///
/// All the chunk's strings go into DuckDB's string heap of `output` as one
/// string, one copy; each row's `duckdb_string_t` then points to its part.
/// A string of more than 12 bytes is never stored inline, so this is the
/// one allocation the chunk needs, where one
/// `duckdb_vector_assign_string_element_len` a row would make one each.
///
/// # Safety
///
/// `output` is the call's output vector, of `VARCHAR` or `BLOB`, with room
/// for every `rows.row(k)`; `W` is over 12 (never inline).
unsafe fn write_strings<const W: usize>(
    api: &Api,
    output: Vector,
    rows: &Rows,
    encoded: &[[u8; W]],
) -> Result<(), &'static CStr> {
    const { assert!(W > crate::capi::STRING_INLINE_LENGTH) };
    let Some(first) = (!encoded.is_empty()).then(|| rows.row(0)) else {
        return Ok(());
    };
    let total = encoded.len() * W;
    if u32::try_from(total).is_err() {
        return Err(c"md5x: a chunk's digests exceed a DuckDB string");
    }
    // SAFETY: a VARCHAR or BLOB vector's data, `duckdb_string_t` a row.
    let data = unsafe { (api.vector_get_data)(output) }.cast::<StringT>();
    let empty = StringT {
        inlined: StringInlined {
            length: 0,
            inlined: [0; 12],
        },
    };
    // SAFETY: `first` is a row of the vector. Emptied, so that the length
    // read back below is the one DuckDB wrote.
    unsafe { data.add(first).write(empty) };
    // SAFETY: `encoded` is `total` readable bytes; DuckDB copies them into
    // the vector's heap and stores the string in row `first`.
    unsafe {
        (api.vector_assign_string_element_len)(
            output,
            first as Idx,
            encoded.as_ptr().cast::<c_char>(),
            total as Idx,
        )
    };
    // SAFETY: row `first`, just written.
    let stored = unsafe { data.add(first).read() };
    // SAFETY: both forms start with the length.
    if unsafe { stored.inlined.length } as usize != total {
        return Err(c"md5x: DuckDB did not store a chunk's digests");
    }
    // SAFETY: a string over 12 bytes is the pointer form.
    let heap = unsafe { stored.pointer.ptr };
    for (k, value) in encoded.iter().enumerate() {
        let mut prefix = [0u8; 4];
        prefix.copy_from_slice(&value[..4]);
        let string = StringT {
            pointer: StringPointer {
                length: W as u32,
                prefix,
                // SAFETY: `k * W + W <= total`: within the heap string.
                ptr: unsafe { heap.add(k * W) },
            },
        };
        // SAFETY: `row(k)` is a row of the vector.
        unsafe { data.add(rows.row(k)).write(string) };
    }
    Ok(())
}
