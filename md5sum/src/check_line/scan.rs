//! Reading a checksum line as GNU md5sum's C code reads it: blanks, the
//! line as a C string (a NUL ends it), the `\` that marks an escaped name
//! and the undoing of that escaping. Both line parsers ([`super::md5_line`],
//! [`super::etag_line`]) read with these.

/// A blank: a space or a tab, as GNU md5sum's `ISWHITE`.
pub(super) fn white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The line reads as a C string would: a NUL at or past its end.
pub(super) fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// Undoes the escaping of a name; `None` for a stray or unknown escape or
/// a NUL byte.
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.iter();
    while let Some(&b) = it.next() {
        match b {
            b'\\' => out.push(match it.next()? {
                b'n' => b'\n',
                b'r' => b'\r',
                b'\\' => b'\\',
                _ => return None,
            }),
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

/// The name up to its first NUL, as C code would see it.
pub(super) fn c_str(s: &[u8]) -> Vec<u8> {
    s.split(|&b| b == 0).next().unwrap_or_default().to_vec()
}

/// Where a line's content starts, past its leading blanks and the `\\`
/// that marks an escaped name, and whether there was one.
pub(super) fn content_start(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while white(at(s, i)) {
        i += 1;
    }
    let escaped = at(s, i) == b'\\';
    (i + usize::from(escaped), escaped)
}
