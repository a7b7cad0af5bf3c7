//! The metadata DuckDB reads from the last 512 bytes of an extension file
//! before it loads it: eight fields of 32 bytes, NUL-padded, stored last
//! first (the magic value "4", the platform, the C API version, the
//! extension's version, the ABI type `C_STRUCT`, three unused), then 256
//! bytes for a signature, zero in an unsigned extension.

use core::fmt;

use crate::capi::C_API_VERSION;

/// The footer's length.
pub const FOOTER_LEN: usize = 512;

const FIELD_LEN: usize = 32;

/// A field value longer than a field's 32 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTooLong(pub String);

impl fmt::Display for FieldTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is longer than a metadata field's {FIELD_LEN} bytes",
            self.0
        )
    }
}

impl std::error::Error for FieldTooLong {}

/// The footer of md5x's extension for DuckDB's `platform` (its `PRAGMA
/// platform`, for example `linux_amd64`).
pub fn footer(platform: &str) -> Result<[u8; FOOTER_LEN], FieldTooLong> {
    let version = concat!("v", env!("CARGO_PKG_VERSION"));
    let c_api = C_API_VERSION.to_str().unwrap_or_default();
    // In file order.
    let fields = ["", "", "", "C_STRUCT", version, c_api, platform, "4"];
    let mut out = [0u8; FOOTER_LEN];
    for (slot, value) in out.chunks_exact_mut(FIELD_LEN).zip(fields) {
        if value.len() > FIELD_LEN {
            return Err(FieldTooLong(value.to_owned()));
        }
        slot[..value.len()].copy_from_slice(value.as_bytes());
    }
    Ok(out)
}

/// DuckDB's name for the platform this crate is compiled for, if it has one.
pub fn this_platform() -> Option<&'static str> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "osx",
        "windows" => "windows",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        _ => return None,
    };
    Some(
        match (
            os,
            arch,
            cfg!(target_env = "musl"),
            cfg!(target_env = "gnu"),
        ) {
            ("linux", "amd64", true, _) => "linux_amd64_musl",
            ("linux", "arm64", true, _) => "linux_arm64_musl",
            ("linux", "amd64", ..) => "linux_amd64",
            ("linux", "arm64", ..) => "linux_arm64",
            ("osx", "amd64", ..) => "osx_amd64",
            ("osx", "arm64", ..) => "osx_arm64",
            ("windows", "amd64", _, true) => "windows_amd64_mingw",
            ("windows", "amd64", ..) => "windows_amd64",
            ("windows", "arm64", ..) => "windows_arm64",
            _ => return None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields as DuckDB's `ParseExtensionMetaData` reads them: eight of
    /// 32 bytes, reversed, NULs trimmed.
    fn parse(footer: &[u8; FOOTER_LEN]) -> Vec<String> {
        let mut fields: Vec<String> = footer[..256]
            .chunks_exact(FIELD_LEN)
            .map(|f| String::from_utf8_lossy(f).trim_end_matches('\0').to_owned())
            .collect();
        fields.reverse();
        fields
    }

    #[test]
    fn fields_where_duckdb_reads_them() {
        let footer = footer("linux_amd64").unwrap();
        let fields = parse(&footer);
        assert_eq!(fields[0], "4");
        assert_eq!(fields[1], "linux_amd64");
        assert_eq!(fields[2], "v1.2.0");
        assert_eq!(fields[3], concat!("v", env!("CARGO_PKG_VERSION")));
        assert_eq!(fields[4], "C_STRUCT");
        assert_eq!(&fields[5..], ["", "", ""]);
        assert!(footer[256..].iter().all(|&b| b == 0));
    }

    #[test]
    fn long_platform_refused() {
        let long = "x".repeat(33);
        assert_eq!(footer(&long), Err(FieldTooLong(long.clone())));
        assert!(footer(&long[..32]).is_ok());
    }
}
