//! Foreign buffers as slices: the one place where a pointer and the
//! counts an Arrow struct gives become memory to read, after checks that
//! cannot wrap. Items `first..first + count` of a buffer are taken only if
//! `first + count`, that many items' bytes, and the address they end at
//! all fit: no slice spans more than `isize::MAX` bytes or wraps the
//! address space, whatever the struct says.
//!
//! What no check can see: whether the producer's buffer really holds
//! those items. The C Data Interface carries no buffer sizes, so a
//! producer whose lengths or offsets run past its data makes any consumer
//! read out of bounds; the layout's own rules (offsets that never
//! decrease, views inside their data buffers) are checked elsewhere.

use std::ffi::c_void;

/// The address of item `first` of the buffer at `ptr`, of items of `T`,
/// checked as the module says for `count` items from there. Not checked
/// for alignment.
pub(crate) fn start<T>(
    ptr: *const c_void,
    first: usize,
    count: usize,
    what: &str,
) -> Result<*const T, String> {
    let size = size_of::<T>();
    let bytes = first
        .checked_add(count)
        .and_then(|items| items.checked_mul(size))
        .filter(|&bytes| bytes <= isize::MAX as usize)
        .ok_or_else(|| {
            format!("its {what} would be {first} + {count} items of {size} bytes: no buffer is that large")
        })?;
    if ptr.is_null() {
        return Err(format!("its {what} buffer is NULL"));
    }
    if (ptr as usize).checked_add(bytes).is_none() {
        return Err(format!(
            "its {what} would run past the end of the address space ({bytes} bytes from {ptr:p})"
        ));
    }
    // In bounds of the buffer (the producer's promise; see the module),
    // and checked above not to wrap.
    Ok(ptr.cast::<T>().wrapping_add(first))
}

/// Items `first..first + count` of the buffer at `ptr` as a slice, checked
/// as the module says; `T` must need no alignment beyond a byte's, or the
/// caller checks it (see [`start`]).
///
/// # Safety
///
/// If the checks pass, the buffer holds at least `first + count` items of
/// `T` that nothing writes while `'a` lasts, and item `first` is aligned
/// for `T`.
pub(crate) unsafe fn slice<'a, T>(
    ptr: *const c_void,
    first: usize,
    count: usize,
    what: &str,
) -> Result<&'a [T], String> {
    if count == 0 {
        return Ok(&[]);
    }
    let start = start::<T>(ptr, first, count, what)?;
    // SAFETY: `count` items from `start` lie in the buffer (the caller's
    // promise), span at most `isize::MAX` bytes and do not wrap (checked
    // by `start`); `start` is not NULL (checked) and aligned (the
    // caller's promise).
    Ok(unsafe { std::slice::from_raw_parts(start, count) })
}
