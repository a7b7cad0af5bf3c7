"""Ctrl-C during a long call: every md5x call that can run for more than
a fraction of a second notices a pending SIGINT within about a second,
stops its threads and raises KeyboardInterrupt, as a Python loop would.

Each case runs in a fresh Python that sends itself SIGINT once the call
is in progress (a handshake, not a delay) and reports whether the call
gave up with KeyboardInterrupt. Each call would run far longer than the
test by itself (an endless input, or tens of GiB); one that ignores the
signal finishes or shows as a timeout here. How soon it gives up depends
on the machine's load, so it is no verdict."""

import os
import textwrap
import threading

import pyarrow as pa
import pytest

import md5x
from conftest import isolated

HARNESS = """
import os, signal, sys, threading, time
import md5x

CALLS = {md5x.hash_files, md5x.s3_etag, md5x.digest_many, md5x.hexdigest_many, md5x.hash_array}

def interrupted(call):
    # SIGINT while the md5x call is in progress, by a handshake: a profile
    # hook sees the call begin, and the sending thread, woken by it, needs
    # the GIL to send, which it gets only once the call lets it go.
    begun = threading.Event()
    def hook(frame, event, arg):
        if event == "c_call" and arg in CALLS:
            begun.set()
    def send():
        begun.wait()
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=send, daemon=True).start()
    sys.setprofile(hook)
    try:
        call()
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    else:
        print("finished")
    finally:
        sys.setprofile(None)
"""


def check_interrupted(setup, call, timeout=300):
    code = HARNESS + textwrap.dedent(setup) + f"\ninterrupted(lambda: {call})\n"
    done = isolated(code, timeout=timeout, memory=32 << 30)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "KeyboardInterrupt\n"


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("call", ["md5x.hash_files([FIFO])", "md5x.s3_etag(FIFO)"])
def test_fifo_without_writer(fifo, call):
    check_interrupted(f"FIFO = {fifo!r}", call)


@pytest.mark.parametrize("call", ["md5x.hash_files([FIFO])", "md5x.s3_etag(FIFO)"])
def test_fifo_whose_writer_is_silent(fifo, call):
    # A writer opens the FIFO and writes nothing: a read waits.
    setup = f"""
    FIFO = {fifo!r}
    def writer():
        with open(FIFO, "wb") as f:
            f.write(b"x")
            f.flush()
            threading.Event().wait()  # open until the process ends
    threading.Thread(target=writer, daemon=True).start()
    """
    check_interrupted(setup, call)


@pytest.mark.parametrize("call", ["md5x.hash_files(['/dev/zero'])", "md5x.s3_etag('/dev/zero')"])
def test_endless_device(call):
    check_interrupted("", call)


def test_s3_etag_of_a_large_file(tmp_path):
    # A sparse file of 64 GiB: its reads cost no disk.
    path = tmp_path / "large"
    with open(path, "wb") as f:
        f.truncate(64 << 30)
    check_interrupted(f"PATH = {str(path)!r}", "md5x.s3_etag(PATH)")


def test_hash_files_of_large_files(tmp_path):
    path = tmp_path / "large"
    with open(path, "wb") as f:
        f.truncate(64 << 30)
    check_interrupted(f"PATH = {str(path)!r}", "md5x.hash_files([PATH] * 4)")


def test_digest_many_of_long_rows():
    # 64 GiB of rows, one 256 MiB buffer 256 times.
    setup = "ROWS = [bytes(256 << 20)] * 256"
    check_interrupted(setup, "md5x.digest_many(ROWS)")
    check_interrupted(setup, "md5x.hexdigest_many(iter(ROWS))")


def test_digest_many_of_one_long_row():
    check_interrupted("ROW = bytes(256 << 20)", "md5x.digest_many([memoryview(ROW)] * 200)")


def test_digest_many_of_many_rows():
    # Many chunks of rows (32 GiB), through the hashing thread.
    setup = "ROWS = [bytes(64 << 10)] * 500_000"
    check_interrupted(setup, "md5x.digest_many(ROWS)")


def test_hash_array_of_long_rows():
    # binary_view rows of 256 MiB, each a view of one data buffer.
    setup = """
    import numpy as np, pyarrow as pa
    n, size = 256, 256 << 20
    views = np.zeros((n, 16), np.uint8)
    views[:, 0:4] = np.frombuffer(np.int32(size).tobytes(), np.uint8)
    data = pa.py_buffer(bytes(size))
    ARRAY = pa.Array.from_buffers(pa.binary_view(), n, [None, pa.py_buffer(views), data])
    """
    check_interrupted(setup, "md5x.hash_array(ARRAY)")


def test_hash_array_of_a_stream():
    # A stream of many arrays, each hashed once pulled.
    setup = """
    import pyarrow as pa
    batch = pa.record_batch([pa.array([b"x" * 1000] * 100_000)], names=["b"])
    def batches():
        while True:
            yield batch
    STREAM = pa.RecordBatchReader.from_batches(batch.schema, batches())
    """
    check_interrupted(setup, "md5x.hash_array(STREAM)")


def test_interrupt_inside_a_pyarrow_stream_is_not_turned_into_another_error():
    # SIGINT arrives while the stream's producer (Python code) runs: the
    # KeyboardInterrupt comes out as itself, not as an error that `except
    # Exception` would catch.
    setup = """
    import pyarrow as pa
    batch = pa.record_batch([pa.array([b"x"] * 10)], names=["b"])
    def batches():
        while True:
            time.sleep(0.01)
            yield batch
    STREAM = pa.RecordBatchReader.from_batches(batch.schema, batches())
    """
    check_interrupted(setup, "md5x.hash_array(STREAM)")


def test_producer_errors_keep_their_message():
    def batches():
        yield pa.record_batch([pa.array(["a"])], names=["s"])
        raise ValueError("the producer's own words")

    schema = pa.schema([("s", pa.string())])
    with pytest.raises(RuntimeError, match="the producer's own words"):
        md5x.hash_array(pa.RecordBatchReader.from_batches(schema, batches()))


@pytest.mark.parametrize("call", [md5x.hash_files, md5x.s3_etag])
def test_interrupt_as_the_call_begins_is_raised(tmp_path, monkeypatch, call):
    # A Ctrl-C whose handler runs in the Python code a call runs as it
    # begins (here threading.main_thread, which md5x asks whether it may
    # wait for signals) comes out as KeyboardInterrupt, not lost: no later
    # check would see that signal again.
    def main_thread():
        raise KeyboardInterrupt

    path = tmp_path / "f"
    path.write_bytes(b"x")
    monkeypatch.setattr(threading, "main_thread", main_thread)
    with pytest.raises(KeyboardInterrupt):
        call([path] if call is md5x.hash_files else path)
