//! `md5::files`: digests and ETags of many files in order, against
//! md-5 0.10.6 and the ETag formula written out; errors per file; FIFOs,
//! terminals, files the kernel sizes as 0 or wrongly, stopping a run
//! mid-file, and a low limit on open descriptors; `hash_in_order`'s order
//! under many jobs and every route of a policy, its barriers, stops and
//! panics, and opens that wait for a descriptor.
#![cfg(feature = "std")]

use md5::etag::{self, Etag};
use md5::files::{self, Control, Stopped};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use md5x_testkit::Rng;

/// md-5 0.10.6's digest: the ETag oracle's MD5.
fn upstream_md5(data: &[u8]) -> [u8; 16] {
    use upstream::Digest as _;
    upstream::Md5::digest(data).into()
}

/// The oracle: md-5 0.10.6.
fn md5(data: &[u8]) -> [u8; 16] {
    use upstream::Digest;
    upstream::Md5::digest(data).into()
}

/// A directory of its own, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("md5-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    fn file(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }

    /// A FIFO at `name`, if `mkfifo` can make one.
    #[cfg(unix)]
    fn fifo(&self, name: &str) -> Option<PathBuf> {
        let p = self.0.join(name);
        let made = std::process::Command::new("mkfifo").arg(&p).status();
        made.is_ok_and(|s| s.success()).then_some(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lengths around every edge of the reading: empty, within a block, the
/// small-file limit, a lane round. (The reader thread's start, at 8 MiB,
/// is `hash_stream`'s own test.)
const LENS: [usize; 11] = [
    0,
    1,
    55,
    64,
    65_535,
    65_536,
    65_537,
    65_536 + 16_384,
    200_003,
    1 << 20,
    2 << 20,
];

/// Files of assorted lengths, among them paths that fail, in an order
/// that mixes them: each path's digest or error kind.
fn mixed(
    dir: &TempDir,
    rng: &mut Rng,
    n: usize,
) -> (Vec<PathBuf>, Vec<Result<[u8; 16], io::ErrorKind>>) {
    let mut paths = Vec::new();
    let mut want = Vec::new();
    for i in 0..n {
        match i % 17 {
            5 => {
                paths.push(dir.0.join(format!("missing{i}")));
                want.push(Err(io::ErrorKind::NotFound));
            }
            11 => {
                // A directory opens, and fails to read.
                paths.push(dir.0.clone());
                want.push(Err(io::ErrorKind::IsADirectory));
            }
            _ => {
                let len = *rng.pick(&LENS) + rng.below(3);
                let data = rng.bytes(len);
                paths.push(dir.file(&format!("f{i}"), &data));
                want.push(Ok(md5(&data)));
            }
        }
    }
    (paths, want)
}

#[test]
fn digests_in_order_with_errors_per_file() {
    let dir = TempDir::new("order");
    let mut rng = Rng(0x40);
    let (paths, want) = mixed(&dir, &mut rng, 70);
    let total: u64 = paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    for threads in [0, 2, 8] {
        let bytes = AtomicU64::new(0);
        let got = files::hash_files(&paths, threads, Control::new().count_into(&bytes));
        assert_eq!(got.len(), paths.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            match (g, w) {
                (Ok(d), Ok(w)) => assert_eq!(d, w, "file {i}, {threads} threads"),
                (Err(e), Err(kind)) => {
                    assert_eq!(e.error().kind(), *kind, "file {i}: {e}");
                    assert_eq!(e.path(), paths[i]);
                    assert!(e.to_string().starts_with(&paths[i].display().to_string()));
                }
                _ => panic!("file {i}, {threads} threads: {g:?}"),
            }
        }
        assert_eq!(bytes.into_inner(), total, "{threads} threads");
    }
    assert!(files::hash_files::<&Path>(&[], 4, Control::new()).is_empty());
}

#[test]
fn etags_in_order_by_the_upload_rule() {
    let dir = TempDir::new("etag");
    let mut rng = Rng(0x41);
    let (paths, want) = mixed(&dir, &mut rng, 24);
    for part in [1000usize, 65_536, 5 << 20] {
        for threads in [1, 3] {
            let got = files::etag_files(&paths, part as u64, threads, Control::new());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                match (g, w) {
                    (Ok(e), Ok(_)) => {
                        let data = std::fs::read(&paths[i]).unwrap();
                        let oracle = upload_oracle(&data, part);
                        assert_eq!(e.to_string(), oracle, "file {i}, part {part}");
                    }
                    (Err(e), Err(kind)) => assert_eq!(e.error().kind(), *kind, "file {i}: {e}"),
                    _ => panic!("file {i}: {g:?}"),
                }
            }
        }
    }
    // A part size of 0 fails each file, saying why.
    let got = files::etag_files(&paths[..3], 0, 2, Control::new());
    for r in got {
        let e = r.unwrap_err();
        let inner = e.error().get_ref().unwrap();
        assert_eq!(
            inner.downcast_ref::<etag::PartsError>(),
            Some(&etag::PartsError::ZeroPartSize)
        );
    }
}

/// The ETag of `data` by the AWS CLI's upload rule, written out: its MD5
/// below one part, else the multipart formula.
fn upload_oracle(data: &[u8], part: usize) -> String {
    if data.len() < part {
        Etag::from_md5(md5(data)).to_string()
    } else {
        md5x_testkit::etag::composed(upstream_md5, data, part)
    }
}

/// The digest and every ETag form of the file at `path`, whose bytes are
/// `data`, against the oracles, for parts smaller than it, of 1 KiB, of
/// the page size that sysfs gives, and larger.
#[cfg(target_os = "linux")]
fn check_all_forms(path: &Path, data: &[u8]) {
    let got = files::hash_files(&[path], 1, Control::new());
    assert_eq!(got[0].as_ref().unwrap(), &md5(data), "{path:?}");
    for part in [1usize, 3, 1024, 4095, 4096, 4097, 8 << 20] {
        let upload = upload_oracle(data, part);
        let multipart = md5x_testkit::etag::composed(upstream_md5, data, part);
        for threads in [1, 2] {
            let got = files::etag_files(&[path], part as u64, threads, Control::new());
            let got = got[0].as_ref().unwrap().to_string();
            assert_eq!(got, upload, "{path:?}, part {part}, {threads} threads");
        }
        let file = std::fs::File::open(path).unwrap();
        let got = etag::upload_file(&file, part as u64).unwrap().to_string();
        assert_eq!(got, upload, "{path:?}, part {part}");
        let file = std::fs::File::open(path).unwrap();
        let got = etag::multipart_file(&file, part as u64)
            .unwrap()
            .to_string();
        assert_eq!(got, multipart, "{path:?}, part {part}");
    }
}

/// Files whose metadata gives a length of 0 but that hold bytes: read to
/// their end.
#[test]
#[cfg(target_os = "linux")]
fn files_the_kernel_sizes_as_zero() {
    // Not /proc/self/*: qemu-user serves those from files of its own,
    // which have a length.
    let path = Path::new("/proc/version");
    let data = std::fs::read(path).unwrap();
    assert!(!data.is_empty() && std::fs::metadata(path).unwrap().len() == 0);
    check_all_forms(path, &data);
}

/// Files whose metadata gives a length they do not have (sysfs gives 4096
/// for files of a few bytes): read to their end, whatever the part size
/// (at 4096 and below, their parts were read side by side to that length,
/// and failed as "shrank while being read").
#[test]
#[cfg(target_os = "linux")]
fn files_the_kernel_sizes_wrongly() {
    // Files that change only when the hardware does.
    let candidates = [
        "/sys/devices/system/cpu/possible",
        "/sys/devices/system/cpu/online",
        "/sys/devices/system/cpu/present",
        "/sys/class/net/lo/address",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ];
    let mut checked = 0;
    for path in candidates.map(Path::new) {
        let (Ok(meta), Ok(data)) = (std::fs::metadata(path), std::fs::read(path)) else {
            continue;
        };
        if data.is_empty() || meta.len() <= data.len() as u64 {
            continue;
        }
        check_all_forms(path, &data);
        checked += 1;
    }
    if checked == 0 {
        eprintln!("skipped: no sysfs file sized wrongly here");
    }
}

/// A FIFO is read as its writer writes it, among regular files, for the
/// digest and for the ETag.
#[test]
#[cfg(unix)]
fn a_fifo_among_files() {
    let dir = TempDir::new("fifo");
    let Some(fifo) = dir.fifo("fifo") else {
        eprintln!("skipped: mkfifo failed");
        return;
    };
    let data = Rng(0x42).bytes(3 << 20);
    let a = dir.file("a", b"abc");
    let paths = [a.clone(), fifo.clone(), a];
    std::thread::scope(|s| {
        s.spawn(|| {
            // The writer comes late: the reader waits for it.
            std::thread::sleep(Duration::from_millis(300));
            let mut w = std::fs::File::options().write(true).open(&fifo).unwrap();
            w.write_all(&data).unwrap();
        });
        let got = files::hash_files(&paths, 2, Control::new());
        assert_eq!(got[1].as_ref().unwrap(), &md5(&data));
        assert_eq!(got[0].as_ref().unwrap(), &md5(b"abc"));
        assert_eq!(got[2].as_ref().unwrap(), &md5(b"abc"));
    });
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut w = std::fs::File::options().write(true).open(&fifo).unwrap();
            w.write_all(&data).unwrap();
        });
        let got = files::etag_files(&[&fifo], 1 << 20, 2, Control::new());
        let want = md5x_testkit::etag::composed(upstream_md5, &data, 1 << 20);
        assert_eq!(got[0].as_ref().unwrap().to_string(), want);
    });
}

