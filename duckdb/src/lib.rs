//! md5x as a DuckDB loadable extension: `md5x`, `md5x_number` and
//! `md5x_binary`, equal to DuckDB's `md5`, `md5_number` and
//! `unhex(md5(..))`, each chunk of rows hashed as one batch by
//! `md5x::multi`.
//!
//! Built on DuckDB's stable C extension API (`duckdb_ext_api_v1`, version
//! [`capi::C_API_VERSION`]) with the few declarations it needs written in
//! [`capi`], so one file loads into every DuckDB release of that C API, and
//! nothing of DuckDB is compiled here. `md5x_init_c_api` is the entry point
//! DuckDB calls on `LOAD`; [`footer`] writes the metadata DuckDB reads from
//! the end of the file first.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod capi;
pub mod footer;
mod functions;
mod register;
mod values;

use core::ffi::CStr;
use std::sync::OnceLock;

use capi::{Api, ExtensionAccess, ExtensionInfo, RawApiV1};

/// The API entries, copied out of the struct DuckDB lends the entry point
/// (it lives only for that call).
static API: OnceLock<Api> = OnceLock::new();

fn api() -> Option<&'static Api> {
    API.get()
}

/// DuckDB's entry point for an extension file named `md5x.duckdb_extension`:
/// gets the API struct, then registers the functions. On failure it sets the
/// error that `LOAD` raises and returns `false`.
///
/// # Safety
///
/// Called by DuckDB only, with the load's info and a live access struct.
#[no_mangle]
pub unsafe extern "C" fn md5x_init_c_api(
    info: ExtensionInfo,
    access: *const ExtensionAccess,
) -> bool {
    // SAFETY: DuckDB passes a live access struct, or null.
    let Some(access) = (unsafe { access.as_ref() }) else {
        return false;
    };
    let Some(set_error) = access.set_error else {
        return false;
    };
    // SAFETY: the load's info; the messages are C strings.
    let fail = |message: &CStr| unsafe {
        set_error(info, message.as_ptr());
        false
    };
    let (Some(get_api), Some(get_database)) = (access.get_api, access.get_database) else {
        return fail(c"md5x: DuckDB passed an incomplete extension access struct");
    };
    // SAFETY: `get_api` with the load's info and a C string; it returns the
    // struct of that version, or null (having set an error) when DuckDB does
    // not offer it.
    let raw = unsafe { get_api(info, capi::C_API_VERSION.as_ptr()) }.cast::<RawApiV1>();
    // SAFETY: non-null, it is a `duckdb_ext_api_v1` of C API v1.2.0 or later,
    // whose first entries are `RawApiV1`'s, alive for this call.
    let Some(raw) = (unsafe { raw.as_ref() }) else {
        return fail(c"md5x: this DuckDB does not offer the C extension API v1.2.0 that md5x is built for; md5x needs DuckDB 1.2.0 or later (of C API major version 1)");
    };
    let Some(api) = Api::from_raw(raw) else {
        return fail(c"md5x: DuckDB's C extension API struct lacks an entry md5x calls");
    };
    let stored = API.get_or_init(|| api);
    // Two DuckDB libraries in one process (two copies of DuckDB) would share
    // this one loaded file, and its functions would call the first's API
    // with the second's vectors.
    if stored.connect as usize != api.connect as usize {
        return fail(c"md5x: already loaded by another copy of DuckDB in this process; copy md5x.duckdb_extension to another path for this one");
    }
    // SAFETY: the load's info; a pointer to DuckDB's database, or null.
    let database = unsafe { get_database(info) };
    // SAFETY: non-null, it is the database being loaded into.
    let Some(&database) = (unsafe { database.as_ref() }) else {
        return false; // DuckDB has set the error
    };
    // SAFETY: the API's entries, with the database DuckDB gave.
    match unsafe { register::register_all(stored, database) } {
        Ok(()) => true,
        Err(message) => fail(message),
    }
}
