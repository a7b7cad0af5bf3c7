//! The engine end to end: digests in input order whatever the sizes, the
//! thread count and the disk, spinning disks read in their turn, and
//! panics that end a run without a hang.

#[cfg(unix)]
use super::io_policy::media::major_minor;
#[cfg(unix)]
use super::io_policy::media::tests::{fake_sysfs, Disk};
use super::io_policy::PANIC_HERE;
#[cfg(unix)]
use super::page_cache::forced;
use super::shared::*;
use super::test_dir::temp_dir;
use super::*;
#[cfg(unix)]
use md5x::files::SMALL_MAX;
use md5x::{Digest, Md5};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

/// What `run` returned, the digests consumed (by index) and how many
/// files were read in a spinning disk's turn.
type RunResult = (Result<(), Failed>, Vec<(usize, [u8; 16])>, usize);

/// Lengths of files around the sizes the engine treats apart: empty, one
/// page, around 64 KiB (the longest file hashed in lanes), and several of
/// the 1 MiB chunks longer files are streamed in.
const ASSORTED: [usize; 8] = [0, 5, 4096, 65535, 65536, 65537, 200_000, 3 << 20];

/// `n` files in `dir`, the `i`th `lens[i % lens.len()] + i` bytes long.
fn files(dir: &Path, n: usize, lens: &[usize]) -> Vec<(PathBuf, [u8; 16])> {
    (0..n)
        .map(|i| {
            let len = lens[i % lens.len()] + i;
            let data: Vec<u8> = (0..len).map(|k| (k * 31 + i) as u8).collect();
            let p = dir.join(format!("f{i:03}"));
            std::fs::write(&p, &data).unwrap();
            (p, Md5::digest(&data).into())
        })
        .collect()
}

/// Runs the engine over paths, on another thread with a deadline, so that
/// a hang fails the test instead of stalling it.
fn run_paths(
    paths: Vec<PathBuf>,
    jobs: usize,
    sysfs: Option<PathBuf>,
) -> std::thread::Result<RunResult> {
    run_paths_until(paths, jobs, sysfs, usize::MAX)
}

/// [`run_paths`] whose consumer panics at item `panic_at`.
fn run_paths_until(
    paths: Vec<PathBuf>,
    jobs: usize,
    sysfs: Option<PathBuf>,
    panic_at: usize,
) -> std::thread::Result<RunResult> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = catch_unwind(AssertUnwindSafe(|| {
            let bytes = AtomicU64::new(0);
            let cfg = Config::new(jobs, sysfs.as_deref(), None, &bytes);
            let mut seen = Vec::new();
            let items = paths
                .into_iter()
                .enumerate()
                .map(|(i, p)| (Some(Input::Path(p)), i));
            let r = run(&cfg, items, |step| {
                if let Step::Item(i, Some(r)) = step {
                    assert!(i != panic_at, "the consumer fails");
                    seen.push((i, r.unwrap()));
                }
            });
            (r, seen, cfg.read_in_turn.load(Ordering::Relaxed))
        }));
        let _ = tx.send(r);
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the engine did not return: it hangs")
}

/// Drops the files' pages from the page cache; whether that worked (it
/// cannot on tmpfs, or off Linux).
#[cfg(unix)]
fn evict_all(paths: &[PathBuf]) -> bool {
    let mut cold = true;
    for p in paths {
        let f = std::fs::File::open(p).unwrap();
        crate::sys::evict(&f);
        let len = f.metadata().unwrap().len();
        cold &= len == 0 || crate::sys::cached_sixteenths(&f, len) == Some(0);
    }
    cold
}

