//! `Etag::from_str` on arbitrary strings against a parser written here from
//! S3's grammar (optional matching quotes around 32 hex digits, then `-`
//! and a decimal count from 1 without leading zeros, or nothing), with the
//! crate's own `Display`: whatever parses, displayed, is the input's
//! canonical form and parses to the same value. No allocation in the
//! parser, so the input's size bounds its memory; libFuzzer's timeout
//! catches a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::etag::Etag;

/// The oracle: (digest as lowercase hex, part count) or `None`.
fn simple_parse(s: &str) -> Option<(String, Option<u64>)> {
    let inner = match s.strip_prefix('"') {
        Some(rest) => rest.strip_suffix('"')?,
        None => s,
    };
    if inner.contains('"') {
        return None;
    }
    let (hex, count) = match inner.split_once('-') {
        Some((h, c)) => (h, Some(c)),
        None => (inner, None),
    };
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let count = match count {
        None => None,
        Some(c) => {
            if c.starts_with('0') || !c.chars().all(|d| d.is_ascii_digit()) {
                return None;
            }
            Some(c.parse::<u64>().ok().filter(|&n| n > 0)?)
        }
    };
    Some((hex.to_ascii_lowercase(), count))
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let got = s.parse::<Etag>();
    let want = simple_parse(s);
    match (&got, &want) {
        (Ok(etag), Some((hex, parts))) => {
            assert_eq!(etag.parts(), *parts, "{s:?}");
            let digest: String = etag.digest().iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(&digest, hex, "{s:?}");
            let shown = etag.to_string();
            let canonical = match parts {
                Some(n) => format!("{hex}-{n}"),
                None => hex.clone(),
            };
            assert_eq!(shown, canonical, "{s:?}");
            assert_eq!(shown.parse::<Etag>().as_ref(), Ok(etag), "{s:?}");
            assert_eq!(
                format!("\"{shown}\"").parse::<Etag>().as_ref(),
                Ok(etag),
                "{s:?}"
            );
        }
        (Err(e), None) => assert!(!e.to_string().is_empty()),
        _ => panic!("{s:?}: the crate says {got:?}, the oracle {want:?}"),
    }
});
