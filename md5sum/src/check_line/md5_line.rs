//! An MD5 line: `HASH  NAME`, `HASH *NAME`, BSD's `MD5 (NAME) = HASH` and
//! reversed BSD `HASH NAME`, as GNU md5sum 9.1 parses them, and the
//! formats a line is written in.

use super::scan::{at, c_str, content_start, unescape, white};

/// A well-formed line: the expected hash (32 hex digits, either case),
/// the file name, unescaped, and the line's format.
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    pub hex: [u8; 32],
    pub name: Vec<u8>,
    pub format: Format,
}

/// How a line was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `HASH  NAME`.
    Text,
    /// `HASH *NAME`.
    Binary,
    /// `MD5 (NAME) = HASH`.
    Tag,
    /// `HASH NAME` (BSD's `md5 -r`).
    Reversed,
}

/// Whether standard and reversed-BSD lines were seen: `None` until a line
/// decides, then `Some(true)` for reversed BSD.
pub type Reversed = Option<bool>;

/// Exactly 32 hex digits at `s[i..]`, then the end of the string.
fn hex_at(s: &[u8], i: usize) -> Option<[u8; 32]> {
    let mut hex = [0u8; 32];
    for (k, h) in hex.iter_mut().enumerate() {
        let c = at(s, i + k);
        if !c.is_ascii_hexdigit() {
            return None;
        }
        *h = c;
    }
    (at(s, i + 32) == 0).then_some(hex)
}

/// Parses one line; `None` if it is improperly formatted.
pub fn parse(s: &[u8], reversed: &mut Reversed) -> Option<Line> {
    let (mut i, escaped) = content_start(s);
    if s[i.min(s.len())..].starts_with(b"MD5") {
        i += 3;
        if at(s, i) == b' ' {
            i += 1;
        }
        if at(s, i) != b'(' {
            return None;
        }
        return parse_bsd(&s[i + 1..], escaped);
    }
    // The hash, a blank and at least one character of name (one more if
    // the name starts with a backslash).
    if s.len().saturating_sub(i) < 34 + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let hex_start = i;
    i += 32;
    if !white(at(s, i)) {
        return None;
    }
    i += 1;
    let hex = {
        let mut h = [0u8; 32];
        h.copy_from_slice(&s[hex_start..hex_start + 32]);
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        h
    };
    let format;
    if s.len() - i == 1 || (at(s, i) != b' ' && at(s, i) != b'*') {
        if *reversed == Some(false) {
            return None;
        }
        *reversed = Some(true);
        format = Format::Reversed;
    } else if *reversed != Some(true) {
        *reversed = Some(false);
        format = if at(s, i) == b'*' {
            Format::Binary
        } else {
            Format::Text
        };
        i += 1; // the ' ' or '*' mode character
    } else {
        format = Format::Reversed;
    }
    let name = &s[i..];
    let name = if escaped {
        unescape(name)?
    } else {
        c_str(name)
    };
    Some(Line { hex, name, format })
}

/// Parses what follows `MD5 (` in a BSD line.
fn parse_bsd(s: &[u8], escaped: bool) -> Option<Line> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = if escaped {
        unescape(&s[..close])?
    } else {
        c_str(&s[..close])
    };
    let mut i = close + 1;
    while white(at(s, i)) {
        i += 1;
    }
    if at(s, i) != b'=' {
        return None;
    }
    i += 1;
    while white(at(s, i)) {
        i += 1;
    }
    let hex = hex_at(s, i)?;
    Some(Line {
        hex,
        name,
        format: Format::Tag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "9dd4e461268c8034f5c8564e155c67a6";

    fn p(line: &str, rev: &mut Reversed) -> Option<(String, String)> {
        parse(line.as_bytes(), rev).map(|l| {
            (
                String::from_utf8(l.hex.to_vec()).unwrap(),
                String::from_utf8(l.name).unwrap(),
            )
        })
    }

    fn ok(hex: &str, name: &str) -> Option<(String, String)> {
        Some((hex.into(), name.into()))
    }

    #[test]
    fn formats() {
        let mut r = None;
        assert_eq!(p(&format!("{H}  a"), &mut r), ok(H, "a"));
        assert_eq!(p(&format!("  {H} *a b "), &mut r), ok(H, "a b "));
        assert_eq!(p(&format!("MD5 (a) = {H}"), &mut r), ok(H, "a"));
        assert_eq!(p(&format!("MD5(x (1)) ={H}"), &mut r), ok(H, "x (1)"));
        assert_eq!(p(&format!("MD5 (a) = {H} "), &mut r), None);
        assert_eq!(p(&format!("MD5  (a) = {H}"), &mut r), None);
        assert_eq!(
            p(&format!("\\{H}  a\\nb\\\\c\\rd"), &mut r),
            ok(H, "a\nb\\c\rd")
        );
        assert_eq!(p(&format!("\\{H}  a\\tb"), &mut r), None);
        assert_eq!(p(&format!("\\{H}  a\\"), &mut r), None);
        assert_eq!(p(&format!("\\MD5 (a\\\\b) = {H}"), &mut r), ok(H, "a\\b"));
        let upper = H.to_uppercase();
        assert_eq!(p(&format!("{upper}  a"), &mut r), ok(&upper, "a"));
        assert_eq!(p(&format!("{}  a", &H[1..]), &mut r), None);
        assert_eq!(p(&format!("{H}x  a"), &mut r), None);
        assert_eq!(p("garbage", &mut r), None);
        assert_eq!(p(&format!("{H}  a\0b"), &mut r), ok(H, "a"));
        // Standard lines were seen, so a reversed one is refused.
        assert_eq!(p(&format!("{H} a"), &mut r), None);
    }

    #[test]
    fn reversed_bsd_sticks() {
        let mut r = None;
        assert_eq!(p(&format!("{H} a"), &mut r), ok(H, "a"));
        assert_eq!(r, Some(true));
        assert_eq!(p(&format!("{H}  a"), &mut r), ok(H, " a"));
        assert_eq!(p(&format!("{H}\tb"), &mut r), ok(H, "b"));
    }
}
