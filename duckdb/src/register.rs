//! The functions' registration: one scalar function set a name, with a
//! `VARCHAR` and a `BLOB` overload, so that DuckDB's binder picks the
//! overload and names both in its error for any other argument type.

use core::ffi::CStr;

use crate::capi::{
    Api, Connection, Database, ScalarFunctionBody, TypeId, SUCCESS, TYPE_BLOB, TYPE_UHUGEINT,
    TYPE_VARCHAR,
};
use crate::functions::{md5x_binary, md5x_hex, md5x_number};

/// Each function: its name, return type and body.
const FUNCTIONS: [(&CStr, TypeId, ScalarFunctionBody); 3] = [
    (c"md5x", TYPE_VARCHAR, md5x_hex),
    (c"md5x_number", TYPE_UHUGEINT, md5x_number),
    (c"md5x_binary", TYPE_BLOB, md5x_binary),
];

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
    let mut result = Ok(());
    for (name, returns, body) in FUNCTIONS {
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
