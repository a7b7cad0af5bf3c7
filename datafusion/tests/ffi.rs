//! The functions through datafusion-ffi's FFI_ScalarUDF, as
//! datafusion-python receives them: the struct is read as another
//! library's (a ForeignScalarUDF, each call through the struct's
//! functions), registered in a SessionContext and queried; and a panic in
//! a call comes back as that call's error instead of aborting.

mod common;

use common::*;
use datafusion::arrow::array::{ArrayRef, AsArray, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::prelude::SessionContext;
use datafusion_ffi::udf::FFI_ScalarUDF;
use std::sync::Arc;

/// A library marker no library has: the struct reads as foreign.
extern "C" fn another_library() -> usize {
    usize::MAX
}

/// `udf` exported and read back as another library's.
fn through_ffi(udf: ScalarUDF) -> ScalarUDF {
    let mut exported: FFI_ScalarUDF = md5x_datafusion::ffi::export(udf);
    exported.library_marker_id = another_library;
    let foreign: Arc<dyn ScalarUDFImpl> = (&exported).into();
    assert_eq!(
        format!("{foreign:?}").split_whitespace().next(),
        Some("ForeignScalarUDF"),
        "read back as this library's own"
    );
    ScalarUDF::new_from_shared_impl(foreign)
}

#[test]
fn queries_through_the_ffi_equal_md5() {
    let ctx = SessionContext::new();
    ctx.register_udf(through_ffi(md5x_datafusion::md5x_udf()));
    ctx.register_udf(through_ffi(md5x_datafusion::md5x_binary_udf()));
    let texts = texts(21, 20_000);
    let column: ArrayRef = Arc::new(StringArray::from_iter(texts.iter().map(Option::as_deref)));
    let batch =
        datafusion::arrow::array::RecordBatch::try_from_iter([("s", Arc::clone(&column))]).unwrap();
    ctx.register_batch("t", batch).unwrap();
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let batches = ctx
                .sql("SELECT md5x(s), md5x_binary(s), md5x('abc') FROM t")
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
            let hex = datafusion::arrow::compute::concat(
                &batches
                    .iter()
                    .map(|b| b.column(0).as_ref())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            assert_same(&hex, &md5_of(&column), "md5x through the FFI");
            let bytes = datafusion::arrow::compute::concat(
                &batches
                    .iter()
                    .map(|b| b.column(1).as_ref())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            assert_same(&bytes, &digest_of(&column), "md5x_binary through the FFI");
            assert_eq!(
                batches[0].column(2).as_string_view().value(0),
                "900150983cd24fb0d6963f7d28e17f72"
            );
            let err = ctx.sql("SELECT md5x(1)").await.unwrap_err().to_string();
            assert!(err.contains("md5x takes Utf8, LargeUtf8"), "{err}");
        });
}

/// A function whose every call panics.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Panics(Signature);

impl ScalarUDFImpl for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn signature(&self) -> &Signature {
        &self.0
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() > 1 {
            panic!("coerce_types panicked");
        }
        Ok(arg_types.to_vec())
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, _: ScalarFunctionArgs) -> Result<ColumnarValue> {
        panic!("invoke panicked")
    }
}

#[test]
fn a_panic_in_a_call_is_its_error() {
    let udf = through_ffi(ScalarUDF::new_from_impl(Panics(Signature::user_defined(
        Volatility::Immutable,
    ))));
    let err = call(&udf, ColumnarValue::Scalar(ScalarValue::from("a")), 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invoke panicked"), "{err}");
    let err = udf
        .coerce_types(&[DataType::Utf8, DataType::Utf8])
        .unwrap_err()
        .to_string();
    assert!(err.contains("coerce_types panicked"), "{err}");
}
