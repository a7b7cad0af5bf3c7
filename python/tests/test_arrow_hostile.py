"""hash_array on Arrow structs whose fields lie: lengths and offsets that
no real array has, schemas that never end, offsets rewritten while they
are read. Each is refused with ValueError or TypeError, before anything
is allocated or read; none crashes, hangs or returns a wrong digest.

The cases that crashed or ate all memory before they were refused run in
a fresh process with bounded memory (`isolated`)."""

import hashlib
import textwrap
import threading

import numpy as np
import pyarrow as pa
import pytest

import md5x
from conftest import isolated

# The producer of every isolated case: a utf8 array over 3 real offsets
# and 5 real bytes, or a binary_view array over 2 real views and no data
# buffer, with the length and offset given.
PRELUDE = """
import ctypes, struct
import md5x
from _cdata import Producer, buffer, schema

def utf8(length, offset):
    offsets = buffer(struct.pack("<3i", 0, 2, 5))
    return Producer(schema(b"u"), length, [None, offsets, buffer(b"hello")], offset=offset)

def views(length, offset=0):
    view = struct.pack("<i12s", 3, b"abc")
    return Producer(schema(b"vz"), length, [None, buffer(view * 2), buffer(b"")], offset=offset)

def refused(array, output):
    try:
        md5x.hash_array(array, output)
    except ValueError as e:
        print("ValueError", e)
    else:
        print("accepted")
"""

# (array, why it cannot be a real array)
IMPOSSIBLE = [
    ("views(2**60 + 1)", "2**60 + 1 views of 16 bytes wrap a 64-bit length"),
    ("views(2**59)", "2**59 views: 2**63 bytes, more than any address space"),
    ("views(1, offset=2**62)", "the views' window starts past any address"),
    ("utf8(1, 2**62)", "offsets from 2**62: the pointer wraps"),
    ("utf8(2**63 - 1, 2**63 - 1)", "offset = length = i64::MAX"),
    ("utf8(1, 2**63 - 2)", "offset + length + 1 = i64::MAX"),
    ("utf8(2**61, 0)", "2**61 + 1 offsets of 4 bytes: 2**63 + 4 bytes"),
]


@pytest.mark.parametrize("output", ["hex", "binary", "base64"])
@pytest.mark.parametrize("array", [a for a, _ in IMPOSSIBLE])
def test_impossible_lengths_and_offsets_raise_value_error(array, output):
    code = PRELUDE + f"refused({array}, {output!r})\n"
    done = isolated(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ValueError"), done.stdout


def test_real_arrays_of_the_same_producer_are_hashed():
    # The producer of the isolated cases, with true fields.
    code = PRELUDE + textwrap.dedent(
        """
        import hashlib, pyarrow as pa
        got = pa.array(md5x.hash_array(utf8(2, 0))).to_pylist()
        assert got == [hashlib.md5(r).hexdigest() for r in (b"he", b"llo")], got
        got = pa.array(md5x.hash_array(utf8(1, 1))).to_pylist()
        assert got == [hashlib.md5(b"llo").hexdigest()], got
        got = pa.array(md5x.hash_array(views(2), "binary")).to_pylist()
        assert got == [hashlib.md5(b"abc").digest()] * 2, got
        print("ok")
        """
    )
    done = isolated(code, memory=16 << 30)
    assert done.stdout == "ok\n", done.stderr[-2000:]


def test_a_schema_that_never_ends_is_described_in_bounded_work():
    # A struct whose 64 children are itself: 64**17 nodes to depth 16.
    code = textwrap.dedent(
        """
        import md5x
        from _cdata import Producer, buffer, cyclic_schema, schema, schema_capsule
        root = cyclic_schema()
        try:
            md5x.hash_array(Producer(root, 0, [None]))
        except TypeError as e:
            assert "struct<loop: struct<" in str(e), e
            assert len(str(e)) < 100_000, len(str(e))
        empty = Producer(schema(b"u"), 0, [None, buffer(b"\\0" * 4), None])
        result = md5x.hash_array(empty)
        try:
            # hash_array released `root`: another one.
            result.__arrow_c_array__(schema_capsule(cyclic_schema()))
        except ValueError as e:
            assert "cannot export them as struct<" in str(e), e
            assert len(str(e)) < 100_000, len(str(e))
        print("ok")
        """
    )
    done = isolated(code)
    assert done.stdout == "ok\n", done.stderr[-2000:]


def test_offsets_rewritten_while_hashing_never_panic():
    # Another thread makes the offsets decrease and mends them, again and
    # again, while hash_array reads them: each call gives the digests of
    # the mended offsets or raises ValueError, never PanicException.
    n = 200_000
    rows = [bytes([i % 251]) * (i % 7) for i in range(n)]
    offsets = np.cumsum([0] + [len(r) for r in rows]).astype(np.int32)
    values = pa.py_buffer(b"".join(rows))
    column = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), values])
    want = [hashlib.md5(r).hexdigest() for r in rows]
    stop = threading.Event()
    good = offsets[n // 2]

    def vandal():
        while not stop.is_set():
            offsets[n // 2] = 1 << 30
            offsets[n // 2] = good

    thread = threading.Thread(target=vandal)
    thread.start()
    outcomes = set()
    try:
        for _ in range(60):
            try:
                got = pa.array(md5x.hash_array(column)).to_pylist()
            except ValueError:
                outcomes.add("ValueError")
            else:
                outcomes.add("hashed")
                # Only the rows next to the rewritten offset may differ.
                wrong = [i for i in range(n) if got[i] != want[i]]
                assert set(wrong) <= {n // 2 - 1, n // 2}, wrong[:5]
    finally:
        stop.set()
        thread.join()
    assert outcomes
