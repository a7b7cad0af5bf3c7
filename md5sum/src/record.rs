//! Writing one checksum line, as GNU md5sum 9.1 writes them:
//! `HASH  NAME` (text), `HASH *NAME` (binary) or `MD5 (NAME) = HASH`
//! (`--tag`), ended by a newline or, with `-z`, a NUL. A name holding a
//! backslash, newline or carriage return is escaped (`\\`, `\n`, `\r`) and
//! the line starts with `\`, except with `-z`. S3 ETags (`--etag`) are
//! written in the same forms, the ETag in place of the digest.

use md5x::etag::Etag;

/// How a line is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    Binary,
    Tag,
}

/// The digest in lowercase hex.
pub fn hex(d: &[u8; 16]) -> [u8; 32] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 32];
    for (i, b) in d.iter().enumerate() {
        out[2 * i] = DIGITS[usize::from(b >> 4)];
        out[2 * i + 1] = DIGITS[usize::from(b & 15)];
    }
    out
}

/// Whether a name gets the `\` line prefix in output lines: it holds a
/// backslash, a newline or a carriage return.
pub fn problematic(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Appends `name` with `\`, newline and carriage return escaped.
pub fn escape_into(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Appends the line for `digest` and `name` to `out`.
pub fn write_line(out: &mut Vec<u8>, digest: &[u8; 16], name: &[u8], style: Style, zero: bool) {
    write_value(out, b"MD5", &hex(digest), name, style, zero);
}

/// Appends the line for an S3 ETag of `name` to `out`: as a digest's line,
/// the ETag in place of the digest (`ETAG  NAME`, `ETAG *NAME`), and
/// `ETag (NAME) = ETAG` for [`Style::Tag`].
pub fn write_etag_line(out: &mut Vec<u8>, etag: &Etag, name: &[u8], style: Style, zero: bool) {
    write_value(out, b"ETag", etag.to_string().as_bytes(), name, style, zero);
}

/// Appends a line giving `value` for `name`, `label` naming it in the
/// BSD form.
fn write_value(
    out: &mut Vec<u8>,
    label: &[u8],
    value: &[u8],
    name: &[u8],
    style: Style,
    zero: bool,
) {
    let escape = !zero && problematic(name);
    if escape {
        out.push(b'\\');
    }
    let put_name = |out: &mut Vec<u8>| {
        if escape {
            escape_into(out, name);
        } else {
            out.extend_from_slice(name);
        }
    };
    if style == Style::Tag {
        out.extend_from_slice(label);
        out.extend_from_slice(b" (");
        put_name(out);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(value);
    } else {
        out.extend_from_slice(value);
        out.push(b' ');
        out.push(if style == Style::Binary { b'*' } else { b' ' });
        put_name(out);
    }
    out.push(if zero { 0 } else { b'\n' });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let d = [
            0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8,
            0x42, 0x7e,
        ];
        let line = |name: &[u8], style, zero| {
            let mut v = Vec::new();
            write_line(&mut v, &d, name, style, zero);
            String::from_utf8_lossy(&v).into_owned()
        };
        let h = "d41d8cd98f00b204e9800998ecf8427e";
        assert_eq!(line(b"a b", Style::Text, false), format!("{h}  a b\n"));
        assert_eq!(line(b"a", Style::Binary, false), format!("{h} *a\n"));
        assert_eq!(line(b"a", Style::Tag, false), format!("MD5 (a) = {h}\n"));
        assert_eq!(
            line(b"a\nb\\", Style::Text, false),
            format!("\\{h}  a\\nb\\\\\n")
        );
        assert_eq!(
            line(b"a\r", Style::Tag, false),
            format!("\\MD5 (a\\r) = {h}\n")
        );
        assert_eq!(line(b"a\nb", Style::Text, true), format!("{h}  a\nb\0"));
        let etag: Etag = format!("{h}-3").parse().unwrap();
        let etag_line = |name: &[u8], style, zero| {
            let mut v = Vec::new();
            write_etag_line(&mut v, &etag, name, style, zero);
            String::from_utf8_lossy(&v).into_owned()
        };
        assert_eq!(
            etag_line(b"a b", Style::Text, false),
            format!("{h}-3  a b\n")
        );
        assert_eq!(etag_line(b"a", Style::Binary, false), format!("{h}-3 *a\n"));
        assert_eq!(
            etag_line(b"a\\", Style::Tag, false),
            format!("\\ETag (a\\\\) = {h}-3\n")
        );
        assert_eq!(
            etag_line(b"a\nb", Style::Tag, true),
            format!("ETag (a\nb) = {h}-3\0")
        );
    }
}
