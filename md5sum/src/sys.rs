//! Platform glue: the C library calls md5sum makes beyond what `std`
//! offers, and the error numbers it tells apart, by name. Every call is
//! an optimisation or a fact about the machine; where a platform lacks
//! one, the caller gets the answer that leaves behaviour unchanged
//! (nothing is cached, no hint is given, no identity is known).

use std::fs::{File, Metadata};
use std::io;

/// A closed or unusable descriptor (Windows: `ERROR_INVALID_HANDLE`).
pub const EBADF: i32 = if cfg!(windows) { 6 } else { 9 };

/// EBADF as an error.
pub fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(EBADF)
}

/// A file's identity: device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

/// The identity of the file `meta` describes, where the platform has one.
pub fn file_id(meta: &Metadata) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The identity of standard output when it is a regular file: an input
/// with that identity is the output file being written.
pub fn stdout_file() -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: descriptor 1 is open for the whole run (the runtime
        // reopens a closed one on /dev/null before `main`), and
        // `ManuallyDrop` keeps this `File` from ever closing it.
        let fd1 = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
        let meta = fd1.metadata().ok().filter(Metadata::is_file)?;
        file_id(&meta)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Caps glibc's malloc arenas. By default each new thread may get its own,
/// up to 8 per CPU, and each reserves 64 MiB of address space: under an
/// address-space limit (`prlimit --as`) that, not the threads, runs out,
/// and a failed allocation aborts. The workers allocate a few buffers per
/// batch of files, so a few arenas serve them as well. Call it before
/// threads start.
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(
                param: std::os::raw::c_int,
                value: std::os::raw::c_int,
            ) -> std::os::raw::c_int;
        }
        const M_ARENA_MAX: std::os::raw::c_int = -8;
        // SAFETY: `mallopt` is glibc's (this is a glibc target); it only
        // sets a tunable, and no other thread exists yet.
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }
}

/// What [`read_cached`] found.
#[derive(Debug, PartialEq, Eq)]
// Elsewhere than on Linux with glibc, every read is `Unsupported`.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
pub enum Cached {
    /// This many bytes were in the page cache and have been read (0: end
    /// of file).
    Read(usize),
    /// The bytes at the file position are not in memory; nothing was read.
    No,
    /// The platform or file system cannot tell, now or later; nothing was
    /// read.
    Unsupported,
    /// The read failed (the caller's plain read then reports why); nothing
    /// was read.
    Failed,
}

/// Reads at the file position without waiting for the disk (Linux's
/// `preadv2(RWF_NOWAIT)`): what is in the page cache comes back, anything
/// else is [`Cached::No`].
pub fn read_cached(file: &File, buf: &mut [u8]) -> Cached {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::fd::AsRawFd;
        #[repr(C)]
        struct IoVec {
            base: *mut u8,
            len: usize,
        }
        extern "C" {
            fn preadv64v2(
                fd: std::os::raw::c_int,
                iov: *const IoVec,
                iovcnt: std::os::raw::c_int,
                offset: i64,
                flags: std::os::raw::c_int,
            ) -> isize;
        }
        const RWF_NOWAIT: std::os::raw::c_int = 8;
        /// Offset -1: read at (and advance) the file position, as `read`.
        const AT_POSITION: i64 = -1;
        let iov = IoVec {
            base: buf.as_mut_ptr(),
            len: buf.len(),
        };
        loop {
            // SAFETY: `iov` describes `buf`, which is valid for writes of
            // `buf.len()` bytes and outlives the call; the kernel writes at
            // most that many bytes into it and keeps no reference after.
            let n = unsafe { preadv64v2(file.as_raw_fd(), &iov, 1, AT_POSITION, RWF_NOWAIT) };
            if let Ok(n) = usize::try_from(n) {
                return Cached::Read(n);
            }
            match io::Error::last_os_error().kind() {
                io::ErrorKind::Interrupted => {}
                io::ErrorKind::WouldBlock => return Cached::No,
                // Old kernels (ENOSYS, EINVAL for the flag), file systems
                // without it (EOPNOTSUPP, which newer std maps so too).
                io::ErrorKind::Unsupported | io::ErrorKind::InvalidInput => {
                    return Cached::Unsupported
                }
                _ => return Cached::Failed,
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (file, buf);
        Cached::Unsupported
    }
}

/// How much of the first `len` bytes of `file` is in the page cache, in
/// sixteenths (Linux's `mincore` over a mapping of them); `None` where it
/// cannot be told.
pub fn cached_sixteenths(file: &File, len: u64) -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_void;
        use std::os::fd::AsRawFd;
        use std::os::raw::c_int;
        extern "C" {
            fn mmap64(
                addr: *mut c_void,
                len: usize,
                prot: c_int,
                flags: c_int,
                fd: c_int,
                offset: i64,
            ) -> *mut c_void;
            fn munmap(addr: *mut c_void, len: usize) -> c_int;
            fn mincore(addr: *mut c_void, len: usize, vec: *mut u8) -> c_int;
            fn getpagesize() -> c_int;
        }
        const PROT_READ: c_int = 1;
        const MAP_SHARED: c_int = 1;
        const MAP_FAILED: *mut c_void = !0usize as *mut c_void;
        let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
        // SAFETY: getpagesize has no preconditions.
        let page = usize::try_from(unsafe { getpagesize() }).ok()?;
        let mut resident = vec![0u8; len.div_ceil(page)];
        // SAFETY: a new read-only shared mapping of the open file, at an
        // address the kernel picks; no existing memory is affected.
        let map = unsafe {
            mmap64(
                std::ptr::null_mut(),
                len,
                PROT_READ,
                MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if map == MAP_FAILED {
            return None;
        }
        // SAFETY: `map` is the mapping of `len` bytes just made, and
        // `resident` holds one byte per page of it, as mincore writes. The
        // mapping is never read (a read could fault on a shrunk file).
        let r = unsafe { mincore(map, len, resident.as_mut_ptr()) };
        // SAFETY: unmaps exactly the mapping made above; nothing refers to
        // it.
        unsafe { munmap(map, len) };
        let pages = resident.len() as u64;
        let present = resident.iter().filter(|&&p| p & 1 == 1).count() as u64;
        (r == 0).then(|| present * 16 / pages)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (file, len);
        None
    }
}

/// Writes `file` out and drops its pages from the page cache (Linux), so
/// that tests can read it cold; elsewhere it does nothing.
#[cfg(all(test, unix))]
pub fn evict(file: &File) {
    md5x::files::drop_cached(file);
}
