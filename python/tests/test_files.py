"""hash_files against hashlib.file_digest per file."""

import hashlib
import os
import pathlib

import pytest

import md5x
from conftest import EDGES, isolated

SIZES = EDGES + [4095, 4096, 65_535, 65_536, 65_537, 32_768 * 3, 100_000, 1 << 20, (1 << 20) + 17]


def file_md5(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "md5").digest()


@pytest.fixture
def files(rng, tmp_path):
    paths = []
    for i in range(400):
        path = tmp_path / f"f{i}"
        path.write_bytes(rng.randbytes(rng.choice(SIZES)))
        paths.append(path)
    return paths


@pytest.mark.parametrize("jobs", [None, 1, 2, 3, 64])
def test_many_files(files, jobs):
    want = [file_md5(p) for p in files]
    assert md5x.hash_files(files, jobs=jobs) == want


def test_path_types(files):
    want = [file_md5(p) for p in files[:20]]
    assert md5x.hash_files([str(p) for p in files[:20]]) == want
    assert md5x.hash_files([os.fsencode(p) for p in files[:20]]) == want
    assert md5x.hash_files(iter(files[:20])) == want
    assert md5x.hash_files([]) == []


def test_one_path_many_times(files):
    assert md5x.hash_files([files[0]] * 100) == [file_md5(files[0])] * 100


def test_missing_file_names_it(files, tmp_path):
    missing = tmp_path / "missing"
    for jobs in (1, 4):
        with pytest.raises(FileNotFoundError) as err:
            md5x.hash_files(files[:50] + [missing] + files[50:], jobs=jobs)
        assert err.value.filename == missing
        assert err.value.errno == 2


def test_first_error_in_order(files, tmp_path):
    first, second = tmp_path / "missing1", tmp_path / "missing2"
    for jobs in (1, 2, 8):
        with pytest.raises(FileNotFoundError) as err:
            md5x.hash_files(files[:100] + [first] + files[100:300] + [second], jobs=jobs)
        assert err.value.filename == first


def test_directory(files, tmp_path):
    with pytest.raises(IsADirectoryError) as err:
        md5x.hash_files([files[0], str(tmp_path)])
    assert err.value.filename == str(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_permission(tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(b"x")
    path.chmod(0)
    with pytest.raises(PermissionError) as err:
        md5x.hash_files([path])
    assert err.value.filename == path


def test_unreadable_in_the_middle_of_large_ones(rng, tmp_path):
    big = []
    for i in range(40):
        path = tmp_path / f"big{i}"
        path.write_bytes(rng.randbytes(300_000))
        big.append(path)
    with pytest.raises(IsADirectoryError):
        md5x.hash_files(big[:20] + [tmp_path] + big[20:], jobs=2)
    assert md5x.hash_files(big, jobs=2) == [file_md5(p) for p in big]


def test_not_regular_files():
    assert md5x.hash_files(["/dev/null"]) == [hashlib.md5(b"").digest()]
    # /proc files say they are empty and are not: read to their end.
    status = md5x.hash_files(["/proc/self/cmdline"])[0]
    assert len(status) == 16


@pytest.mark.parametrize("jobs", [0, -1])
def test_bad_jobs(files, jobs):
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        md5x.hash_files(files, jobs=jobs)


def test_bad_paths():
    with pytest.raises(TypeError, match=r"^path 1: expected str, bytes or os.PathLike object, not int$"):
        md5x.hash_files(["a", 5])
    with pytest.raises(ValueError, match=r"^path 0: embedded null byte$"):
        md5x.hash_files(["a\0b"])
    with pytest.raises(TypeError):
        md5x.hash_files(5)


@pytest.mark.parametrize("path", ["/etc/passwd", b"/etc/passwd", pathlib.PurePosixPath("/etc/passwd")])
def test_one_path_for_paths_is_a_type_error(path):
    # Not read as one path per character ("/", "e", ...).
    kind = type(path).__name__
    message = rf"^hash_files takes an iterable of paths, not one path \({kind}\): pass \[path\]$"
    with pytest.raises(TypeError, match=message):
        md5x.hash_files(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_releases_gil(tmp_path):
    # A handshake, not a measure: among the files is a FIFO whose only
    # writer is another Python thread. Its open returns once hash_files has
    # opened the FIFO, and hash_files reaches the FIFO's end only once that
    # thread has written and closed it: the call finishes only if the
    # thread ran Python code while the call was in progress. A call that
    # held the GIL would hang, and fail here when killed.
    paths = []
    for i in range(8):
        path = tmp_path / f"g{i}"
        path.write_bytes(bytes([i]) * (1 << 20))
        paths.append(str(path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = bytes(range(256)) * 4096
    code = f"""
import threading
import md5x

def writer():
    with open({str(fifo)!r}, "wb") as f:
        f.write(bytes(range(256)) * 4096)

threading.Thread(target=writer, daemon=True).start()
print(md5x.hash_files({paths!r}[:4] + [{str(fifo)!r}] + {paths!r}[4:], jobs=1))
"""
    done = isolated(code, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    want = [file_md5(p) for p in paths[:4]] + [hashlib.md5(data).digest()] + [file_md5(p) for p in paths[4:]]
    assert done.stdout == f"{want}\n"


@pytest.mark.parametrize("path", ["/proc/filesystems", "/proc/version"])
def test_files_whose_size_the_kernel_does_not_know(path):
    # procfs reports a size of 0: read to the end.
    with open(path, "rb") as f:
        want = hashlib.md5(f.read()).digest()
    assert md5x.hash_files([path, path], jobs=2) == [want, want]
