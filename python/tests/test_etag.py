"""s3_etag against the ETag written out with hashlib, in the part size
the AWS CLI's own code (s3transfer) gives."""

import errno
import hashlib
import os
import pathlib
import threading

import pytest
from s3transfer.utils import (
    MAX_SINGLE_UPLOAD_SIZE,
    MIN_UPLOAD_CHUNKSIZE,
    ChunksizeAdjuster,
)

import md5x

MIB = 1 << 20


def cli_part_size(chunksize, length):
    """The part size s3transfer (the AWS CLI's and boto3's uploads) gives
    an object of ``length`` bytes for ``multipart_chunksize = chunksize``:
    doubled until it fits in 10,000 parts, then kept within S3's 5 MiB to
    5 GiB, bounds widened to take in a chunk size outside them, which md5x
    keeps as given."""
    adjuster = ChunksizeAdjuster(
        min_size=min(chunksize, MIN_UPLOAD_CHUNKSIZE),
        max_size=max(chunksize, MAX_SINGLE_UPLOAD_SIZE),
    )
    return adjuster.adjust_chunksize(chunksize, length)


def oracle(data, part_size, threshold=None):
    """The AWS CLI's ETag: the plain MD5 under the threshold, else the MD5
    of the parts' MD5s and the part count, in s3transfer's part size."""
    if len(data) < (part_size if threshold is None else threshold):
        return hashlib.md5(data).hexdigest()
    part_size = cli_part_size(part_size, len(data))
    parts = [data[i : i + part_size] for i in range(0, len(data), part_size)] or [b""]
    inner = b"".join(hashlib.md5(p).digest() for p in parts)
    return f"{hashlib.md5(inner).hexdigest()}-{len(parts)}"


def zeros_oracle(length, part_size):
    """The multipart ETag of ``length`` zero bytes in parts of
    ``part_size``: the MD5 of a full part of zeros computed once."""
    full, rest = divmod(length, part_size)
    digests = [hashlib.md5(bytes(part_size)).digest()] * full
    if rest:
        digests.append(hashlib.md5(bytes(rest)).digest())
    return f"{hashlib.md5(b''.join(digests)).hexdigest()}-{len(digests)}"


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


@pytest.mark.parametrize("length", [10_000, 10_001, 20_000, 20_001, 40_001])
def test_past_10000_parts_the_part_size_doubles(rng, tmp_path, length):
    # Parts of 1 byte, kept as given, doubled as s3transfer doubles them.
    data = rng.randbytes(length)
    want = oracle(data, 1)
    assert want.endswith(f"-{-(-length // cli_part_size(1, length))}")
    assert md5x.s3_etag(data, 1) == want
    path = tmp_path / "object"
    path.write_bytes(data)
    assert md5x.s3_etag(path, 1) == want


def test_the_rule_at_s3_part_sizes():
    # s3transfer's own adjuster, unwidened, where the chunk size is within
    # S3's bounds: the rule md5x keeps.
    for chunk in (5 * MIB, 8 * MIB, 15 * MIB):
        for length in (10_000 * chunk, 10_000 * chunk + 1, 40_001 * chunk):
            assert cli_part_size(chunk, length) == ChunksizeAdjuster().adjust_chunksize(
                chunk, length
            )


def test_a_stream_past_10000_parts(tmp_path):
    # A FIFO's length is not known when it is cut: no doubling (the CLI's
    # upload of a stream fails there too).
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as f:
            f.write(b"x" * 10_001)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with pytest.raises(ValueError, match="10000"):
            md5x.s3_etag(fifo, 1)
    finally:
        writer.join()


@pytest.mark.parametrize(
    ("length", "part_size", "threshold"),
    [
        (0, 64, 0),
        (100, 64, 0),
        (63, 64, 50),
        (49, 64, 50),
        (50, 64, 50),
        (200, 64, 300),
        (299, 64, 300),
        (300, 64, 300),
        (1000, 7, 999),
        (5 * MIB, 8 * MIB, 5 * MIB),
        (10 * MIB, 16 * MIB, 8 * MIB),
    ],
)
def test_threshold(rng, tmp_path, length, part_size, threshold):
    # multipart_threshold apart from multipart_chunksize.
    data = rng.randbytes(length)
    want = oracle(data, part_size, threshold)
    assert md5x.s3_etag(data, part_size, threshold=threshold) == want
    path = tmp_path / "object"
    path.write_bytes(data)
    assert md5x.s3_etag(path, part_size, threshold=threshold) == want
    assert md5x.s3_etag(data, part_size, threshold=None) == oracle(data, part_size)


@pytest.mark.parametrize("threshold", [-1, -(1 << 40)])
def test_bad_threshold(threshold):
    with pytest.raises(ValueError, match="threshold must be 0 or more"):
        md5x.s3_etag(b"data", 1, threshold=threshold)


@pytest.mark.skipif(
    not os.environ.get("MD5X_SLOW"),
    reason="reads 127 GiB of sparse files, minutes: MD5X_SLOW=1 runs it",
)
@pytest.mark.parametrize("part_size", [8 * MIB, 5 * MIB])
def test_sparse_file_past_10000_parts(tmp_path, part_size):
    # 10,001 parts of the AWS CLI's 8 MiB and of rclone's 5 MiB, written as
    # a sparse file (no disk used): 5,001 parts of twice the size.
    path = tmp_path / "sparse"
    length = 10_001 * part_size
    with open(path, "wb") as f:
        f.truncate(length)
    adjusted = ChunksizeAdjuster().adjust_chunksize(part_size, length)
    assert adjusted == 2 * part_size
    want = zeros_oracle(length, adjusted)
    assert want.endswith("-5001")
    assert md5x.s3_etag(path, part_size) == want


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
