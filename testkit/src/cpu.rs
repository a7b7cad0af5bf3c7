//! The CPU the benches ran on, for their machine-readable output.

/// The CPU's model name and family/model numbers, from /proc/cpuinfo
/// ("?" for what it does not say, as on non-Linux systems).
pub fn cpu_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map_or("?", |(_, v)| v.trim())
            .to_string()
    };
    format!(
        "{} (family {}, model {})",
        field("model name"),
        field("cpu family"),
        field("model")
    )
    .replace('"', "'")
}
