//! The few declarations of DuckDB's C extension API that md5x uses, written
//! from `duckdb.h` and `duckdb_extension.h` (the stable `duckdb_ext_api_v1`
//! struct, C API v1.2.0): handle types, the string and 128-bit integer
//! layouts, the access struct handed to the entry point, and the function
//! pointer struct up to its last entry used here.

use core::ffi::{c_char, c_void, CStr};

/// The C API version md5x declares, in the metadata footer and to
/// `get_api`: every entry it uses is in v1.2.0's struct, so DuckDB 1.2.0
/// and every later release of C API major version 1 accept it.
pub const C_API_VERSION: &CStr = c"v1.2.0";

/// `idx_t`.
pub type Idx = u64;

/// `duckdb_state`: `DuckDBSuccess` is 0.
pub type State = u32;
pub const SUCCESS: State = 0;

/// `duckdb_type`, a C enum.
pub type TypeId = u32;
pub const TYPE_HUGEINT: TypeId = 16;
pub const TYPE_VARCHAR: TypeId = 17;
pub const TYPE_BLOB: TypeId = 18;
pub const TYPE_UHUGEINT: TypeId = 32;

/// DuckDB's handles: each a pointer to a struct of its own.
macro_rules! handle {
    ($($name:ident),*) => {$(
        #[repr(transparent)]
        #[derive(Clone, Copy)]
        pub struct $name(pub *mut c_void);
    )*};
}
handle!(
    ExtensionInfo,
    Database,
    Connection,
    LogicalType,
    DataChunk,
    Vector,
    FunctionInfo,
    ScalarFunction,
    ScalarFunctionSet
);

impl Connection {
    pub const NULL: Connection = Connection(core::ptr::null_mut());
}

/// `duckdb_scalar_function_t`: a scalar function's body, called once per
/// chunk of rows.
pub type ScalarFunctionBody = unsafe extern "C" fn(FunctionInfo, DataChunk, Vector);

/// `struct duckdb_extension_access`, what the entry point receives.
#[repr(C)]
pub struct ExtensionAccess {
    pub set_error: Option<unsafe extern "C" fn(ExtensionInfo, *const c_char)>,
    pub get_database: Option<unsafe extern "C" fn(ExtensionInfo) -> *mut Database>,
    pub get_api: Option<unsafe extern "C" fn(ExtensionInfo, *const c_char) -> *const c_void>,
}

