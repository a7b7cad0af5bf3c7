//! Scalar arguments (a literal, a constant folded before execution) of
//! every type, NULLs of every type among them.

mod common;

use common::*;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ColumnarValue;

fn scalars() -> Vec<ScalarValue> {
    let text = "héllo, wörld: 55 bytes of text, and some more than that";
    let bytes = text.as_bytes().to_vec();
    let mut scalars = vec![
        ScalarValue::Utf8(Some(text.into())),
        ScalarValue::LargeUtf8(Some(text.into())),
        ScalarValue::Utf8View(Some(text.into())),
        ScalarValue::Utf8(Some(String::new())),
        ScalarValue::Binary(Some(bytes.clone())),
        ScalarValue::LargeBinary(Some(bytes.clone())),
        ScalarValue::BinaryView(Some(bytes.clone())),
        ScalarValue::FixedSizeBinary(bytes.len() as i32, Some(bytes.clone())),
        ScalarValue::Dictionary(
            Box::new(DataType::Int32),
            Box::new(ScalarValue::Utf8(Some(text.into()))),
        ),
        ScalarValue::Utf8(None),
        ScalarValue::LargeUtf8(None),
        ScalarValue::Utf8View(None),
        ScalarValue::Binary(None),
        ScalarValue::LargeBinary(None),
        ScalarValue::BinaryView(None),
        ScalarValue::FixedSizeBinary(4, None),
        ScalarValue::Dictionary(
            Box::new(DataType::Int8),
            Box::new(ScalarValue::Binary(None)),
        ),
    ];
    for len in [55, 56, 64, 200] {
        scalars.push(ScalarValue::Binary(Some(vec![b'a'; len])));
    }
    scalars
}

#[test]
fn scalars_equal_md5_of_the_same_row() {
    let md5x = md5x_datafusion::md5x_udf();
    let md5x_binary = md5x_datafusion::md5x_binary_udf();
    for scalar in scalars() {
        let column = scalar.to_array_of_size(1).unwrap();
        let ours = call(&md5x, ColumnarValue::Scalar(scalar.clone()), 1).unwrap();
        let ColumnarValue::Scalar(ours) = ours else {
            panic!("md5x({scalar:?}) is not a scalar");
        };
        let expected = ScalarValue::try_from_array(&md5_of(&column), 0).unwrap();
        assert_eq!(ours, expected, "{scalar:?}");

        let ours = call(&md5x_binary, ColumnarValue::Scalar(scalar.clone()), 1).unwrap();
        let ColumnarValue::Scalar(ours) = ours else {
            panic!("md5x_binary({scalar:?}) is not a scalar");
        };
        let expected = ScalarValue::try_from_array(&digest_of(&column), 0).unwrap();
        assert_eq!(ours, expected, "{scalar:?}");
    }
}

#[test]
fn untyped_null_is_null() {
    let md5x = md5x_datafusion::md5x_udf();
    let out = call(&md5x, ColumnarValue::Scalar(ScalarValue::Null), 1).unwrap();
    assert!(
        matches!(out, ColumnarValue::Scalar(ScalarValue::Utf8View(None))),
        "{out:?}"
    );
}

#[test]
fn a_scalar_of_another_type_is_an_error_not_a_panic() {
    let md5x = md5x_datafusion::md5x_udf();
    let err = call(&md5x, ColumnarValue::Scalar(ScalarValue::Int64(Some(1))), 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("md5x takes Utf8, LargeUtf8"), "{err}");
    assert!(err.contains("got Int64"), "{err}");
}
