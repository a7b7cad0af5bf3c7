//! File names in messages, quoted as coreutils' `quotef` does (gnulib's
//! "shell-escape" style with `:` also quoted). (The backslash escaping of
//! names in checksum lines is `md5sum::record`'s.)
//!
//! Rules, as gnulib's `quotearg` applies them (coreutils 9.1):
//! - a name made only of safe characters is printed as is;
//! - otherwise it is wrapped in single quotes; a `'` becomes `'\''`, and
//!   runs of unprintable bytes become `'$'\ooo'` (or `\n`, `\t`, ...);
//! - except that a name whose only problem is a `'` among otherwise
//!   harmless characters is wrapped in double quotes instead.
//!
//! The bytes are GNU's but for one case. For a name that holds a `'` and
//! ends with an unprintable byte, gnulib quotes a second time, starting in
//! the state that its first attempt ended in: inside a `$'...'` part. A
//! name that starts with a printable character then gets an extra `''`
//! after the opening quote, which this reproduces; one that starts with an
//! unprintable byte loses its opening `$'`, so that GNU's quoting no longer
//! decodes to the name (`$'\x01\'\x01'` comes out as `'\001'\'''$'\001'`).
//! There this quoting decodes to the name: `''$'\001'\'''$'\001'`.
//!
//! Printable means printable in the current locale: in a UTF-8 locale a
//! valid multi-byte character counts as one (so `é` stays as is); in other
//! locales only ASCII 0x20..0x7e does.

/// Whether the C library would treat the locale as UTF-8, from the same
/// variables in the same precedence (`LC_ALL`, `LC_CTYPE`, `LANG`).
pub fn utf8_locale() -> bool {
    for var in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Some(v) = std::env::var_os(var) {
            if v.is_empty() {
                continue;
            }
            let v = v.to_string_lossy().to_ascii_lowercase();
            return v.contains("utf-8") || v.contains("utf8");
        }
    }
    false
}

/// One character of a name: a run of bytes that is either printable (one
/// character) or unprintable (each byte gets escaped on its own).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece {
    Printable(usize),
    Unprintable(usize),
}

/// Splits off the next character of `s`; `s` is not empty.
fn next_piece(s: &[u8], utf8: bool) -> Piece {
    let b = s[0];
    if b < 0x80 {
        return if (0x20..0x7f).contains(&b) {
            Piece::Printable(1)
        } else {
            Piece::Unprintable(1)
        };
    }
    if !utf8 {
        return Piece::Unprintable(1);
    }
    let want = match b {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Piece::Unprintable(1),
    };
    if s.len() < want {
        // An incomplete character at the end of the name: glibc's mbrtowc
        // reports "incomplete", and quotearg escapes all the remaining bytes.
        if s[1..].iter().all(|&c| c & 0xc0 == 0x80) {
            return Piece::Unprintable(s.len());
        }
        return Piece::Unprintable(1);
    }
    match std::str::from_utf8(&s[..want]) {
        Ok(ch) => {
            let c = ch.chars().next().unwrap();
            // C1 controls and the line/paragraph separators are not
            // printable in glibc's UTF-8 locales.
            if ('\u{80}'..='\u{9f}').contains(&c) || c == '\u{2028}' || c == '\u{2029}' {
                Piece::Unprintable(want)
            } else {
                Piece::Printable(want)
            }
        }
        Err(_) => Piece::Unprintable(1),
    }
}

/// Quotes `name` for a diagnostic, like coreutils' `quotef`.
pub fn quotef(name: &[u8], utf8: bool) -> Vec<u8> {
    if name.is_empty() {
        return b"''".to_vec();
    }
    // First pass: does the name need quoting, and could double quotes do?
    let mut needs = false;
    let mut has_apostrophe = false;
    let mut all_compat = true;
    let (mut first, mut last) = (None, None);
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        let piece = next_piece(&name[i..], utf8);
        first.get_or_insert(piece);
        last = Some(piece);
        match piece {
            Piece::Unprintable(n) => {
                needs = true;
                all_compat = false;
                i += n;
                continue;
            }
            Piece::Printable(n) if n > 1 => {
                i += n;
                continue;
            }
            Piece::Printable(_) => {}
        }
        match b {
            b'\'' => {
                needs = true;
                has_apostrophe = true;
            }
            b' ' => needs = true,
            b'#' | b'~' if i == 0 => needs = true,
            b'{' | b'}' if name.len() == 1 => needs = true,
            b'#' | b'~' | b'{' | b'}' => all_compat = false,
            b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'['
            | b'^' | b'`' | b'|' | b'?' | b'\\' => {
                needs = true;
                all_compat = false;
            }
            b':' => needs = true,
            _ => {}
        }
        i += 1;
    }
    if !needs {
        return name.to_vec();
    }
    if has_apostrophe && all_compat {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return out;
    }
    // Single quotes, with unprintable runs as $'...' parts. A name with a
    // `'` that ends with an unprintable byte starts inside such a part,
    // unless it also starts with one (see the module's docs).
    let unprintable = |p: Option<Piece>| matches!(p, Some(Piece::Unprintable(_)));
    let mut in_escape = has_apostrophe && unprintable(last) && !unprintable(first);
    let mut out = Vec::with_capacity(name.len() + 8);
    out.push(b'\'');
    let mut i = 0;
    while i < name.len() {
        match next_piece(&name[i..], utf8) {
            Piece::Unprintable(n) => {
                if !in_escape {
                    out.extend_from_slice(b"'$'");
                    in_escape = true;
                }
                for &c in &name[i..i + n] {
                    escape_byte(&mut out, c);
                }
                i += n;
            }
            // The first `'` of `'\''` also ends a $'...' part.
            Piece::Printable(_) if name[i] == b'\'' => {
                out.extend_from_slice(b"'\\''");
                in_escape = false;
                i += 1;
            }
            Piece::Printable(n) => {
                if in_escape {
                    out.extend_from_slice(b"''");
                    in_escape = false;
                }
                out.extend_from_slice(&name[i..i + n]);
                i += n;
            }
        }
    }
    out.push(b'\'');
    out
}