/// Runs `f` on a thread of its own and returns what it returns, or fails
/// the test, saying `what`, if it has not returned after two minutes: a
/// guard that keeps a run that never ends from hanging the suite, never a
/// verdict on speed.
#[cfg(target_os = "linux")]
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{what}"))
}

/// A stop asked for while a FIFO's read waits (its writer wrote part of
/// it and stays): that file fails with `Stopped`, and so does every file
/// after it.
#[test]
#[cfg(target_os = "linux")]
fn stop_while_a_fifo_waits() {
    use std::sync::{mpsc, Arc};
    let dir = TempDir::new("stop-fifo");
    let Some(fifo) = dir.fifo("fifo") else {
        eprintln!("skipped: mkfifo failed");
        return;
    };
    let later = dir.file("later", b"later");
    let stop = Arc::new(AtomicBool::new(false));
    let bytes = Arc::new(AtomicU64::new(0));
    let (release, released) = mpsc::channel::<()>();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut w = std::fs::File::options().write(true).open(&fifo).unwrap();
            w.write_all(&[7u8; 1000]).unwrap();
            // Holds the FIFO open, writing nothing more, until released.
            let _ = released.recv();
        })
    };
    {
        let (stop, bytes) = (stop.clone(), bytes.clone());
        std::thread::spawn(move || {
            while bytes.load(Ordering::Relaxed) < 1000 {
                std::thread::sleep(Duration::from_millis(5));
            }
            stop.store(true, Ordering::Relaxed);
        });
    }
    let got = within(
        "the run did not stop while a FIFO's read waited",
        move || {
            let control = Control::new().stop_on(&stop).count_into(&bytes);
            files::hash_files(&[&fifo, &later], 1, control)
        },
    );
    drop(release);
    writer.join().unwrap();
    assert!(got[0].as_ref().unwrap_err().is_stopped(), "{:?}", got[0]);
    assert!(got[1].as_ref().unwrap_err().is_stopped(), "{:?}", got[1]);
}

