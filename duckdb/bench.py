"""DuckDB's md5 functions against md5x's, side by side in one process.

    python duckdb/bench.py [EXTENSION] [--rounds N]

Loads EXTENSION (default: duckdb/target/release/md5x.duckdb_extension)
into the `duckdb` package at hand and prints, per case and thread count,
the best time of N rounds (interleaved: each round runs DuckDB's query,
then md5x's) and the ratio, in wall time and in the process's CPU time
(all threads; less disturbed by other processes on a busy machine). The
tables are built in memory first.
"""

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import duckdb

DEFAULT = Path(__file__).parent / "target" / "release" / "md5x.duckdb_extension"

TABLES = {
    # 1M rows of 8 to 55 random bytes of ASCII letters and digits.
    "short": "CREATE TABLE short AS SELECT substr(repeat(md5(i::varchar), 2), 1, 8 + (hash(i) % 48)::int) AS s"
    " FROM range(1000000) t(i)",
    # 100k BLOBs of 1 KiB.
    "blobs": "CREATE TABLE blobs AS SELECT repeat(unhex(md5(i::varchar)), 64) AS b FROM range(100000) t(i)",
}

CASES = [
    ("1M VARCHAR 8-55 B, max(md5(s))", "SELECT max({f}(s)) FROM short", "md5", "md5x"),
    ("1M VARCHAR 8-55 B, max(md5_number(s))", "SELECT max({f}(s)) FROM short", "md5_number", "md5x_number"),
    ("100k BLOB 1 KiB, max(md5(b))", "SELECT max({f}(b)) FROM blobs", "md5", "md5x"),
    ("100k BLOB 1 KiB, max(md5_number(b))", "SELECT max({f}(b)) FROM blobs", "md5_number", "md5x_number"),
]

BASELINES = [
    ("1M VARCHAR, max(s) (scan + aggregate)", "SELECT max(s) FROM short"),
    ("1M VARCHAR, max(upper(s))", "SELECT max(upper(s)) FROM short"),
]


def timed(con, sql):
    """Wall time and this process's CPU time (all threads) of one query."""
    wall, cpu = time.perf_counter(), time.process_time()
    con.execute(sql).fetchall()
    return time.perf_counter() - wall, time.process_time() - cpu


def best(con, sql, rounds):
    return min(timed(con, sql)[0] for _ in range(rounds))


# 10M rows of 8 to 55 bytes, hashed: aggregated, and kept in a table.
MEMORY = {
    "max(f(s))": "SELECT max({f}(s)) FROM (SELECT substr(repeat(md5(i::varchar), 2), 1, 8 + (hash(i) % 48)::int) AS s"
    " FROM range(10000000) t(i))",
    "CREATE TABLE AS f(s)": "CREATE TABLE h AS SELECT {f}(substr(repeat(md5(i::varchar), 2), 1, 8 + (hash(i) % 48)::int))"
    " AS h FROM range(10000000) t(i)",
}


def child(extension, sql):
    """Runs `sql` in this process, a child whose peak RSS the parent reads."""
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{extension}'")
    if sql:
        con.execute(sql).fetchall()


def memory(extension, rounds):
    print(f"\npeak RSS of a fresh process (MiB), smallest of {rounds}: connect + LOAD, then the query")
    base = min(rss_of(extension, "") for _ in range(rounds))
    print(f"  {'connect + LOAD only':<42} {base:8.0f}")
    for name, template in MEMORY.items():
        a = min(rss_of(extension, template.format(f="md5")) for _ in range(rounds))
        b = min(rss_of(extension, template.format(f="md5x")) for _ in range(rounds))
        print(f"  {'10M rows, ' + name:<42} {a:8.0f} md5, {b:7.0f} md5x: {b / a:5.2f}x")


def rss_of(extension, sql):
    """Peak RSS (MiB) of a fresh process running `sql` (from wait4)."""
    proc = subprocess.Popen([sys.executable, __file__, extension, "--child", sql])
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"child failed: {sql}")
    return usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("extension", nargs="?", default=str(DEFAULT))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--memory", action="store_true", help="only the memory of 10M-row queries")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.extension, args.child)
    if args.memory:
        return memory(args.extension, args.rounds)

    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{args.extension}'")
    for sql in TABLES.values():
        con.execute(sql)
    version = con.execute("PRAGMA version").fetchone()[0]
    print(f"DuckDB {version} (Python package), {platform.processor() or platform.machine()}, best of {args.rounds}")
    for threads in [int(t) for t in args.threads.split(",")]:
        con.execute(f"SET threads = {threads}")
        print(f"\nthreads = {threads}")
        for name, sql in BASELINES:
            print(f"  {name:<42} {best(con, sql, args.rounds) * 1e3:8.1f} ms")
        for name, template, theirs, ours in CASES:
            a_sql, b_sql = template.format(f=theirs), template.format(f=ours)
            assert con.execute(a_sql).fetchall() == con.execute(b_sql).fetchall(), name
            a, b = [], []
            for _ in range(args.rounds):
                a.append(timed(con, a_sql))
                b.append(timed(con, b_sql))
            (wa, ca), (wb, cb) = [(min(w for w, _ in t), min(c for _, c in t)) for t in (a, b)]
            print(
                f"  {name:<42} {wa * 1e3:8.1f} ms {theirs}, {wb * 1e3:7.1f} ms {ours}: {wa / wb:5.2f}x"
                f"   (CPU {ca * 1e3:6.1f} ms, {cb * 1e3:6.1f} ms: {ca / cb:5.2f}x)"
            )


if __name__ == "__main__":
    main()