/// Appends `c` escaped as in `$'...'`: `\n` and the like, else `\ooo`.
fn escape_byte(out: &mut Vec<u8>, c: u8) {
    let letter = match c {
        0x07 => b'a',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x0b => b'v',
        _ => {
            let octal = [b'0' + (c >> 6), b'0' + ((c >> 3) & 7), b'0' + (c & 7)];
            out.push(b'\\');
            out.extend_from_slice(&octal);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', letter]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &[u8], utf8: bool) -> String {
        String::from_utf8_lossy(&quotef(s, utf8)).into_owned()
    }

    /// Expected strings recorded from GNU md5sum 9.1 error messages.
    #[test]
    fn matches_gnu_quotef() {
        let cases: &[(&[u8], &str, &str)] = &[
            (b"nope", "nope", "nope"),
            (b"a b2", "'a b2'", "'a b2'"),
            (b"n\nl", "'n'$'\\n''l'", "'n'$'\\n''l'"),
            (b"q\xff", "'q'$'\\377'", "'q'$'\\377'"),
            (b"x'y", "\"x'y\"", "\"x'y\""),
            (b"$HOME", "'$HOME'", "'$HOME'"),
            (b"~x", "'~x'", "'~x'"),
            (b"x~", "x~", "x~"),
            (b"#x", "'#x'", "'#x'"),
            (b"a=b", "'a=b'", "'a=b'"),
            (b"a:b", "'a:b'", "'a:b'"),
            (b"", "''", "''"),
            (b"a:b'c", "\"a:b'c\"", "\"a:b'c\""),
            (b"x'$y", "'x'\\''$y'", "'x'\\''$y'"),
            (b"x'#y", "'x'\\''#y'", "'x'\\''#y'"),
            (b"{", "'{'", "'{'"),
            (b"a{", "a{", "a{"),
            (b"x\x7f", "'x'$'\\177'", "'x'$'\\177'"),
            (b"x\xc3", "'x'$'\\303'", "'x'$'\\303'"),
            (b"x\xc3y", "'x'$'\\303''y'", "'x'$'\\303''y'"),
            (b"x\"y", "'x\"y'", "'x\"y'"),
            (b"a\tb", "'a'$'\\t''b'", "'a'$'\\t''b'"),
            (b"a\x1bb", "'a'$'\\033''b'", "'a'$'\\033''b'"),
            (b"a\x01'", "'a'$'\\001'\\'''", "'a'$'\\001'\\'''"),
            (b"a'\x01", "'''a'\\'''$'\\001'", "'''a'\\'''$'\\001'"),
            (b"'\n", "''\\'''$'\\n'", "''\\'''$'\\n'"),
            // GNU: '\001'\'''$'\001', which does not decode to the name.
            (
                b"\x01'\x01",
                "''$'\\001'\\'''$'\\001'",
                "''$'\\001'\\'''$'\\001'",
            ),
            (
                b"\xe2\x80\xa8",
                "''$'\\342\\200\\250'",
                "''$'\\342\\200\\250'",
            ),
        ];
        for &(name, utf8, c) in cases {
            assert_eq!(q(name, true), utf8, "{name:?}");
            assert_eq!(q(name, false), c, "{name:?}");
        }
        assert_eq!(q("é".as_bytes(), true), "é");
        assert_eq!(q("é\u{ff}".as_bytes(), true), "é\u{ff}");
        assert_eq!(q(b"\xc3\xa9\xff", true), "'é'$'\\377'");
        assert_eq!(q(b"\xc3\xa9\xff", false), "''$'\\303\\251\\377'");
    }
}
