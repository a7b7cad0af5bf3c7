//! `md5::etag` against independent oracles: each part hashed by md-5
//! 0.10.6 and the ETag composed here by hand, and Python's hashlib through
//! `benches/etag_reference.py`. Every form (buffer, file, streaming) runs
//! every edge case; the buffer form with every multi-buffer kernel the CPU
//! has, the file form at every set width and with and without its reading
//! thread.

use md5::etag::{self, Etag, EtagHasher, ParseEtagError, PartsError, UploadRule, MAX_PARTS};
use md5::Digest;
use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;

use md5x_testkit::Rng;

/// md-5 0.10.6's digest: the ETag oracle's MD5.
fn upstream_md5(data: &[u8]) -> [u8; 16] {
    use upstream::Digest as _;
    upstream::Md5::digest(data).into()
}

use md5x_testkit::etag::s3transfer_part_size;

/// The oracle: S3's formula over md-5 0.10.6, written out.
fn composed(data: &[u8], part_size: usize) -> String {
    md5x_testkit::etag::composed(upstream_md5, data, part_size)
}

/// A file holding `data`, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(data: &[u8]) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("md5-etag-test-{}-{n}", std::process::id()));
        File::create(&path).unwrap().write_all(data).unwrap();
        Self(path)
    }
}

/// The file forms exist only with `std`.
#[cfg(feature = "std")]
impl TempFile {
    fn open(&self) -> File {
        File::open(&self.0).unwrap()
    }

