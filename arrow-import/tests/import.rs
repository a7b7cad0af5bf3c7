//! The importer over arrays built here as a producer would lay them out:
//! RFC 1321's known answers through each layout and output, windows and
//! nulls, a struct of one column, many rows on several threads, streams,
//! and the malformed arrays it must refuse before reading.

use md5x::{Digest, Md5};
use md5x_arrow_import::column::{Column, Exported, Output};
use md5x_arrow_import::ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Imported};
use md5x_arrow_import::format::{Layout, Shape};
use md5x_arrow_import::read_stream::{read_stream, StreamError};
use md5x_arrow_import::rows::{Refused, Rows};
use md5x_arrow_import::stop::Stop;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

/// RFC 1321's test suite (section A.5): each message and its digest.
const RFC_1321: [(&str, &str); 7] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

const PLAIN: Shape = Shape {
    layout: Layout::Offsets32,
    in_struct: false,
};

/// What an array's buffers point into.
#[derive(Default)]
struct Owners {
    bytes: Vec<Vec<u8>>,
    offsets32: Vec<i32>,
    offsets64: Vec<i64>,
    views: Vec<[u8; 16]>,
}

/// An array's buffers and the struct that points to them, kept together
/// so that the pointers (into the vectors' heap memory, which a move of
/// this struct does not move) stay valid while the struct is read.
struct Made {
    buffers: Vec<*const c_void>,
    _owners: Owners,
    array: ArrowArray,
}

impl Made {
    /// An array of `length` rows from `offset`, `null_count` nulls, whose
    /// buffers `buffers` points into `owners`.
    fn new(
        (length, offset, null_count): (i64, i64, i64),
        owners: Owners,
        buffers: impl Fn(&Owners) -> Vec<*const c_void>,
    ) -> Self {
        let buffers = buffers(&owners);
        let mut made = Self {
            buffers,
            _owners: owners,
            array: array(length, offset, null_count, 0),
        };
        made.array.n_buffers = made.buffers.len() as i64;
        made.array.buffers = made.buffers.as_mut_ptr();
        made
    }
}

/// A released-looking array struct of these fields, no buffers yet.
fn array(length: i64, offset: i64, null_count: i64, n_children: i64) -> ArrowArray {
    ArrowArray {
        length,
        null_count,
        offset,
        n_buffers: 0,
        n_children,
        buffers: ptr::null_mut(),
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: None,
        private_data: ptr::null_mut(),
    }
}

/// A utf8 array of `rows` (i32 offsets), with an optional bitmap.
fn utf8(rows: &[&str], offset: i64, length: i64, bitmap: Option<Vec<u8>>) -> Made {
    let mut offsets = vec![0i32];
    for r in rows {
        offsets.push(offsets.last().unwrap() + r.len() as i32);
    }
    utf8_offsets(rows.concat().into_bytes(), offsets, offset, length, bitmap)
}

/// A utf8 array of these values and offsets, with an optional bitmap.
fn utf8_offsets(
    values: Vec<u8>,
    offsets32: Vec<i32>,
    offset: i64,
    length: i64,
    bitmap: Option<Vec<u8>>,
) -> Made {
    let nulls = if bitmap.is_some() { -1 } else { 0 };
    let owners = Owners {
        bytes: vec![values, bitmap.unwrap_or_default()],
        offsets32,
        ..Owners::default()
    };
    Made::new((length, offset, nulls), owners, |o| {
        let validity = if o.bytes[1].is_empty() {
            ptr::null()
        } else {
            o.bytes[1].as_ptr().cast()
        };
        vec![
            validity,
            o.offsets32.as_ptr().cast(),
            o.bytes[0].as_ptr().cast(),
        ]
    })
}

/// A utf8_view array of `rows`: those of 12 bytes or fewer inline, the
/// others in one data buffer.
fn utf8_view(rows: &[&str]) -> Made {
    let mut data = Vec::new();
    let views = rows
        .iter()
        .map(|r| {
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&(r.len() as i32).to_le_bytes());
            if r.len() <= 12 {
                v[4..4 + r.len()].copy_from_slice(r.as_bytes());
            } else {
                v[4..8].copy_from_slice(&r.as_bytes()[..4]);
                v[12..].copy_from_slice(&(data.len() as i32).to_le_bytes());
                data.extend_from_slice(r.as_bytes());
            }
            v
        })
        .collect();
    let owners = Owners {
        offsets64: vec![data.len() as i64],
        bytes: vec![data],
        views,
        ..Owners::default()
    };
    Made::new((rows.len() as i64, 0, 0), owners, |o| {
        let (views, data) = (o.views.as_ptr().cast(), o.bytes[0].as_ptr().cast());
        vec![ptr::null(), views, data, o.offsets64.as_ptr().cast()]
    })
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The column's rows as text (hex or base64), `None` for a null.
fn texts(column: &Column) -> Vec<Option<String>> {
    let width = column.output.width();
    (0..column.len)
        .map(|i| {
            let valid = column
                .validity
                .as_ref()
                .is_none_or(|v| v.bits[i / 8] >> (i % 8) & 1 == 1);
            let row = &column.values[i * width..(i + 1) * width];
            valid.then(|| match column.output {
                Output::Binary => hex(row),
                _ => String::from_utf8(row.to_vec()).unwrap(),
            })
        })
        .collect()
}

