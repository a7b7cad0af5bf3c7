//! Command-line parsing with the behaviour of GNU `getopt_long`, so that
//! option spelling, permutation and error messages match coreutils md5sum.
//!
//! GNU permutes: options may follow operands unless `POSIXLY_CORRECT` is set
//! or `--` ends the options. Long options may be abbreviated to any unique
//! prefix. `--help` and `--version` act as soon as they are seen, as in
//! coreutils, so later bad options are never reported.

use crate::etag::PartSize;
use std::ffi::OsString;

/// The options of one run, after the whole command line was read.
#[derive(Debug, Default)]
pub struct Opts {
    /// `None` until `-b`, `-t` or `--tag` sets it, as GNU's `binary = -1`.
    pub binary: Option<bool>,
    pub check: bool,
    pub ignore_missing: bool,
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
    pub tag: bool,
    pub zero: bool,
    pub jobs: Option<usize>,
    /// `--etag=SIZE`: S3 ETags for uploads in parts of SIZE, not MD5s.
    pub etag: Option<PartSize>,
    pub files: Vec<OsString>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    Run(Opts),
    Help,
    Version,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Opt {
    Binary,
    Check,
    IgnoreMissing,
    Quiet,
    Status,
    Text,
    Warn,
    Strict,
    Tag,
    Zero,
    Jobs,
    Etag,
    Help,
    Version,
}

/// Long options in the order of GNU md5sum's table (`long_options` in
/// coreutils' `digest.c`), which is the order that ambiguity messages list
/// them in (`--t`: `'--tag' '--text'`). `jobs` and `etag` are ours: after
/// GNU's own options and before `help` and `version`, as coreutils places
/// them, so that GNU's options keep their order among themselves.
const LONG: &[(&str, Opt)] = &[
    ("check", Opt::Check),
    ("ignore-missing", Opt::IgnoreMissing),
    ("quiet", Opt::Quiet),
    ("status", Opt::Status),
    ("warn", Opt::Warn),
    ("strict", Opt::Strict),
    ("tag", Opt::Tag),
    ("zero", Opt::Zero),
    ("binary", Opt::Binary),
    ("text", Opt::Text),
    ("jobs", Opt::Jobs),
    ("etag", Opt::Etag),
    ("help", Opt::Help),
    ("version", Opt::Version),
];

fn short(c: u8) -> Option<Opt> {
    Some(match c {
        b'b' => Opt::Binary,
        b'c' => Opt::Check,
        b't' => Opt::Text,
        b'w' => Opt::Warn,
        b'z' => Opt::Zero,
        b'j' => Opt::Jobs,
        _ => return None,
    })
}

/// A usage error: the message after `md5sum: `, without a newline. The caller
/// adds the "Try ... --help" line and exits 1.
#[derive(Debug)]
pub struct UsageError(pub Vec<u8>);

fn err(parts: &[&[u8]]) -> UsageError {
    UsageError(parts.concat())
}

/// Parses the arguments after the program name.
pub fn parse(args: Vec<OsString>, posixly_correct: bool) -> Result<Parsed, UsageError> {
    let mut o = Opts::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let a = arg.as_encoded_bytes();
        if a == b"--" {
            o.files.extend(it.by_ref());
            break;
        }
        if let Some(body) = a.strip_prefix(b"--") {
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(p) => (&body[..p], Some(&body[p + 1..])),
                None => (body, None),
            };
            let opt = match LONG.iter().find(|(n, _)| n.as_bytes() == name) {
                Some(&(_, opt)) => opt,
                None => {
                    let hits: Vec<_> = LONG
                        .iter()
                        .filter(|(n, _)| n.as_bytes().starts_with(name))
                        .collect();
                    match hits.as_slice() {
                        [] => return Err(err(&[b"unrecognized option '", a, b"'"])),
                        [(_, opt)] => *opt,
                        _ => {
                            let mut m = err(&[b"option '", a, b"' is ambiguous; possibilities:"]);
                            for (n, _) in &hits {
                                m.0.extend_from_slice(b" '--");
                                m.0.extend_from_slice(n.as_bytes());
                                m.0.push(b'\'');
                            }
                            return Err(m);
                        }
                    }
                }
            };
            let full = LONG.iter().find(|(_, x)| *x == opt).unwrap().0.as_bytes();
            let value = if matches!(opt, Opt::Jobs | Opt::Etag) {
                match value {
                    Some(v) => Some(v.to_vec()),
                    None => match it.next() {
                        Some(v) => Some(v.as_encoded_bytes().to_vec()),
                        None => return Err(err(&[b"option '--", full, b"' requires an argument"])),
                    },
                }
            } else if value.is_some() {
                return Err(err(&[b"option '--", full, b"' doesn't allow an argument"]));
            } else {
                None
            };
            if let Some(done) = apply(&mut o, opt, value)? {
                return Ok(done);
            }
        } else if a.len() > 1 && a[0] == b'-' {
            let mut j = 1;
            while j < a.len() {
                let c = a[j];
                j += 1;
                let opt = short(c).ok_or_else(|| err(&[b"invalid option -- '", &[c], b"'"]))?;
                let value = if opt == Opt::Jobs {
                    let v = if j < a.len() {
                        a[j..].to_vec()
                    } else {
                        match it.next() {
                            Some(v) => v.as_encoded_bytes().to_vec(),
                            None => {
                                return Err(err(&[b"option requires an argument -- '", &[c], b"'"]))
                            }
                        }
                    };
                    j = a.len();
                    Some(v)
                } else {
                    None
                };
                if let Some(done) = apply(&mut o, opt, value)? {
                    return Ok(done);
                }
            }
        } else {
            o.files.push(arg);
            if posixly_correct {
                o.files.extend(it.by_ref());
                break;
            }
        }
    }
    Ok(Parsed::Run(o))
}

