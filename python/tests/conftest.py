"""Shared helpers: one seeded random source, the lengths every test tries,
a check that a call releases the GIL, and a fresh Python for calls that
may crash or hang."""

import ast
import os
import random
import subprocess
import sys
import textwrap

import pytest

# MD5's padding edges: a block's last byte for the length (55, 56), one
# block (63, 64, 65), two (119, 120).
EDGES = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129]


@pytest.fixture
def rng():
    return random.Random(0x5EED_D15E)


def random_rows(rng, count, lo=0, hi=200):
    return [rng.randbytes(rng.randint(lo, hi)) for _ in range(count)]


def released_gil(call, size, setup="", timeout=300):
    """The value of `call` (code: an expression) run in a fresh Python
    where `DATA` is `size` seeded random bytes and `PAGES.view` a buffer
    holding them whose pages come only from another Python thread, at the
    first read (_missing_pages.py). The call finishes only if it lets the
    GIL go while it reads; one that holds it hangs, and fails here once
    killed after `timeout` seconds (a guard against a hang, not a
    measure). `setup` (code) runs first and must not read the pages.
    Skips where Linux gives no userfaultfd."""
    try:
        done = isolated(_gil_code(call, size, setup), timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} did not finish in {timeout} s: it holds the GIL while it reads")
    assert done.returncode == 0, done.stderr[-3000:]
    outcome, value = ast.literal_eval(done.stdout.splitlines()[-1])
    if outcome == "skip":
        pytest.skip(f"no userfaultfd here: {value}")
    return value


def held_gil(call, size, wait=5):
    """Whether `call`, run as released_gil runs it, is still running
    `wait` seconds after it began: the control for a call that holds the
    GIL while it reads, which never finishes. (A call that releases it
    finishes in milliseconds; only a machine stalled for `wait` seconds
    could make one look held.)"""
    with subprocess.Popen(
        [sys.executable, "-c", _gil_code(call, size, "")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(__file__),
    ) as child:
        try:
            started = ast.literal_eval(child.stdout.readline())
            if started[0] == "skip":
                pytest.skip(f"no userfaultfd here: {started[1]}")
            assert started == ("calling", None), started
            try:
                child.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                return True
            return False
        finally:
            child.kill()


def _gil_code(call, size, setup):
    return textwrap.dedent(
        f"""
        import hashlib, random, sys
        import md5x
        DATA = random.Random({GIL_SEED}).randbytes({size})
        try:
            from _missing_pages import MissingPages  # fcntl: not on Windows
            PAGES = MissingPages(DATA)
        except (ImportError, OSError) as e:
            print(repr(("skip", str(e))))
            sys.exit(0)
        """
    ) + textwrap.dedent(setup) + textwrap.dedent(
        f"""
        assert not PAGES.supplied.is_set(), "the setup read the pages"
        print(repr(("calling", None)), flush=True)
        result = {call}
        print(repr(("ok", result)))
        """
    )


#: The seed of released_gil's DATA.
GIL_SEED = 0x6115EED


def gil_data(size):
    """released_gil's DATA, for the expected results."""
    return random.Random(GIL_SEED).randbytes(size)


def isolated(code, timeout=300, memory=4 << 30):
    """Runs `code` in a fresh Python with at most `memory` bytes of address
    space: for inputs that crashed, hung or ate all memory before they were
    refused. Returns the completed process (stdout and stderr as text).
    `timeout` guards against a hang: far beyond what the code takes on a
    loaded machine, so only a hang reaches it."""
    import resource

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
