//! The Arrow C Data Interface's three structs, as its specification lays
//! them out (<https://arrow.apache.org/docs/format/CDataInterface.html>,
//! <https://arrow.apache.org/docs/format/CStreamInterface.html>), and
//! [`Imported`], which owns one taken from a producer and releases it once.

use std::ffi::{c_char, c_int, c_void};

/// A type: its format string, name, children and dictionary.
#[repr(C)]
pub struct ArrowSchema {
    pub format: *const c_char,
    pub name: *const c_char,
    pub metadata: *const c_char,
    pub flags: i64,
    pub n_children: i64,
    pub children: *mut *mut ArrowSchema,
    pub dictionary: *mut ArrowSchema,
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub private_data: *mut c_void,
}

/// An array's data: its length, offset, null count and buffers.
#[repr(C)]
pub struct ArrowArray {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub n_buffers: i64,
    pub n_children: i64,
    pub buffers: *mut *const c_void,
    pub children: *mut *mut ArrowArray,
    pub dictionary: *mut ArrowArray,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub private_data: *mut c_void,
}

/// A stream of arrays of one type, pulled with `get_next`.
#[repr(C)]
pub struct ArrowArrayStream {
    pub get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    pub get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    pub private_data: *mut c_void,
}

/// The struct of the three that a release callback takes.
pub trait Releasable {
    /// A released struct: every field zero, `release` NULL, as the
    /// specification has a consumer pass to a callback that fills it.
    fn empty() -> Self;
    /// Whether it still holds data (`release` not NULL).
    fn is_live(&self) -> bool;
    /// Marks it released without calling its callback: what a consumer
    /// does to the source of a struct it moved out.
    fn mark_released(&mut self);
    /// Calls its release callback, if it has one.
    ///
    /// # Safety
    ///
    /// `self` holds a struct a producer filled, not yet released.
    unsafe fn release(&mut self);
}

macro_rules! releasable {
    ($($t:ty),*) => {$(
        impl Releasable for $t {
            fn empty() -> Self {
                // SAFETY: every field is an integer, a raw pointer or an
                // `Option` of a function pointer, for which all-zero bytes
                // are 0, NULL and `None`.
                unsafe { std::mem::zeroed() }
            }

            fn is_live(&self) -> bool {
                self.release.is_some()
            }

            fn mark_released(&mut self) {
                self.release = None;
            }

            unsafe fn release(&mut self) {
                if let Some(release) = self.release {
                    // SAFETY: the caller passes a live struct; the callback
                    // is its producer's, given the struct's own address, and
                    // sets `release` to NULL, so it runs once.
                    unsafe { release(self) };
                    self.release = None;
                }
            }
        }
    )*};
}
releasable!(ArrowSchema, ArrowArray, ArrowArrayStream);

/// A struct taken from a producer: boxed, so that its address stays put
/// for the callbacks that receive it, and released exactly once, on drop.
pub struct Imported<T: Releasable>(Box<T>);

impl<T: Releasable> Imported<T> {
    /// Takes ownership of a live struct moved out of its producer's memory.
    ///
    /// # Safety
    ///
    /// `value` was filled by a producer of the C Data Interface and is
    /// not released elsewhere: its callbacks (called here, and its
    /// `release` once, on drop) are the producer's, and take it.
    pub unsafe fn new(value: T) -> Self {
        Self(Box::new(value))
    }

    /// A released struct for a callback to fill (`get_schema`,
    /// `get_next`).
    pub fn empty() -> Self {
        Self(Box::new(T::empty()))
    }

    /// The struct's address, for a callback to fill.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        &mut *self.0
    }

    pub fn is_live(&self) -> bool {
        self.0.is_live()
    }
}

impl<T: Releasable> std::ops::Deref for Imported<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Releasable> Drop for Imported<T> {
    fn drop(&mut self) {
        // SAFETY: the box holds a struct its producer filled (or one left
        // released, which `release` skips); only this drop releases it.
        unsafe { self.0.release() };
    }
}

// SAFETY: the C Data Interface lets a consumer move its structs and call
// their callbacks on another thread than the one that made them (one call
// at a time, which `&mut self` and ownership give); the buffers they point
// to are not written while imported.
unsafe impl<T: Releasable> Send for Imported<T> {}

// SAFETY: through a shared reference only the struct's fields are read
// (plain integers and pointers the producer does not change while the
// struct is imported); its callbacks are called only through `&mut self`
// or on drop.
unsafe impl<T: Releasable> Sync for Imported<T> {}
