//! What an imported schema holds: one of the six byte-string layouts that
//! `hash_array` reads, or the name of any other type, in Arrow's words, for
//! the `TypeError`.

use crate::ffi::ArrowSchema;
use std::ffi::CStr;

/// How a column of byte strings is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// utf8 ("u") and binary ("z"): validity, i32 offsets, values.
    Offsets32,
    /// large_utf8 ("U") and large_binary ("Z"): validity, i64 offsets,
    /// values.
    Offsets64,
    /// utf8_view ("vu") and binary_view ("vz"): validity, 16-byte views,
    /// data buffers, and (in the C interface) their sizes.
    View,
}

/// Where the rows are: a column of a byte-string layout, alone or as the
/// one column of a struct (what a record batch stream of one column
/// exports: a DuckDB or DataFusion query, a pyarrow Table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub layout: Layout,
    pub in_struct: bool,
}

/// The shape of the type `schema` describes, or a `TypeError`'s message
/// naming it.
///
/// # Safety
///
/// `schema` is live, as its producer made it: `format` and each `name`
/// NULL or a NUL-terminated string, `children` NULL or `n_children`
/// pointers, each NULL or to such a schema, `dictionary` NULL or one.
pub unsafe fn shape(schema: &ArrowSchema) -> Result<Shape, String> {
    if format_of(schema) == "+s" && schema.n_children == 1 && !schema.children.is_null() {
        // SAFETY: a live schema's `children` holds `n_children` (1)
        // pointers to live schemas.
        let child = unsafe { *schema.children };
        if !child.is_null() {
            // SAFETY: as above, checked not NULL.
            if let Ok(layout) = layout(unsafe { &*child }) {
                return Ok(Shape {
                    layout,
                    in_struct: true,
                });
            }
        }
    }
    layout(schema).map(|layout| Shape {
        layout,
        in_struct: false,
    })
}

/// The layout of the type `schema` describes, or a `TypeError`'s message
/// naming it.
fn layout(schema: &ArrowSchema) -> Result<Layout, String> {
    let format = format_of(schema);
    let layout = match format.as_str() {
        "u" | "z" => Some(Layout::Offsets32),
        "U" | "Z" => Some(Layout::Offsets64),
        "vu" | "vz" => Some(Layout::View),
        _ => None,
    };
    match layout {
        Some(layout) if schema.dictionary.is_null() => Ok(layout),
        _ => Err(format!(
            "hash_array reads a column of utf8, large_utf8, utf8_view, binary, large_binary \
             or binary_view (or a table of one such column), not {}",
            // SAFETY: a schema `shape` was given, under its promise.
            unsafe { describe(schema) }
        )),
    }
}

/// The format string of `schema`, or "" if it has none.
fn format_of(schema: &ArrowSchema) -> String {
    if schema.format.is_null() {
        return String::new();
    }
    // SAFETY: a live schema's `format` is a NUL-terminated string (checked
    // not NULL above), alive as long as the schema.
    unsafe { CStr::from_ptr(schema.format) }
        .to_string_lossy()
        .into_owned()
}

/// Nodes of a schema's tree that [`describe`] names at most: a schema's
/// children may point back to it (or share children), so that its tree,
/// walked to any depth, never ends; the work is bounded by the nodes
/// named, not only by the depth.
const DESCRIBED_NODES: usize = 256;

/// `schema`'s type in words, pyarrow's where it has them ("int64",
/// "list<item: string>", "dictionary<values=string, indices=int32>"),
/// "..." past 16 levels or `DESCRIBED_NODES` nodes.
///
/// # Safety
///
/// As for [`shape`].
pub unsafe fn describe(schema: &ArrowSchema) -> String {
    describe_within(schema, 0, &mut { DESCRIBED_NODES })
}