    /// The file's ETag through the hook with a chosen read shape (see
    /// [`SHAPES`]).
    fn etag_shaped(&self, part_size: u64, shape: (usize, usize, usize, u64)) -> String {
        let (lanes, chunk, threads, ahead) = shape;
        etag::kernel_choice::multipart_file(&self.open(), part_size, lanes, chunk, threads, ahead)
            .unwrap()
            .to_string()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// File shapes: (parts a set, bytes a round per part, most threads, bytes
/// the OS is asked to read ahead). Widths of kernels (1, 8, 12, 24, 64
/// lanes) and an odd one; chunks of one block, so that small parts
/// take several rounds; up to more threads than sets; read-ahead hints
/// every round, every few and never.
#[cfg(feature = "std")]
const SHAPES: &[(usize, usize, usize, u64)] = &[
    (1, 64, 3, 64),
    (3, 128, 2, 0),
    (8, 64, 1, 1 << 20),
    (12, 4096, 2, 4096),
    (24, 192, 1, 192),
    (64, 64, 2, 128),
];

/// Every form's ETag of `data` in parts of `part_size`, checked against
/// `want`: the buffer form with each kernel, the file form in each shape
/// and as the API runs it, and the streaming form in random pieces.
fn check_all_forms(data: &[u8], part_size: usize, want: &str, rng: &mut Rng) {
    let what = format!("{} bytes in parts of {part_size}", data.len());
    let got = etag::multipart(data, part_size).unwrap();
    assert_eq!(got.to_string(), want, "multipart, {what}");
    for kernel in md5::multi::kernel_choice::kernels() {
        let got = etag::kernel_choice::multipart(kernel, data, part_size).unwrap();
        assert_eq!(
            got.to_string(),
            want,
            "multipart with kernel {kernel}, {what}"
        );
    }

    #[cfg(feature = "std")]
    check_file_forms(data, part_size, want);

    let mut hasher = EtagHasher::new(part_size as u64).unwrap();
    let mut rest = data;
    while !rest.is_empty() {
        let n = match rng.below(4) {
            0 => 0,
            1 => rng.below(part_size + 2),
            _ => rng.below(rest.len() + 1),
        };
        let (piece, tail) = rest.split_at(n.min(rest.len()));
        hasher.update(piece).unwrap();
        rest = tail;
    }
    assert_eq!(
        hasher.finish().unwrap().to_string(),
        want,
        "EtagHasher, {what}"
    );
}

/// The file form of `data` in each shape and as the API runs it, checked
/// against `want`.
#[cfg(feature = "std")]
fn check_file_forms(data: &[u8], part_size: usize, want: &str) {
    let what = format!("{} bytes in parts of {part_size}", data.len());
    let file = TempFile::new(data);
    let got = etag::multipart_file(&file.open(), part_size as u64).unwrap();
    assert_eq!(got.to_string(), want, "multipart_file, {what}");
    for &(lanes, chunk, threads, ahead) in SHAPES {
        // Some hundreds of rounds at most, so large data stays quick.
        let chunk = chunk.max((data.len() / 256).next_multiple_of(64));
        let shape = (lanes, chunk, threads, ahead);
        let got = file.etag_shaped(part_size as u64, shape);
        assert_eq!(got, want, "multipart_file, shape {shape:?}, {what}");
    }
}

#[test]
fn known_answers() {
    // From Python's hashlib (benches/etag_reference.py).
    let cases: &[(&[u8], usize, &str)] = &[
        (b"", 5, "59adb24ef3cdbe0297f05b395827453f-1"),
        (b"hello", 3, "554a2f6105cc700b8cc987b5ddfb8102-2"),
        (b"abcdef", 3, "4c8e93283780e078db9e0c6b9b3f8043-2"),
        (
            b"The quick brown fox jumps over the lazy dog",
            16,
            "07f49c9b2ef71fdd9908e9322307edc2-3",
        ),
    ];
    let mut rng = Rng(0x6574_6167_0001);
    for &(data, part_size, want) in cases {
        assert_eq!(composed(data, part_size), want, "the oracle itself");
        check_all_forms(data, part_size, want, &mut rng);
    }
}

/// Empty data, data shorter than a part, exactly one part, exact multiples
/// (no empty last part), one byte more or less, part sizes that are and are
/// not multiples of 64.
#[test]
fn edge_cases() {
    let mut rng = Rng(0x6574_6167_0002);
    let data = rng.bytes(64 * 100 + 1);
    for part_size in [1, 3, 63, 64, 65, 100, 129, 4096] {
        let mut lens = vec![0, 1, part_size - 1, part_size, part_size + 1];
        for k in [2, 3, 25] {
            lens.extend([k * part_size - 1, k * part_size, k * part_size + 1]);
        }
        for len in lens {
            if len > data.len() {
                continue;
            }
            let data = &data[..len];
            check_all_forms(data, part_size, &composed(data, part_size), &mut rng);
        }
    }
}

/// Random lengths and part sizes, from tiny parts to one part.
#[test]
fn random_lengths_and_part_sizes() {
    let mut rng = Rng(0x6574_6167_0003);
    for _ in 0..16 {
        let len = match rng.below(3) {
            0 => rng.below(300),
            1 => rng.below(20_000),
            _ => rng.below(150_000),
        };
        let data = rng.bytes(len);
        let part_size = 1 + match rng.below(3) {
            0 => rng.below(200),
            1 => rng.below(64 * 1024),
            _ => rng.below(len + 10),
        };
        // Keep within S3's limit; the limit has its own test.
        let part_size = part_size.max(len.div_ceil(MAX_PARTS as usize));
        check_all_forms(&data, part_size, &composed(&data, part_size), &mut rng);
    }
}

/// The file form's sets as the API runs them: 53 parts of 16 KiB + 1000
/// bytes (not a multiple of 64) and a short last part, more than two sets
/// of AVX2's 24, each part several rounds of a page.
#[test]
#[cfg(feature = "std")]
fn file_of_many_multi_round_parts() {
    let mut rng = Rng(0x6574_6167_0004);
    let part_size = 16 * 1024 + 1000;
    let data = rng.bytes(52 * part_size + 777);
    let want = composed(&data, part_size);
    let file = TempFile::new(&data);
    let got = etag::multipart_file(&file.open(), part_size as u64).unwrap();
    assert_eq!(got.to_string(), want);
    for (lanes, chunk) in [(24, 4096), (5, 8192), (64, 4096)] {
        for threads in [1, 2, 5] {
            let shape = (lanes, chunk, threads, 4096);
            let got = file.etag_shaped(part_size as u64, shape);
            assert_eq!(got, want, "shape {shape:?}");
        }
    }
}

/// 10,000 parts are S3's most; one byte more is an error that says so, in
/// every form, and the unlimited forms compute it.
#[test]
fn ten_thousand_parts() {
    let mut rng = Rng(0x6574_6167_0005);
    let part_size = 7;
    let data = rng.bytes(MAX_PARTS as usize * part_size + 1);
    let (full, over) = (&data[..data.len() - 1], &data[..]);
    let mut rng2 = Rng(1);
    check_all_forms(full, part_size, &composed(full, part_size), &mut rng2);

    let want_err = PartsError::TooManyParts {
        part_size: part_size as u64,
        len: Some(over.len() as u64),
    };
    assert_eq!(etag::multipart(over, part_size), Err(want_err));
    assert_eq!(
        want_err.to_string(),
        "70001 bytes in parts of 7 bytes make 10001 parts, and S3 allows at most 10000 \
         (a larger part size makes fewer)"
    );
    let want = composed(over, part_size);
    assert_eq!(
        etag::multipart_unlimited(over, part_size)
            .unwrap()
            .to_string(),
        want
    );

    #[cfg(feature = "std")]
    {
        let file = TempFile::new(over);
        let err = etag::multipart_file(&file.open(), part_size as u64).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let inner = err.get_ref().and_then(|e| e.downcast_ref::<PartsError>());
        assert_eq!(inner, Some(&want_err));
        let got = etag::multipart_file_unlimited(&file.open(), part_size as u64).unwrap();
        assert_eq!(got.to_string(), want);
    }

    // The streaming form refuses the first byte past the limit, and stays
    // refused; a byte less was fine.
    let mut hasher = EtagHasher::new(part_size as u64).unwrap();
    hasher.update(full).unwrap();
    let at_limit = hasher.clone();
    let err = hasher.update(&over[full.len()..]).unwrap_err();
    assert_eq!(
        err,
        PartsError::TooManyParts {
            part_size: 7,
            len: None
        }
    );
    assert!(
        err.to_string().contains("more than 10000 parts of 7 bytes"),
        "{err}"
    );
    assert_eq!(hasher.update(b"x"), Err(err));
    assert_eq!(hasher.update(b""), Ok(()), "no bytes, no part");
    assert_eq!(hasher.finish(), Err(err));
    assert_eq!(
        at_limit.finish().unwrap().to_string(),
        composed(full, part_size)
    );

    let mut hasher = EtagHasher::unlimited(part_size as u64).unwrap();
    hasher.update(over).unwrap();
    assert_eq!(hasher.finish().unwrap().to_string(), want);

    // io::Write reports it as InvalidInput with the PartsError inside.
    #[cfg(feature = "std")]
    {
        let mut hasher = EtagHasher::new(part_size as u64).unwrap();
        let err = io::copy(&mut &over[..], &mut hasher).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.get_ref().unwrap().is::<PartsError>());
    }
}

#[test]
fn zero_part_size_is_an_error() {
    let zero = PartsError::ZeroPartSize;
    assert_eq!(etag::multipart(b"abc", 0), Err(zero));
    assert_eq!(etag::multipart(b"", 0), Err(zero));
    assert_eq!(etag::multipart_unlimited(b"abc", 0), Err(zero));
    assert_eq!(EtagHasher::new(0).unwrap_err(), zero);
    assert_eq!(EtagHasher::unlimited(0).unwrap_err(), zero);
    #[cfg(feature = "std")]
    {
        let file = TempFile::new(b"abc");
        for err in [
            etag::multipart_file(&file.open(), 0).unwrap_err(),
            etag::multipart_file_unlimited(&file.open(), 0).unwrap_err(),
        ] {
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert_eq!(err.to_string(), "the part size of an S3 ETag cannot be 0");
        }
    }
}

/// A huge part size is one part; sizes near `u64::MAX` do not overflow.
#[test]
fn part_size_larger_than_the_data() {
    let data = b"some bytes";
    let want = composed(data, data.len());
    assert_eq!(etag::multipart(data, usize::MAX).unwrap().to_string(), want);
    #[cfg(feature = "std")]
    let file = TempFile::new(data);
    for part_size in [u64::MAX, u64::MAX / 2, 1 << 40] {
        #[cfg(feature = "std")]
        {
            let got = etag::multipart_file(&file.open(), part_size).unwrap();
            assert_eq!(got.to_string(), want);
            assert_eq!(file.etag_shaped(part_size, (64, 64, 2, 64)), want);
        }
        let mut hasher = EtagHasher::new(part_size).unwrap();
        hasher.update(data).unwrap();
        assert_eq!(hasher.finish().unwrap().to_string(), want);
    }
}

/// The streaming form through `io::Write` and `io::copy`, in the pieces a
/// reader gives.
#[test]
#[cfg(feature = "std")]
fn hasher_as_io_write() {
    let mut rng = Rng(0x6574_6167_0006);
    let data = rng.bytes(300_001);
    for part_size in [1000, 8192, 65536, 300_001, 1 << 20] {
        let mut hasher = EtagHasher::new(part_size).unwrap();
        let copied = io::copy(&mut &data[..], &mut hasher).unwrap();
        assert_eq!(copied, data.len() as u64);
        hasher.flush().unwrap();
        assert_eq!(
            hasher.finish().unwrap().to_string(),
            composed(&data, part_size as usize)
        );
    }
    let hasher = EtagHasher::new(5).unwrap();
    assert_eq!(
        format!("{hasher:?}"),
        "EtagHasher { part_size: 5, parts: 1, .. }"
    );
}

#[test]
#[cfg(feature = "std")]
fn file_that_is_not_regular_or_not_its_length() {
    // A directory.
    let dir = File::open(std::env::temp_dir()).unwrap();
    let err = etag::multipart_file(&dir, 1024).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("not a regular file"), "{err}");
    #[cfg(unix)]
    {
        // A character device.
        let null = File::open("/dev/null").unwrap();
        let err = etag::multipart_file(&null, 1024).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
    }
    // A file whose metadata gives length 0 but that has bytes: read in
    // order to its end, as a stream.
    #[cfg(target_os = "linux")]
    {
        // Not /proc/self/*: qemu-user serves those from files of its own,
        // which have a length.
        let path = "/proc/version";
        let data = std::fs::read(path).unwrap();
        assert!(data.len() > 7 && File::open(path).unwrap().metadata().unwrap().len() == 0);
        let got = etag::multipart_file(&File::open(path).unwrap(), 7).unwrap();
        assert_eq!(got, etag::multipart(&data, 7).unwrap());
        // The upload rule: a part or more, multipart; less, its MD5.
        let got = etag::upload_file(&File::open(path).unwrap(), 7).unwrap();
        assert_eq!(got, etag::multipart(&data, 7).unwrap());
        let whole = data.len() as u64 + 1;
        let got = etag::upload_file(&File::open(path).unwrap(), whole).unwrap();
        assert_eq!(got, Etag::from_md5(md5::Md5::digest(&data).into()));
    }
    // A file opened for writing only: the read error comes back as it is.
    let tmp = TempFile::new(b"abc");
    let write_only = File::options().write(true).open(&tmp.0).unwrap();
    assert!(etag::multipart_file(&write_only, 2).is_err());
}

