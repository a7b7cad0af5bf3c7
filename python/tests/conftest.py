"""Shared helpers: one seeded random source, the lengths every test tries,
and a check that a call releases the GIL."""

import os
import random
import sys
import threading
import time

import pytest

# MD5's padding edges: a block's last byte for the length (55, 56), one
# block (63, 64, 65), two (119, 120).
EDGES = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129]


@pytest.fixture
def rng():
    return random.Random(0x5EED_D15E)


def random_rows(rng, count, lo=0, hi=200):
    return [rng.randbytes(rng.randint(lo, hi)) for _ in range(count)]


def gil_progress(call):
    """How far another Python thread got while `call()` ran.

    The switch interval is raised to 10 s, so that the calling thread
    gives the GIL up only where it releases it on purpose; the other thread
    counts, sleeping (and so releasing the GIL) between counts. A call
    that holds the GIL throughout leaves the count as it was.
    """
    count = 0
    stop = threading.Event()
    started = threading.Event()

    def counter():
        nonlocal count
        started.set()
        while not stop.is_set():
            count += 1
            time.sleep(0.0005)

    old = sys.getswitchinterval()
    thread = threading.Thread(target=counter)
    thread.start()
    started.wait()
    sys.setswitchinterval(10)
    try:
        # A wait for the GIL that began under the old interval would still
        # force a switch after it; this sleep lets every such wait end.
        time.sleep(0.01)
        before = count
        call()
        after = count
    finally:
        sys.setswitchinterval(old)
        stop.set()
        thread.join()
    return after - before


def isolated(code, timeout=60, memory=4 << 30):
    """Runs `code` in a fresh Python with at most `memory` bytes of address
    space: for inputs that crashed, hung or ate all memory before they were
    refused. Returns the completed process (stdout and stderr as text)."""
    import resource
    import subprocess

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
        cwd=os.path.dirname(__file__),
    )
