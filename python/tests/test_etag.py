"""s3_etag against the ETag written out with hashlib."""

import errno
import hashlib
import os
import pathlib

import pytest

import md5x

MIB = 1 << 20


def oracle(data, part_size):
    """The AWS CLI's ETag: the plain MD5 under one part, else the MD5 of
    the parts' MD5s and the part count."""
    if len(data) < part_size:
        return hashlib.md5(data).hexdigest()
    parts = [data[i : i + part_size] for i in range(0, len(data), part_size)]
    inner = b"".join(hashlib.md5(p).digest() for p in parts)
    return f"{hashlib.md5(inner).hexdigest()}-{len(parts)}"


def test_known_answers():
    assert md5x.s3_etag(b"hello") == "5d41402abc4b2a76b9719d911017c592"
    assert md5x.s3_etag(b"hello", 3) == "554a2f6105cc700b8cc987b5ddfb8102-2"
    assert md5x.s3_etag(b"", 1) == "d41d8cd98f00b204e9800998ecf8427e"
    body = b"The quick brown fox jumps over the lazy dog"
    assert md5x.s3_etag(body, 16) == "07f49c9b2ef71fdd9908e9322307edc2-3"


@pytest.mark.parametrize(
    ("length", "part_size"),
    [
        (0, 1),
        (1, 1),
        (100, 1),
        (63, 64),
        (64, 64),
        (65, 64),
        (1000, 7),
        (5 * MIB - 1, 5 * MIB),
        (5 * MIB, 5 * MIB),
        (17 * MIB + 3, 5 * MIB),
        (20 * MIB, 8 * MIB),
        (3 * MIB, 8 * MIB),
    ],
)
def test_buffer_and_file(rng, tmp_path, length, part_size):
    data = rng.randbytes(length)
    want = oracle(data, part_size)
    assert md5x.s3_etag(data, part_size) == want
    assert md5x.s3_etag(bytearray(data), part_size) == want
    assert md5x.s3_etag(memoryview(data), part_size) == want
    path = tmp_path / "object"
    path.write_bytes(data)
    assert md5x.s3_etag(path, part_size) == want  # os.PathLike
    assert md5x.s3_etag(str(path), part_size) == want


def test_default_part_size(rng, tmp_path):
    data = rng.randbytes(9 * MIB)
    path = tmp_path / "object"
    path.write_bytes(data)
    assert md5x.s3_etag(path) == oracle(data, 8 * MIB)
    assert md5x.s3_etag(path).endswith("-2")
    assert md5x.s3_etag(data[: 8 * MIB - 1]) == hashlib.md5(data[: 8 * MIB - 1]).hexdigest()


def test_bytes_path(tmp_path):
    # A PathLike whose fspath is bytes is a path; a bytes object is data.
    class BytesPath:
        def __init__(self, p):
            self.p = p

        def __fspath__(self):
            return bytes(self.p)

    path = tmp_path / "object"
    path.write_bytes(b"contents")
    assert md5x.s3_etag(BytesPath(path)) == hashlib.md5(b"contents").hexdigest()
    assert md5x.s3_etag(bytes(path)) == hashlib.md5(bytes(path)).hexdigest()


def test_not_a_regular_file():
    # /proc files say they are empty: read in order, like a pipe.
    data = pathlib.Path("/proc/self/status").read_bytes()
    assert len(md5x.s3_etag("/proc/self/status")) == 32
    assert md5x.s3_etag("/dev/null") == hashlib.md5(b"").hexdigest()
    assert md5x.s3_etag("/dev/null", 1) == hashlib.md5(b"").hexdigest()
    assert data  # the file exists and has contents


@pytest.mark.parametrize("part_size", [0, -1, -(1 << 40)])
def test_bad_part_size(tmp_path, part_size):
    with pytest.raises(ValueError, match="part_size must be positive"):
        md5x.s3_etag(b"data", part_size)
    with pytest.raises(ValueError, match="part_size must be positive"):
        md5x.s3_etag(tmp_path, part_size)


def test_too_many_parts(tmp_path):
    with pytest.raises(ValueError, match="10000"):
        md5x.s3_etag(b"x" * 10_001, 1)
    assert md5x.s3_etag(b"x" * 10_000, 1).endswith("-10000")
    path = tmp_path / "object"
    path.write_bytes(b"x" * 10_001)
    with pytest.raises(ValueError, match="10000"):
        md5x.s3_etag(path, 1)


def test_file_errors(tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(FileNotFoundError) as err:
        md5x.s3_etag(missing)
    assert err.value.filename == missing
    with pytest.raises(FileNotFoundError) as err:
        md5x.s3_etag(str(missing))
    assert err.value.filename == str(missing)
    with pytest.raises(IsADirectoryError) as err:
        md5x.s3_etag(str(tmp_path))
    assert err.value.filename == str(tmp_path)
    with pytest.raises(ValueError, match="null byte"):
        md5x.s3_etag("a\0b")


@pytest.mark.parametrize("bad", [1, None, 2.5, ["a"]], ids=lambda b: type(b).__name__)
def test_bad_source(bad):
    with pytest.raises(TypeError, match="path .* or a buffer"):
        md5x.s3_etag(bad)


@pytest.mark.parametrize("part_size", [16, 64, 1 << 20])
@pytest.mark.parametrize("path", ["/proc/filesystems", "/proc/version"])
def test_files_whose_size_the_kernel_does_not_know(path, part_size):
    # procfs reports a size of 0 for files that are not empty: they are
    # read to their end, as a pipe is.
    data = pathlib.Path(path).read_bytes()
    assert os.stat(path).st_size == 0 and len(data) > 64
    assert md5x.s3_etag(path, part_size) == oracle(data, part_size)


def test_os_errors_keep_errno_and_message(tmp_path):
    file = tmp_path / "file"
    file.write_bytes(b"x")
    for call in (md5x.s3_etag, lambda p: md5x.hash_files([p])):
        with pytest.raises(NotADirectoryError) as err:
            call(file / "child")
        assert err.value.errno == errno.ENOTDIR
        assert err.value.strerror == os.strerror(errno.ENOTDIR)
        assert err.value.filename == file / "child"