#[test]
fn parse_accepts_s3_forms() {
    let hex = "0123456789abcdef0123456789abcdef";
    let digest = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
        0xef,
    ];
    let cases: &[(String, Option<u64>)] = &[
        (format!("{hex}-1"), Some(1)),
        (format!("\"{hex}-128\""), Some(128)),
        (format!("{}-10000", hex.to_uppercase()), Some(10_000)),
        (format!("{hex}-10001"), Some(10_001)),
        (format!("{hex}-18446744073709551615"), Some(u64::MAX)),
        (hex.to_string(), None),
        (format!("\"{hex}\""), None),
        (hex.to_uppercase(), None),
    ];
    for (s, parts) in cases {
        let etag: Etag = s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert_eq!(etag.digest(), digest, "{s:?}");
        assert_eq!(etag.parts(), *parts, "{s:?}");
        // Display: lowercase, unquoted; it parses back to the same value.
        let shown = etag.to_string();
        assert_eq!(shown, s.trim_matches('"').to_lowercase());
        assert_eq!(shown.parse::<Etag>(), Ok(etag));
    }
    assert_eq!(
        Etag::from_md5(digest),
        hex.parse().unwrap(),
        "a plain digest is an object uploaded whole"
    );
    assert_ne!(
        format!("{hex}-1").parse::<Etag>().unwrap(),
        Etag::from_md5(digest),
        "one part is not the same as no parts"
    );
    let etag: Etag = format!("{hex}-3").parse().unwrap();
    assert_eq!(format!("{etag:?}"), format!("Etag(\"{hex}-3\")"));
    assert_eq!(format!("[{etag:>36}]"), format!("[  {hex}-3]"));
    assert_eq!(
        format!("[{etag:>36}]", etag = Etag::from_md5(digest)),
        format!("[    {hex}]")
    );
}

