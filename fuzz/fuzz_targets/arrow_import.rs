//! The Python package's Arrow import (the crate `md5x-arrow-import`: the
//! checks of `Rows::new`, and `Column::hash`), over arrays whose fields
//! are arbitrary: lengths, offsets and null counts, buffer counts, offsets
//! and views of any values, a struct around the column or not. Every
//! buffer a field names really exists, at the size the fields claim,
//! except where a field claims an extent no buffer can have (2**61 slots
//! or more): those must be refused before anything is read, which
//! AddressSanitizer checks. An accepted array's digests must be, row for
//! row, `Md5` over the bytes its offsets or views name (as bytes or hex,
//! hashed on one to three threads); its nulls the bitmap's; and the views
//! made for a view input's hex digests must each name its row's digest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::{Digest, Md5};
use md5_fuzz::Cursor;
use md5x_arrow_import::column::{Column, Output};
use md5x_arrow_import::ffi::ArrowArray;
use md5x_arrow_import::format::{Layout, Shape};
use md5x_arrow_import::rows::Rows;
use md5x_arrow_import::stop::Stop;
use std::ffi::c_void;

/// Counts no buffer can hold: offsets or views of this many slots
/// overflow `isize`, whatever their width.
const IMPOSSIBLE: [i64; 5] = [1 << 61, 1 << 62, i64::MAX - 1, i64::MAX, (1 << 61) + 7];

/// The most slots a generated array has, and bytes a buffer.
const SLOTS: usize = 300;
const BYTES: usize = 1 << 16;

/// A length, offset or null count: mostly small, sometimes negative or
/// impossible. `true` with it where it is impossible.
fn count(c: &mut Cursor) -> (i64, bool) {
    match c.u8() {
        0..=219 => (c.u8() as i64 % 40, false),
        220..=229 => (-(c.u8() as i64) - 1, false),
        230..=239 => (i64::MIN, false),
        sel => (IMPOSSIBLE[sel as usize % IMPOSSIBLE.len()], true),
    }
}

/// What keeps the generated buffers alive, and the bytes each row of the
/// column names, as the generator laid them (`None`: not knowable, the
/// fields being made up).
#[derive(Default)]
struct Made {
    bytes: Vec<Vec<u8>>,
    offsets32: Vec<Vec<i32>>,
    offsets64: Vec<Vec<i64>>,
    views: Vec<Vec<[u8; 16]>>,
    pointers: Vec<Vec<*const c_void>>,
    children: Vec<Vec<*mut ArrowArray>>,
}

impl Made {
    fn bytes(&mut self, b: Vec<u8>) -> *const c_void {
        self.bytes.push(b);
        self.bytes.last().unwrap().as_ptr().cast()
    }
}

/// Bytes from the input, up to `n`, then a pattern.
fn fill(c: &mut Cursor, n: usize) -> Vec<u8> {
    (0..n).map(|i| c.u8() ^ (i as u8)).collect()
}

/// A validity bitmap for `slots` slots, or NULL.
fn bitmap(c: &mut Cursor, made: &mut Made, slots: usize) -> *const c_void {
    if c.u8() % 3 == 0 {
        return std::ptr::null();
    }
    let bits = fill(c, slots.div_ceil(8));
    made.bytes(bits)
}

