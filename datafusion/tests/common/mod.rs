//! What the tests share: a seeded generator of rows, the columns built from
//! them, and calls of a function on a column the way DataFusion makes them.

#![allow(dead_code)]

use datafusion::arrow::array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, DictionaryArray, FixedSizeBinaryArray,
    LargeBinaryArray, LargeStringArray, StringArray, StringViewArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int32Type};
use datafusion::common::config::ConfigOptions;
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF};
use std::sync::Arc;

pub use md5x_testkit::Rng;

/// Lengths MD5's padding treats apart (one block or two, a full block),
/// drawn more often than others.
const EDGES: [usize; 9] = [0, 1, 55, 56, 57, 63, 64, 65, 120];

fn length(rng: &mut Rng) -> usize {
    match rng.below(4) {
        0 => EDGES[rng.below(EDGES.len())],
        _ => rng.below(201),
    }
}

/// A string of about `len` bytes (never more) of ASCII and 2, 3 and 4-byte
/// characters.
fn text(rng: &mut Rng, len: usize) -> String {
    const CHARS: [char; 8] = ['a', 'Z', '0', ' ', 'é', 'ß', '€', '😀'];
    let mut s = String::with_capacity(len);
    loop {
        let c = CHARS[rng.below(CHARS.len())];
        if s.len() + c.len_utf8() > len {
            // Fill up with ASCII, so that the edge lengths occur exactly.
            s.extend(std::iter::repeat_n('x', len - s.len()));
            return s;
        }
        s.push(c);
    }
}

/// `n` rows of text, one in ten NULL.
pub fn texts(seed: u64, n: usize) -> Vec<Option<String>> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let len = length(&mut rng);
            (rng.below(10) != 0).then(|| text(&mut rng, len))
        })
        .collect()
}

/// `n` rows of arbitrary bytes, one in ten NULL.
pub fn blobs(seed: u64, n: usize) -> Vec<Option<Vec<u8>>> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let len = length(&mut rng);
            (rng.below(10) != 0).then(|| (0..len).map(|_| rng.next() as u8).collect())
        })
        .collect()
}

/// The six byte-column types, each holding `texts` (or `blobs` for the
/// binary ones).
pub fn columns(texts: &[Option<String>], blobs: &[Option<Vec<u8>>]) -> Vec<ArrayRef> {
    let t = || texts.iter().map(Option::as_deref);
    let b = || blobs.iter().map(Option::as_deref);
    vec![
        Arc::new(StringArray::from_iter(t())),
        Arc::new(LargeStringArray::from_iter(t())),
        Arc::new(StringViewArray::from_iter(t())),
        Arc::new(BinaryArray::from_iter(b())),
        Arc::new(LargeBinaryArray::from_iter(b())),
        Arc::new(BinaryViewArray::from_iter(b())),
    ]
}

/// A fixed-width column of `n` rows of `width` bytes, one in ten NULL.
pub fn fixed(seed: u64, n: usize, width: i32) -> ArrayRef {
    let mut rng = Rng(seed);
    let rows: Vec<Option<Vec<u8>>> = (0..n)
        .map(|_| {
            let row = (0..width).map(|_| rng.next() as u8).collect();
            (rng.below(10) != 0).then_some(row)
        })
        .collect();
    let column = FixedSizeBinaryArray::try_from_sparse_iter_with_size(rows.into_iter(), width)
        .expect("rows of one width");
    Arc::new(column)
}

/// A dictionary of `n` rows over `values`' rows, one key in twenty NULL.
pub fn dictionary(seed: u64, n: usize, values: ArrayRef) -> ArrayRef {
    let mut rng = Rng(seed);
    let keys: Vec<Option<i32>> = (0..n)
        .map(|_| (rng.below(20) != 0).then(|| rng.below(values.len()) as i32))
        .collect();
    let keys = datafusion::arrow::array::Int32Array::from(keys);
    Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).expect("keys in range"))
}