#[test]
fn parse_rejects_everything_else() {
    let hex = "0123456789abcdef0123456789abcdef";
    use ParseEtagError::*;
    let cases: Vec<(String, ParseEtagError)> = vec![
        (String::new(), Digest),
        ("\"".into(), Quotes),
        ("\"\"".into(), Digest),
        (format!("\"{hex}-2"), Quotes),
        (format!("{hex}-2\""), Quotes),
        (format!("W/\"{hex}\""), Quotes),
        (format!("\"{hex}\"-2"), Quotes),
        (format!("{}\"{}", &hex[..10], &hex[10..]), Quotes),
        (hex[..31].to_string(), Digest),
        (format!("{hex}0"), Digest),
        (format!("{hex}0-2"), Digest),
        (format!("{}g-2", &hex[..31]), Digest),
        (format!("{}é-2", &hex[..30]), Digest),
        (format!(" {hex}"), Digest),
        (format!("{hex} "), Digest),
        (format!("{hex}_2"), Digest),
        (format!("0x{}", &hex[..30]), Digest),
        (format!("{hex}-"), PartCount),
        (format!("{hex}-0"), PartCount),
        (format!("{hex}-01"), PartCount),
        (format!("{hex}-+1"), PartCount),
        (format!("{hex}--1"), PartCount),
        (format!("{hex}-1 "), PartCount),
        (format!("{hex}-1-2"), PartCount),
        (format!("{hex}-1e3"), PartCount),
        (format!("{hex}-18446744073709551616"), PartCount),
        (format!("{hex}-99999999999999999999999"), PartCount),
    ];
    for (s, want) in cases {
        assert_eq!(s.parse::<Etag>(), Err(want), "{s:?}");
    }
    // Each reason says what an ETag looks like.
    assert!(Quotes.to_string().contains("double quotes"));
    assert!(Digest.to_string().contains("32 hexadecimal digits"));
    assert!(PartCount.to_string().contains("from 1 to"));
}