/// `made`'s rows of `shape` hashed as `output` on `jobs` threads.
fn hash(made: &Made, shape: Shape, output: Output, jobs: usize) -> Result<Column, String> {
    // SAFETY: an array built here, its buffers as its fields claim.
    let rows = unsafe { Rows::new(&made.array, shape) }?;
    Column::hash(rows, output, jobs, &Stop::default()).map_err(|e| format!("{e:?}"))
}

fn refused(made: &Made, shape: Shape) -> String {
    match hash(made, shape, Output::Hex, 1) {
        Ok(_) => panic!("a malformed array was hashed"),
        Err(message) => message,
    }
}

#[test]
fn rfc_1321_through_every_offset_layout_and_output() {
    let rows: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let want: Vec<Option<String>> = RFC_1321.iter().map(|(_, d)| Some(d.to_string())).collect();
    let made = utf8(&rows, 0, rows.len() as i64, None);
    for output in [Output::Hex, Output::Binary] {
        assert_eq!(texts(&hash(&made, PLAIN, output, 1).unwrap()), want);
    }
    let base64 = texts(&hash(&made, PLAIN, Output::Base64, 1).unwrap());
    assert_eq!(base64[0].as_deref(), Some("1B2M2Y8AsgTpgAmY7PhCfg=="));
    assert_eq!(base64[2].as_deref(), Some("kAFQmDzST7DWlj99KOF/cg=="));
    assert_eq!(base64[3].as_deref(), Some("+WtpfXy3k41SWi8xqvFh0A=="));

    // The same rows with i64 offsets.
    let mut offsets = vec![0i64];
    for r in &rows {
        offsets.push(offsets.last().unwrap() + r.len() as i64);
    }
    let owners = Owners {
        bytes: vec![rows.concat().into_bytes()],
        offsets64: offsets,
        ..Owners::default()
    };
    let large = Made::new((rows.len() as i64, 0, 0), owners, |o| {
        vec![
            ptr::null(),
            o.offsets64.as_ptr().cast(),
            o.bytes[0].as_ptr().cast(),
        ]
    });
    let shape = Shape {
        layout: Layout::Offsets64,
        in_struct: false,
    };
    assert_eq!(texts(&hash(&large, shape, Output::Hex, 1).unwrap()), want);
}

#[test]
fn views_inline_and_in_a_data_buffer_and_the_views_made_for_hex() {
    let rows: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let made = utf8_view(&rows);
    let shape = Shape {
        layout: Layout::View,
        in_struct: false,
    };
    let column = hash(&made, shape, Output::Hex, 1).unwrap();
    let want: Vec<Option<String>> = RFC_1321.iter().map(|(_, d)| Some(d.to_string())).collect();
    assert_eq!(texts(&column), want);
    assert_eq!(
        Exported::choose(Output::Hex, true, &[&column]),
        Exported::Utf8View
    );
    let views = column.views();
    assert_eq!(
        (&views.starts[..], &views.sizes[..]),
        (&[0][..], &[224][..])
    );
    for (i, v) in views.views.iter().enumerate() {
        let field = |at: usize| i32::from_le_bytes(v[at..at + 4].try_into().unwrap());
        assert_eq!((field(0), field(8), field(12)), (32, 0, 32 * i as i32));
        assert_eq!(&v[4..8], &RFC_1321[i].1.as_bytes()[..4]);
    }
}

