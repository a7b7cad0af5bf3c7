//! The functions as datafusion-ffi's [`FFI_ScalarUDF`], for a DataFusion
//! built into another library (datafusion-python's), each call that
//! crosses the FFI guarded: a panic in it becomes the call's error, since
//! none may unwind out of datafusion-ffi's `extern "C"` functions (Rust
//! aborts the process there).
//!
//! The guard sits inside those functions, around the [`ScalarUDFImpl`]
//! they call (`CatchPanics`); a wrapper around them would come too late,
//! as the abort happens when the panic reaches their frame. What
//! datafusion-ffi does itself (converting Arrow arrays and schemas across
//! the FFI) returns its errors and is not guarded.
//!
//! The struct's layout is datafusion-ffi's, and changes between DataFusion
//! majors: hand it only to a DataFusion of the major
//! [`datafusion_ffi::version`] names.

use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::sort_properties::ExprProperties;
use datafusion::logical_expr::{
    ColumnarValue, ExpressionPlacement, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature,
};
use datafusion_ffi::udf::FFI_ScalarUDF;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// `udf` as an [`FFI_ScalarUDF`], its calls guarded.
pub fn export(udf: ScalarUDF) -> FFI_ScalarUDF {
    FFI_ScalarUDF::from(Arc::new(guarded(udf)))
}

/// `udf`, each call of it that datafusion-ffi makes guarded.
fn guarded(udf: ScalarUDF) -> ScalarUDF {
    ScalarUDF::new_from_impl(CatchPanics(Arc::new(udf)))
}

/// A function whose calls return a panic as their error: every method of
/// [`ScalarUDFImpl`] that datafusion-ffi's [`FFI_ScalarUDF`] calls is
/// passed on to the function inside, under `catch_unwind`.
#[derive(Debug, PartialEq, Eq, Hash)]
struct CatchPanics(Arc<ScalarUDF>);

impl CatchPanics {
    /// `call` on the function inside, or its panic as an error.
    fn catching<T>(&self, what: &str, call: impl FnOnce(&ScalarUDF) -> Result<T>) -> Result<T> {
        match catch_unwind(AssertUnwindSafe(|| call(&self.0))) {
            Ok(result) => result,
            Err(panic) => exec_err!(
                "{}: {what} panicked: {}",
                self.0.name(),
                panic_message(&*panic)
            ),
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

impl ScalarUDFImpl for CatchPanics {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn aliases(&self) -> &[String] {
        self.0.aliases()
    }

    fn signature(&self) -> &Signature {
        self.0.signature()
    }

    fn short_circuits(&self) -> bool {
        self.0.short_circuits()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.catching("return_type", |f| f.return_type(arg_types))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.catching("return_field_from_args", |f| f.return_field_from_args(args))
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.catching("coerce_types", |f| f.coerce_types(arg_types))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        self.catching("invoke_with_args", |f| f.invoke_with_args(args))
    }

    fn preserves_lex_ordering(&self, inputs: &[ExprProperties]) -> Result<bool> {
        self.catching("preserves_lex_ordering", |f| {
            f.preserves_lex_ordering(inputs)
        })
    }

    fn with_updated_config(&self, config: &ConfigOptions) -> Option<ScalarUDF> {
        // A panic keeps the function as it is, as `None` says.
        let updated = catch_unwind(AssertUnwindSafe(|| {
            self.0.inner().with_updated_config(config)
        }));
        updated.ok().flatten().map(guarded)
    }

    fn placement(&self, args: &[ExpressionPlacement]) -> ExpressionPlacement {
        // Infallible across the FFI: a panic gives the trait's default.
        catch_unwind(AssertUnwindSafe(|| self.0.placement(args)))
            .unwrap_or(ExpressionPlacement::KeepInPlace)
    }
}