/// [`describe`] at `depth`, naming at most `nodes` more nodes.
fn describe_within(schema: &ArrowSchema, depth: usize, nodes: &mut usize) -> String {
    // Every node met counts, those cut off by depth too.
    if *nodes == 0 {
        return "...".into();
    }
    *nodes -= 1;
    if depth > 16 {
        return "...".into();
    }
    let format = format_of(schema);
    if !schema.dictionary.is_null() {
        // SAFETY: a non-NULL `dictionary` of a live schema points to the
        // live schema of the dictionary's values.
        let values = describe_within(unsafe { &*schema.dictionary }, depth + 1, nodes);
        return format!("dictionary<values={values}, indices={}>", name(&format));
    }
    // How many children the words name: the first, or all of them.
    let shown = match format.as_str() {
        "+s" | "+r" => 64,
        f if f.starts_with("+u") => 64,
        "+l" | "+L" | "+vl" | "+vL" | "+m" => 1,
        f if f.starts_with("+w:") => 1,
        _ => 0,
    };
    let children = children(schema, shown, depth, nodes);
    let first = || children.first().cloned().unwrap_or_default();
    match format.as_str() {
        "+l" => format!("list<{}>", first()),
        "+L" => format!("large_list<{}>", first()),
        "+vl" => format!("list_view<{}>", first()),
        "+vL" => format!("large_list_view<{}>", first()),
        "+s" => format!("struct<{}>", children.join(", ")),
        "+m" => format!("map<{}>", first()),
        "+r" => format!("run_end_encoded<{}>", children.join(", ")),
        f if f.starts_with("+w:") => format!("fixed_size_list<{}>[{}]", first(), &f[3..]),
        f if f.starts_with("+u") => format!("union<{}>", children.join(", ")),
        f => name(f),
    }
}

/// The first `shown` children of `schema` (at most its `n_children`) as
/// "name: type", described at `depth + 1` within the `nodes` left.
fn children(schema: &ArrowSchema, shown: usize, depth: usize, nodes: &mut usize) -> Vec<String> {
    let n = usize::try_from(schema.n_children).unwrap_or(0);
    if schema.children.is_null() {
        return Vec::new();
    }
    let mut words = Vec::new();
    for i in 0..n.min(shown) {
        if *nodes == 0 {
            words.push("...".into());
            break;
        }
        // SAFETY: a live schema's `children` holds `n_children` pointers
        // to live schemas (checked not NULL).
        let child = unsafe { *schema.children.add(i) };
        if child.is_null() {
            words.push("?".into());
            continue;
        }
        // SAFETY: as above, a child of a live schema.
        let child = unsafe { &*child };
        let field = if child.name.is_null() {
            String::new()
        } else {
            // SAFETY: a non-NULL name is a NUL-terminated string.
            unsafe { CStr::from_ptr(child.name) }
                .to_string_lossy()
                .into_owned()
        };
        words.push(format!(
            "{field}: {}",
            describe_within(child, depth + 1, nodes)
        ));
    }
    words
}

/// A primitive type's name from its format string; unknown ones keep it.
fn name(format: &str) -> String {
    let fixed = match format {
        "n" => "null",
        "b" => "bool",
        "c" => "int8",
        "C" => "uint8",
        "s" => "int16",
        "S" => "uint16",
        "i" => "int32",
        "I" => "uint32",
        "l" => "int64",
        "L" => "uint64",
        "e" => "float16",
        "f" => "float32",
        "g" => "float64",
        "z" => "binary",
        "Z" => "large_binary",
        "vz" => "binary_view",
        "u" => "string",
        "U" => "large_string",
        "vu" => "string_view",
        "tdD" => "date32[day]",
        "tdm" => "date64[ms]",
        "tts" => "time32[s]",
        "ttm" => "time32[ms]",
        "ttu" => "time64[us]",
        "ttn" => "time64[ns]",
        "tDs" => "duration[s]",
        "tDm" => "duration[ms]",
        "tDu" => "duration[us]",
        "tDn" => "duration[ns]",
        "tiM" => "month_interval",
        "tiD" => "day_time_interval",
        "tin" => "month_day_nano_interval",
        "" => "a type without a format string",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.into();
    }
    let unit = |u: &str| match u {
        "s" => "s",
        "m" => "ms",
        "u" => "us",
        "n" => "ns",
        _ => "?",
    };
    if let Some(rest) = format.strip_prefix("ts") {
        let (u, tz) = rest.split_once(':').unwrap_or((rest, ""));
        return if tz.is_empty() {
            format!("timestamp[{}]", unit(u))
        } else {
            format!("timestamp[{}, tz={tz}]", unit(u))
        };
    }
    if let Some(n) = format.strip_prefix("w:") {
        return format!("fixed_size_binary[{n}]");
    }
    if let Some(ps) = format.strip_prefix("d:") {
        let parts: Vec<&str> = ps.split(',').collect();
        let bits = parts.get(2).copied().unwrap_or("128");
        return format!(
            "decimal{bits}({}, {})",
            parts.first().copied().unwrap_or("?"),
            parts.get(1).copied().unwrap_or("?")
        );
    }
    format!("the Arrow type of format {format:?}")
}