/// A null row's view that names no buffer: Arrow asks it to follow the
/// rules too, yet a producer's may not. The column is hashed (that row
/// null), and the same view on a row that is not null is refused.
#[test]
fn a_null_rows_broken_view_is_not_read() {
    let rows: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let shape = Shape {
        layout: Layout::View,
        in_struct: false,
    };
    let broken = |null: bool| {
        let mut made = utf8_view(&rows);
        let mut views: Vec<[u8; 16]> = rows.iter().map(|_| [0; 16]).collect();
        // SAFETY: buffer 1 of `utf8_view`'s array is its views, one a row.
        let original =
            unsafe { std::slice::from_raw_parts(made.buffers[1].cast::<[u8; 16]>(), rows.len()) };
        views.copy_from_slice(original);
        views[5][..4].copy_from_slice(&40i32.to_le_bytes());
        views[5][8..12].copy_from_slice(&7i32.to_le_bytes());
        let bitmap = vec![if null { 0b1101_1111 } else { 0xff }];
        made.buffers[0] = bitmap.as_ptr().cast();
        made.buffers[1] = views.as_ptr().cast();
        made.array.null_count = i64::from(null);
        (made, views, bitmap)
    };
    let (made, _views, _bitmap) = broken(true);
    let mut want: Vec<Option<String>> = RFC_1321.iter().map(|(_, d)| Some(d.to_string())).collect();
    want[5] = None;
    assert_eq!(texts(&hash(&made, shape, Output::Hex, 1).unwrap()), want);
    let (made, _views, _bitmap) = broken(false);
    assert!(refused(&made, shape).contains("row 5's view names data buffer 7"));
}

#[test]
fn a_window_with_nulls_at_an_offset_not_a_multiple_of_8() {
    // Rows 3..7 of the suite; the bitmap (from slot 0) marks slot 4 null.
    let rows: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let made = utf8(&rows, 3, 4, Some(vec![0b1110_1111]));
    let column = hash(&made, PLAIN, Output::Hex, 1).unwrap();
    assert_eq!(column.nulls(), 1);
    let want: Vec<Option<String>> = (3..7)
        .map(|i| (i != 4).then(|| RFC_1321[i].1.to_string()))
        .collect();
    assert_eq!(texts(&column), want);
}

#[test]
fn a_struct_of_one_column_in_its_window_null_where_either_is() {
    let rows: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    // The child: slot 2 null. The struct: rows 1..6 of it, slot 5 null.
    let mut child = utf8(&rows, 0, 7, Some(vec![0b1111_1011]));
    let bitmap = [0b1101_1111u8];
    let mut buffers = [bitmap.as_ptr().cast::<c_void>()];
    let mut children = [&mut child.array as *mut ArrowArray];
    let mut outer = array(5, 1, -1, 1);
    outer.n_buffers = 1;
    outer.buffers = buffers.as_mut_ptr();
    outer.children = children.as_mut_ptr();
    let shape = Shape {
        layout: Layout::Offsets32,
        in_struct: true,
    };
    // SAFETY: the struct and its child built here.
    let rows = unsafe { Rows::new(&outer, shape) }.unwrap();
    let column = Column::hash(rows, Output::Hex, 1, &Stop::default()).unwrap();
    let want: Vec<Option<String>> = (1..6)
        .map(|i| (i != 2 && i != 5).then(|| RFC_1321[i].1.to_string()))
        .collect();
    assert_eq!(texts(&column), want);
}

#[test]
// 100,000 rows take Miri minutes; the other tests reach the same code.
#[cfg_attr(miri, ignore)]
fn many_rows_on_several_threads_as_one_row_at_a_time() {
    // Three parts' rows (32,768 a part at least): three threads, a part
    // each.
    let owned: Vec<String> = (0..100_000)
        .map(|i| format!("row {i}").repeat(i % 9))
        .collect();
    let rows: Vec<&str> = owned.iter().map(String::as_str).collect();
    let made = utf8(&rows, 0, rows.len() as i64, None);
    let column = hash(&made, PLAIN, Output::Binary, 3).unwrap();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            column.values[16 * i..16 * (i + 1)],
            Md5::digest(row.as_bytes())[..],
            "row {i}"
        );
    }
}

#[test]
fn a_set_stop_gives_up() {
    let made = utf8_view(&["abc"; 3]);
    let shape = Shape {
        layout: Layout::View,
        in_struct: false,
    };
    let stop = Stop::default();
    stop.set();
    // SAFETY: an array built here.
    let rows = unsafe { Rows::new(&made.array, shape) }.unwrap();
    assert!(matches!(
        Column::hash(rows, Output::Hex, 1, &stop),
        Err(Refused::Stopped)
    ));
}

