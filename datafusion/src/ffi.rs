//! The functions as datafusion-ffi's [`FFI_ScalarUDF`], for a DataFusion
//! built into another library (datafusion-python's), with a guard on each
//! call that can fail: a panic there becomes the call's error, since none
//! may unwind out of an `extern "C"` function (Rust aborts the process).
//!
//! The struct's layout is datafusion-ffi's, and changes between DataFusion
//! majors: hand it only to a DataFusion of the major
//! [`datafusion_ffi::version`] names.

use datafusion::logical_expr::ScalarUDF;
use datafusion_ffi::arrow_wrappers::{WrappedArray, WrappedSchema};
use datafusion_ffi::config::FFI_ConfigOptions;
use datafusion_ffi::expr::columnar_value::FFI_ColumnarValue;
use datafusion_ffi::udf::return_type_args::FFI_ReturnFieldArgs;
use datafusion_ffi::udf::FFI_ScalarUDF;
use datafusion_ffi::util::FFI_Result;
use stabby::vec::Vec as SVec;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

/// `udf` as an [`FFI_ScalarUDF`], its calls guarded.
pub fn export(udf: ScalarUDF) -> FFI_ScalarUDF {
    guard(FFI_ScalarUDF::from(Arc::new(udf)))
}

type Invoke = unsafe extern "C" fn(
    &FFI_ScalarUDF,
    SVec<WrappedArray>,
    SVec<WrappedSchema>,
    usize,
    WrappedSchema,
    FFI_ConfigOptions,
) -> FFI_Result<FFI_ColumnarValue>;
type ReturnField =
    unsafe extern "C" fn(&FFI_ScalarUDF, FFI_ReturnFieldArgs) -> FFI_Result<WrappedSchema>;
type Coerce =
    unsafe extern "C" fn(&FFI_ScalarUDF, SVec<WrappedSchema>) -> FFI_Result<SVec<WrappedSchema>>;
type CloneFn = unsafe extern "C" fn(&FFI_ScalarUDF) -> FFI_ScalarUDF;

/// datafusion-ffi's functions that the guards call: the same for every
/// struct its `From<Arc<ScalarUDF>>` makes in this library.
struct Unguarded {
    invoke: Invoke,
    return_field: ReturnField,
    coerce: Coerce,
    clone: CloneFn,
}

static UNGUARDED: OnceLock<Unguarded> = OnceLock::new();

/// `udf`, as datafusion-ffi made it, with its calls guarded. Its clones
/// (a consumer clones the struct it receives) are guarded too.
fn guard(mut udf: FFI_ScalarUDF) -> FFI_ScalarUDF {
    UNGUARDED.get_or_init(|| Unguarded {
        invoke: udf.invoke_with_args,
        return_field: udf.return_field_from_args,
        coerce: udf.coerce_types,
        clone: udf.clone,
    });
    udf.invoke_with_args = guarded_invoke;
    udf.return_field_from_args = guarded_return_field;
    udf.coerce_types = guarded_coerce;
    udf.clone = guarded_clone;
    udf
}

/// `call`'s result, or its panic as an error.
fn catching<T>(call: impl FnOnce() -> FFI_Result<T>) -> FFI_Result<T> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(panic) => FFI_Result::from(Err::<T, _>(format!(
            "md5x: a call failed: {}",
            panic_message(&*panic)
        ))),
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

fn unguarded() -> &'static Unguarded {
    // Set by `guard` before any struct with a guard exists.
    UNGUARDED.get().unwrap_or_else(|| unreachable!())
}

/// # Safety
///
/// datafusion-ffi's contract for `invoke_with_args`: `udf` is a live
/// struct this library made.
unsafe extern "C" fn guarded_invoke(
    udf: &FFI_ScalarUDF,
    args: SVec<WrappedArray>,
    arg_fields: SVec<WrappedSchema>,
    rows: usize,
    return_field: WrappedSchema,
    config: FFI_ConfigOptions,
) -> FFI_Result<FFI_ColumnarValue> {
    catching(|| {
        let invoke = unguarded().invoke;
        // SAFETY: the caller's contract, which datafusion-ffi's function
        // has too; the arguments are passed on as received.
        unsafe { invoke(udf, args, arg_fields, rows, return_field, config) }
    })
}

/// # Safety
///
/// datafusion-ffi's contract for `return_field_from_args`.
unsafe extern "C" fn guarded_return_field(
    udf: &FFI_ScalarUDF,
    args: FFI_ReturnFieldArgs,
) -> FFI_Result<WrappedSchema> {
    catching(|| {
        let return_field = unguarded().return_field;
        // SAFETY: as in `guarded_invoke`.
        unsafe { return_field(udf, args) }
    })
}

/// # Safety
///
/// datafusion-ffi's contract for `coerce_types`.
unsafe extern "C" fn guarded_coerce(
    udf: &FFI_ScalarUDF,
    arg_types: SVec<WrappedSchema>,
) -> FFI_Result<SVec<WrappedSchema>> {
    catching(|| {
        let coerce = unguarded().coerce;
        // SAFETY: as in `guarded_invoke`.
        unsafe { coerce(udf, arg_types) }
    })
}

/// # Safety
///
/// datafusion-ffi's contract for `clone`.
unsafe extern "C" fn guarded_clone(udf: &FFI_ScalarUDF) -> FFI_ScalarUDF {
    let clone = unguarded().clone;
    // SAFETY: as in `guarded_invoke`.
    guard(unsafe { clone(udf) })
}
