//! `md5::files::hash_files` holds a bounded amount of memory whatever the
//! files' sizes: measured with a counting allocator, in a test binary of
//! its own so that no other test's allocations count.
#![cfg(feature = "std")]

use md5::files::{self, Control};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn memory_is_bounded_whatever_the_sizes() {
    const MIB: usize = 1 << 20;
    let dir = std::env::temp_dir().join(format!("md5-files-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // 80 MiB in all: long files in lanes, one alone (read ahead on a
    // thread), small ones in batches.
    let mut paths = Vec::new();
    let mut total = 0;
    for i in 0..200 {
        let len = match i {
            0 => 24 * MIB,
            _ if i % 10 == 0 => 2 * MIB,
            _ => 40_000 + i,
        };
        let p = dir.join(format!("f{i}"));
        std::fs::write(&p, vec![i as u8; len]).unwrap();
        total += len;
        paths.push(p);
    }
    let threads = 2;
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let got = files::hash_files(&paths, threads, Control::new());
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert!(got.iter().all(Result::is_ok));
    // The module's bound: about 11 MiB a thread, less than the longest
    // file, so that reading any file whole would fail it.
    let bound = threads * 11 * MIB + MIB;
    eprintln!("peak {peak} bytes for {total} bytes of files");
    assert!(
        peak < bound && bound < 24 * MIB,
        "peak {peak} bytes for {total} bytes of files, bound {bound}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