/// A reader that sets the stop flag once it has given `at` bytes.
struct StopAt<'a> {
    given: u64,
    at: u64,
    stop: &'a AtomicBool,
}

impl Read for StopAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf.fill(1);
        self.given += buf.len() as u64;
        if self.given >= self.at {
            self.stop.store(true, Ordering::Relaxed);
        }
        Ok(buf.len())
    }
}

/// A stop asked for mid-stream ends the read within a few MiB, on the
/// calling thread and on the reader thread that reads ahead; and mid-file,
/// for a file's parts read side by side.
#[test]
fn stop_mid_file() {
    const MIB: u64 = 1 << 20;
    for at in [MIB, 20 * MIB] {
        let stop = AtomicBool::new(false);
        let bytes = AtomicU64::new(0);
        let control = Control::new().stop_on(&stop).count_into(&bytes);
        let src = StopAt {
            given: 0,
            at,
            stop: &stop,
        };
        let err =
            files::hash_stream(md5::Md5::default(), src, &control, &mut Vec::new()).unwrap_err();
        assert!(Stopped::is(&err), "{err}");
        let read = bytes.into_inner();
        assert!((at..at + 8 * MIB).contains(&read), "{at}: {read}");
    }
    let dir = TempDir::new("stop-file");
    let path = dir.file("big", &vec![3u8; 12 << 20]);
    let stop = AtomicBool::new(false);
    let bytes = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while bytes.load(Ordering::Relaxed) < MIB {
                std::hint::spin_loop();
            }
            stop.store(true, Ordering::Relaxed);
        });
        let control = Control::new().stop_on(&stop).count_into(&bytes);
        let got = files::etag_files(&[&path], MIB, 2, control);
        // Stopped, unless the whole file was read before the flag was
        // seen: then its ETag, right. (That the parts read side by side
        // stop mid-file whenever the flag is seen is the unit test
        // `etag::file::tests::stop_mid_file`, whose file sets the flag
        // itself.)
        match &got[0] {
            Err(e) => assert!(e.is_stopped(), "{e}"),
            Ok(etag) => {
                let data = std::fs::read(&path).unwrap();
                let want = md5x_testkit::etag::composed(upstream_md5, &data, MIB as usize);
                assert_eq!(etag.to_string(), want);
                assert_eq!(bytes.load(Ordering::Relaxed), 12 << 20);
            }
        }
    });
}