/// `udf(arg)` over `rows` rows, called as DataFusion calls it.
pub fn call(udf: &ScalarUDF, arg: ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let field = Arc::new(Field::new("x", arg.data_type(), true));
    let arg_fields = [Arc::clone(&field)];
    let return_field = udf.return_field_from_args(ReturnFieldArgs {
        arg_fields: &arg_fields,
        scalar_arguments: &[None],
    })?;
    udf.invoke_with_args(ScalarFunctionArgs {
        args: vec![arg],
        arg_fields: vec![field],
        number_rows: rows,
        return_field,
        config_options: Arc::new(ConfigOptions::default()),
    })
}

/// `udf(array)`, an array.
pub fn call_array(udf: &ScalarUDF, array: &ArrayRef) -> ArrayRef {
    match call(udf, ColumnarValue::Array(Arc::clone(array)), array.len()) {
        Ok(ColumnarValue::Array(out)) => out,
        other => panic!("{}({}) gave {other:?}", udf.name(), array.data_type()),
    }
}

/// The type DataFusion's own `md5` takes for a column of `data_type`: its
/// values' type for a dictionary, `Binary` for fixed-width bytes.
pub fn md5_input(array: &ArrayRef) -> ArrayRef {
    match array.data_type() {
        DataType::Dictionary(_, values) => md5_input(&cast(array, values).unwrap()),
        DataType::FixedSizeBinary(_) => cast(array, &DataType::Binary).unwrap(),
        _ => Arc::clone(array),
    }
}

/// DataFusion's `md5(array)`: the oracle.
pub fn md5_of(array: &ArrayRef) -> ArrayRef {
    call_array(&datafusion::functions::crypto::md5(), &md5_input(array))
}

/// DataFusion's `digest(array, 'md5')`: the oracle for the 16 bytes.
pub fn digest_of(array: &ArrayRef) -> ArrayRef {
    let input = md5_input(array);
    let digest = datafusion::functions::crypto::digest();
    let args = vec![
        ColumnarValue::Array(Arc::clone(&input)),
        ColumnarValue::Scalar("md5".into()),
    ];
    let fields = vec![
        Arc::new(Field::new("x", input.data_type().clone(), true)),
        Arc::new(Field::new("m", DataType::Utf8, false)),
    ];
    let method = datafusion::common::ScalarValue::from("md5");
    let return_field = digest
        .return_field_from_args(ReturnFieldArgs {
            arg_fields: &fields,
            scalar_arguments: &[None, Some(&method)],
        })
        .unwrap();
    let out = digest.invoke_with_args(ScalarFunctionArgs {
        args,
        arg_fields: fields,
        number_rows: input.len(),
        return_field,
        config_options: Arc::new(ConfigOptions::default()),
    });
    match out {
        Ok(ColumnarValue::Array(out)) => out,
        other => panic!("digest({}) gave {other:?}", input.data_type()),
    }
}

/// Asserts `ours` equals `expected` row by row (values and NULLs) and in
/// type.
pub fn assert_same(ours: &ArrayRef, expected: &ArrayRef, what: &str) {
    assert_eq!(ours.data_type(), expected.data_type(), "{what}: type");
    assert_eq!(ours.len(), expected.len(), "{what}: rows");
    // By row: a null buffer with no nulls and none at all are the same.
    let nulls = |a: &ArrayRef| {
        let logical = a.logical_nulls();
        (0..a.len())
            .filter(|&i| logical.as_ref().is_some_and(|n| n.is_null(i)))
            .collect::<Vec<_>>()
    };
    assert_eq!(nulls(ours), nulls(expected), "{what}: NULL rows");
    if ours.as_ref() != expected.as_ref() {
        let first = (0..ours.len())
            .find(|&i| ours.slice(i, 1).as_ref() != expected.slice(i, 1).as_ref())
            .unwrap_or(0);
        panic!(
            "{what}: row {first} differs: {:?} vs {:?}",
            ours.slice(first, 1),
            expected.slice(first, 1)
        );
    }
}
