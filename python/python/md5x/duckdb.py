"""md5x inside DuckDB: ``md5x(x)``, ``md5x_number(x)`` and
``md5x_binary(x)``, equal to DuckDB's ``md5``, ``md5_number`` and
``unhex(md5(x))``, each chunk of rows hashed in SIMD lanes.

    import duckdb, md5x.duckdb

    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    md5x.duckdb.load(con)
    con.sql("SELECT md5x(name) FROM users")

The package's native module is also a DuckDB extension (C API v1.2.0,
DuckDB 1.2.0 and later): ``load`` writes a copy of it with DuckDB's
metadata footer to a cache directory, as ``md5x.duckdb_extension``, and
loads that. The extension is not signed, so the connection's
database must allow unsigned extensions.
"""

import os
import re
import tempfile
from pathlib import Path

from . import _md5x

__all__ = ["LoadError", "extension_path", "load"]

#: The oldest DuckDB whose C extension API has what the extension uses.
MIN_DUCKDB = (1, 2, 0)


class LoadError(RuntimeError):
    """The extension could not be loaded into a DuckDB connection."""


def load(con) -> None:
    """Loads md5x's functions into the database of DuckDB connection ``con``.

    Raises ``LoadError`` saying what to do when the database does not allow
    unsigned extensions, when its DuckDB is older than 1.2.0, or when DuckDB
    refuses the file.
    """
    version = con.execute("PRAGMA version").fetchone()[0]
    check_version(version)
    allowed = con.execute("SELECT current_setting('allow_unsigned_extensions')").fetchone()[0]
    if not allowed:
        raise LoadError(
            "this DuckDB database does not allow unsigned extensions, which md5x's is: open it with "
            'duckdb.connect(config={"allow_unsigned_extensions": "true"}) (CLI: duckdb -unsigned)'
        )
    platform = con.execute("PRAGMA platform").fetchone()[0]
    path = extension_path(platform)
    try:
        con.execute("LOAD '{}'".format(str(path).replace("'", "''")))
    except Exception as e:  # duckdb.Error, without importing duckdb here
        raise LoadError(f"DuckDB {version} ({platform}) refused md5x's extension {path}: {e}") from e


def check_version(version: str) -> None:
    """Raises ``LoadError`` if DuckDB ``version`` (``PRAGMA version``'s
    ``library_version``, e.g. ``v1.5.6``) predates C API v1.2.0."""
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        return  # a development build: let DuckDB's own checks decide
    if tuple(int(part) for part in match.groups()) < MIN_DUCKDB:
        raise LoadError(
            f"md5x's DuckDB extension needs DuckDB 1.2.0 or later (C extension API v1.2.0); "
            f"this is DuckDB {version}: upgrade it (pip install -U duckdb)"
        )


def extension_path(platform: str) -> Path:
    """The extension file for DuckDB's ``platform``: this package's native
    module with DuckDB's metadata footer, written once into a cache
    directory (``$MD5X_DUCKDB_CACHE``, else ``$XDG_CACHE_HOME/md5x`` or
    ``~/.cache/md5x``; a new private temporary one where that cannot be
    written) and rewritten when its bytes differ."""
    data = Path(_md5x.__file__).read_bytes() + _md5x.duckdb_extension_footer(platform)
    tag = _md5x.hexdigest_many([data])[0][:16]
    cache = os.environ.get("MD5X_DUCKDB_CACHE")
    if cache is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        cache = os.path.join(base, "md5x")
    try:
        return _written(Path(cache) / f"duckdb-{platform}-{tag}", data)
    except OSError:
        # A cache that cannot be written (a read-only home): a private
        # directory of this process's own.
        return _written(Path(tempfile.mkdtemp(prefix="md5x-duckdb-")), data)


def _written(directory: Path, data: bytes) -> Path:
    """``directory/md5x.duckdb_extension`` holding ``data``, written if it
    does not already. DuckDB names the entry point after the file:
    ``md5x_init_c_api``."""
    path = directory / "md5x.duckdb_extension"
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    directory.mkdir(parents=True, exist_ok=True)
    # Written whole under another name, then renamed over: a concurrent
    # load sees the old file or the new one, never a part, and a process
    # that has the old one loaded keeps it (writing over a loaded library
    # in place would crash that process).
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".md5x-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
