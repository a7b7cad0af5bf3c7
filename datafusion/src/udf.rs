//! The two `ScalarUDFImpl`s: `md5x` (hex, as `md5`) and `md5x_binary`.

use crate::output::{binary_column, hex_view_column};
use crate::types;
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a function returns for each row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Form {
    /// 32 lowercase hex digits, `Utf8View` (what `md5` returns).
    Hex,
    /// The digest's 16 bytes, `Binary` (what `digest(x, 'md5')` returns).
    Binary,
}

/// `md5x(x)`: the MD5 of each row as 32 lowercase hex digits, equal to
/// DataFusion's `md5(x)` in value, type (`Utf8View`) and nullability.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Md5x {
    name: &'static str,
    signature: Signature,
}

/// `md5x_binary(x)`: the MD5 of each row as its 16 bytes (`Binary`), equal
/// to DataFusion's `digest(x, 'md5')`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Md5xBinary {
    signature: Signature,
}

impl Md5x {
    /// The function named `md5x`.
    pub fn new() -> Self {
        Self::named("md5x")
    }

    /// The same function under another name: `md5` replaces DataFusion's
    /// own (see [`crate::override_md5`]).
    pub fn named(name: &'static str) -> Self {
        Self {
            name,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for Md5x {
    fn default() -> Self {
        Self::new()
    }
}

impl Md5xBinary {
    /// The function named `md5x_binary`.
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for Md5xBinary {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for Md5x {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        types::coerce(self.name, arg_types)
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8View)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        invoke(self.name, Form::Hex, args)
    }
}

impl ScalarUDFImpl for Md5xBinary {
    fn name(&self) -> &str {
        "md5x_binary"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        types::coerce(self.name(), arg_types)
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        invoke(self.name(), Form::Binary, args)
    }
}

/// One call: its argument checked, hashed, and any panic turned into an
/// error, so that none unwinds into DataFusion (or across the FFI).
fn invoke(name: &str, form: Form, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
    let [arg] = &args.args[..] else {
        return exec_err!("{name} takes 1 argument, got {}", args.args.len());
    };
    match catch_unwind(AssertUnwindSafe(|| hash(name, form, arg))) {
        Ok(result) => result,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("a panic");
            exec_err!("{name} failed: {why}")
        }
    }
}

fn hash(name: &str, form: Form, arg: &ColumnarValue) -> Result<ColumnarValue> {
    match arg {
        ColumnarValue::Array(array) => {
            let data_type = array.data_type();
            if !(types::is_accepted(data_type) || data_type.is_null()) {
                return exec_err!("{name} takes {}; got {data_type}", types::ACCEPTED);
            }
            let column: ArrayRef = match form {
                Form::Hex => hex_view_column(array.as_ref())?,
                Form::Binary => binary_column(array.as_ref())?,
            };
            Ok(ColumnarValue::Array(column))
        }
        ColumnarValue::Scalar(value) => {
            let digest = scalar_bytes(name, value)?.map(|b| md5x::multi::digest_many(&[b])[0]);
            Ok(ColumnarValue::Scalar(match form {
                Form::Hex => ScalarValue::Utf8View(digest.map(|d| {
                    let mut hex = [[0u8; 32]];
                    md5x::multi::hex_into(&[d], &mut hex);
                    hex[0].iter().map(|&b| b as char).collect()
                })),
                Form::Binary => ScalarValue::Binary(digest.map(|d| d.to_vec())),
            }))
        }
    }
}

/// A scalar's bytes, `None` for a NULL of any type.
fn scalar_bytes<'v>(name: &str, value: &'v ScalarValue) -> Result<Option<&'v [u8]>> {
    Ok(match value {
        ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s) => {
            s.as_deref().map(str::as_bytes)
        }
        ScalarValue::Binary(b)
        | ScalarValue::LargeBinary(b)
        | ScalarValue::BinaryView(b)
        | ScalarValue::FixedSizeBinary(_, b) => b.as_deref(),
        ScalarValue::Dictionary(_, inner) => return scalar_bytes(name, inner),
        ScalarValue::Null => None,
        other => {
            return exec_err!(
                "{name} takes {}; got {}",
                types::ACCEPTED,
                other.data_type()
            )
        }
    })
}
