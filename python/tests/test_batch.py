"""digest_many and hexdigest_many against a hashlib loop."""

import array
import hashlib
import threading

import numpy as np
import pytest

import md5x
from conftest import EDGES, gil_data, random_rows, released_gil


def expected(rows):
    return [hashlib.md5(r).digest() for r in rows]


def test_random_rows(rng):
    rows = random_rows(rng, 5000)
    assert md5x.digest_many(rows) == expected(rows)
    assert md5x.hexdigest_many(rows) == [hashlib.md5(r).hexdigest() for r in rows]


def test_edges_and_long(rng):
    rows = [rng.randbytes(n) for n in EDGES * 3]
    rows += [rng.randbytes(n) for n in (1000, 65_536, 100_003, 3 << 20)]
    rng.shuffle(rows)
    assert md5x.digest_many(rows) == expected(rows)


@pytest.mark.parametrize("count", [0, 1, 2, 31, 32, 33, 64, 16_383, 16_384, 16_385, 40_000])
def test_counts_across_chunks(rng, count):
    # Counts around the widest kernel's lanes and the 16K-row chunks.
    rows = random_rows(rng, count, 0, 80)
    assert md5x.digest_many(rows) == expected(rows)
    assert md5x.hexdigest_many(iter(rows)) == [d.hex() for d in expected(rows)]


def test_any_iterable_and_buffer(rng):
    rows = random_rows(rng, 300)
    mixed = []
    for i, r in enumerate(rows):
        kind = i % 6
        if kind == 1:
            r = bytearray(r)
        elif kind == 2:
            r = memoryview(r)
        elif kind == 3:
            r = np.frombuffer(r, dtype=np.uint8)
        elif kind == 4 and len(r) % 4 == 0:
            r = array.array("i", r)
        elif kind == 5 and len(r) % 8 == 0:
            r = np.frombuffer(r, dtype=np.float64)
        mixed.append(r)
    want = expected(rows)
    assert md5x.digest_many(mixed) == want
    assert md5x.digest_many(tuple(mixed)) == want
    assert md5x.digest_many(iter(mixed)) == want
    assert md5x.digest_many(r for r in mixed) == want
    assert md5x.hexdigest_many(mixed) == [d.hex() for d in want]


def test_bytes_subclass(rng):
    class Tagged(bytes):
        pass

    rows = [Tagged(rng.randbytes(n)) for n in (0, 10, 100, 1000)]
    assert md5x.digest_many(rows) == expected(rows)


def test_empty():
    assert md5x.digest_many([]) == []
    assert md5x.hexdigest_many(iter([])) == []
    assert md5x.digest_many([b""]) == [hashlib.md5(b"").digest()]


@pytest.mark.parametrize("fn", [md5x.digest_many, md5x.hexdigest_many])
def test_non_buffer_row_names_its_index(fn):
    with pytest.raises(TypeError, match=r"^row 3: Strings must be encoded before hashing$"):
        fn([b"a", b"b", b"c", "d"])
    with pytest.raises(TypeError, match=r"^row 1: object supporting the buffer API required$"):
        fn([b"a", 5])
    with pytest.raises(TypeError, match=r"^row 20000: "):
        fn([b"x"] * 20_000 + [None])
    with pytest.raises(TypeError):
        fn(5)  # not iterable


@pytest.mark.parametrize("fn", [md5x.digest_many, md5x.hexdigest_many])
@pytest.mark.parametrize("row", ["abc", b"abc"])
def test_one_row_for_rows_is_a_type_error(fn, row):
    # Not its characters (or bytes) hashed one a row.
    message = rf"^rows must be an iterable of rows, not one row \({type(row).__name__}\): pass \[row\]$"
    with pytest.raises(TypeError, match=message):
        fn(row, encoding="utf-8")
    with pytest.raises(TypeError, match="not one row"):
        fn(row)


def test_exporter_error_keeps_its_type():
    strided = memoryview(b"abcdefgh")[::2]
    with pytest.raises(BufferError) as err:
        md5x.digest_many([b"ok", strided])
    assert "in row 1" in getattr(err.value, "__notes__", [])


