//! The quoting of file names in diagnostics, for every name of up to four
//! characters from an alphabet of the characters that quoting treats
//! apart. Every quoted name must decode, as a shell reads it, back to the
//! name; where GNU md5sum is installed, its bytes must be GNU's, except for
//! the names where GNU's own quoting does not decode to the name (see
//! `src/quote.rs`).
#![cfg(unix)]

mod common;

use common::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

const SUFFIX: &[u8] = b": No such file or directory";

/// Every name of one to four pieces of `alphabet`, as the pieces' indexes.
fn names(alphabet: &[&[u8]]) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = vec![Vec::new()];
    let mut out = Vec::new();
    for _ in 0..4 {
        all = all
            .iter()
            .flat_map(|n| (0..alphabet.len()).map(move |c| [&n[..], &[c]].concat()))
            .collect();
        out.extend(all.iter().cloned());
    }
    out
}

/// The quoted names in the "No such file" messages of one run over `names`.
fn quoted(bin: &str, dir: &Path, names: &[Vec<u8>], locale: &str) -> Vec<Vec<u8>> {
    let args: Vec<OsString> = names
        .iter()
        .map(|n| OsString::from_vec(n.clone()))
        .collect();
    let r = exec(bin, dir, &args, b"", &[("LC_ALL", locale)]);
    assert_eq!(r.code, Some(1));
    let lines: Vec<&[u8]> = r.stderr.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), names.len() + 1, "{bin}: one line per name");
    lines[..names.len()]
        .iter()
        .map(|l| {
            let l = l.strip_prefix(b"md5sum: ").expect("program name");
            l.strip_suffix(SUFFIX).expect("message").to_vec()
        })
        .collect()
}

/// Reads `word` as bash reads one word made of plain characters, `'...'`,
/// `$'...'`, `"..."` and `\c` parts; `None` if it is not one word.
fn decode(word: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < word.len() {
        match word[i] {
            b'\'' => {
                let end = i + 1 + word[i + 1..].iter().position(|&b| b == b'\'')?;
                out.extend_from_slice(&word[i + 1..end]);
                i = end + 1;
            }
            b'$' if word.get(i + 1) == Some(&b'\'') => {
                i += 2;
                loop {
                    match *word.get(i)? {
                        b'\'' => break,
                        b'\\' => {
                            i += 1;
                            let c = *word.get(i)?;
                            let octal = word[i..]
                                .iter()
                                .take(3)
                                .take_while(|b| (b'0'..b'8').contains(b));
                            let digits = octal.count();
                            if digits > 0 {
                                let v = word[i..i + digits]
                                    .iter()
                                    .fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                                out.push(v as u8);
                                i += digits;
                                continue;
                            }
                            out.push(match c {
                                b'a' => 7,
                                b'b' => 8,
                                b'f' => 12,
                                b'n' => b'\n',
                                b'r' => b'\r',
                                b't' => b'\t',
                                b'v' => 11,
                                other => other,
                            });
                        }
                        c => out.push(c),
                    }
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while *word.get(i)? != b'"' {
                    if word[i] == b'\\'
                        && matches!(word.get(i + 1), Some(b'"' | b'\\' | b'$' | b'`'))
                    {
                        i += 1;
                    }
                    out.push(word[i]);
                    i += 1;
                }
                i += 1;
            }
            b'\\' => {
                out.push(*word.get(i + 1)?);
                i += 2;
            }
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => return None,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(out)
}

/// Checks every name made of the pieces that are `printable` in `locale`
/// and those that are not.
fn check(printable: &[&[u8]], unprintable: &[&[u8]], locale: &str) {
    let t = TempDir::new();
    let alphabet = [printable, unprintable].concat();
    let pieces = names(&alphabet);
    let names: Vec<Vec<u8>> = pieces
        .iter()
        .map(|p| p.iter().flat_map(|&i| alphabet[i]).copied().collect())
        .collect();
    let ours = quoted(OURS, t.path(), &names, locale);
    for (name, q) in names.iter().zip(&ours) {
        assert_eq!(
            decode(q).as_deref(),
            Some(&name[..]),
            "{locale}: {name:?} quoted as {}",
            String::from_utf8_lossy(q)
        );
    }
    let Some(g) = gnu() else { return };
    let theirs = quoted(g, t.path(), &names, locale);
    let mut broken = 0;
    for (((name, pieces), q), g) in names.iter().zip(&pieces).zip(&ours).zip(&theirs) {
        // GNU's quoting fails to decode exactly for the names that hold a
        // `'` and start and end with an unprintable piece.
        let unprintable = |i: &usize| *i >= printable.len();
        let quirk = name.contains(&b'\'')
            && pieces.first().is_some_and(unprintable)
            && pieces.last().is_some_and(unprintable);
        let gnu_decodes = decode(g).as_deref() == Some(&name[..]);
        let g = String::from_utf8_lossy(g);
        assert_eq!(gnu_decodes, !quirk, "{locale}: {name:?}: GNU {g}");
        if gnu_decodes {
            assert_eq!(String::from_utf8_lossy(q), g, "{locale}: {name:?}");
        } else {
            broken += 1;
        }
    }
    eprintln!(
        "{locale}: {} names, {broken} that GNU quotes so that they do not decode",
        names.len()
    );
}

#[test]
fn every_short_name_in_the_c_locale() {
    check(
        &[b"a", b"'", b" ", b":", b"\\"],
        &[b"\x01", b"\n", b"\xff"],
        "C",
    );
}

#[test]
fn every_short_name_in_a_utf8_locale() {
    let printable: &[&[u8]] = &[b"a", b"'", "\u{e9}".as_bytes(), b"\"", b"~"];
    let unprintable: &[&[u8]] = &[b"\x01", b"\xc3", "\u{2028}".as_bytes()];
    check(printable, unprintable, "C.UTF-8");
}

/// The examples of issue 23: GNU's bytes, but where GNU's do not decode.
#[test]
fn known_answers() {
    let t = TempDir::new();
    let cases: &[(&[u8], &str)] = &[
        (b"a\x01'", "'a'$'\\001'\\'''"),
        (b"a'\x01", "'''a'\\'''$'\\001'"),
        (b"it's", "\"it's\""),
        (b"a b", "'a b'"),
        // GNU: '\001'\'''$'\001', which does not decode to the name.
        (b"\x01'\x01", "''$'\\001'\\'''$'\\001'"),
    ];
    let names: Vec<Vec<u8>> = cases.iter().map(|(n, _)| n.to_vec()).collect();
    let got = quoted(OURS, t.path(), &names, "C");
    for ((name, want), q) in cases.iter().zip(got) {
        assert_eq!(String::from_utf8_lossy(&q), *want, "{name:?}");
    }
}
