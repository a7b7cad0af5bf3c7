//! The stagger table of `cargo bench --bench multi -- tune`
//! (`benches/multi/tune.rs`, whose notes say what it measures and how it
//! fits and judges a rule): equal messages as many bytes apart as they
//! are long, in lockstep or at each spread, and the stagger it proposes.

use super::tune::{mark, pick, time_runs, Equal};
use super::Spread;
use md5::multi::kernel_choice::{self, Choice, Stagger, Tuning};

/// One cell of the stagger table: the spreads timed (the aligned layout
/// under each) and the one the row in force gives.
struct Cell {
    spreads: Vec<usize>,
    times: Vec<Spread>,
    in_force: usize,
}

impl Cell {
    /// The time of the aligned layout at `spread`, if measured.
    fn at(&self, spread: usize) -> Option<Spread> {
        let i = self.spreads.iter().position(|&s| s == spread)?;
        Some(self.times[i])
    }
}

const STAGGER_LENS: [usize; 4] = [4 << 10, 16 << 10, 64 << 10, 256 << 10];
const LAYOUTS: [(&str, usize); 2] = [("page", 0), ("vec", 16)];

/// The stagger table of kernel `base` (see the module's notes), `now` the
/// row in force's stagger for it; returns the stagger to propose.
pub(super) fn stagger(base: Choice, name: &str, now: Stagger) -> Stagger {
    let lanes = base.lanes();
    println!(
        "  {name} stagger, sets of {lanes} lanes: aligned / offset speed, lockstep (s1) or s delays"
    );
    let mut cells: Vec<Vec<Cell>> = Vec::new();
    for (layout, shift) in LAYOUTS {
        let mut row = Vec::new();
        for len in STAGGER_LENS {
            let blocks = len / 64;
            let in_force = kernel_choice::stagger_spread(now, lanes, blocks, shift > 0);
            let mut spreads = vec![1, 4, 8, 16, lanes.min(32), in_force];
            spreads.sort_unstable();
            spreads.dedup();
            let aligned = Equal::new(64, len, len, shift);
            let offset = Equal::new(64, len, len + 320, shift);
            let (a, o) = (aligned.messages(), offset.messages());
            let mut runs: Vec<(Tuning, &[&[u8]])> = spreads
                .iter()
                .map(|&s| {
                    let spread = u16::try_from(s).unwrap_or(u16::MAX);
                    (base.tuning().with_stagger(Stagger::forced(spread)), &a[..])
                })
                .collect();
            runs.push((base.tuning(), &o[..]));
            let mut times = time_runs(base, &runs);
            let off = times.pop().expect("the offset layout's time");
            let current = spreads.iter().position(|&s| s == in_force).unwrap_or(0);
            let chosen = pick(std::slice::from_ref(&times), current);
            let mut line = format!("    64 x {:>3} KiB {layout:<4}", len >> 10);
            for (i, (s, t)) in spreads.iter().zip(&times).enumerate() {
                let half = (t.worst - t.best) / 2.0 / t.median * 100.0;
                let mark = mark(i, current, chosen);
                line += &format!("  s{s}: {:.2}±{half:.0}%{mark}", off.median / t.median);
            }
            println!("{line}");
            row.push(Cell {
                spreads,
                times,
                in_force,
            });
        }
        cells.push(row);
    }
    let chosen = |c: &Cell| {
        let current = c.spreads.iter().position(|&s| s == c.in_force).unwrap_or(0);
        c.spreads[pick(std::slice::from_ref(&c.times), current)]
    };
    let mut fits = vec![Stagger::OFF];
    let staggers = |i: usize| cells.iter().all(|row| chosen(&row[i]) > 1);
    let last = STAGGER_LENS.len() - 1;
    if let Some(first) = (0..=last).find(|&i| (i..=last).all(staggers)) {
        let spread = chosen(&cells[0][last]);
        let blocks = STAGGER_LENS[first] / 64;
        fits.push(Stagger {
            spread: spread as u16,
            most_lanes: match now.spread {
                0 | 1 => lanes as u16,
                _ => now.most_lanes.max(lanes as u16),
            },
            blocks_per_delay: (blocks / (spread - 1)) as u16,
            split_blocks_per_delay: 0,
        });
    }
    // A fit's time in each cell, against the row in force's.
    let judged: Vec<(Stagger, f64)> = fits
        .into_iter()
        .filter(|&fit| fit != now)
        .filter_map(|fit| {
            let (mut wins, mut product) = (false, 1.0);
            for (row, (_, shift)) in cells.iter().zip(LAYOUTS) {
                for (c, len) in row.iter().zip(STAGGER_LENS) {
                    let s = kernel_choice::stagger_spread(fit, lanes, len / 64, shift > 0);
                    let (t, old) = (c.at(s)?, c.at(c.in_force)?);
                    if old.beats(t) {
                        return None;
                    }
                    wins |= t.beats(old);
                    product *= t.median / old.median;
                }
            }
            wins.then_some((fit, product))
        })
        .collect();
    let proposed = judged
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(now, |&(fit, _)| fit);
    let why = match proposed == now {
        true => "no fitted rule beat it beyond the spread in a cell and lost in none",
        false => "the fitted rule beat it beyond the spread in a cell and lost in none",
    };
    println!("    {name} stagger in force: {now:?}\n    proposed: {proposed:?} ({why})");
    proposed
}
