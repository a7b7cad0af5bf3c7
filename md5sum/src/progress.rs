//! A one-line progress display on stderr (bytes, rate, time left) for long
//! runs. It is only started when stderr is a terminal, and only drawn once a
//! run has lasted a second; output to stdout or stderr erases it first.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(200);

pub struct Progress {
    /// Bytes read so far; the hashing code adds to it.
    pub bytes: AtomicU64,
    start: Instant,
    stop: AtomicBool,
    /// Whether a line is on screen; held while anything writes to the
    /// terminal so that the line and other output never mix.
    shown: Mutex<bool>,
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

fn size(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} {}", UNITS[0])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn clock(secs: u64) -> String {
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// The progress line for `done` of `total` bytes after `secs` seconds.
pub fn line(done: u64, total: Option<u64>, secs: f64) -> String {
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    match total {
        Some(t) if t >= done && t > 0 => {
            let eta = if rate > 0.0 {
                clock(((t - done) as f64 / rate).round() as u64)
            } else {
                "--:--".into()
            };
            format!(
                "{} / {} ({:.0}%)  {}/s  ETA {}",
                size(done as f64),
                size(t as f64),
                done as f64 * 100.0 / t as f64,
                size(rate),
                eta
            )
        }
        _ => format!("{}  {}/s", size(done as f64), size(rate)),
    }
}

impl Progress {
    pub fn new() -> Self {
        Progress {
            bytes: AtomicU64::new(0),
            start: Instant::now(),
            stop: AtomicBool::new(false),
            shown: Mutex::new(false),
        }
    }

    /// Erases the line if it is shown and runs `f` while no redraw can
    /// happen.
    pub fn hidden<R>(&self, f: impl FnOnce() -> R) -> R {
        let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        if *shown {
            let _ = io::stderr().lock().write_all(b"\r\x1b[K");
            *shown = false;
        }
        f()
    }

    /// Redraws until [`Progress::finish`]; `total` gives the bytes to read,
    /// when known, and is only called once the line is first drawn.
    pub fn run(&self, total: impl FnOnce() -> Option<u64>) {
        let mut total = Some(total);
        let mut known = None;
        while !self.stop.load(Ordering::Acquire) {
            std::thread::park_timeout(TICK);
            let secs = self.start.elapsed();
            if secs < DELAY || self.stop.load(Ordering::Acquire) {
                continue;
            }
            if let Some(f) = total.take() {
                known = f();
            }
            let text = line(
                self.bytes.load(Ordering::Relaxed),
                known,
                secs.as_secs_f64(),
            );
            let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            let _ = write!(io::stderr().lock(), "\r{text}\x1b[K");
            *shown = true;
        }
    }

    /// Stops redrawing (the caller then unparks the drawing thread) and
    /// erases the line.
    pub fn finish(&self) {
        self.stop.store(true, Ordering::Release);
        self.hidden(|| ());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_format() {
        assert_eq!(
            line(512 << 20, Some(1 << 30), 2.0),
            "512.0 MiB / 1.0 GiB (50%)  256.0 MiB/s  ETA 0:02"
        );
        assert_eq!(line(1000, None, 1.0), "1000 B  1000 B/s");
        assert_eq!(clock(3725), "1:02:05");
    }
}
