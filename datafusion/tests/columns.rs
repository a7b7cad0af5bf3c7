//! md5x and md5x_binary against DataFusion's own md5 and digest(x, 'md5')
//! on 100,000 generated rows of every input type: lengths 0 to 200 (55, 56
//! and 64 often), non-ASCII text, NULLs, slices and dictionaries (of
//! several key types, sliced), views into many buffers.

mod common;

use common::*;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringViewBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use std::sync::Arc;

const ROWS: usize = 100_000;

/// Every input column the functions take, each with a name for messages.
fn inputs() -> Vec<(String, ArrayRef)> {
    let texts = texts(1, ROWS);
    let blobs = blobs(2, ROWS);
    let mut inputs = Vec::new();
    for column in columns(&texts, &blobs) {
        let name = column.data_type().to_string();
        inputs.push((format!("{name}, sliced"), column.slice(777, ROWS - 2_000)));
        let dict = dictionary(3, ROWS, column.slice(10, 5_000));
        inputs.push((
            format!("Dictionary of {name}, sliced"),
            dict.slice(501, ROWS - 1_000),
        ));
        for keys in [DataType::UInt16, DataType::Int64] {
            let values = Box::new(column.data_type().clone());
            let other = cast(&dict, &DataType::Dictionary(Box::new(keys), values)).unwrap();
            inputs.push((format!("{}", other.data_type()), other));
        }
        inputs.push((format!("Dictionary of {name}"), dict));
        inputs.push((name, column));
    }
    // Views into many data buffers of 8 KiB: each buffer index in use.
    let mut builder = StringViewBuilder::new().with_fixed_block_size(8 << 10);
    builder.extend(texts.iter().map(Option::as_deref));
    let views: ArrayRef = Arc::new(builder.finish());
    assert!(views.as_string_view().data_buffers().len() > 100);
    inputs.push((
        "Utf8View over 8 KiB buffers, sliced".into(),
        views.slice(99, 50_000),
    ));
    inputs.push(("Utf8View over 8 KiB buffers".into(), views));
    for width in [0, 1, 16, 55, 56, 64, 200] {
        let column = fixed(4, ROWS, width);
        inputs.push((
            format!("FixedSizeBinary({width}), sliced"),
            column.slice(3, ROWS - 10),
        ));
        inputs.push((
            format!("Dictionary of FixedSizeBinary({width})"),
            dictionary(5, ROWS, column.slice(0, 2_000)),
        ));
        inputs.push((format!("FixedSizeBinary({width})"), column));
    }
    inputs
}

#[test]
fn md5x_equals_md5_on_every_type() {
    let md5x = md5x_datafusion::md5x_udf();
    for (name, input) in inputs() {
        assert_same(&call_array(&md5x, &input), &md5_of(&input), &name);
    }
}

#[test]
fn md5x_binary_equals_digest_md5_on_every_type() {
    let md5x_binary = md5x_datafusion::md5x_binary_udf();
    for (name, input) in inputs() {
        assert_same(&call_array(&md5x_binary, &input), &digest_of(&input), &name);
    }
}

#[test]
fn no_rows_all_null_and_empty_rows() {
    let md5x = md5x_datafusion::md5x_udf();
    let md5x_binary = md5x_datafusion::md5x_binary_udf();
    let none: Vec<Option<String>> = vec![None; 300];
    let no_blobs: Vec<Option<Vec<u8>>> = vec![None; 300];
    let empty: Vec<Option<String>> = vec![Some(String::new()); 300];
    let empty_blobs: Vec<Option<Vec<u8>>> = vec![Some(Vec::new()); 300];
    let mut cases: Vec<(String, ArrayRef)> = Vec::new();
    for (what, texts, blobs) in [
        ("all NULL", &none, &no_blobs),
        ("all empty", &empty, &empty_blobs),
    ] {
        for column in columns(texts, blobs) {
            cases.push((format!("{what} {}", column.data_type()), column.slice(0, 0)));
            cases.push((format!("{what} {}", column.data_type()), column.clone()));
            cases.push((
                format!("{what} dictionary of {}", column.data_type()),
                dictionary(6, 100, column),
            ));
        }
    }
    cases.push(("no rows FixedSizeBinary".into(), fixed(7, 0, 8)));
    // A dictionary with no values: every key is NULL.
    let keys = datafusion::arrow::array::Int32Array::from(vec![None; 5]);
    let values: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(
        Vec::<&str>::new(),
    ));
    let empty_dictionary = datafusion::arrow::array::DictionaryArray::<
        datafusion::arrow::datatypes::Int32Type,
    >::try_new(keys, values)
    .unwrap();
    cases.push((
        "all NULL dictionary without values".into(),
        Arc::new(empty_dictionary),
    ));
    for (name, input) in cases {
        let ours = call_array(&md5x, &input);
        assert_same(&ours, &md5_of(&input), &name);
        assert_same(&call_array(&md5x_binary, &input), &digest_of(&input), &name);
        if name.starts_with("all empty") && !input.is_empty() {
            let hex = datafusion::arrow::array::AsArray::as_string_view(&ours);
            assert_eq!(hex.value(0), "d41d8cd98f00b204e9800998ecf8427e", "{name}");
        }
        if name.starts_with("all NULL") {
            assert_eq!(ours.null_count(), input.len(), "{name}");
        }
    }
}