/// A byte-string array of `layout`: its struct, and for each slot the
/// bytes it names (known where its fields are consistent).
fn column(c: &mut Cursor, made: &mut Made, layout: Layout) -> ArrowArray {
    let (length, huge_len) = count(c);
    let (offset, huge_off) = count(c);
    let (null_count, _) = count(c);
    let impossible = huge_len || huge_off;
    // Slots backed by real buffers: those the fields claim, where that is
    // possible; else a few (the import must not reach them).
    let slots = if impossible || length < 0 || offset < 0 {
        c.u8() as usize % 8
    } else {
        (length + offset) as usize
    }
    .min(SLOTS);
    let validity = bitmap(c, made, slots);
    let mut buffers = vec![validity];
    match layout {
        Layout::Offsets32 | Layout::Offsets64 => {
            // Offsets: mostly growing by small steps, sometimes any value;
            // the values buffer as long as the last offset says (it must
            // be, by the format), where that is not negative.
            let raw = c.u8() % 4 == 0;
            let mut offsets: Vec<i64> = Vec::with_capacity(slots + 1);
            let mut at: i64 = if raw { 0 } else { c.u8() as i64 % 4 };
            for _ in 0..=slots {
                offsets.push(at);
                at = if raw {
                    c.u16() as i16 as i64 * 8
                } else {
                    at + [0, 1, 3, 55, 56, 64, 65, 200][c.u8() as usize % 8]
                };
            }
            // The values buffer covers every offset of the array, not only
            // the window's (as the format has it).
            for o in &mut offsets {
                *o = (*o).min(BYTES as i64);
            }
            let last = offsets.iter().copied().max().unwrap_or(0).max(0);
            let values = fill(c, last as usize);
            let values = if c.u8() % 16 == 0 && last == 0 {
                std::ptr::null()
            } else {
                made.bytes(values)
            };
            let pointer = if layout == Layout::Offsets32 {
                made.offsets32
                    .push(offsets.iter().map(|&o| o as i32).collect());
                made.offsets32.last().unwrap().as_ptr().cast()
            } else {
                made.offsets64.push(offsets);
                made.offsets64.last().unwrap().as_ptr().cast()
            };
            buffers.extend([pointer, values]);
        }
        Layout::View => {
            let data: Vec<Vec<u8>> = (0..c.u8() % 3)
                .map(|_| {
                    let n = c.u16() as usize % BYTES;
                    fill(c, n)
                })
                .collect();
            let sizes: Vec<i64> = data
                .iter()
                .map(|d| match c.u8() % 8 {
                    0 => -1,
                    1 => d.len() as i64 / 2,
                    _ => d.len() as i64,
                })
                .collect();
            let views: Vec<[u8; 16]> = (0..slots)
                .map(|_| {
                    let mut v = [0u8; 16];
                    let size: i32 = match c.u8() % 8 {
                        0 => c.u8() as i32 % 13,
                        1 => -(c.u8() as i32) - 1,
                        2 => i32::MAX - c.u8() as i32,
                        _ => 13 + c.u16() as i32 % 600,
                    };
                    v[0..4].copy_from_slice(&size.to_le_bytes());
                    for b in &mut v[4..8] {
                        *b = c.u8();
                    }
                    let buffer = c.u8() as i32 % (data.len() as i32 + 1);
                    v[8..12].copy_from_slice(&buffer.to_le_bytes());
                    let start = match c.u8() % 8 {
                        0 => -(c.u8() as i32),
                        1 => i32::MAX,
                        _ => c.u16() as i32 % BYTES as i32,
                    };
                    v[12..16].copy_from_slice(&start.to_le_bytes());
                    if size <= 12 {
                        // Inline bytes after the length.
                        for b in &mut v[8..16] {
                            *b = c.u8();
                        }
                    }
                    v
                })
                .collect();
            made.views.push(views);
            buffers.push(made.views.last().unwrap().as_ptr().cast());
            for d in data {
                let p = made.bytes(d);
                buffers.push(p);
            }
            made.offsets64.push(sizes);
            buffers.push(made.offsets64.last().unwrap().as_ptr().cast());
        }
    }
    // A wrong buffer count sometimes (buffers past the real ones are
    // NULL). Not for views, whose last buffer gives the others' sizes: a
    // count that moves it makes a producer's lie no check can see.
    let views = layout == Layout::View;
    let n_buffers = match c.u8() % 16 {
        0 if !views => buffers.len() as i64 - 1,
        1 if !views => buffers.len() as i64 + 1,
        2 => -1,
        3 => 1 << 61,
        _ => buffers.len() as i64,
    };
    while (buffers.len() as i64) < n_buffers.clamp(0, 8) {
        buffers.push(std::ptr::null());
    }
    made.pointers.push(buffers);
    ArrowArray {
        length,
        null_count,
        offset,
        n_buffers,
        n_children: 0,
        buffers: made.pointers.last().unwrap().as_ptr().cast_mut(),
        children: std::ptr::null_mut(),
        dictionary: std::ptr::null_mut(),
        release: None,
        private_data: std::ptr::null_mut(),
    }
}

/// The bytes slot `slot` of `array` names, read as an independent
/// consumer would (the import accepted it, so its fields are consistent).
fn expected(array: &ArrowArray, layout: Layout, slot: usize) -> Vec<u8> {
    // SAFETY: the generator's own arrays: `buffers` holds its pointers,
    // and an accepted array's slots lie in its buffers.
    unsafe {
        let buffers = std::slice::from_raw_parts(array.buffers, array.n_buffers as usize);
        match layout {
            Layout::Offsets32 | Layout::Offsets64 => {
                let (a, b) = if layout == Layout::Offsets32 {
                    let o = buffers[1].cast::<i32>();
                    (*o.add(slot) as usize, *o.add(slot + 1) as usize)
                } else {
                    let o = buffers[1].cast::<i64>();
                    (*o.add(slot) as usize, *o.add(slot + 1) as usize)
                };
                if a == b {
                    return Vec::new();
                }
                std::slice::from_raw_parts(buffers[2].cast::<u8>().add(a), b - a).to_vec()
            }
            Layout::View => {
                let v = *buffers[1].cast::<[u8; 16]>().add(slot);
                let field = |at: usize| i32::from_le_bytes(v[at..at + 4].try_into().unwrap());
                let size = field(0) as usize;
                if size <= 12 {
                    return v[4..4 + size].to_vec();
                }
                let data = buffers[2 + field(8) as usize].cast::<u8>();
                std::slice::from_raw_parts(data.add(field(12) as usize), size).to_vec()
            }
        }
    }
}