/// `part_sizes` against a search of every part size.
#[test]
fn part_sizes_match_a_search() {
    for len in 0..200u64 {
        for parts in 0..=len + 2 {
            let want: Vec<u64> = (1..=len + 2)
                .filter(|&p| if len == 0 { 1 } else { len.div_ceil(p) } == parts)
                .collect();
            match etag::part_sizes(len, parts) {
                None => assert!(want.is_empty(), "len {len}, {parts} parts: {want:?}"),
                Some(range) => {
                    assert_eq!(*range.start(), want[0], "len {len}, {parts} parts");
                    // One part: every size from the length up.
                    let end = if parts == 1 {
                        u64::MAX
                    } else {
                        *want.last().unwrap()
                    };
                    assert_eq!(*range.end(), end, "len {len}, {parts} parts");
                    assert_eq!(want.len() as u64, want.last().unwrap() - want[0] + 1);
                }
            }
        }
    }
    assert_eq!(
        etag::part_sizes(u64::MAX, 2),
        Some(u64::MAX / 2 + 1..=u64::MAX - 1)
    );
    assert_eq!(etag::part_sizes(u64::MAX, u64::MAX), Some(1..=1));
}

/// The reference script over Python's hashlib, when python3 is installed
/// and the script is here (a packaged crate has no scripts), against every
/// form and kernel.
#[test]
fn python_hashlib_reference() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/etag_reference.py");
    if !std::path::Path::new(script).exists() {
        println!("skipping: {script} is not here");
        return;
    }
    let mut rng = Rng(0x6574_6167_0007);
    let mut cases: Vec<(Vec<u8>, usize)> = vec![
        (vec![], 1),
        (vec![], 5 << 20),
        (rng.bytes(1000), 1000),
        (rng.bytes(1000), 999),
        (rng.bytes(64 * 24 * 3), 64 * 3),
        (rng.bytes(100_000), 4097),
        (rng.bytes(2_000), 1),
    ];
    for _ in 0..3 {
        let len = rng.below(100_000);
        let part = (1 + rng.below(len / 8 + 100)).max(len / 500);
        cases.push((rng.bytes(len), part));
    }
    let files: Vec<TempFile> = cases.iter().map(|(d, _)| TempFile::new(d)).collect();
    for ((data, part_size), file) in cases.iter().zip(&files) {
        let out = match std::process::Command::new("python3")
            .arg(script)
            .arg(part_size.to_string())
            .arg(&file.0)
            .output()
        {
            Ok(out) => out,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                println!("skipping: python3 is not installed");
                return;
            }
            Err(e) => panic!("python3 {script}: {e}"),
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8(out.stdout).unwrap();
        let want = line.split_once("  ").unwrap().0;
        let mut rng = Rng(*part_size as u64);
        check_all_forms(data, *part_size, want, &mut rng);
    }
}