/// Many threads over many long files (each held open until it is hashed):
/// at most 256 files open at once, so that the usual limit of 1,024
/// descriptors is never reached. Counted in /proc/self/fd while it runs,
/// only the descriptors of this test's files (the other tests open their
/// own). The third path is a FIFO: the thread that claims the first paths
/// holds the two long files before it open while its read waits, and the
/// FIFO is written only once the count has seen files open, so that the
/// count sees some whatever the scheduling.
#[test]
#[cfg(target_os = "linux")]
fn open_files_are_bounded() {
    let dir = TempDir::new("open-files");
    let Some(fifo) = dir.fifo("fifo") else {
        eprintln!("skipped: mkfifo failed");
        return;
    };
    let data = vec![9u8; 70_000];
    let mut paths: Vec<PathBuf> = (0..600)
        .map(|i| dir.file(&format!("f{i}"), &data))
        .collect();
    paths[2] = fifo.clone();
    let root = std::fs::canonicalize(&dir.0).unwrap();
    let open_here = || {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .filter(|p| p.starts_with(&root))
            .count()
    };
    let done = AtomicBool::new(false);
    let most = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut most = 0;
            let mut fed = false;
            while !done.load(Ordering::Relaxed) {
                let n = open_here();
                most = most.max(n);
                if n > 0 && !fed {
                    let mut w = std::fs::File::options().write(true).open(&fifo).unwrap();
                    w.write_all(b"fifo").unwrap();
                    fed = true;
                }
            }
            most
        });
        let got = files::hash_files(&paths, 64, Control::new());
        done.store(true, Ordering::Relaxed);
        for (i, r) in got.iter().enumerate() {
            let want = md5(if i == 2 { b"fifo" } else { &data });
            assert_eq!(r.as_ref().unwrap(), &want, "file {i}");
        }
        watcher.join().unwrap()
    });
    assert!((1..=256).contains(&most), "{most} open at most");
}

/// A new pseudo-terminal: its controller (held open, so that reads of the
/// terminal wait rather than end) and the terminal's path.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn pseudo_terminal() -> (std::fs::File, PathBuf) {
    use std::os::fd::FromRawFd;
    use std::os::raw::{c_char, c_int};
    extern "C" {
        fn posix_openpt(flags: c_int) -> c_int;
        fn grantpt(fd: c_int) -> c_int;
        fn unlockpt(fd: c_int) -> c_int;
        fn ptsname_r(fd: c_int, buf: *mut c_char, len: usize) -> c_int;
    }
    const O_RDWR: c_int = 2;
    const O_NOCTTY: c_int = 0o400;
    // SAFETY: `posix_openpt` takes flags only and returns a new descriptor
    // or -1.
    let fd = unsafe { posix_openpt(O_RDWR | O_NOCTTY) };
    assert!(fd >= 0, "posix_openpt: {}", io::Error::last_os_error());
    // SAFETY: `fd` is a descriptor just opened and owned by nothing else;
    // the `File` takes it over and closes it once.
    let controller = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut name = [0u8; 128];
    // SAFETY: `grantpt` and `unlockpt` take the open descriptor only;
    // `ptsname_r` writes at most `name.len()` bytes, a NUL-terminated
    // path, into `name`, which outlives the call.
    let ok = unsafe {
        grantpt(fd) == 0
            && unlockpt(fd) == 0
            && ptsname_r(fd, name.as_mut_ptr().cast(), name.len()) == 0
    };
    assert!(ok, "a pseudo-terminal: {}", io::Error::last_os_error());
    let end = name.iter().position(|&b| b == 0).unwrap();
    let path = PathBuf::from(std::str::from_utf8(&name[..end]).unwrap());
    (controller, path)
}

/// A stop asked for while a read waits on a terminal where nothing is
/// ever typed (as on `/dev/stdin` in an interactive shell): that file
/// fails with `Stopped`, for the digest and for the ETag, and so does
/// every file after it (one thread: the next file is read after it). The
/// flag is set from another thread while the run goes on; the bound only
/// keeps a run that never stops from hanging the suite.
#[test]
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn stop_while_a_terminal_waits() {
    use std::sync::Arc;
    let dir = TempDir::new("stop-tty");
    let later = dir.file("later", b"later");
    let (_controller, tty) = pseudo_terminal();
    for etag in [false, true] {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, tty, later) = (stop.clone(), tty.clone(), later.clone());
        let (stopper, flag_set) = (stop.clone(), Duration::from_millis(200));
        std::thread::spawn(move || {
            std::thread::sleep(flag_set);
            stopper.store(true, Ordering::Relaxed);
        });
        let what = "the run did not stop while a read waited on a terminal";
        let got: Vec<bool> = within(what, move || {
            let control = Control::new().stop_on(&flag);
            if etag {
                files::etag_files(&[tty], 1 << 20, 2, control)
                    .iter()
                    .map(|r| r.as_ref().is_err_and(|e| e.is_stopped()))
                    .collect()
            } else {
                files::hash_files(&[tty, later], 1, control)
                    .iter()
                    .map(|r| r.as_ref().is_err_and(|e| e.is_stopped()))
                    .collect()
            }
        });
        assert!(got.iter().all(|&s| s), "ETag: {etag}: {got:?}");
    }
}