def test_iterator_error_propagates():
    def rows():
        yield b"a"
        raise KeyError("from the iterator")

    with pytest.raises(KeyError):
        md5x.digest_many(rows())


def rows_of_pages(count, size):
    """released_gil's setup for ROWS, `count` rows of `size` bytes read in
    place from its pages, and the rows' bytes."""
    setup = f"ROWS = [PAGES.view[i * {size} : (i + 1) * {size}] for i in range({count})]"
    data = gil_data(count * size)
    return setup, [data[i * size : (i + 1) * size] for i in range(count)]


def test_large_batch_releases_gil():
    setup, rows = rows_of_pages(24, 4 << 20)
    assert released_gil("md5x.digest_many(ROWS)", 24 * (4 << 20), setup) == expected(rows)


def test_buffers_held_while_hashing():
    # A row's bytearray cannot be resized while it is read; after, it can.
    row = bytearray(1 << 20)
    md5x.digest_many([row, row])
    row.extend(b"x")
    assert md5x.digest_many([row]) == expected([row])


def test_many_chunks_release_gil():
    # Past one chunk, a thread hashes while the caller reads and waits
    # with the GIL released.
    setup, rows = rows_of_pages(40_000, 4096)
    assert released_gil("md5x.digest_many(ROWS)", 40_000 * 4096, setup) == expected(rows)


def test_error_while_a_chunk_is_hashed(rng):
    # The error comes while the chunk before it is being hashed; the rows
    # held for it are released once, after.
    rows = [bytearray(rng.randbytes(100)) for _ in range(20_000)]
    with pytest.raises(TypeError, match="^row 19999: "):
        md5x.digest_many(rows[:-1] + [1.5])
    for r in rows:
        r.extend(b"x")  # every view was released
    assert md5x.digest_many(rows) == expected(rows)


def test_list_and_tuple_subclasses_iterate_as_python_does(rng):
    # An exact list or tuple is read by index; a subclass through its own
    # __iter__, as a `for` loop reads it.
    class Reversed(list):
        def __iter__(self):
            return iter(self[::-1])

    rows = random_rows(rng, 20_000, 0, 100)
    assert md5x.digest_many(Reversed(rows)) == expected(rows[::-1])
    assert md5x.hexdigest_many(tuple(rows)) == [d.hex() for d in expected(rows)]


def _fresh(i):
    # A new object each call: only the list refers to it.
    return i.to_bytes(4, "little") * 25


def test_list_rows_replaced_while_hashing(rng):
    # While a chunk is hashed the GIL is released, and another thread may
    # replace the list's rows, dropping the last reference to the old ones:
    # each digest is then of the row read at its index, old or new, and the
    # rows read in place (over 64 bytes) stay alive until they are hashed.
    n = 100_000
    rows = [bytes(rng.randbytes(100)) for _ in range(n)]
    old = expected(rows)
    stop = threading.Event()

    def replace():
        i = 0
        while not stop.is_set():
            rows[i % n] = _fresh(i % n)
            i += 7919

    thread = threading.Thread(target=replace)
    thread.start()
    try:
        out = md5x.digest_many(rows)
    finally:
        stop.set()
        thread.join()
    assert len(out) == n
    for i, d in enumerate(out):
        assert d in (old[i], hashlib.md5(_fresh(i)).digest())


