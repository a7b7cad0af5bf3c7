//! Arrays that break Arrow's rules (as a buggy reader or a foreign library
//! could hand over): each call gives an error, and no panic reaches the
//! caller.

mod common;

use common::*;
use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, BinaryViewArray};
use datafusion::arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use datafusion::logical_expr::ColumnarValue;
use std::sync::Arc;

/// Both functions on `array`: each one's error message, which names md5x
/// (the library, whichever name the function is registered under).
fn errors(array: ArrayRef) -> Vec<String> {
    [
        md5x_datafusion::md5x_udf(),
        md5x_datafusion::md5x_binary_udf(),
    ]
    .iter()
    .map(|udf| {
        let out = call(udf, ColumnarValue::Array(Arc::clone(&array)), array.len());
        let message = out.expect_err("an error").to_string();
        assert!(message.contains("md5x"), "{}: {message}", udf.name());
        message
    })
    .collect()
}

#[test]
fn a_view_outside_its_buffers_is_an_error() {
    // 20 bytes at offset 10 of a 16-byte buffer; then buffer 1 of 1.
    let views = vec![20u128 | (10u128 << 96), 20u128 | (1u128 << 64)];
    for view in views {
        let buffers = vec![Buffer::from_vec(vec![7u8; 16])];
        let views = ScalarBuffer::from(vec![view]);
        // SAFETY: not sound to read through Arrow's own accessors; md5x
        // reads every view against its buffers, as this test checks.
        let array = unsafe { BinaryViewArray::new_unchecked(views, buffers, None) };
        for message in errors(Arc::new(array)) {
            assert!(message.contains("row 0's view"), "{message}");
        }
    }
}

#[test]
fn a_null_rows_view_outside_its_buffers_is_not_read() {
    // Rows "abc" (inline), NULL and a longer row in buffer 0; the null
    // row's view names buffer 5 of 1.
    let long = b"a row longer than twelve bytes";
    let clean = BinaryViewArray::from(vec![Some(&b"abc"[..]), None, Some(&long[..])]);
    let mut views = clean.views().to_vec();
    views[1] = 20u128 | (5u128 << 64);
    // SAFETY: as above, the null row's view aside, which md5x does not
    // read.
    let broken = unsafe {
        BinaryViewArray::new_unchecked(
            ScalarBuffer::from(views),
            clean.data_buffers().to_vec(),
            clean.nulls().cloned(),
        )
    };
    let (broken, clean): (ArrayRef, ArrayRef) = (Arc::new(broken), Arc::new(clean));
    let md5x = md5x_datafusion::md5x_udf();
    assert_same(&call_array(&md5x, &broken), &md5_of(&clean), "md5x");
    let binary = md5x_datafusion::md5x_binary_udf();
    assert_same(
        &call_array(&binary, &broken),
        &digest_of(&clean),
        "md5x_binary",
    );
}

#[test]
fn offsets_that_decrease_or_pass_the_values_are_errors() {
    for offsets in [vec![0, 8, 4], vec![0, 4, 100]] {
        let offsets = ScalarBuffer::<i32>::from(offsets);
        // SAFETY: as above: md5x checks the offsets before it reads a row.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        let values = Buffer::from_vec(vec![1u8; 16]);
        // SAFETY: as above.
        let array = unsafe { BinaryArray::new_unchecked(offsets, values, None) };
        for message in errors(Arc::new(array)) {
            assert!(message.contains("offsets"), "{message}");
        }
    }
}
