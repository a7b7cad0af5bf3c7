"""Every md5x function against hashlib on generated inputs: rows of random
lengths and kinds, handed over in random containers; Arrow columns of each
type with random slices and nulls; files and ETags of random sizes and
part sizes. Seeded, so that a failure repeats: the case's seed is in the
test's id."""

import array
import hashlib
import random

import numpy as np
import pyarrow as pa
import pytest

import md5x
from _rows import encoded

SEEDS = range(40)

# Lengths that cross MD5's block and padding edges and the batch paths'
# thresholds (64-byte copies, 1 MiB long rows).
LENGTHS = [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, (1 << 20) + 1]


def length(rng, few=True):
    """A row's length: any of `LENGTHS` only where the rows are `few`."""
    if rng.random() < 0.1:
        return rng.choice(LENGTHS if few else LENGTHS[:-1])
    return rng.randrange(rng.choice([8, 64, 200, 5000]))


def as_kind(rng, data):
    """`data` as one of the buffers hashlib takes."""
    kind = rng.randrange(6)
    if kind == 0:
        return data
    if kind == 1:
        return bytearray(data)
    if kind == 2:
        return memoryview(data)
    if kind == 3:
        return np.frombuffer(data, np.uint8).copy()
    if kind == 4 and len(data) % 4 == 0:
        return array.array("I", data)
    return memoryview(bytearray(b"\0" + data))[1:]


def container(rng, rows):
    """`rows` in a list, a tuple, an iterator, or a generator that hands
    out each buffer row through one refilled buffer."""
    kind = rng.randrange(4)
    if kind == 0:
        return rows
    if kind == 1:
        return tuple(rows)
    if kind == 2:
        return iter(rows)

    def refilled():
        buf = bytearray()
        for r in rows:
            if isinstance(r, str):
                yield r
                continue
            buf[:] = bytes(r)
            yield buf

    return refilled()


@pytest.mark.parametrize("seed", SEEDS)
def test_digest_many(seed):
    rng = random.Random(seed)
    count = rng.choice([0, 1, 5, 100, 3000, 20_000])
    data = [rng.randbytes(length(rng, count <= 100)) for _ in range(count)]
    rows = [as_kind(rng, d) for d in data]
    want = [hashlib.md5(d).digest() for d in data]
    assert md5x.digest_many(container(rng, rows)) == want
    assert md5x.hexdigest_many(container(rng, rows)) == [d.hex() for d in want]


@pytest.mark.parametrize("seed", SEEDS)
def test_digest_many_utf8(seed):
    rng = random.Random(seed)
    alphabet = rng.choice(["ab", "abcxyz019 ", "aé中🙂\0"])
    rows = []
    for _ in range(rng.choice([1, 50, 2000, 20_000])):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(rng.choice([10, 70, 300]))))
        rows.append(text if rng.random() < 0.8 else as_kind(rng, text.encode()))
    want = [hashlib.md5(r.encode() if isinstance(r, str) else r).digest() for r in rows]
    got = md5x.digest_many(container(rng, rows) if rng.random() < 0.5 else rows, encoding="utf-8")
    assert got == want


@pytest.mark.parametrize("seed", SEEDS)
def test_md5_object(seed):
    rng = random.Random(seed)
    ours, theirs = md5x.md5(), hashlib.md5()
    for _ in range(rng.randrange(20)):
        piece = rng.randbytes(length(rng))
        ours.update(as_kind(rng, piece))
        theirs.update(piece)
        if rng.random() < 0.2:
            ours, theirs = ours.copy(), theirs.copy()
    assert ours.digest() == theirs.digest()
    assert ours.hexdigest() == theirs.hexdigest()


TYPES = [pa.binary(), pa.large_binary(), pa.binary_view(), pa.string(), pa.large_string(), pa.string_view()]


@pytest.mark.parametrize("seed", SEEDS)
def test_hash_array(seed):
    rng = random.Random(seed)
    arrow_type = rng.choice(TYPES)
    text = pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type)
    n = rng.choice([0, 1, 7, 300, 5000])
    rows = []
    for _ in range(n):
        if rng.random() < 0.1:
            rows.append(None)
        elif text:
            rows.append("".join(rng.choice("aé🙂z") for _ in range(rng.randrange(rng.choice([4, 20, 200])))))
        else:
            rows.append(rng.randbytes(length(rng) % 3000))
    column = pa.array(rows, arrow_type)
    start = rng.randrange(n + 1)
    column = column.slice(start, rng.randrange(n - start + 1))
    rows = rows[start : start + len(column)]
    output = rng.choice(["hex", "binary", "base64"])
    if rng.random() < 0.3:
        column = pa.chunked_array([column, column.slice(len(column) // 2)], arrow_type)
        rows = rows + rows[len(rows) // 2 :]
    got = pa.array(md5x.hash_array(column, output=output)) if isinstance(column, pa.Array) else None
    if got is None:
        got = pa.chunked_array(md5x.hash_array(column, output=output))
    want = [None if r is None else encoded(hashlib.md5(r.encode() if isinstance(r, str) else r).digest(), output) for r in rows]
    assert got.to_pylist() == want


@pytest.mark.parametrize("seed", SEEDS[:12])
def test_files_and_etags(seed, tmp_path):
    rng = random.Random(seed)
    datas, paths = [], []
    for i in range(rng.choice([1, 3, 40])):
        data = rng.randbytes(rng.choice([0, 1, 64, 65 << 10, rng.randrange(300_000)]))
        path = tmp_path / f"f{i}"
        path.write_bytes(data)
        datas.append(data)
        paths.append(path)
    want = [hashlib.md5(d).digest() for d in datas]
    assert md5x.hash_files(paths, jobs=rng.randint(1, 4)) == want
    for data, path in zip(datas, paths[:5]):
        part = rng.choice([1 << 20, 5 << 20, rng.randint(1, max(1, len(data))) * 64 or 64])
        if len(data) // part >= 10_000:
            continue
        parts = [hashlib.md5(data[i : i + part]).digest() for i in range(0, len(data), part)]
        etag = hashlib.md5(data).hexdigest() if len(data) < part else f"{hashlib.md5(b''.join(parts)).hexdigest()}-{len(parts)}"
        assert md5x.s3_etag(path, part) == etag
        assert md5x.s3_etag(as_kind(rng, data), part) == etag