def test_list_shrunk_while_hashing(rng):
    # Rows read until the list ends, as list iteration reads them: a list
    # cut short by another thread gives the digests of the rows it had.
    n = 100_000
    rows = random_rows(rng, n, 0, 100)
    want = expected(rows)

    def cut():
        del rows[n // 2 :]

    thread = threading.Thread(target=cut)
    thread.start()
    try:
        out = md5x.digest_many(rows)
    finally:
        thread.join()
    assert n // 2 <= len(out) <= n
    assert out == want[: len(out)]


# An iterator may hand out one buffer again and again, refilled: each row
# is hashed as it was when it came, as a hashlib loop hashes it.


@pytest.mark.parametrize("size", [1, 64, 65, 100, 4096, 1 << 20, 9 << 20])
def test_iterator_refilling_one_buffer(size):
    def rows():
        b = bytearray(size)
        for c in b"ABCDEFGH" * 3:
            b[:] = bytes([c]) * size
            yield b

    want = [hashlib.md5(bytes(r)).digest() for r in rows()]
    assert len(set(want)) == 8
    assert md5x.digest_many(rows()) == want
    assert md5x.hexdigest_many(rows()) == [d.hex() for d in want]


def test_file_read_in_chunks_through_one_buffer(rng, tmp_path):
    # The usual way to read a file in chunks: readinto one buffer, yield a
    # view of what was read.
    data = rng.randbytes(256 * 1000 + 17)
    path = tmp_path / "data"
    path.write_bytes(data)

    def chunks(f, buf):
        while n := f.readinto(buf):
            yield memoryview(buf)[:n]

    want = [hashlib.md5(data[i : i + 1000]).digest() for i in range(0, len(data), 1000)]
    with open(path, "rb") as f:
        assert md5x.digest_many(chunks(f, bytearray(1000))) == want


def test_iterator_resizing_its_buffer():
    # No view of an earlier row is held when the iterator runs again, so
    # it may resize the buffer it handed out.
    def rows():
        b = bytearray()
        for n in range(0, 300, 7):
            b.extend(bytes([n % 256]) * 7)
            yield b

    want = [hashlib.md5(bytes(r)).digest() for r in rows()]
    assert md5x.digest_many(rows()) == want


def test_iterator_of_many_reused_rows_across_chunks():
    # More rows than a chunk holds, each over the bytes copied in a chunk.
    def rows():
        b = bytearray(3000)
        for i in range(20_000):
            b[:4] = i.to_bytes(4, "little")
            yield b

    want = [hashlib.md5(bytes(r)).digest() for r in rows()]
    assert md5x.digest_many(rows()) == want


# encoding="utf-8": str rows hashed as their UTF-8 bytes, read in place.


def text_rows(rng, count):
    alphabet = "abcxyz019 é中🙂"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(80))) for _ in range(count)]


@pytest.mark.parametrize("encoding", ["utf-8", "UTF-8", "utf8", "utf_8"])
def test_utf8_str_rows(rng, encoding):
    rows = text_rows(rng, 3000) + ["a" * n for n in EDGES] + ["é" * 40, "🙂" * 20]
    want = [hashlib.md5(s.encode()).digest() for s in rows]
    assert md5x.digest_many(rows, encoding=encoding) == want
    assert md5x.hexdigest_many(tuple(rows), encoding=encoding) == [d.hex() for d in want]
    assert md5x.digest_many(iter(rows), encoding=encoding) == want


def test_utf8_mixed_with_buffers_and_str_subclasses(rng):
    class Name(str):
        pass

    rows = [b"bytes", "text", bytearray(b"ba"), Name("sub" * 30), memoryview(b"mv"), "ü" * 50]
    want = [hashlib.md5(r.encode() if isinstance(r, str) else r).digest() for r in rows]
    assert md5x.digest_many(rows, encoding="utf-8") == want


def test_utf8_many_chunks(rng):
    rows = [f"row {i} " * (i % 13) for i in range(40_000)]
    want = [hashlib.md5(s.encode()).hexdigest() for s in rows]
    assert md5x.hexdigest_many(rows, encoding="utf-8") == want


def test_str_without_encoding_is_hashlibs_type_error():
    with pytest.raises(TypeError, match="^row 1: Strings must be encoded before hashing$"):
        md5x.digest_many([b"a", "b"])
    with pytest.raises(TypeError, match="Strings must be encoded"):
        md5x.hexdigest_many(["b"], encoding=None)


def test_unencodable_str_names_its_row():
    with pytest.raises(UnicodeEncodeError) as err:
        md5x.digest_many(["ok", "lone \ud800 surrogate"], encoding="utf-8")
    assert "in row 1" in getattr(err.value, "__notes__", [])


@pytest.mark.parametrize("encoding", ["latin-1", "ascii", "utf-16", ""])
def test_other_encodings_raise_value_error(encoding):
    with pytest.raises(ValueError, match="encoding must be"):
        md5x.digest_many(["a"], encoding=encoding)
