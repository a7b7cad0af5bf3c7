"""md5x against what a user runs today: the rows of python/README.md's
"Speed" table for md5, digest_many (of bytes from a list or a generator,
and of str with encoding="utf-8"), s3_etag and hash_files.

    python python/benches/bench_core.py [--rounds N] [--dir DIR]

Each case runs md5x and its peer in turn, in one process, for N rounds
(interleaved, so that a busy moment hits both), and keeps each one's best
time. Files go to a temporary directory under --dir (default: the
system's); the 1 GiB file is read warm, from the page cache, by both.
"""

import argparse
import hashlib
import os
import pathlib
import platform
import random
import string
import tempfile
import time

import md5x

MIB = 1 << 20


def cpu_name():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def best_of(rounds, cases):
    """Runs each of `cases` (name -> callable) once a round, in turn, and
    returns each one's best time in seconds and its last result. The
    previous round's result is freed after the clock stops, for both."""
    best = {name: float("inf") for name in cases}
    results = {}
    for _ in range(rounds):
        for name, fn in cases.items():
            start = time.perf_counter()
            result = fn()
            best[name] = min(best[name], time.perf_counter() - start)
            results[name] = result
            del result
    return best, results


def row(case, peer, ours, theirs):
    print(f"| {case} | `{peer}`: {theirs * 1e3:,.1f} ms | {ours * 1e3:,.1f} ms | {theirs / ours:.1f}× |", flush=True)


def bench_digest_many(rounds):
    rows = [os.urandom(32) for _ in range(1_000_000)]
    best, res = best_of(
        rounds,
        {
            "md5x": lambda: md5x.digest_many(rows),
            "hashlib": lambda: [hashlib.md5(b).digest() for b in rows],
        },
    )
    assert res["md5x"] == res["hashlib"]
    row("`digest_many`, 1M `bytes` of 32 B", "[hashlib.md5(b).digest() for b in rows]", best["md5x"], best["hashlib"])


def bench_digest_many_iter(rounds):
    # Rows from a generator are copied as they come (the caller may refill
    # one buffer); a list is read in place. Lengths 0–200 B, past a block.
    rng = random.Random(200)
    rows = [rng.randbytes(rng.randint(0, 200)) for _ in range(1_000_000)]
    best, res = best_of(
        rounds,
        {
            "list": lambda: md5x.digest_many(rows),
            "generator": lambda: md5x.digest_many(r for r in rows),
            "hashlib": lambda: [hashlib.md5(b).digest() for b in rows],
        },
    )
    assert res["list"] == res["generator"] == res["hashlib"]
    peer = "[hashlib.md5(b).digest() for b in rows]"
    row("`digest_many`, a list of 1M `bytes` of 0–200 B", peer, best["list"], best["hashlib"])
    row("`digest_many`, the same rows from a generator", peer, best["generator"], best["hashlib"])


def bench_digest_many_str(rounds):
    rng = random.Random(32)
    letters = string.ascii_letters + string.digits
    for label, lengths in (("32 B", [32] * 1_000_000), ("8–55 B", [rng.randint(8, 55) for _ in range(1_000_000)])):
        rows = ["".join(rng.choices(letters, k=n)) for n in lengths]
        best, res = best_of(
            rounds,
            {
                "md5x": lambda: md5x.hexdigest_many(rows, encoding="utf-8"),
                "hashlib": lambda: [hashlib.md5(s.encode()).hexdigest() for s in rows],
            },
        )
        assert res["md5x"] == res["hashlib"]
        row(
            f"`hexdigest_many(encoding=\"utf-8\")`, 1M `str` of {label}",
            "[hashlib.md5(s.encode()).hexdigest() for s in rows]",
            best["md5x"],
            best["hashlib"],
        )


def bench_md5(rounds):
    chunk = os.urandom(MIB)

    def run(new):
        h = new()
        for _ in range(256):
            h.update(chunk)
        return h.digest()

    best, res = best_of(rounds, {"md5x": lambda: run(md5x.md5), "hashlib": lambda: run(hashlib.md5)})
    assert res["md5x"] == res["hashlib"]
    row("`md5x.md5`, 256 MiB in 1 MiB updates", "hashlib.md5", best["md5x"], best["hashlib"])


def hashlib_etag(path, part_size):
    digests = []
    with open(path, "rb") as f:
        while part := f.read(part_size):
            digests.append(hashlib.md5(part).digest())
    return f"{hashlib.md5(b''.join(digests)).hexdigest()}-{len(digests)}"


def bench_s3_etag(rounds, tmp):
    path = tmp / "object"
    with open(path, "wb") as f:
        for _ in range(1024):
            f.write(os.urandom(MIB))
    part = 8 * MIB
    best, res = best_of(
        rounds,
        {"md5x": lambda: md5x.s3_etag(path, part), "hashlib": lambda: hashlib_etag(path, part)},
    )
    assert res["md5x"] == res["hashlib"]
    row("`s3_etag`, a 1 GiB file in 8 MiB parts (warm page cache)", "f.read(part) + hashlib.md5 per part", best["md5x"], best["hashlib"])
    path.unlink()


def file_digests(paths):
    out = []
    for p in paths:
        with open(p, "rb") as f:
            out.append(hashlib.file_digest(f, "md5").digest())
    return out


def bench_hash_files(rounds, tmp):
    paths = []
    for i in range(2000):
        p = tmp / f"f{i:04}"
        p.write_bytes(os.urandom(64 << 10))
        paths.append(p)
    best, res = best_of(rounds, {"md5x": lambda: md5x.hash_files(paths), "hashlib": lambda: file_digests(paths)})
    assert res["md5x"] == res["hashlib"]
    row("`hash_files`, 2,000 files of 64 KiB (warm page cache)", "hashlib.file_digest per file", best["md5x"], best["hashlib"])
    for p in paths:
        p.unlink()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--dir", default=None, help="where the temporary files go")
    parser.add_argument("--only", choices=["digest_many", "digest_many_iter", "digest_many_str", "md5", "s3_etag", "hash_files"])
    args = parser.parse_args()
    uname = platform.uname()
    print(f"CPU: {cpu_name()}, {os.cpu_count()} CPUs; kernel {uname.system} {uname.release}")
    print(f"Python {platform.python_version()}, md5x {md5x.__version__}; best of {args.rounds} interleaved rounds")
    print()
    print("| case | what users run today | md5x | speed-up |")
    print("|---|--:|--:|--:|")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        tmp = pathlib.Path(tmp)
        if args.only in (None, "digest_many"):
            bench_digest_many(args.rounds)
        if args.only in (None, "digest_many_iter"):
            bench_digest_many_iter(args.rounds)
        if args.only in (None, "digest_many_str"):
            bench_digest_many_str(args.rounds)
        if args.only in (None, "md5"):
            bench_md5(args.rounds)
        if args.only in (None, "s3_etag"):
            bench_s3_etag(args.rounds, tmp)
        if args.only in (None, "hash_files"):
            bench_hash_files(args.rounds, tmp)


if __name__ == "__main__":
    main()
