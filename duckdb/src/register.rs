//! The functions' registration: one scalar function set a name, with a
//! `VARCHAR` and a `BLOB` overload, so that DuckDB's binder picks the
//! overload and names both in its error for any other argument type.

use core::ffi::CStr;

use crate::capi::{
    Api, Connection, Database, ScalarFunctionBody, TypeId, SUCCESS, TYPE_BLOB, TYPE_HUGEINT,
    TYPE_UHUGEINT, TYPE_VARCHAR,
};
use crate::functions::{md5x_binary, md5x_hex, md5x_number};

/// The type of DuckDB's `md5_number`, which `md5x_number` returns: the
/// digest's 16 bytes as a `HUGEINT` up to DuckDB 1.2, a `UHUGEINT` from
/// 1.3.0 on (the same bytes, so negative in 1.2 where the top bit is set).
/// `version` is `duckdb_library_version()`, e.g. `v1.2.2`; one that does
/// not parse is taken for a newer build.
pub fn md5_number_type(version: &CStr) -> TypeId {
    let version = version.to_str().unwrap_or_default();
    let mut parts = version.trim_start_matches('v').split(['.', '-']);
    let mut next = || parts.next().and_then(|p| p.parse::<u32>().ok());
    match (next(), next()) {
        (Some(major), Some(minor)) if (major, minor) < (1, 3) => TYPE_HUGEINT,
        _ => TYPE_UHUGEINT,
    }
}

/// The argument types each function takes.
const ARGUMENTS: [TypeId; 2] = [TYPE_VARCHAR, TYPE_BLOB];

/// Registers every function on a connection to `database`.
///
/// # Safety
///
/// `database` is the database DuckDB is loading the extension into.
pub unsafe fn register_all(api: &Api, database: Database) -> Result<(), &'static CStr> {
    let mut connection = Connection::NULL;
    // SAFETY: a live database; `connection` receives the handle.
    if unsafe { (api.connect)(database, &mut connection) } != SUCCESS {
        return Err(c"md5x: cannot open a connection to register its functions");
    }
    // SAFETY: no arguments; DuckDB's version, a static C string.
    let version = unsafe { (api.library_version)() };
    let version = if version.is_null() {
        c""
    } else {
        // SAFETY: non-null, a NUL-terminated string that lives as long as
        // the library.
        unsafe { CStr::from_ptr(version) }
    };
    let functions: [(&CStr, TypeId, ScalarFunctionBody); 3] = [
        (c"md5x", TYPE_VARCHAR, md5x_hex),
        (c"md5x_number", md5_number_type(version), md5x_number),
        (c"md5x_binary", TYPE_BLOB, md5x_binary),
    ];
    let mut result = Ok(());
    for (name, returns, body) in functions {
        // SAFETY: a live connection.
        result = unsafe { register_set(api, connection, name, returns, body) };
        if result.is_err() {
            break;
        }
    }
    // SAFETY: the connection opened above, closed once.
    unsafe { (api.disconnect)(&mut connection) };
    result
}

/// # Safety
///
/// `connection` is live.
unsafe fn register_set(
    api: &Api,
    connection: Connection,
    name: &CStr,
    returns: TypeId,
    body: ScalarFunctionBody,
) -> Result<(), &'static CStr> {
    // SAFETY: each call below takes the handles made here, each destroyed
    // once; DuckDB copies what it keeps (types into functions, functions into
    // the set, the set into its catalog).
    unsafe {
        let mut set = (api.create_scalar_function_set)(name.as_ptr());
        let mut added = true;
        for argument in ARGUMENTS {
            let mut function = (api.create_scalar_function)();
            (api.scalar_function_set_name)(function, name.as_ptr());
            let mut argument = (api.create_logical_type)(argument);
            (api.scalar_function_add_parameter)(function, argument);
            (api.destroy_logical_type)(&mut argument);
            let mut result = (api.create_logical_type)(returns);
            (api.scalar_function_set_return_type)(function, result);
            (api.destroy_logical_type)(&mut result);
            (api.scalar_function_set_function)(function, body);
            added &= (api.add_scalar_function_to_set)(set, function) == SUCCESS;
            (api.destroy_scalar_function)(&mut function);
        }
        let registered = added && (api.register_scalar_function_set)(connection, set) == SUCCESS;
        (api.destroy_scalar_function_set)(&mut set);
        if registered {
            Ok(())
        } else {
            Err(c"md5x: DuckDB refused to register a function (is one of that name already there?)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_number_type_by_version() {
        for v in [c"v1.2.0", c"v1.2.2", c"v1.2.3-dev45"] {
            assert_eq!(md5_number_type(v), TYPE_HUGEINT, "{v:?}");
        }
        for v in [
            c"v1.3.0", c"v1.4.4", c"v1.5.6", c"v2.0.1", c"v1.10.0", c"", c"main",
        ] {
            assert_eq!(md5_number_type(v), TYPE_UHUGEINT, "{v:?}");
        }
    }
}