/// The environment variable that makes `low_descriptor_limit` the child
/// run under a lower limit: "limit held threads".
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
const LIMIT_CHILD: &str = "MD5_FILES_TEST_LIMIT_CHILD";

/// Under a low soft limit on open descriptors (`ulimit -n 20` and 40),
/// with the caller holding none or most of them, 60 long files (each held
/// open until it is hashed) all get their digests and ETags, where
/// `hashlib`, holding one at a time, gets them: the files layer opens no
/// more than half the limit, and where no descriptor is left it hashes the
/// files it holds, or waits for another thread to close one. The limit is
/// the whole process's, so this test runs itself again in a child process
/// for each case.
#[test]
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn low_descriptor_limit() {
    if let Ok(case) = std::env::var(LIMIT_CHILD) {
        return low_descriptor_limit_child(&case);
    }
    for (limit, held, threads) in [
        (20, 0, 1),
        (40, 0, 1),
        (40, 0, 4),
        (20, 0, 16),
        (40, 30, 1),
        (40, 30, 4),
        (20, 12, 3),
    ] {
        let out = this_test_binary()
            .args(["low_descriptor_limit", "--exact", "--nocapture"])
            .env(LIMIT_CHILD, format!("{limit} {held} {threads}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "limit {limit}, {held} held by the caller, {threads} threads:\n{text}"
        );
    }
}

/// A command that runs this test binary again: under the runner cargo was
/// given for this architecture where there is one (ci/cross.sh's
/// qemu-user, whose emulated process cannot exec a binary of its own
/// architecture: the child would exit 127, silently), else itself.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn this_test_binary() -> std::process::Command {
    let exe = std::env::current_exe().unwrap();
    let prefix = format!("CARGO_TARGET_{}_", std::env::consts::ARCH.to_uppercase());
    let runner = std::env::vars()
        .find(|(k, _)| k.starts_with(&prefix) && k.ends_with("_RUNNER"))
        .map(|(_, v)| v);
    let mut words = runner.as_deref().unwrap_or("").split_whitespace();
    match words.next() {
        Some(program) => {
            let mut c = std::process::Command::new(program);
            c.args(words).arg(exe);
            c
        }
        None => std::process::Command::new(exe),
    }
}

/// One case of `low_descriptor_limit`: lowers this process's soft limit,
/// opens `held` descriptors of its own, and hashes.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn low_descriptor_limit_child(case: &str) {
    let [limit, held, threads]: [u64; 3] = case
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    let dir = TempDir::new("limit");
    let mut rng = Rng(0x47);
    let data: Vec<Vec<u8>> = (0..60).map(|i| rng.bytes(70_000 + i * 61)).collect();
    let paths: Vec<PathBuf> = (0..60)
        .map(|i| dir.file(&format!("f{i}"), &data[i]))
        .collect();
    set_descriptor_limit(limit);
    let _held: Vec<std::fs::File> = (0..held)
        .map(|_| std::fs::File::open("/dev/null").unwrap())
        .collect();
    let threads = threads as usize;
    let got = files::hash_files(&paths, threads, Control::new());
    for (i, (g, d)) in got.iter().zip(&data).enumerate() {
        assert_eq!(g.as_ref().unwrap(), &md5(d), "file {i}");
    }
    // Uploaded whole (hashed as above), and in parts (each file opened
    // alone).
    for part in [1usize << 20, 16 << 10] {
        let got = files::etag_files(&paths, part as u64, threads, Control::new());
        for (i, (g, d)) in got.iter().zip(&data).enumerate() {
            let g = g.as_ref().unwrap().to_string();
            assert_eq!(g, upload_oracle(d, part), "file {i}, part {part}");
        }
    }
}

/// Sets this process's soft limit on open descriptors.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn set_descriptor_limit(soft: u64) {
    use std::os::raw::c_int;
    #[repr(C)]
    struct Rlimit {
        cur: u64,
        max: u64,
    }
    extern "C" {
        fn getrlimit(resource: c_int, rlim: *mut Rlimit) -> c_int;
        fn setrlimit(resource: c_int, rlim: *const Rlimit) -> c_int;
    }
    const RLIMIT_NOFILE: c_int = 7;
    let mut limit = Rlimit { cur: 0, max: 0 };
    // SAFETY: `limit` is one `struct rlimit` (two 64-bit `rlim_t` on these
    // targets), which `getrlimit` writes and `setrlimit` reads during the
    // call only.
    let ok = unsafe {
        getrlimit(RLIMIT_NOFILE, &mut limit) == 0 && {
            limit.cur = soft;
            setrlimit(RLIMIT_NOFILE, &limit) == 0
        }
    };
    assert!(ok, "setrlimit: {}", io::Error::last_os_error());
}