/// Whether slot `i` of a bitmap is valid (no bitmap: all are).
fn valid(bits: *const c_void, i: usize) -> bool {
    // SAFETY: the generator's bitmap, of a bit per slot of an accepted
    // array.
    bits.is_null() || unsafe { *bits.cast::<u8>().add(i / 8) >> (i % 8) & 1 == 1 }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let layout = [Layout::Offsets32, Layout::Offsets64, Layout::View][c.u8() as usize % 3];
    let in_struct = c.u8() % 4 == 0;
    let mut made = Made::default();
    let mut child = column(&mut c, &mut made, layout);
    let (array, struct_validity) = if in_struct {
        let (length, huge_len) = count(&mut c);
        let (offset, huge_off) = count(&mut c);
        let (null_count, _) = count(&mut c);
        let slots = if huge_len || huge_off || length < 0 || offset < 0 {
            c.u8() as usize % 8
        } else {
            (length + offset) as usize
        }
        .min(SLOTS);
        let validity = bitmap(&mut c, &mut made, slots);
        made.pointers.push(vec![validity]);
        made.children.push(vec![&mut child]);
        let array = ArrowArray {
            length,
            null_count,
            offset,
            n_buffers: 1,
            n_children: if c.u8() % 16 == 0 { 2 } else { 1 },
            buffers: made.pointers.last().unwrap().as_ptr().cast_mut(),
            children: made.children.last_mut().unwrap().as_mut_ptr(),
            dictionary: std::ptr::null_mut(),
            release: None,
            private_data: std::ptr::null_mut(),
        };
        (array, Some(validity))
    } else {
        (
            ArrowArray {
                children: std::ptr::null_mut(),
                ..child
            },
            None,
        )
    };
    let shape = Shape { layout, in_struct };
    // SAFETY: the generator's array: every pointer it holds is NULL or to
    // a buffer of the extent its fields claim wherever a buffer can be
    // that large; the other extents `Rows::new` refuses before reading.
    let Ok(rows) = (unsafe { Rows::new(&array, shape) }) else {
        return;
    };
    let len = rows.len();
    let stop = Stop::default();
    let output = [Output::Binary, Output::Hex][c.u8() as usize % 2];
    let jobs = 1 + c.u8() as usize % 3;
    let Ok(column) = Column::hash(rows, output, jobs, &stop) else {
        return;
    };
    assert_eq!(column.len, len);
    let (outer_offset, child_offset) = if in_struct {
        (
            array.offset as usize,
            child.offset as usize + array.offset as usize,
        )
    } else {
        (0, array.offset as usize)
    };
    // SAFETY: the generator's bitmap pointer, read as `valid` reads it.
    let child_bits = unsafe { *child.buffers };
    for i in 0..len {
        let slot = child_offset + i;
        let is_valid = (child.null_count == 0 || valid(child_bits, slot))
            && struct_validity.is_none_or(|b| array.null_count == 0 || valid(b, outer_offset + i));
        let got_valid = column
            .validity
            .as_ref()
            .is_none_or(|v| v.bits[i / 8] >> (i % 8) & 1 == 1);
        assert_eq!(got_valid, is_valid, "row {i}'s validity");
        if is_valid {
            let want: [u8; 16] = Md5::digest(expected(&child, layout, slot)).into();
            let want = match output {
                Output::Hex => want
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
                    .into_bytes(),
                _ => want.to_vec(),
            };
            let width = want.len();
            assert_eq!(column.values[i * width..(i + 1) * width], want, "row {i}");
        }
    }
    if output == Output::Hex && layout == Layout::View {
        let views = column.views();
        assert_eq!(
            (views.views.len(), &views.starts[..]),
            (len, &[0][..len.min(1)])
        );
        for (i, view) in views.views.iter().enumerate() {
            let field = |at: usize| i32::from_le_bytes(view[at..at + 4].try_into().unwrap());
            assert_eq!(
                (field(0), field(8), field(12)),
                (32, 0, 32 * i as i32),
                "row {i}'s view"
            );
            assert_eq!(
                view[4..8],
                column.values[32 * i..32 * i + 4],
                "row {i}'s view"
            );
        }
    }
});
