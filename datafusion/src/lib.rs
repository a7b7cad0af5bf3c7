//! md5x's multi-buffer MD5 as DataFusion scalar functions.
//!
//! * `md5x(x)`: the MD5 of each row as 32 lowercase hex digits, equal to
//!   DataFusion's `md5(x)` in value, type (`Utf8View`) and nullability;
//! * `md5x_binary(x)`: the digest's 16 bytes (`Binary`), equal to
//!   `digest(x, 'md5')`.
//!
//! Both take `Utf8`, `LargeUtf8`, `Utf8View`, `Binary`, `LargeBinary`,
//! `BinaryView` and `FixedSizeBinary` columns, dictionaries of these, and
//! scalars; NULL in, NULL out. DataFusion's `md5` hashes one row at a time;
//! these hash each batch as one [`md5x::multi`] batch, reading the rows
//! in place from Arrow's offsets or views, and write the result column into
//! one buffer.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use datafusion::prelude::SessionContext;
//!
//! let ctx = SessionContext::new();
//! md5x_datafusion::register(&ctx);
//! let batches = ctx.sql("SELECT md5x('abc') AS h").await?.collect().await?;
//! let hex = datafusion::arrow::array::AsArray::as_string_view(batches[0].column(0));
//! assert_eq!(hex.value(0), "900150983cd24fb0d6963f7d28e17f72");
//!
//! // Existing queries of md5(x) now run md5x.
//! md5x_datafusion::override_md5(&ctx);
//! # Ok::<(), datafusion::error::DataFusionError>(())
//! # }).unwrap();
//! ```

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "ffi")]
pub mod ffi;
mod output;
mod rows;
mod types;
mod udf;

pub use udf::{Md5x, Md5xBinary};

use datafusion::execution::context::SessionContext;
use datafusion::logical_expr::ScalarUDF;

/// `md5x(x)` as a [`ScalarUDF`], for [`SessionContext::register_udf`] or
/// for use as an expression (`md5x_udf().call(vec![col("s")])`).
pub fn md5x_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(Md5x::new())
}

/// `md5x_binary(x)` as a [`ScalarUDF`].
pub fn md5x_binary_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(Md5xBinary::new())
}

/// md5x under the name `md5`, as [`override_md5`] registers it.
pub fn md5_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(Md5x::named("md5"))
}

/// Adds `md5x(x)` and `md5x_binary(x)` to `ctx`'s functions.
pub fn register(ctx: &SessionContext) {
    ctx.register_udf(md5x_udf());
    ctx.register_udf(md5x_binary_udf());
}

/// Replaces `ctx`'s `md5(x)` by md5x's: the same results, type and name
/// (so column names stay `md5(...)`), faster, and for the more input types
/// `md5x` takes.
pub fn override_md5(ctx: &SessionContext) {
    ctx.register_udf(md5_udf());
}