/// The events of a run of `hash_in_order`, but `Idle`: a file's digest or
/// its error's kind and whether it came at the open, or a passed tag.
#[derive(Debug, PartialEq)]
enum Seen {
    File(usize, Result<[u8; 16], (io::ErrorKind, bool)>),
    Pass(usize),
}

/// Runs `hash_in_order` over `jobs` and returns what it handed back.
fn in_order(
    jobs: Vec<files::Job<usize>>,
    threads: usize,
    control: Control<'_>,
    policy: &(impl files::ReadPolicy + ?Sized),
) -> (Result<(), files::Panicked>, Vec<Seen>) {
    let mut seen = Vec::new();
    let r = files::hash_in_order(jobs, threads, control, policy, |e| match e {
        files::Event::File(i, r) => {
            seen.push(Seen::File(
                i,
                r.map_err(|e| (e.error().kind(), e.at_open())),
            ));
        }
        files::Event::Pass(i) => seen.push(Seen::Pass(i)),
        files::Event::Idle => {}
    });
    (r, seen)
}

/// More jobs than the window holds (6,000, over 70 files of assorted
/// lengths, missing ones and a directory, taken in a random order, each
/// many times, the long ones rarely, with messages between them): every digest right against
/// md-5 0.10.6 and `hash_files`, every error with its kind and stage,
/// handed back in input order, on 0, 1, 2 and 7 threads.
#[test]
fn in_order_many_jobs() {
    let dir = TempDir::new("in-order");
    let mut rng = Rng(0x48);
    let (paths, want) = mixed(&dir, &mut rng, 70);
    let listed = files::hash_files(&paths, 2, Control::new());
    let mut jobs = Vec::new();
    let mut expect = Vec::new();
    let short: Vec<usize> = (0..paths.len())
        .filter(|&k| std::fs::metadata(&paths[k]).map_or(true, |m| m.len() < 70_000))
        .collect();
    for i in 0..6_000 {
        if rng.below(5) == 0 {
            jobs.push(files::Job::Pass(i));
            expect.push(Seen::Pass(i));
            continue;
        }
        let k = if rng.below(40) == 0 {
            rng.below(paths.len())
        } else {
            *rng.pick(&short)
        };
        jobs.push(files::Job::File(paths[k].clone(), i));
        let w = match (&want[k], &listed[k]) {
            (Ok(d), Ok(l)) => {
                assert_eq!(d, l, "hash_files, file {k}");
                Ok(*d)
            }
            // Missing: at the open; a directory opens, and its read fails.
            (Err(kind), Err(_)) => Err((*kind, *kind == io::ErrorKind::NotFound)),
            _ => panic!("file {k}: {:?}", listed[k]),
        };
        expect.push(Seen::File(i, w));
    }
    for threads in [0, 1, 2, 7] {
        let jobs = jobs.iter().map(|j| match j {
            files::Job::File(p, i) => files::Job::File(p.clone(), *i),
            files::Job::Pass(i) => files::Job::Pass(*i),
            files::Job::Barrier(i) => files::Job::Barrier(*i),
        });
        let (r, seen) = in_order(jobs.collect(), threads, Control::new(), &files::PlainReads);
        assert!(r.is_ok(), "{threads} threads");
        assert_eq!(seen.len(), expect.len(), "{threads} threads");
        for (n, (s, e)) in seen.iter().zip(&expect).enumerate() {
            assert_eq!(s, e, "job {n}, {threads} threads");
        }
    }
}

/// A policy that routes every file one way, probes as told, and counts
/// the files read in turn and the hints given.
struct Routed {
    route: files::Route,
    probe: files::Probe,
    in_turn: AtomicU64,
    hints: AtomicU64,
}

impl files::ReadPolicy for Routed {
    fn route(&self, _path: &Path, meta: &std::fs::Metadata) -> files::Route {
        if meta.is_file() {
            self.route
        } else {
            files::Route::Alone
        }
    }

    fn probe(&self, _file: &std::fs::File, _buf: &mut [u8]) -> files::Probe {
        self.probe
    }

    fn read_ahead(&self, _file: &std::fs::File, _len: u64, _in_turn: bool) {
        self.hints.fetch_add(1, Ordering::Relaxed);
    }

