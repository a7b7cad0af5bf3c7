"""md5x.duckdb_extension in DuckDB: tests/checks.sql (every function
against DuckDB's own on generated rows) in the duckdb Python package and in
the DuckDB CLI, random rows against hashlib, and every way a load or a call
can go wrong.

    MD5X_DUCKDB_EXTENSION=path/md5x.duckdb_extension \
    MD5X_DUCKDB_CLI=path/duckdb \
    MD5X_DUCKDB_1_2=dir-with-duckdb-1.2 MD5X_DUCKDB_OLD=dir-with-duckdb-1.1 \
        python -m pytest duckdb/tests

MD5X_DUCKDB_EXTENSION defaults to duckdb/target/release's file, and
MD5X_DUCKDB_CLI_EXTENSION, the file the CLI loads, to that one (the file
md5x.duckdb writes from the Python package's module loads only into a
Python process, whose symbols the module uses); MD5X_DUCKDB_CLI (a DuckDB CLI, e.g. from PyPI's duckdb-cli),
MD5X_DUCKDB_1_2 and MD5X_DUCKDB_OLD (directories holding the duckdb Python
package 1.2.x and 1.1.x, from `pip install --target`) are each required
unless set to "skip".
"""

import csv
import hashlib
import io
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

HERE = Path(__file__).parent
EXTENSION = Path(
    os.environ.get("MD5X_DUCKDB_EXTENSION", HERE.parent / "target" / "release" / "md5x.duckdb_extension")
)
CLI_EXTENSION = Path(os.environ.get("MD5X_DUCKDB_CLI_EXTENSION", EXTENSION))
CHECKS = (HERE / "checks.sql").read_text()


def sql_path(path):
    return "'{}'".format(str(path).replace("'", "''"))


def connect(extension=EXTENSION, **config):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true", **config})
    con.execute("SET enable_progress_bar = false")
    con.execute(f"LOAD {sql_path(extension)}")
    return con


def statements(script):
    """The statements of a script of `;`-ended statements, comments dropped."""
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("--"))
    return [s for s in code.split(";") if s.strip()]


def assert_checks(rows):
    """Rows of (check, cases, differ): none differs, each covers something."""
    assert len(rows) >= 15
    for check, cases, differ in rows:
        assert int(differ) == 0, check
        assert int(cases) > 0, check


def test_checks_in_python_package():
    con = connect()
    for statement in statements(CHECKS):
        rows = con.execute(statement).fetchall()
    assert_checks(rows)


def required_path(variable):
    value = os.environ.get(variable)
    if value == "skip":
        pytest.skip(f"{variable}=skip")
    if value is None:
        found = shutil.which("duckdb") if variable == "MD5X_DUCKDB_CLI" else None
        if found is None:
            pytest.fail(f"set {variable} (or to skip)")
        return found
    return value


