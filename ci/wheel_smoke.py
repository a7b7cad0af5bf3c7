"""Checks an installed md5x wheel against hashlib where pytest and the test
suite's dependencies cannot go (an emulated aarch64 CPython, an Alpine
container): only the standard library and md5x are imported.

    python ci/wheel_smoke.py [INSTALLED_UNDER]

INSTALLED_UNDER, when given, is a folder md5x must be imported from (its
site-packages), so that a source tree on the path cannot stand in for the
wheel. Exits non-zero on the first difference.
"""

import hashlib
import os
import pathlib
import platform
import random
import sys
import tempfile

import md5x

# MD5's padding edges (one block's last length byte, one and two blocks),
# then lengths that take every batch path: short rows, long ones, mixed.
EDGES = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129]


def check(what, got, want):
    if got != want:
        sys.exit(f"wheel_smoke: {what}: got {got!r}, expected {want!r}")


def main():
    where = pathlib.Path(md5x.__file__).resolve()
    print(f"md5x {md5x.__version__} from {where} on {platform.machine()}, Python {platform.python_version()}")
    if len(sys.argv) > 1 and not where.is_relative_to(pathlib.Path(sys.argv[1]).resolve()):
        sys.exit(f"wheel_smoke: md5x imported from {where}, not from under {sys.argv[1]}")

    rng = random.Random(0x5EED)
    rows = [rng.randbytes(n) for n in EDGES]
    rows += [rng.randbytes(rng.randint(0, 200)) for _ in range(3000)]
    rows += [rng.randbytes(rng.randint(1000, 70000)) for _ in range(40)]
    want = [hashlib.md5(r).digest() for r in rows]
    check("digest_many", md5x.digest_many(rows), want)
    check("hexdigest_many", md5x.hexdigest_many(rows), [w.hex() for w in want])

    h = md5x.md5()
    whole = hashlib.md5()
    for r in rows[:200]:
        h.update(r)
        whole.update(r)
    check("md5().update", h.hexdigest(), whole.hexdigest())
    check("md5().copy", h.copy().digest(), whole.digest())

    part = 1 << 20
    data = rng.randbytes(5 * part + 3)
    parts = [hashlib.md5(data[i : i + part]).digest() for i in range(0, len(data), part)]
    check("s3_etag", md5x.s3_etag(data, part), f"{hashlib.md5(b''.join(parts)).hexdigest()}-{len(parts)}")

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, r in enumerate(rows[-40:]):
            paths.append(os.path.join(tmp, str(i)))
            pathlib.Path(paths[-1]).write_bytes(r)
        check("hash_files", md5x.hash_files(paths), want[-40:])

    check_duckdb()
    print(f"wheel_smoke: {len(rows)} rows, an md5 object, an ETag and {len(paths)} files agree with hashlib")


def check_duckdb():
    """md5x.duckdb, where the wheel carries the DuckDB extension: it loads
    into a connection and adds functions there."""
    try:
        import md5x.duckdb as md5x_duckdb
    except ModuleNotFoundError as e:
        if e.name != "md5x.duckdb":
            raise
        return
    try:
        import duckdb
    except ModuleNotFoundError:
        print("wheel_smoke: md5x.duckdb present, duckdb not installed here: not loaded")
        return
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    count = "select count(*) from duckdb_functions()"
    before = con.execute(count).fetchone()[0]
    md5x_duckdb.load(con)
    after = con.execute(count).fetchone()[0]
    if after <= before:
        sys.exit("wheel_smoke: md5x.duckdb.load(con) added no function")
    got, builtin = con.execute("SELECT md5x('abc'), md5('abc')").fetchone()
    check("md5x.duckdb", [got, builtin], [hashlib.md5(b"abc").hexdigest()] * 2)
    print(f"wheel_smoke: md5x.duckdb.load(con) added {after - before} functions")


if __name__ == "__main__":
    main()