/// Files on a spinning disk that are not in the page cache are read in
/// their claims' turns; cached ones, and those of a virtual disk that says
/// it is rotational, never wait for a turn; the digests are the same
/// whatever the path, on every thread count. What is cached is forced
/// ([`forced`]), so the count is exact; then one run takes the kernel's
/// word, cold.
#[test]
#[cfg(unix)]
fn spinning_disks_are_read_in_turn() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("rot-files");
    let want = files(&dir, 40, &ASSORTED);
    let (major, minor) = major_minor(std::fs::metadata(&dir).unwrap().dev());
    let paths: Vec<PathBuf> = want.iter().map(|(p, _)| p.clone()).collect();
    let digests: Vec<(usize, [u8; 16])> = want.iter().map(|x| x.1).enumerate().collect();
    let sysfs = |disk: Disk| {
        let root = temp_dir(&format!("rot-sysfs-{disk:?}"));
        fake_sysfs(&root, &format!("{major}:{minor}"), disk);
        root
    };
    let opened: Vec<std::fs::File> = paths
        .iter()
        .map(|p| std::fs::File::open(p).unwrap())
        .collect();
    for disk in [Disk::Spinning, Disk::Virtio] {
        let root = sysfs(disk);
        for jobs in [1, 4] {
            for cached in [true, false] {
                for f in &opened {
                    forced::set(f, cached);
                }
                let (r, seen, in_turn) =
                    run_paths(paths.clone(), jobs, Some(root.clone())).unwrap();
                let what = format!("-j{jobs}, {disk:?}, cached: {cached}");
                assert!(r.is_ok(), "{what}");
                assert_eq!(seen, digests, "{what}");
                let waited = if disk == Disk::Spinning && !cached {
                    paths.len()
                } else {
                    0
                };
                assert_eq!(in_turn, waited, "{what}");
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
    opened.iter().for_each(forced::release);
    // The kernel's word, where the files can be dropped from the page
    // cache: a large file is judged by what is resident before any read of
    // it, so it waits its turn; a small one is read if the kernel has
    // brought its page back meanwhile (the probe of a file starts its
    // readahead), or where the file system cannot tell.
    let large = want
        .iter()
        .filter(|(p, _)| std::fs::metadata(p).unwrap().len() > SMALL_MAX as u64)
        .count();
    let root = sysfs(Disk::Spinning);
    for jobs in [1, 4] {
        if !evict_all(&paths) {
            eprintln!("cannot drop the files from the page cache here: no cold run");
            break;
        }
        let (r, seen, in_turn) = run_paths(paths.clone(), jobs, Some(root.clone())).unwrap();
        assert!(r.is_ok());
        assert_eq!(seen, digests, "-j{jobs}, cold");
        assert!(
            (large..=paths.len()).contains(&in_turn),
            "-j{jobs}, cold: {in_turn} in turn, {large} large"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
    // Without sysfs, cold, side by side.
    if evict_all(&paths) {
        let (r, seen, in_turn) = run_paths(paths.clone(), 4, None).unwrap();
        assert!(r.is_ok());
        assert_eq!(seen, digests);
        assert_eq!(in_turn, 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A worker that panics ends the run: the items before the one it failed
/// on are consumed, then `run` returns `Failed`, without waiting forever
/// for the lost results.
#[test]
fn worker_panic_ends_the_run() {
    let dir = temp_dir("panic");
    // Small files: what is tested is where the run ends, not how it reads.
    let want = files(&dir, 40, &ASSORTED[..7]);
    let mut paths: Vec<PathBuf> = want.iter().map(|(p, _)| p.clone()).collect();
    std::fs::write(dir.join(PANIC_HERE), b"").unwrap();
    paths.insert(17, dir.join(PANIC_HERE));
    for jobs in [2, 4, 16] {
        let (r, seen, _) = run_paths(paths.clone(), jobs, None).unwrap();
        assert!(r.is_err(), "-j{jobs}");
        let before: Vec<(usize, [u8; 16])> = want[..17].iter().map(|x| x.1).enumerate().collect();
        assert_eq!(seen, before, "-j{jobs}");
    }
    // On the calling thread (-j1) the panic unwinds out of `run`.
    assert!(run_paths(paths.clone(), 1, None).is_err());
    // So does a panic of the consumer, with workers waiting for work.
    paths.remove(17);
    for jobs in [1, 4] {
        assert!(run_paths_until(paths.clone(), jobs, None, 5).is_err());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
