//! An S3 ETag line, as `md5sum --etag` writes them: `ETAG  NAME`,
//! `ETAG *NAME` or `ETag (NAME) = ETAG`.

use super::md5_line::Format;
use super::scan::{at, c_str, content_start, unescape, white};
use md5x::etag::Etag;

/// A well-formed ETag line: the ETag S3 shows, the file name, unescaped,
/// and the line's format ([`Format::Text`], [`Format::Binary`] or
/// [`Format::Tag`]).
#[derive(Debug, PartialEq, Eq)]
pub struct EtagLine {
    pub etag: Etag,
    pub name: Vec<u8>,
    pub format: Format,
}

/// Parses an ETag line: `ETAG  NAME`, `ETAG *NAME` or `ETag (NAME) =
/// ETAG`, with GNU's leading blanks and `\` for an escaped name. ETAG is
/// S3's form, `<32 hex>-<N>` or, in the `ETag (NAME)` form, the 32 hex
/// digits alone, either one with or without the double quotes S3 returns
/// ([`Etag`]'s `FromStr`). An unquoted digest alone before the name is
/// [`parse`](super::parse)'s, never this: `None`.
pub fn parse_etag(s: &[u8]) -> Option<EtagLine> {
    let (i, escaped) = content_start(s);
    let s = &s[i.min(s.len())..];
    let name_of = |raw: &[u8]| {
        if escaped {
            unescape(raw)
        } else {
            Some(c_str(raw))
        }
    };
    if let Some(rest) = s.strip_prefix(b"ETag (") {
        let close = rest.iter().rposition(|&b| b == b')')?;
        let etag = etag_value(rest[close + 1..].strip_prefix(b" = ")?, true)?;
        return Some(EtagLine {
            etag,
            name: name_of(&rest[..close])?,
            format: Format::Tag,
        });
    }
    let end = s.iter().position(|&b| white(b))?;
    let etag = etag_value(&s[..end], false)?;
    let format = match at(s, end + 1) {
        b' ' => Format::Text,
        b'*' => Format::Binary,
        _ => return None,
    };
    let raw = &s[end + 2..];
    if raw.is_empty() {
        return None;
    }
    Some(EtagLine {
        etag,
        name: name_of(raw)?,
        format,
    })
}

/// An ETag as a line gives it; a plain unquoted digest only if `plain`.
fn etag_value(v: &[u8], plain: bool) -> Option<Etag> {
    let etag: Etag = std::str::from_utf8(v).ok()?.parse().ok()?;
    (plain || etag.parts().is_some() || v.first() == Some(&b'"')).then_some(etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "9dd4e461268c8034f5c8564e155c67a6";

    #[test]
    fn etag_lines() {
        let etag = |s: &str| s.parse::<Etag>().unwrap();
        let l = |e: &str, name: &str, format| {
            Some(EtagLine {
                etag: etag(e),
                name: name.into(),
                format,
            })
        };
        let e3 = format!("{H}-3");
        let pe = |s: String| parse_etag(s.as_bytes());
        assert_eq!(pe(format!("{e3}  a b")), l(&e3, "a b", Format::Text));
        assert_eq!(pe(format!(" \t\"{e3}\" *a")), l(&e3, "a", Format::Binary));
        assert_eq!(pe(format!("\"{H}\"  a")), l(H, "a", Format::Text));
        assert_eq!(pe(format!("\\{e3}  a\\nb")), l(&e3, "a\nb", Format::Text));
        assert_eq!(
            pe(format!("ETag (x (1)) = {e3}")),
            l(&e3, "x (1)", Format::Tag)
        );
        assert_eq!(pe(format!("ETag (x) = \"{H}\"")), l(H, "x", Format::Tag));
        assert_eq!(pe(format!("ETag (x) = {H}")), l(H, "x", Format::Tag));
        assert_eq!(
            pe(format!("\\ETag (a\\\\) = {e3}")),
            l(&e3, "a\\", Format::Tag)
        );
        for bad in [
            format!("{H}  a"),
            format!("{e3}  "),
            format!("{e3} a"),
            format!("{e3}-  a"),
            format!("{H}-0  a"),
            format!("\"{e3}  a"),
            format!("ETag (x) = {e3} "),
            format!("ETag (x) ={e3}"),
            format!("\\{e3}  a\\t"),
            "garbage".into(),
        ] {
            assert_eq!(pe(bad.clone()), None, "{bad}");
        }
    }
}