def test_checks_in_cli():
    cli = required_path("MD5X_DUCKDB_CLI")
    script = f"LOAD {sql_path(CLI_EXTENSION)};\n.mode csv\n.headers off\n" + CHECKS
    run = subprocess.run([cli, "-unsigned", "-batch"], input=script, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert_checks(list(csv.reader(io.StringIO(run.stdout))))
    version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
    print("CLI", version)


CHECKS_ELSEWHERE = """
import sys, duckdb
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from test_extension import CHECKS, statements
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute("SET enable_progress_bar = false")
# The file for this DuckDB's platform (1.2's Linux wheels say linux_amd64_gcc4).
data = bytearray(Path(sys.argv[1]).read_bytes())
platform = con.execute("PRAGMA platform").fetchone()[0]
data[-512 + 6 * 32 : -512 + 7 * 32] = platform.encode().ljust(32, b"\\0")
path = Path(sys.argv[3]) / "md5x.duckdb_extension"
path.write_bytes(data)
con.execute(f"LOAD '{path}'")
for statement in statements(CHECKS):
    rows = con.execute(statement).fetchall()
print(duckdb.__version__)
for row in rows:
    print(*row, sep=",")
"""


def test_checks_in_duckdb_1_2(tmp_path):
    """DuckDB 1.2, the oldest of C API v1.2.0, whose md5_number is a
    HUGEINT (md5x_number's type follows)."""
    packages = required_path("MD5X_DUCKDB_1_2")
    run = subprocess.run(
        [sys.executable, "-c", CHECKS_ELSEWHERE, str(EXTENSION), str(HERE), str(tmp_path)],
        env={**os.environ, "PYTHONPATH": packages},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    version, *rows = run.stdout.splitlines()
    assert version.startswith("1.2."), version
    assert_checks(list(csv.reader(rows)))


@pytest.fixture
def rng():
    return random.Random(0x5EED_D15E)


def test_random_rows_against_hashlib(rng):
    con = connect()
    lengths = [*range(201), 12, 13, 12, 13, 1000, 4096, 65536, 1 << 20] * 20
    rng.shuffle(lengths)
    blobs = [rng.randbytes(n) if rng.random() > 0.05 else None for n in lengths]
    texts = [None if b is None else "".join(rng.choice("aé☃𝄞 z") for _ in range(len(b) // 3)) for b in blobs]
    con.execute("SET threads = 2")
    con.execute("CREATE TABLE t AS SELECT unnest(?::BLOB[]) AS b, unnest(?::VARCHAR[]) AS s", [blobs, texts])
    got = con.execute(
        "SELECT md5x(b), md5x_number(b), md5x_binary(b), md5x(s), md5x_number(s), md5x_binary(s) FROM t"
    ).fetchall()
    assert len(got) == len(blobs)
    for b, s, row in zip(blobs, texts, got):
        if b is None:
            assert row == (None,) * 6
            continue
        for data, (hexdigest, number, binary) in [(b, row[:3]), (s.encode(), row[3:])]:
            digest = hashlib.md5(data).digest()
            assert (hexdigest, number, binary) == (digest.hex(), int.from_bytes(digest, "little"), digest)


@pytest.mark.parametrize("call", ["md5x(42)", "md5x_number(1.5)", "md5x_binary([1, 2])", "md5x(DATE '2024-01-01')"])
def test_wrong_type_is_a_binder_error(call):
    name = call.split("(")[0]
    with pytest.raises(duckdb.BinderException) as e:
        connect().execute(f"SELECT {call}")
    assert f"{name}(VARCHAR)" in str(e.value) and f"{name}(BLOB)" in str(e.value)


@pytest.mark.parametrize("call", ["md5x()", "md5x('a', 'b')"])
def test_wrong_arity_is_a_binder_error(call):
    with pytest.raises(duckdb.BinderException, match=r"md5x\(VARCHAR\)"):
        connect().execute(f"SELECT {call}")


def test_unsigned_refused():
    con = duckdb.connect()
    with pytest.raises(duckdb.Error, match="unsigned"):
        con.execute(f"LOAD {sql_path(EXTENSION)}")


def with_field(tmp_path, field, value):
    """A copy of the extension with metadata field `field` (0: the magic
    value, 1: platform, 2: C API version) set to `value`."""
    data = bytearray(EXTENSION.read_bytes())
    start = len(data) - 512 + (7 - field) * 32
    data[start : start + 32] = value.encode().ljust(32, b"\0")
    path = tmp_path / "md5x.duckdb_extension"
    path.write_bytes(data)
    return path


def test_newer_c_api_refused_at_load(tmp_path):
    with pytest.raises(duckdb.Error, match=r"C API version 'v1\.99\.0'"):
        connect(with_field(tmp_path, 2, "v1.99.0"))


def test_other_platform_refused_at_load(tmp_path):
    with pytest.raises(duckdb.Error, match="platform 'osx_arm64'"):
        connect(with_field(tmp_path, 1, "osx_arm64"))


OLD_DUCKDB = """
import sys, duckdb
print(duckdb.__version__)
for config in [{}, {"allow_extensions_metadata_mismatch": "true"}]:
    con = duckdb.connect(config={"allow_unsigned_extensions": "true", **config})
    try:
        con.execute("LOAD " + sys.argv[1])
    except duckdb.Error as e:
        print(type(e).__name__, e)
    else:
        print("loaded")
"""


def test_older_duckdb_refuses_with_a_message():
    """DuckDB 1.1 has C API extensions but no v1.2.0 struct: it refuses the
    file by its metadata, and, told to ignore the metadata, md5x's entry
    point refuses (get_api returns null) with its own message, no crash."""
    old = required_path("MD5X_DUCKDB_OLD")
    env = {**os.environ, "PYTHONPATH": old}
    run = subprocess.run(
        [sys.executable, "-c", OLD_DUCKDB, sql_path(EXTENSION)], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    version, metadata, entry = run.stdout.splitlines()
    assert version.startswith("1.1."), version
    assert "C API version 'v1.2.0'" in metadata, metadata
    assert "md5x needs DuckDB 1.2.0 or later" in entry, entry