    fn in_turn_memory(&self) -> u64 {
        // Room for some of the long files, not all: both ways are taken.
        3 << 20
    }

    fn reading_in_turn(&self, _path: &Path) {
        self.in_turn.fetch_add(1, Ordering::Relaxed);
    }
}

/// Every route and probe of a policy gives the same digests and errors:
/// files read alone on the calling thread, in claims, in claims where the
/// page cache says nothing is cached (read after a hint), and in turn
/// (each file that is not cached read in its claim's turn, counted once).
#[test]
fn in_order_every_route() {
    let dir = TempDir::new("in-order-routes");
    let mut rng = Rng(0x49);
    let (paths, want) = mixed(&dir, &mut rng, 60);
    let regular = paths.iter().filter(|p| p.is_file()).count() as u64;
    let jobs = || -> Vec<files::Job<usize>> {
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| files::Job::File(p.clone(), i))
            .collect()
    };
    let expect: Vec<Seen> = want
        .iter()
        .enumerate()
        .map(|(i, w)| Seen::File(i, w.map_err(|k| (k, k == io::ErrorKind::NotFound))))
        .collect();
    use files::{Probe, Route};
    for (route, probe) in [
        (Route::Alone, Probe::Unknown),
        (Route::Claim, Probe::Unknown),
        (Route::Claim, Probe::NotCached),
        (Route::InTurn, Probe::NotCached),
        (Route::InTurn, Probe::Unknown),
    ] {
        for threads in [1, 4] {
            let policy = Routed {
                route,
                probe,
                in_turn: AtomicU64::new(0),
                hints: AtomicU64::new(0),
            };
            let what = format!("{route:?}, {probe:?}, {threads} threads");
            let (r, seen) = in_order(jobs(), threads, Control::new(), &policy);
            assert!(r.is_ok(), "{what}");
            assert_eq!(seen, expect, "{what}");
            // Not cached: in turn, each regular file once; in a claim, a
            // hint for each.
            let (in_turn, hints) = match (route, probe) {
                (Route::InTurn, Probe::NotCached) => (regular, None),
                (Route::Claim, Probe::NotCached) => (0, Some(regular)),
                // Only the long files (longer than SMALL_MAX) wait for
                // the turn where the probe cannot tell.
                (Route::InTurn, Probe::Unknown) => {
                    let long = paths
                        .iter()
                        .filter(|p| p.is_file())
                        .filter(|p| std::fs::metadata(p).unwrap().len() > files::SMALL_MAX as u64)
                        .count() as u64;
                    (long, None)
                }
                _ => (0, Some(0)),
            };
            assert_eq!(policy.in_turn.into_inner(), in_turn, "{what}");
            if let Some(h) = hints {
                assert_eq!(policy.hints.into_inner(), h, "{what}");
            }
        }
    }
}

/// No job after a barrier is taken from the iterator before the barrier
/// is handed back; the jobs before it are, as are those after it once it
/// is.
#[test]
fn in_order_barrier_holds_the_jobs_after_it() {
    use std::cell::Cell;
    let dir = TempDir::new("in-order-barrier");
    let path = dir.file("f", b"abc");
    let taken = Cell::new(0usize);
    let mut barriers_seen = Vec::new();
    let jobs = (0..300usize)
        .map(|i| match i % 100 {
            50 => files::Job::Barrier(i),
            7 => files::Job::Pass(i),
            _ => files::Job::File(path.clone(), i),
        })
        .inspect(|_| taken.set(taken.get() + 1));
    let mut order = Vec::new();
    let r = files::hash_in_order(jobs, 3, Control::new(), &files::PlainReads, |e| match e {
        files::Event::File(i, r) => {
            assert_eq!(r.unwrap(), md5(b"abc"), "job {i}");
            order.push(i);
        }
        files::Event::Pass(i) => {
            if i % 100 == 50 {
                barriers_seen.push((i, taken.get()));
            }
            order.push(i);
        }
        files::Event::Idle => {}
    });
    assert!(r.is_ok());
    assert_eq!(order, (0..300).collect::<Vec<_>>());
    assert_eq!(barriers_seen, [(50, 51), (150, 151), (250, 251)]);
}

