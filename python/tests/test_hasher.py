"""md5x.md5 against hashlib.md5: same digests, same shape, same errors."""

import array
import hashlib
import pickle
import threading

import numpy as np
import pytest

import md5x
from conftest import EDGES, gil_data, held_gil, released_gil


def both(data=b""):
    return md5x.md5(data), hashlib.md5(data)


def test_attributes():
    h = md5x.md5()
    assert (h.name, h.digest_size, h.block_size) == ("md5", 16, 64)
    assert md5x.md5().hexdigest() == "d41d8cd98f00b204e9800998ecf8427e"
    assert md5x.md5(b"abc").digest() == bytes.fromhex("900150983cd24fb0d6963f7d28e17f72")
    assert md5x.md5(b"", usedforsecurity=False).hexdigest() == hashlib.md5(b"").hexdigest()
    assert "hashlib.md5" in md5x.md5.__doc__
    for method in ("update", "digest", "hexdigest", "copy"):
        assert getattr(md5x.md5, method).__doc__


@pytest.mark.parametrize("length", list(range(201)) + EDGES)
def test_lengths(rng, length):
    data = rng.randbytes(length)
    ours, theirs = both(data)
    assert ours.digest() == theirs.digest()
    assert ours.hexdigest() == theirs.hexdigest()


def test_splits(rng):
    # Each message in many splits, across block boundaries.
    for length in EDGES + [200, 1000, 5000, 70_000]:
        data = rng.randbytes(length)
        expected = hashlib.md5(data).digest()
        for _ in range(20):
            h = md5x.md5()
            at = 0
            while at < length:
                step = rng.choice([1, 3, 55, 56, 63, 64, 65, 100, 2047, 2048, 4096])
                h.update(data[at : at + step])
                at += step
            assert h.digest() == expected, length


def test_long(rng):
    data = rng.randbytes(3 << 20)
    assert md5x.md5(data).digest() == hashlib.md5(data).digest()
    h = md5x.md5()
    for i in range(0, len(data), 1 << 20):
        h.update(memoryview(data)[i : i + (1 << 20)])
    assert h.digest() == hashlib.md5(data).digest()


def test_update_after_digest_and_copy(rng):
    ours, theirs = both(b"head")
    assert ours.digest() == theirs.digest()
    ours.update(b"tail")
    theirs.update(b"tail")
    assert ours.hexdigest() == theirs.hexdigest()
    fork = ours.copy()
    fork.update(b"more")
    theirs_fork = theirs.copy()
    theirs_fork.update(b"more")
    assert fork.digest() == theirs_fork.digest()
    assert ours.digest() == theirs.digest()  # the original did not move
    assert type(fork) is md5x.md5


@pytest.mark.parametrize(
    "data",
    [
        bytearray(b"bytearray data"),
        memoryview(b"a memoryview"),
        memoryview(b"0123456789")[2:7],
        array.array("i", range(100)),
        np.arange(1000, dtype=np.float64),
        np.arange(1000, dtype=np.uint16).reshape(10, 100),
        np.array([], dtype=np.int32),
        np.arange(24, dtype=np.int8).reshape(2, 3, 4),
    ],
    ids=lambda d: type(d).__name__,
)
def test_buffers(data):
    # Any C-contiguous buffer is hashed as its raw bytes, as hashlib does.
    assert md5x.md5(data).digest() == hashlib.md5(data).digest()
    h = md5x.md5()
    h.update(data)
    assert h.digest() == hashlib.md5(data).digest()


@pytest.mark.parametrize(
    "bad",
    ["text", 1, 1.5, None, [1, 2], object()],
    ids=lambda b: type(b).__name__,
)
def test_non_buffers_raise_as_hashlib(bad):
    with pytest.raises(TypeError) as theirs:
        hashlib.md5().update(bad)
    with pytest.raises(TypeError) as ours:
        md5x.md5().update(bad)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError) as theirs:
        hashlib.md5(bad)
    with pytest.raises(TypeError) as ours:
        md5x.md5(bad)
    assert str(ours.value) == str(theirs.value)


def test_non_contiguous_raise_as_hashlib():
    strided = memoryview(b"abcdefgh")[::2]
    transposed = np.zeros((4, 3)).T
    for bad in (strided, transposed):
        with pytest.raises(Exception) as theirs:
            hashlib.md5(bad)
        with pytest.raises(Exception) as ours:
            md5x.md5(bad)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)


def test_signature_as_hashlib():
    with pytest.raises(TypeError):
        md5x.md5(data=b"x")  # positional only
    with pytest.raises(TypeError):
        md5x.md5(b"x", True)  # usedforsecurity is keyword only
    with pytest.raises(TypeError):
        pickle.dumps(md5x.md5())
    with pytest.raises(TypeError):

        class Sub(md5x.md5):  # final, as hashlib's type
            pass


def test_buffer_held_during_update():
    # While md5x reads a bytearray, it cannot be resized under it; after, it can.
    data = bytearray(1 << 20)
    md5x.md5(data)
    data.extend(b"x")
    assert md5x.md5(data).digest() == hashlib.md5(data).digest()


def test_gil_probe_controls():
    # The probe sees a call that lets the GIL go while it reads (hashlib's,
    # over 2 KiB) finish, and one that holds it (a copy) never finish.
    size = 1 << 20
    assert released_gil("hashlib.md5(PAGES.view).digest()", size) == hashlib.md5(gil_data(size)).digest()
    assert held_gil("bytes(PAGES.view)", size)


def test_large_update_releases_gil():
    size = 16 << 20
    got = released_gil("(H.update(PAGES.view), H.digest())[1]", size, setup="H = md5x.md5()")
    assert got == hashlib.md5(gil_data(size)).digest()


def test_threads_share_one_object():
    # Updates from several threads serialize. Every update is whole blocks
    # of one 64-byte pattern, so the digest is the same in any order, and
    # a lost or torn update shows; large ones hash with the GIL released,
    # small ones under it.
    block = bytes(range(64))
    large, small = block * 256, block
    h = md5x.md5()

    def work():
        for _ in range(100):
            h.update(large)
            h.update(small)
            h.digest()
            h.copy()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.digest() == hashlib.md5(block * (257 * 100 * 4)).digest()


def test_public_names_documented():
    for name in md5x.__all__:
        if name != "__version__":
            assert getattr(md5x, name).__doc__, name
    assert md5x.__version__ == "0.1.0"