/// `duckdb_string_t`: a `VARCHAR` or `BLOB` value, its bytes inline when
/// 12 or fewer, else a 4-byte prefix and a pointer.
#[repr(C)]
#[derive(Clone, Copy)]
pub union StringT {
    pub pointer: StringPointer,
    pub inlined: StringInlined,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct StringPointer {
    pub length: u32,
    pub prefix: [u8; 4],
    pub ptr: *const u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct StringInlined {
    pub length: u32,
    pub inlined: [u8; 12],
}

/// The longest value `duckdb_string_t` holds inline.
pub const STRING_INLINE_LENGTH: usize = 12;

/// `duckdb_uhugeint`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Uhugeint {
    pub lower: u64,
    pub upper: u64,
}

type Connect = unsafe extern "C" fn(Database, *mut Connection) -> State;
type Disconnect = unsafe extern "C" fn(*mut Connection);
type LibraryVersion = unsafe extern "C" fn() -> *const c_char;
type CreateLogicalType = unsafe extern "C" fn(TypeId) -> LogicalType;
type DestroyLogicalType = unsafe extern "C" fn(*mut LogicalType);
type ChunkGetVector = unsafe extern "C" fn(DataChunk, Idx) -> Vector;
type ChunkGetSize = unsafe extern "C" fn(DataChunk) -> Idx;
type VectorGetData = unsafe extern "C" fn(Vector) -> *mut c_void;
type VectorGetValidity = unsafe extern "C" fn(Vector) -> *mut u64;
type VectorEnsureValidityWritable = unsafe extern "C" fn(Vector);
type VectorAssignStringElementLen = unsafe extern "C" fn(Vector, Idx, *const c_char, Idx);
type CreateScalarFunction = unsafe extern "C" fn() -> ScalarFunction;
type DestroyScalarFunction = unsafe extern "C" fn(*mut ScalarFunction);
type ScalarFunctionSetName = unsafe extern "C" fn(ScalarFunction, *const c_char);
type ScalarFunctionAddParameter = unsafe extern "C" fn(ScalarFunction, LogicalType);
type ScalarFunctionSetReturnType = unsafe extern "C" fn(ScalarFunction, LogicalType);
type ScalarFunctionSetFunction = unsafe extern "C" fn(ScalarFunction, ScalarFunctionBody);
type ScalarFunctionSetError = unsafe extern "C" fn(FunctionInfo, *const c_char);
type CreateScalarFunctionSet = unsafe extern "C" fn(*const c_char) -> ScalarFunctionSet;
type DestroyScalarFunctionSet = unsafe extern "C" fn(*mut ScalarFunctionSet);
type AddScalarFunctionToSet = unsafe extern "C" fn(ScalarFunctionSet, ScalarFunction) -> State;
type RegisterScalarFunctionSet = unsafe extern "C" fn(Connection, ScalarFunctionSet) -> State;

/// An entry of the struct that md5x does not call.
type Slot = Option<unsafe extern "C" fn()>;

/// `duckdb_ext_api_v1` from its first entry to the last one md5x uses,
/// in the header's order (entries are only ever appended, and this prefix
/// is the same in v1.2.0's header and every later one; two entries were
/// renamed since, `varint` to `bignum`, same types).
#[repr(C)]
#[allow(dead_code)] // the entries md5x does not call keep the others' offsets
pub struct RawApiV1 {
    duckdb_open: Slot,
    duckdb_open_ext: Slot,
    duckdb_close: Slot,
    duckdb_connect: Option<Connect>,
    duckdb_interrupt: Slot,
    duckdb_query_progress: Slot,
    duckdb_disconnect: Option<Disconnect>,
    duckdb_library_version: Option<LibraryVersion>,
    duckdb_create_config: Slot,
    duckdb_config_count: Slot,
    duckdb_get_config_flag: Slot,
    duckdb_set_config: Slot,
    duckdb_destroy_config: Slot,
    duckdb_query: Slot,
    duckdb_destroy_result: Slot,
    duckdb_column_name: Slot,
    duckdb_column_type: Slot,
    duckdb_result_statement_type: Slot,
    duckdb_column_logical_type: Slot,
    duckdb_column_count: Slot,
    duckdb_rows_changed: Slot,
    duckdb_result_error: Slot,
    duckdb_result_error_type: Slot,
    duckdb_result_return_type: Slot,
    duckdb_malloc: Slot,
    duckdb_free: Slot,
    duckdb_vector_size: Slot,
    duckdb_string_is_inlined: Slot,
    duckdb_string_t_length: Slot,
    duckdb_string_t_data: Slot,
    duckdb_from_date: Slot,
    duckdb_to_date: Slot,
    duckdb_is_finite_date: Slot,
    duckdb_from_time: Slot,
    duckdb_create_time_tz: Slot,
    duckdb_from_time_tz: Slot,
    duckdb_to_time: Slot,
    duckdb_from_timestamp: Slot,
    duckdb_to_timestamp: Slot,
    duckdb_is_finite_timestamp: Slot,
    duckdb_hugeint_to_double: Slot,
    duckdb_double_to_hugeint: Slot,
    duckdb_uhugeint_to_double: Slot,
    duckdb_double_to_uhugeint: Slot,
    duckdb_double_to_decimal: Slot,
    duckdb_decimal_to_double: Slot,
    duckdb_prepare: Slot,
    duckdb_destroy_prepare: Slot,
    duckdb_prepare_error: Slot,
    duckdb_nparams: Slot,
    duckdb_parameter_name: Slot,
    duckdb_param_type: Slot,
    duckdb_param_logical_type: Slot,
    duckdb_clear_bindings: Slot,
    duckdb_prepared_statement_type: Slot,
    duckdb_bind_value: Slot,
    duckdb_bind_parameter_index: Slot,
    duckdb_bind_boolean: Slot,
    duckdb_bind_int8: Slot,
    duckdb_bind_int16: Slot,
    duckdb_bind_int32: Slot,
    duckdb_bind_int64: Slot,
    duckdb_bind_hugeint: Slot,
    duckdb_bind_uhugeint: Slot,
    duckdb_bind_decimal: Slot,
    duckdb_bind_uint8: Slot,
    duckdb_bind_uint16: Slot,
    duckdb_bind_uint32: Slot,
    duckdb_bind_uint64: Slot,
    duckdb_bind_float: Slot,
    duckdb_bind_double: Slot,
    duckdb_bind_date: Slot,
    duckdb_bind_time: Slot,
    duckdb_bind_timestamp: Slot,
    duckdb_bind_timestamp_tz: Slot,
    duckdb_bind_interval: Slot,
    duckdb_bind_varchar: Slot,
    duckdb_bind_varchar_length: Slot,
    duckdb_bind_blob: Slot,
    duckdb_bind_null: Slot,
    duckdb_execute_prepared: Slot,
    duckdb_extract_statements: Slot,
    duckdb_prepare_extracted_statement: Slot,
    duckdb_extract_statements_error: Slot,
    duckdb_destroy_extracted: Slot,
    duckdb_pending_prepared: Slot,
    duckdb_destroy_pending: Slot,
    duckdb_pending_error: Slot,
    duckdb_pending_execute_task: Slot,
    duckdb_pending_execute_check_state: Slot,
    duckdb_execute_pending: Slot,
    duckdb_pending_execution_is_finished: Slot,
    duckdb_destroy_value: Slot,
    duckdb_create_varchar: Slot,
    duckdb_create_varchar_length: Slot,
    duckdb_create_bool: Slot,
    duckdb_create_int8: Slot,
    duckdb_create_uint8: Slot,
    duckdb_create_int16: Slot,
    duckdb_create_uint16: Slot,
    duckdb_create_int32: Slot,
    duckdb_create_uint32: Slot,
    duckdb_create_uint64: Slot,
    duckdb_create_int64: Slot,
    duckdb_create_hugeint: Slot,
    duckdb_create_uhugeint: Slot,
    duckdb_create_float: Slot,
    duckdb_create_double: Slot,
    duckdb_create_date: Slot,
    duckdb_create_time: Slot,
    duckdb_create_time_tz_value: Slot,
    duckdb_create_timestamp: Slot,
    duckdb_create_interval: Slot,
    duckdb_create_blob: Slot,
    duckdb_create_bignum: Slot,
    duckdb_create_decimal: Slot,
    duckdb_create_bit: Slot,
    duckdb_create_uuid: Slot,
    duckdb_get_bool: Slot,
    duckdb_get_int8: Slot,
    duckdb_get_uint8: Slot,
    duckdb_get_int16: Slot,
    duckdb_get_uint16: Slot,
    duckdb_get_int32: Slot,
    duckdb_get_uint32: Slot,
    duckdb_get_int64: Slot,
    duckdb_get_uint64: Slot,
    duckdb_get_hugeint: Slot,
    duckdb_get_uhugeint: Slot,
    duckdb_get_float: Slot,
    duckdb_get_double: Slot,
    duckdb_get_date: Slot,
    duckdb_get_time: Slot,
    duckdb_get_time_tz: Slot,
    duckdb_get_timestamp: Slot,
    duckdb_get_interval: Slot,
    duckdb_get_value_type: Slot,
    duckdb_get_blob: Slot,
    duckdb_get_bignum: Slot,
    duckdb_get_decimal: Slot,
    duckdb_get_bit: Slot,
    duckdb_get_uuid: Slot,
    duckdb_get_varchar: Slot,
    duckdb_create_struct_value: Slot,
    duckdb_create_list_value: Slot,
    duckdb_create_array_value: Slot,
    duckdb_get_map_size: Slot,
    duckdb_get_map_key: Slot,
    duckdb_get_map_value: Slot,
    duckdb_is_null_value: Slot,
    duckdb_create_null_value: Slot,
    duckdb_get_list_size: Slot,
    duckdb_get_list_child: Slot,
    duckdb_create_enum_value: Slot,
    duckdb_get_enum_value: Slot,
    duckdb_get_struct_child: Slot,
    duckdb_create_logical_type: Option<CreateLogicalType>,
    duckdb_logical_type_get_alias: Slot,
    duckdb_logical_type_set_alias: Slot,
    duckdb_create_list_type: Slot,
    duckdb_create_array_type: Slot,
    duckdb_create_map_type: Slot,
    duckdb_create_union_type: Slot,
    duckdb_create_struct_type: Slot,
    duckdb_create_enum_type: Slot,
    duckdb_create_decimal_type: Slot,
    duckdb_get_type_id: Slot,
    duckdb_decimal_width: Slot,
    duckdb_decimal_scale: Slot,
    duckdb_decimal_internal_type: Slot,
    duckdb_enum_internal_type: Slot,
    duckdb_enum_dictionary_size: Slot,
    duckdb_enum_dictionary_value: Slot,
    duckdb_list_type_child_type: Slot,
    duckdb_array_type_child_type: Slot,
    duckdb_array_type_array_size: Slot,
    duckdb_map_type_key_type: Slot,
    duckdb_map_type_value_type: Slot,
    duckdb_struct_type_child_count: Slot,
    duckdb_struct_type_child_name: Slot,
    duckdb_struct_type_child_type: Slot,
    duckdb_union_type_member_count: Slot,
    duckdb_union_type_member_name: Slot,
    duckdb_union_type_member_type: Slot,
    duckdb_destroy_logical_type: Option<DestroyLogicalType>,
    duckdb_register_logical_type: Slot,
    duckdb_create_data_chunk: Slot,
    duckdb_destroy_data_chunk: Slot,
    duckdb_data_chunk_reset: Slot,
    duckdb_data_chunk_get_column_count: Slot,
    duckdb_data_chunk_get_vector: Option<ChunkGetVector>,
    duckdb_data_chunk_get_size: Option<ChunkGetSize>,
    duckdb_data_chunk_set_size: Slot,
    duckdb_vector_get_column_type: Slot,
    duckdb_vector_get_data: Option<VectorGetData>,
    duckdb_vector_get_validity: Option<VectorGetValidity>,
    duckdb_vector_ensure_validity_writable: Option<VectorEnsureValidityWritable>,
    duckdb_vector_assign_string_element: Slot,
    duckdb_vector_assign_string_element_len: Option<VectorAssignStringElementLen>,
    duckdb_list_vector_get_child: Slot,
    duckdb_list_vector_get_size: Slot,
    duckdb_list_vector_set_size: Slot,
    duckdb_list_vector_reserve: Slot,
    duckdb_struct_vector_get_child: Slot,
    duckdb_array_vector_get_child: Slot,
    duckdb_validity_row_is_valid: Slot,
    duckdb_validity_set_row_validity: Slot,
    duckdb_validity_set_row_invalid: Slot,
    duckdb_validity_set_row_valid: Slot,
    duckdb_create_scalar_function: Option<CreateScalarFunction>,
    duckdb_destroy_scalar_function: Option<DestroyScalarFunction>,
    duckdb_scalar_function_set_name: Option<ScalarFunctionSetName>,
    duckdb_scalar_function_set_varargs: Slot,
    duckdb_scalar_function_set_special_handling: Slot,
    duckdb_scalar_function_set_volatile: Slot,
    duckdb_scalar_function_add_parameter: Option<ScalarFunctionAddParameter>,
    duckdb_scalar_function_set_return_type: Option<ScalarFunctionSetReturnType>,
    duckdb_scalar_function_set_extra_info: Slot,
    duckdb_scalar_function_set_function: Option<ScalarFunctionSetFunction>,
    duckdb_register_scalar_function: Slot,
    duckdb_scalar_function_get_extra_info: Slot,
    duckdb_scalar_function_set_error: Option<ScalarFunctionSetError>,
    duckdb_create_scalar_function_set: Option<CreateScalarFunctionSet>,
    duckdb_destroy_scalar_function_set: Option<DestroyScalarFunctionSet>,
    duckdb_add_scalar_function_to_set: Option<AddScalarFunctionToSet>,
    duckdb_register_scalar_function_set: Option<RegisterScalarFunctionSet>,
}

// The layouts the header gives: `duckdb_string_t` and `duckdb_uhugeint`
// are 16 bytes, and `RawApiV1` is 226 function pointers, the entries from
// `duckdb_open` to `duckdb_register_scalar_function_set`.
const _: () = assert!(size_of::<StringT>() == 16 && size_of::<Uhugeint>() == 16);
const _: () = assert!(size_of::<RawApiV1>() == 226 * size_of::<Slot>());

/// The entries md5x calls, each checked to be present.
#[derive(Clone, Copy)]
pub struct Api {
    pub connect: Connect,
    pub disconnect: Disconnect,
    pub library_version: LibraryVersion,
    pub create_logical_type: CreateLogicalType,
    pub destroy_logical_type: DestroyLogicalType,
    pub data_chunk_get_vector: ChunkGetVector,
    pub data_chunk_get_size: ChunkGetSize,
    pub vector_get_data: VectorGetData,
    pub vector_get_validity: VectorGetValidity,
    pub vector_ensure_validity_writable: VectorEnsureValidityWritable,
    pub vector_assign_string_element_len: VectorAssignStringElementLen,
    pub create_scalar_function: CreateScalarFunction,
    pub destroy_scalar_function: DestroyScalarFunction,
    pub scalar_function_set_name: ScalarFunctionSetName,
    pub scalar_function_add_parameter: ScalarFunctionAddParameter,
    pub scalar_function_set_return_type: ScalarFunctionSetReturnType,
    pub scalar_function_set_function: ScalarFunctionSetFunction,
    pub scalar_function_set_error: ScalarFunctionSetError,
    pub create_scalar_function_set: CreateScalarFunctionSet,
    pub destroy_scalar_function_set: DestroyScalarFunctionSet,
    pub add_scalar_function_to_set: AddScalarFunctionToSet,
    pub register_scalar_function_set: RegisterScalarFunctionSet,
}

impl Api {
    /// The entries of `raw`, or `None` if one is missing (null).
    pub fn from_raw(raw: &RawApiV1) -> Option<Api> {
        Some(Api {
            connect: raw.duckdb_connect?,
            disconnect: raw.duckdb_disconnect?,
            library_version: raw.duckdb_library_version?,
            create_logical_type: raw.duckdb_create_logical_type?,
            destroy_logical_type: raw.duckdb_destroy_logical_type?,
            data_chunk_get_vector: raw.duckdb_data_chunk_get_vector?,
            data_chunk_get_size: raw.duckdb_data_chunk_get_size?,
            vector_get_data: raw.duckdb_vector_get_data?,
            vector_get_validity: raw.duckdb_vector_get_validity?,
            vector_ensure_validity_writable: raw.duckdb_vector_ensure_validity_writable?,
            vector_assign_string_element_len: raw.duckdb_vector_assign_string_element_len?,
            create_scalar_function: raw.duckdb_create_scalar_function?,
            destroy_scalar_function: raw.duckdb_destroy_scalar_function?,
            scalar_function_set_name: raw.duckdb_scalar_function_set_name?,
            scalar_function_add_parameter: raw.duckdb_scalar_function_add_parameter?,
            scalar_function_set_return_type: raw.duckdb_scalar_function_set_return_type?,
            scalar_function_set_function: raw.duckdb_scalar_function_set_function?,
            scalar_function_set_error: raw.duckdb_scalar_function_set_error?,
            create_scalar_function_set: raw.duckdb_create_scalar_function_set?,
            destroy_scalar_function_set: raw.duckdb_destroy_scalar_function_set?,
            add_scalar_function_to_set: raw.duckdb_add_scalar_function_to_set?,
            register_scalar_function_set: raw.duckdb_register_scalar_function_set?,
        })
    }
}