/// Applies one option the way coreutils' `digest.c` does; `--status`,
/// `--warn` and `--quiet` override each other.
fn apply(o: &mut Opts, opt: Opt, value: Option<Vec<u8>>) -> Result<Option<Parsed>, UsageError> {
    match opt {
        Opt::Binary => o.binary = Some(true),
        Opt::Text => o.binary = Some(false),
        Opt::Check => o.check = true,
        Opt::IgnoreMissing => o.ignore_missing = true,
        Opt::Status => (o.status, o.warn, o.quiet) = (true, false, false),
        Opt::Warn => (o.status, o.warn, o.quiet) = (false, true, false),
        Opt::Quiet => (o.status, o.warn, o.quiet) = (false, false, true),
        Opt::Strict => o.strict = true,
        Opt::Tag => (o.tag, o.binary) = (true, Some(true)),
        Opt::Zero => o.zero = true,
        Opt::Jobs => {
            let v = value.unwrap_or_default();
            let n = std::str::from_utf8(&v)
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
                .filter(|&n| n > 0);
            match n {
                Some(n) => o.jobs = Some(n),
                None => return Err(err(&[b"invalid number of jobs: '", &v, b"'"])),
            }
        }
        Opt::Etag => {
            let v = value.unwrap_or_default();
            match PartSize::parse(&v) {
                Some(size) => o.etag = Some(size),
                None => return Err(err(&[b"invalid ETag part size: '", &v, b"'"])),
            }
        }
        Opt::Help => return Ok(Some(Parsed::Help)),
        Opt::Version => return Ok(Some(Parsed::Version)),
    }
    Ok(None)
}

/// The combinations that GNU md5sum rejects after parsing, in its order.
pub fn validate(o: &Opts) -> Result<(), UsageError> {
    let msg: &[u8] = if o.tag && o.binary == Some(false) {
        b"--tag does not support --text mode"
    } else if o.zero && o.check {
        b"the --zero option is not supported when verifying checksums"
    } else if o.tag && o.check {
        b"the --tag option is meaningless when verifying checksums"
    } else if o.binary.is_some() && o.check {
        b"the --binary and --text options are meaningless when verifying checksums"
    } else if o.ignore_missing && !o.check {
        b"the --ignore-missing option is meaningful only when verifying checksums"
    } else if o.status && !o.check {
        b"the --status option is meaningful only when verifying checksums"
    } else if o.warn && !o.check {
        b"the --warn option is meaningful only when verifying checksums"
    } else if o.quiet && !o.check {
        b"the --quiet option is meaningful only when verifying checksums"
    } else if o.strict && !o.check {
        b"the --strict option is meaningful only when verifying checksums"
    } else if o.etag == Some(PartSize::Auto) && !o.check {
        b"--etag=auto is meaningful only when verifying checksums"
    } else {
        return Ok(());
    };
    Err(UsageError(msg.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Parsed, String> {
        parse(args.iter().map(OsString::from).collect(), false)
            .map_err(|e| String::from_utf8(e.0).unwrap())
    }

    fn opts(args: &[&str]) -> Opts {
        match run(args) {
            Ok(Parsed::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clusters_abbreviations_and_permutation() {
        let o = opts(&["f", "-cw", "--stat", "--", "-x"]);
        assert!(o.check && o.status && !o.warn);
        assert_eq!(o.files, ["f", "-x"]);
        let o = opts(&["-j3", "--jobs", "5", "--j=7", "-"]);
        assert_eq!(o.jobs, Some(7));
        assert_eq!(o.files, ["-"]);
        let o = parse(vec!["a".into(), "-c".into()], true).unwrap();
        assert!(matches!(o, Parsed::Run(o) if !o.check && o.files == ["a", "-c"]));
    }

    #[test]
    fn gnu_error_messages() {
        assert_eq!(run(&["-x"]).unwrap_err(), "invalid option -- 'x'");
        assert_eq!(
            run(&["--foo=1"]).unwrap_err(),
            "unrecognized option '--foo=1'"
        );
        assert_eq!(
            run(&["--s=1"]).unwrap_err(),
            "option '--s=1' is ambiguous; possibilities: '--status' '--strict'"
        );
        assert_eq!(
            run(&["--t"]).unwrap_err(),
            "option '--t' is ambiguous; possibilities: '--tag' '--text'"
        );
        assert_eq!(
            run(&["--="]).unwrap_err(),
            "option '--=' is ambiguous; possibilities: '--check' '--ignore-missing' \
             '--quiet' '--status' '--warn' '--strict' '--tag' '--zero' '--binary' \
             '--text' '--jobs' '--etag' '--help' '--version'"
        );
        assert_eq!(
            run(&["--bin=1"]).unwrap_err(),
            "option '--binary' doesn't allow an argument"
        );
        assert_eq!(
            run(&["-j"]).unwrap_err(),
            "option requires an argument -- 'j'"
        );
        assert_eq!(
            run(&["--jobs"]).unwrap_err(),
            "option '--jobs' requires an argument"
        );
        assert_eq!(run(&["-j0"]).unwrap_err(), "invalid number of jobs: '0'");
        assert_eq!(
            run(&["--etag"]).unwrap_err(),
            "option '--etag' requires an argument"
        );
        assert_eq!(
            run(&["--etag=8X"]).unwrap_err(),
            "invalid ETag part size: '8X'"
        );
        assert_eq!(
            run(&["--e", "0"]).unwrap_err(),
            "invalid ETag part size: '0'"
        );
        // --help acts at once, as in coreutils.
        assert!(matches!(run(&["--he", "--foo"]), Ok(Parsed::Help)));
    }
}