#[test]
fn malformed_arrays_are_refused() {
    // Offsets that decrease.
    let decreasing = utf8_offsets(b"abcdef".to_vec(), vec![0, 3, 1, 6], 0, 3, None);
    assert!(refused(&decreasing, PLAIN).contains("its offsets decrease at row 1"));

    let rows = ["abc", "de", "f"];

    // A length no buffer can have, with buffers NULL: refused before any
    // is read.
    let mut huge = utf8(&rows, 0, 3, None);
    huge.array.length = 1 << 61;
    huge.buffers = vec![ptr::null(); 3];
    huge.array.buffers = huge.buffers.as_mut_ptr();
    assert!(refused(&huge, PLAIN).contains("no buffer is that large"));

    // A negative length, and a wrong buffer count.
    let mut negative = utf8(&rows, 0, 3, None);
    negative.array.length = -1;
    assert!(refused(&negative, PLAIN).contains("negative"));
    let mut two = utf8(&rows, 0, 3, None);
    two.array.n_buffers = 2;
    assert!(refused(&two, PLAIN).contains("2 buffers"));

    // A view past the end of its data buffer.
    let mut view = utf8_view(&["a row longer than 12 bytes"]);
    let short = [10i64];
    view.buffers[3] = short.as_ptr().cast();
    let shape = Shape {
        layout: Layout::View,
        in_struct: false,
    };
    assert!(refused(&view, shape).contains("past the end of data buffer 0"));
}

/// A producer's stream of utf8 arrays (or of `format`), or one that fails
/// at its second `get_next`.
struct Producer {
    format: &'static CStr,
    arrays: Vec<Made>,
    next: usize,
    fail_at: Option<usize>,
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: a schema `get_schema` filled; nothing to free.
    unsafe { (*schema).release = None };
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: an array `get_next` filled; its buffers are the producer's.
    unsafe { (*array).release = None };
}

unsafe extern "C" fn get_schema(stream: *mut ArrowArrayStream, out: *mut ArrowSchema) -> c_int {
    // SAFETY: the stream `stream` made, and a schema to fill.
    unsafe {
        let producer = &*(*stream).private_data.cast::<Producer>();
        out.write(ArrowSchema {
            format: producer.format.as_ptr(),
            name: c"s".as_ptr(),
            metadata: ptr::null(),
            flags: 2,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: Some(release_schema),
            private_data: ptr::null_mut(),
        });
    }
    0
}

unsafe extern "C" fn get_next(stream: *mut ArrowArrayStream, out: *mut ArrowArray) -> c_int {
    // SAFETY: as in `get_schema`, with an array to fill.
    unsafe {
        let producer = &mut *(*stream).private_data.cast::<Producer>();
        if producer.fail_at == Some(producer.next) {
            return 5; // EIO
        }
        let mut array = array(0, 0, 0, 0);
        if let Some(made) = producer.arrays.get(producer.next) {
            array = ArrowArray {
                release: Some(release_array),
                ..made.array
            };
        }
        producer.next += 1;
        out.write(array);
    }
    0
}

unsafe extern "C" fn get_last_error(_: *mut ArrowArrayStream) -> *const c_char {
    c"the disk went away".as_ptr()
}

unsafe extern "C" fn release_stream(stream: *mut ArrowArrayStream) {
    // SAFETY: the stream `stream` made, released once.
    unsafe {
        drop(Box::from_raw((*stream).private_data.cast::<Producer>()));
        (*stream).release = None;
    }
}

fn stream(producer: Producer) -> Imported<ArrowArrayStream> {
    let value = ArrowArrayStream {
        get_schema: Some(get_schema),
        get_next: Some(get_next),
        get_last_error: Some(get_last_error),
        release: Some(release_stream),
        private_data: Box::into_raw(Box::new(producer)).cast(),
    };
    // SAFETY: a stream whose callbacks are this file's, released once.
    unsafe { Imported::new(value) }
}

#[test]
fn a_stream_is_read_to_its_end_and_its_errors_are_reported() {
    let suite: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let producer = |format, fail_at| Producer {
        format,
        arrays: vec![utf8(&suite[..3], 0, 3, None), utf8(&suite[3..], 0, 4, None)],
        next: 0,
        fail_at,
    };
    let stop = Stop::default();
    let mut s = stream(producer(c"u", None));
    let (chunks, exported) = read_stream(&mut s, Output::Hex, 1, &stop).unwrap();
    assert_eq!(exported, Exported::Utf8);
    let got: Vec<Option<String>> = chunks.iter().flat_map(texts).collect();
    let want: Vec<Option<String>> = RFC_1321.iter().map(|(_, d)| Some(d.to_string())).collect();
    assert_eq!(got, want);

    let mut failing = stream(producer(c"u", Some(1)));
    match read_stream(&mut failing, Output::Hex, 1, &stop) {
        Err(StreamError::Producer(m)) => {
            assert_eq!(m, "the Arrow stream failed (error 5): the disk went away")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }

    let mut ints = stream(producer(c"l", None));
    match read_stream(&mut ints, Output::Hex, 1, &stop) {
        Err(StreamError::Type(m)) => assert!(m.ends_with("not int64"), "{m}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}
