"""s3_etag and hash_files against hashlib with a cold page cache.

    sudo python python/benches/bench_cold.py [--rounds N] [--dir DIR]

Before every timed call the page cache is dropped (`sync; echo 3 >
/proc/sys/vm/drop_caches`, so this needs root), and md5x and hashlib take
turns, so each reads its files from the disk under DIR. Prints the median
and best of N rounds and the disk's `rotational` flag.
"""

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time

import md5x

PART = 8 << 20


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def hashlib_etag(path):
    digests = []
    with open(path, "rb") as f:
        while part := f.read(PART):
            digests.append(hashlib.md5(part).digest())
    return hashlib.md5(b"".join(digests)).hexdigest() + f"-{len(digests)}"


def file_digests(paths):
    out = []
    for p in paths:
        with open(p, "rb") as f:
            out.append(hashlib.file_digest(f, "md5").digest())
    return out


def cold(fn):
    drop_caches()
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def rotational(path):
    dev = os.stat(path).st_dev
    name = os.path.basename(os.path.realpath(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"))
    for p in (f"/sys/block/{name}/queue/rotational", f"/sys/class/block/{name}/../queue/rotational"):
        if os.path.exists(p):
            return open(p).read().strip()
    return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        big = os.path.join(tmp, "big")
        with open(big, "wb") as f:
            for _ in range(128):
                f.write(os.urandom(PART))
        small = []
        for i in range(2000):
            p = os.path.join(tmp, f"f{i}")
            with open(p, "wb") as f:
                f.write(os.urandom(64 << 10))
            small.append(p)
        print(f"disk under {tmp}: rotational = {rotational(tmp)}")
        cases = [
            ("s3_etag, 1 GiB in 8 MiB parts", lambda: md5x.s3_etag(big), lambda: hashlib_etag(big)),
            ("hash_files, 2,000 x 64 KiB", lambda: md5x.hash_files(small), lambda: file_digests(small)),
        ]
        for name, ours, theirs in cases:
            times = {"md5x": [], "hashlib": []}
            for r in range(args.rounds):
                order = [("md5x", ours), ("hashlib", theirs)]
                if r % 2:
                    order.reverse()
                results = {}
                for who, fn in order:
                    t, results[who] = cold(fn)
                    times[who].append(t)
                assert results["md5x"] == results["hashlib"], name
            m, h = (statistics.median(times[k]) for k in ("md5x", "hashlib"))
            print(
                f"{name}, cold: hashlib median {h * 1e3:.0f} ms (best {min(times['hashlib']) * 1e3:.0f}), "
                f"md5x median {m * 1e3:.0f} ms (best {min(times['md5x']) * 1e3:.0f}): {h / m:.2f}x"
            )


if __name__ == "__main__":
    main()
