"""md5x.duckdb.load: the package's own module loaded into DuckDB as its
extension, its functions against DuckDB's built-ins and hashlib."""

import hashlib

import duckdb
import pytest

import md5x.duckdb
from md5x.duckdb import LoadError


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MD5X_DUCKDB_CACHE", str(tmp_path))
    return tmp_path


def unsigned():
    return duckdb.connect(config={"allow_unsigned_extensions": "true"})


def test_load_and_hash(cache, rng):
    con = unsigned()
    md5x.duckdb.load(con)
    rows = [rng.randbytes(rng.randint(0, 200)) for _ in range(5000)] + [None, b"", bytes(13)]
    con.execute("CREATE TABLE t AS SELECT unnest(?::BLOB[]) AS b", [rows])
    con.execute("ALTER TABLE t ADD COLUMN s VARCHAR")
    con.execute("UPDATE t SET s = hex(b) || '\u00e9'")
    got = con.execute("SELECT b, md5x(b), md5x_number(b), md5x_binary(b) FROM t").fetchall()
    assert len(got) == len(rows)
    for b, hexdigest, number, binary in got:
        if b is None:
            assert (hexdigest, number, binary) == (None, None, None)
            continue
        digest = hashlib.md5(b).digest()
        assert hexdigest == digest.hex()
        assert number == int.from_bytes(digest, "little")
        assert binary == digest
    mismatches = con.execute(
        "SELECT count(*) FROM t WHERE md5x(s) IS DISTINCT FROM md5(s)"
        " OR md5x_number(s) IS DISTINCT FROM md5_number(s) OR md5x_binary(s) IS DISTINCT FROM unhex(md5(s))"
    ).fetchone()[0]
    assert mismatches == 0


def test_file_cached_named_and_loaded_twice(cache):
    con = unsigned()
    md5x.duckdb.load(con)
    md5x.duckdb.load(con)  # LOAD of a loaded extension does nothing
    (path,) = cache.glob("*/md5x.duckdb_extension")
    before = path.stat().st_mtime_ns
    other = unsigned()  # another database, the same file
    md5x.duckdb.load(other)
    assert path.stat().st_mtime_ns == before
    assert other.execute("SELECT md5x('abc')").fetchone()[0] == hashlib.md5(b"abc").hexdigest()
    # A damaged file is written again. (Replaced, not written over: this
    # process has the file mapped, and truncating a mapped library crashes
    # its next use; load() itself only ever renames a new file into place.)
    path.unlink()
    path.write_bytes(b"damaged")
    md5x.duckdb.load(unsigned())
    assert path.read_bytes()[-512:] == md5x._md5x.duckdb_extension_footer(
        con.execute("PRAGMA platform").fetchone()[0]
    )


def test_unsigned_not_allowed(cache):
    with pytest.raises(LoadError, match="allow_unsigned_extensions"):
        md5x.duckdb.load(duckdb.connect())


def test_old_duckdb_refused():
    with pytest.raises(LoadError, match=r"DuckDB 1\.2\.0 or later.*v1\.1\.3"):
        md5x.duckdb.check_version("v1.1.3")
    md5x.duckdb.check_version("v1.2.0")
    md5x.duckdb.check_version("v2.0.1")


def test_footer_fields():
    footer = md5x._md5x.duckdb_extension_footer("linux_amd64")
    fields = [footer[i : i + 32].rstrip(b"\0") for i in range(0, 256, 32)]
    assert fields[::-1][:3] + fields[::-1][4:5] == [b"4", b"linux_amd64", b"v1.2.0", b"C_STRUCT"]
    assert footer[256:] == bytes(256)
    with pytest.raises(ValueError, match="32 bytes"):
        md5x._md5x.duckdb_extension_footer("x" * 33)


def test_refusal_by_duckdb_is_a_load_error(cache, monkeypatch):
    """A file DuckDB refuses (here: made for another platform) raises
    LoadError with DuckDB's reason."""
    footer = md5x._md5x.duckdb_extension_footer
    monkeypatch.setattr(md5x._md5x, "duckdb_extension_footer", lambda platform: footer("osx_arm64"))
    with pytest.raises(LoadError, match="refused.*platform 'osx_arm64'"):
        md5x.duckdb.load(unsigned())


def test_unwritable_cache_falls_back(tmp_path, monkeypatch):
    blocked = tmp_path / "a file, not a directory"
    blocked.write_bytes(b"")
    monkeypatch.setenv("MD5X_DUCKDB_CACHE", str(blocked))
    con = unsigned()
    md5x.duckdb.load(con)
    assert con.execute("SELECT md5x('abc')").fetchone()[0] == hashlib.md5(b"abc").hexdigest()
