#!/usr/bin/env python3
"""Draws the README's speed plots from the benches' machine-readable output.

    MD5_BENCH_OUT=target/bench-out cargo bench --bench compare
    MD5_BENCH_OUT=target/bench-out cargo bench --bench multi
    python3 benches/plot.py target/bench-out

Each bench writes one JSON object a line to DIR/<bench>.jsonl: a first line
naming the CPU, then one line per measured figure. This script writes
benches/plots/single-stream.svg (from compare.jsonl) and
benches/plots/multi.svg (from multi.jsonl), whichever inputs exist, as plain
SVG with no dependencies beyond Python's standard library. Rerun it after a
bench run to update the plots.
"""

import json
import math
import sys
from html import escape
from pathlib import Path

OUT = Path(__file__).resolve().parent / "plots"
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
W, H = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 56, 58


def load(path):
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    if not lines or "cpu" not in lines[0]:
        sys.exit(f"{path}: the first line must name the CPU")
    return lines[0], lines[1:]


def nice_ticks(top, n=5):
    """Round tick values from 0 to at least `top`."""
    raw = top / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [i * step for i in range(int(math.ceil(top / step)) + 1)]


def frame(title, subtitle, ylabel, yticks, ymax):
    """The SVG header, titles, y axis and grid; returns (parts, y→pixel)."""
    ph = H - TOP - BOTTOM

    def y(v):
        return TOP + ph - v / ymax * ph

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="15">{escape(title)}</text>',
        f'<text x="{W / 2}" y="38" text-anchor="middle" fill="#555">{escape(subtitle)}</text>',
        f'<text transform="translate(16 {TOP + ph / 2}) rotate(-90)" '
        f'text-anchor="middle">{escape(ylabel)}</text>',
    ]
    for t in yticks:
        parts.append(
            f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#ddd"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
        )
    return parts, y


def legend(parts, names):
    for i, name in enumerate(names):
        yy = TOP + 10 + 20 * i
        c = COLOURS[i % len(COLOURS)]
        parts.append(f'<rect x="{W - RIGHT + 14}" y="{yy - 9}" width="12" height="12" fill="{c}"/>')
        parts.append(f'<text x="{W - RIGHT + 32}" y="{yy + 1}">{escape(name)}</text>')


def single_stream(head, rows):
    """Throughput against message size, one line per contender."""
    sizes = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}
    series = {}
    for r in rows:
        case = r["case"]
        if not case.startswith("one-shot "):
            continue
        num, unit = case[len("one-shot "):].split()
        series.setdefault(r["contender"], []).append((int(num) * sizes[unit], r["mb_per_s"] / 1000))
    if not series:
        return None
    xs = sorted({x for pts in series.values() for x, _ in pts})
    ymax_data = max(y for pts in series.values() for _, y in pts)
    yticks = nice_ticks(ymax_data)
    parts, y = frame(
        "Single-stream MD5: one-shot digest throughput",
        f"{head['cpu']}, {head.get('ghz', '?')} GHz; backend {head.get('backend', '?')}",
        "GB/s (higher is better)",
        yticks,
        yticks[-1],
    )
    pw = W - LEFT - RIGHT
    lo, hi = math.log2(xs[0]), math.log2(xs[-1])

    def x(v):
        return LEFT + (math.log2(v) - lo) / (hi - lo) * pw

    for v in xs:
        label = f"{v >> 20} MiB" if v >= 1 << 20 else f"{v >> 10} KiB" if v >= 1 << 10 else f"{v} B"
        parts.append(f'<text x="{x(v):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">{label}</text>')
    parts.append(
        f'<text x="{LEFT + pw / 2}" y="{H - 14}" text-anchor="middle">message size (log scale)</text>'
    )
    for i, (name, pts) in enumerate(series.items()):
        c = COLOURS[i % len(COLOURS)]
        pts = sorted(pts)
        path = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for a, b in pts:
            parts.append(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3" fill="{c}"/>')
    legend(parts, list(series))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def multi(head, rows):
    """Aggregate throughput per batch shape, one bar per kernel or peer."""
    batches, names, value = [], [], {}
    for r in rows:
        b, n = r["batch"], r["contender"]
        if b not in batches:
            batches.append(b)
        if n not in names:
            names.append(n)
        value[b, n] = r["mb_per_s"] / 1000
    if not batches:
        return None
    yticks = nice_ticks(max(value.values()))
    parts, y = frame(
        "md5::multi: aggregate throughput by batch shape",
        f"{head['cpu']}; thread CPU time, same process",
        "GB/s (higher is better)",
        yticks,
        yticks[-1],
    )
    pw = W - LEFT - RIGHT
    gw = pw / len(batches)
    bw = gw * 0.8 / len(names)
    for gi, b in enumerate(batches):
        x0 = LEFT + gi * gw + gw * 0.1
        for ni, n in enumerate(names):
            if (b, n) not in value:
                continue
            v = value[b, n]
            c = COLOURS[ni % len(COLOURS)]
            parts.append(
                f'<rect x="{x0 + ni * bw:.1f}" y="{y(v):.1f}" width="{bw * 0.92:.1f}" '
                f'height="{y(0) - y(v):.1f}" fill="{c}"/>'
            )
        # A long batch name goes on two lines, split at its comma.
        for li, line in enumerate(b.split(", ")):
            parts.append(
                f'<text x="{x0 + gw * 0.4:.1f}" y="{H - BOTTOM + 18 + 14 * li}" '
                f'text-anchor="middle">{escape(line)}</text>'
            )
    legend(parts, names)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "target/bench-out")
    OUT.mkdir(exist_ok=True)
    wrote = 0
    for name, draw, svg in [
        ("compare.jsonl", single_stream, "single-stream.svg"),
        ("multi.jsonl", multi, "multi.svg"),
    ]:
        path = src / name
        if not path.exists():
            print(f"plot.py: no {path}, skipping {svg}")
            continue
        text = draw(*load(path))
        if text is None:
            print(f"plot.py: {path} has no rows for {svg}")
            continue
        (OUT / svg).write_text(text)
        print(f"plot.py: wrote {OUT / svg}")
        wrote += 1
    if not wrote:
        sys.exit("plot.py: nothing to plot")


if __name__ == "__main__":
    main()
