//! Makes `md5x.duckdb_extension`: the extension library this package builds
//! (beside this program in Cargo's target directory), with DuckDB's
//! metadata footer appended.
//!
//!     cargo run --release --manifest-path duckdb/Cargo.toml [-- --platform P] [--out FILE]

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::PathBuf;
use std::process::ExitCode;

use md5x_duckdb::footer::{footer, this_platform};

const USAGE: &str = "usage: md5x-duckdb [--platform PLATFORM] [--out FILE]

Writes md5x.duckdb_extension (by default beside the extension library in
Cargo's target directory) for DuckDB's PLATFORM (its `PRAGMA platform`;
by default the one this program is built for).";

fn main() -> ExitCode {
    match run() {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("md5x-duckdb: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<PathBuf, String> {
    let (mut platform, mut out) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--platform" => platform = Some(value()?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    let platform = match platform {
        Some(p) => p,
        None => this_platform()
            .ok_or("DuckDB has no platform name for this target: give --platform")?
            .to_owned(),
    };
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = exe.parent().ok_or("this program has no directory")?;
    let library = dir.join(format!("{DLL_PREFIX}md5x_duckdb{DLL_SUFFIX}"));
    let mut bytes = std::fs::read(&library).map_err(|e| {
        format!(
            "cannot read the extension library {}: {e}",
            library.display()
        )
    })?;
    bytes.extend_from_slice(&footer(&platform).map_err(|e| e.to_string())?);
    let out = out.unwrap_or_else(|| dir.join("md5x.duckdb_extension"));
    // Written beside, then renamed over: a DuckDB that has the old file
    // loaded keeps its mapping, where writing over it in place would crash
    // that process.
    let mut tmp = out.clone().into_os_string();
    tmp.push(".tmp");
    std::fs::write(&tmp, &bytes)
        .and_then(|()| std::fs::rename(&tmp, &out))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(out)
}