/// A stop asked for mid-run (after the tenth result): every file is
/// hashed right or fails with `Stopped` at its open, and the jobs taken
/// after the stop (more than the window past the tenth) all fail so; the
/// run ends.
#[test]
fn in_order_stop() {
    let dir = TempDir::new("in-order-stop");
    let data = vec![5u8; 100_000];
    let path = dir.file("f", &data);
    let want = md5(&data);
    for threads in [1, 3] {
        let stop = AtomicBool::new(false);
        let control = Control::new().stop_on(&stop);
        let jobs = (0..6000).map(|i| files::Job::File(path.clone(), i));
        let mut results = Vec::new();
        let r = files::hash_in_order(jobs, threads, control, &files::PlainReads, |e| {
            if let files::Event::File(i, r) = e {
                if i == 10 {
                    stop.store(true, Ordering::Relaxed);
                }
                results.push(r);
            }
        });
        assert!(r.is_ok());
        assert_eq!(results.len(), 6000);
        for (i, r) in results.iter().enumerate() {
            // Stopped at the open, or mid-read where the flag came then.
            match r {
                Ok(d) => assert_eq!(d, &want, "job {i}"),
                Err(e) => assert!(e.is_stopped(), "job {i}: {e}"),
            }
            // Taken after the stop: stopped before it was opened.
            if i > 10 + 4096 {
                let stopped = r.as_ref().is_err_and(|e| e.is_stopped() && e.at_open());
                assert!(stopped, "job {i}, {threads} threads");
            }
        }
    }
}

/// A policy that panics for one path: the run ends with `Panicked` after
/// handing back every result before that path, on worker threads; on the
/// calling thread alone the panic unwinds out of the run.
#[test]
fn in_order_panic_ends_the_run() {
    struct PanicAt(PathBuf);
    impl files::ReadPolicy for PanicAt {
        fn route(&self, path: &Path, _meta: &std::fs::Metadata) -> files::Route {
            assert!(path != self.0, "injected failure");
            files::Route::Claim
        }
    }
    let dir = TempDir::new("in-order-panic");
    let data: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; i * 3000]).collect();
    let paths: Vec<PathBuf> = (0..40)
        .map(|i| dir.file(&format!("f{i}"), &data[i]))
        .collect();
    let policy = PanicAt(paths[17].clone());
    let jobs = || {
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| files::Job::File(p.clone(), i))
    };
    for threads in [2, 4, 16] {
        let mut got = Vec::new();
        let r = files::hash_in_order(jobs(), threads, Control::new(), &policy, |e| {
            if let files::Event::File(i, r) = e {
                got.push((i, r.unwrap()));
            }
        });
        assert_eq!(r, Err(files::Panicked), "{threads} threads");
        let before: Vec<_> = (0..17).map(|i| (i, md5(&data[i]))).collect();
        assert_eq!(got, before, "{threads} threads");
    }
    let alone = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        files::hash_in_order(jobs(), 1, Control::new(), &policy, |_| {})
    }));
    assert!(alone.is_err());
}

/// Opens that find no descriptor left wait for one that a file of the
/// files layer frees, rather than fail; with none of its files open, the
/// error is the open's own.
#[test]
#[cfg(unix)]
fn open_waiting_waits_for_a_descriptor() {
    const EMFILE: i32 = 24;
    let dir = TempDir::new("open-waiting");
    let path = dir.file("f", b"abc");
    // None of the files layer's open here (this test's own): EMFILE is the
    // open's error, after one try.
    let mut tries = 0;
    let err = files::open_waiting(
        || {
            tries += 1;
            Err(io::Error::from_raw_os_error(EMFILE))
        },
        || false,
        &Control::new(),
    );
    // Other tests of this binary may hold files open through the files
    // layer meanwhile: then the open waits for one to close and tries
    // again, and fails alike.
    assert_eq!(err.unwrap_err().raw_os_error(), Some(EMFILE));
    assert!(tries >= 1);
    // One held: the open waits until it is closed, then succeeds.
    let held =
        files::open_waiting(|| std::fs::File::open(&path), || false, &Control::new()).unwrap();
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
    });
    let mut tries = 0;
    let mut file = files::open_waiting(
        || {
            tries += 1;
            if tries == 1 {
                Err(io::Error::from_raw_os_error(EMFILE))
            } else {
                std::fs::File::open(&path)
            }
        },
        || false,
        &Control::new(),
    )
    .unwrap();
    closer.join().unwrap();
    let mut text = String::new();
    file.read_to_string(&mut text).unwrap();
    assert_eq!((text.as_str(), tries), ("abc", 2));
    // Waiting, it looks at the stop flag.
    let held =
        files::open_waiting(|| std::fs::File::open(&path), || false, &Control::new()).unwrap();
    let stop = AtomicBool::new(true);
    let err = files::open_waiting(
        || Err(io::Error::from_raw_os_error(EMFILE)),
        || false,
        &Control::new().stop_on(&stop),
    )
    .unwrap_err();
    assert!(Stopped::is(&err), "{err}");
    drop(held);
    // A directory read counted as a descriptor.
    let n = files::with_descriptor(|| Ok(std::fs::read_dir(&dir.0)?.count()), &Control::new());
    assert_eq!(n.unwrap(), 1);
}
