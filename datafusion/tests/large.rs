//! Columns of more than 2 GiB: a LargeBinary and a LargeUtf8 whose offsets
//! pass 2^31, and view columns whose views point into several buffers.
//! The values are zeros from `from_len_zeroed`, which the allocator maps
//! lazily, so the columns cost little memory; the rows read are short,
//! but one crosses the 2 GiB mark.

mod common;

use common::*;
use datafusion::arrow::array::{
    Array, ArrayRef, BinaryViewArray, LargeBinaryArray, LargeStringArray, StringViewArray,
};
use datafusion::arrow::buffer::{Buffer, MutableBuffer, OffsetBuffer, ScalarBuffer};
use std::sync::Arc;

const GIB: i64 = 1 << 30;

/// Offsets of rows around and past byte 2^31 of a values buffer of
/// `2 GiB + 1 MiB`.
fn offsets() -> OffsetBuffer<i64> {
    let two = 2 * GIB;
    OffsetBuffer::new(ScalarBuffer::from(vec![
        0,
        10,
        two - (1 << 20),
        two + 100,
        two + 100,
        two + 4_000,
        two + (1 << 20),
    ]))
}

fn zeros(len: i64) -> Buffer {
    MutableBuffer::from_len_zeroed(len as usize).into()
}

/// A view of `len` bytes at `offset` of buffer `index`.
fn view(len: u32, index: u32, offset: u32) -> u128 {
    (len as u128) | ((index as u128) << 64) | ((offset as u128) << 96)
}

#[test]
fn offsets_past_two_gib() {
    let values = zeros(2 * GIB + (1 << 20));
    let binary: ArrayRef = Arc::new(LargeBinaryArray::new(offsets(), values.clone(), None));
    let text: ArrayRef = Arc::new(LargeStringArray::new(offsets(), values, None));
    let md5x = md5x_datafusion::md5x_udf();
    let md5x_binary = md5x_datafusion::md5x_binary_udf();
    for column in [binary, text] {
        let what = column.data_type().to_string();
        assert_same(&call_array(&md5x, &column), &md5_of(&column), &what);
        let tail = column.slice(2, 4);
        assert_same(&call_array(&md5x, &tail), &md5_of(&tail), &what);
        assert_same(
            &call_array(&md5x_binary, &column),
            &digest_of(&column),
            &what,
        );
    }
}

#[test]
fn views_into_several_buffers_of_more_than_two_gib_in_all() {
    // One GiB buffer, named three times: 3 GiB of data buffers.
    let big = zeros(GIB);
    let buffers = vec![big.clone(), big.clone(), big];
    let far = (GIB - 5_000) as u32;
    let views = ScalarBuffer::from(vec![
        view(3, 0, 0),
        view(100, 0, 7),
        view(4_000, 1, far),
        view(5_000, 2, far),
        view(13, 2, 0),
        view(0, 0, 0),
    ]);
    let binary: ArrayRef = Arc::new(BinaryViewArray::new(views.clone(), buffers.clone(), None));
    let text: ArrayRef = Arc::new(StringViewArray::new(views, buffers, None));
    let md5x = md5x_datafusion::md5x_udf();
    let md5x_binary = md5x_datafusion::md5x_binary_udf();
    for column in [binary, text] {
        let what = column.data_type().to_string();
        assert_same(&call_array(&md5x, &column), &md5_of(&column), &what);
        assert_same(
            &call_array(&md5x_binary, &column),
            &digest_of(&column),
            &what,
        );
    }
}