/// The AWS CLI's rule, against the oracle: the plain MD5 (md-5 0.10.6)
/// below a part, the composed ETag from one part up, for buffers, files
/// and readers alike.
#[test]
fn upload_rule_against_the_oracle() {
    let mut rng = Rng(40);
    for len in [0usize, 1, 63, 64, 100, 1000, 5000] {
        let data = rng.bytes(len);
        #[cfg(feature = "std")]
        let file = TempFile::new(&data);
        for part in [1usize, 64, 100, 999, 1000, 1001, 4096, 8 << 20] {
            let want = if len < part {
                Etag::from_md5(upstream::Md5::digest(&data).into()).to_string()
            } else {
                composed(&data, part)
            };
            let p = part as u64;
            assert_eq!(
                etag::upload(&data, p).unwrap().to_string(),
                want,
                "{len} {part}"
            );
            #[cfg(feature = "std")]
            {
                let got = etag::upload_file(&file.open(), p).unwrap().to_string();
                assert_eq!(got, want, "file {len} {part}");
                let got = etag::upload_reader(&data[..], p).unwrap().to_string();
                assert_eq!(got, want, "reader {len} {part}");
            }
        }
    }
}

/// A FIFO is read as a stream, in order, by the upload rule.
#[test]
#[cfg(all(feature = "std", target_os = "linux"))]
fn upload_file_reads_a_fifo() {
    let dir = std::env::temp_dir().join(format!("md5-etag-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo failed");
        return;
    }
    let data = Rng(41).bytes(300_000);
    std::thread::scope(|s| {
        s.spawn(|| {
            File::options()
                .write(true)
                .open(&fifo)
                .unwrap()
                .write_all(&data)
        });
        let got = etag::upload_file(&File::open(&fifo).unwrap(), 100_000).unwrap();
        assert_eq!(got.to_string(), composed(&data, 100_000));
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The AWS CLI's rule with its two settings apart, against the oracle:
/// the plain MD5 below `multipart_threshold`, the composed ETag in parts
/// of `multipart_chunksize` from it on, for buffers, files and readers.
#[test]
fn upload_rule_with_a_threshold_against_the_oracle() {
    let mut rng = Rng(42);
    for len in [0usize, 1, 99, 100, 101, 299, 300, 301, 5000] {
        let data = rng.bytes(len);
        #[cfg(feature = "std")]
        let file = TempFile::new(&data);
        for (chunk, threshold) in [(100usize, 0u64), (100, 50), (100, 300), (64, 5000), (1, 1)] {
            let want = if (len as u64) < threshold {
                Etag::from_md5(upstream::Md5::digest(&data).into()).to_string()
            } else {
                composed(&data, chunk)
            };
            let rule = UploadRule::new(chunk as u64)
                .unwrap()
                .with_threshold(threshold);
            let what = format!("{len} {chunk} {threshold}");
            assert_eq!(rule.upload(&data).unwrap().to_string(), want, "{what}");
            #[cfg(feature = "std")]
            for threads in [0, 1, 3] {
                let got = rule.upload_file(&file.open(), threads).unwrap();
                assert_eq!(got.to_string(), want, "file {what}");
                let got = rule.upload_reader(&data[..]).unwrap();
                assert_eq!(got.to_string(), want, "reader {what}");
            }
        }
    }
}

/// A sparse file (no data written, no disk used) of `len` bytes.
#[cfg(feature = "std")]
fn sparse_file(len: u64) -> TempFile {
    let file = TempFile::new(b"");
    File::options()
        .write(true)
        .open(&file.0)
        .unwrap()
        .set_len(len)
        .unwrap();
    file
}

/// Past 10,000 parts the upload forms double the part size, as
/// s3transfer's rule (the AWS CLI's) does: the part size against the rule
/// at S3's sizes, and real ETags of data 10,001 to 40,001 parts long of
/// small parts (kept as given, doubled all the same), random and sparse,
/// against the oracle.
#[test]
fn upload_past_10000_parts_doubles_the_part_size() {
    const MIB: u64 = 1 << 20;
    for chunk in [5 * MIB, 8 * MIB, 15 * MIB, 1024, 64] {
        for parts in [1, 9_999, 10_000, 10_001, 20_000, 20_001, 40_001, 1_000_000] {
            for len in [parts * chunk - 1, parts * chunk, parts * chunk + 1] {
                let rule = UploadRule::new(chunk).unwrap().with_threshold(0);
                let want = s3transfer_part_size(chunk, len);
                assert_eq!(rule.part_size(len), Ok(Some(want)), "{chunk} {len}");
            }
        }
    }
    let mut rng = Rng(43);
    for (len, part) in [(10_000, 1), (10_001, 1), (20_001, 1), (40_001 * 64, 64)] {
        let data = rng.bytes(len);
        let p = s3transfer_part_size(part, len as u64) as usize;
        let want = composed(&data, p);
        assert_eq!(etag::upload(&data, part).unwrap().to_string(), want);
        #[cfg(feature = "std")]
        {
            let file = TempFile::new(&data);
            let got = etag::upload_file(&file.open(), part).unwrap();
            assert_eq!(got.to_string(), want, "{len} {part}");
        }
    }
    #[cfg(feature = "std")]
    for part in [1024, 4096] {
        let len = 10_001 * part;
        let file = sparse_file(len);
        let want = md5x_testkit::etag::zeros_composed(upstream_md5, len, 2 * part);
        assert!(want.ends_with("-5001"));
        let got = etag::upload_file(&file.open(), part).unwrap();
        assert_eq!(got.to_string(), want);
        let got = UploadRule::new(part).unwrap().upload_file(&file.open(), 1);
        assert_eq!(got.unwrap().to_string(), want);
    }
}

/// Sparse files of 10,001 parts of the AWS CLI's 8 MiB and of rclone's
/// 5 MiB: 5,001 parts of twice the size, against s3transfer's rule and the
/// MD5 of a part of zeros computed once. They read 127 GiB of zeros,
/// minutes: `cargo test --release --test etag -- --ignored` runs them
/// (`upload_past_10000_parts_doubles_the_part_size` runs the rule at
/// these sizes and real hashes of small parts in every run).
#[test]
#[cfg(feature = "std")]
#[ignore = "reads 127 GiB of sparse files: minutes"]
fn sparse_files_of_10001_parts_of_5_and_8_mib() {
    for part in [8u64 << 20, 5 << 20] {
        let len = 10_001 * part;
        let file = sparse_file(len);
        assert_eq!(s3transfer_part_size(part, len), 2 * part);
        let want = md5x_testkit::etag::zeros_composed(upstream_md5, len, 2 * part);
        assert!(want.ends_with("-5001"));
        let got = etag::upload_file(&file.open(), part).unwrap();
        assert_eq!(got.to_string(), want, "{part}");
    }
}
