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

The file DuckDB loads runs as code in this process, so the cache trusts
only the current user and root: right before each ``LOAD``, the file and
every directory above it must belong to one of them, be writable by no one
else (a sticky directory such as ``/tmp`` excepted, where no one else can
rename or remove what is not theirs), and be no symbolic link; the file
must hold the expected bytes. A cache another user could write raises
``LoadError`` naming the path and why; a cache that cannot be written (a
read-only home) gives way to one private directory for the process,
removed when it exits. (On Windows, which has no such owners, only the
bytes are checked: keep the cache in your own profile, as the default is.)
"""

import atexit
import errno
import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import NoReturn

from . import _md5x

__all__ = ["LoadError", "extension_path", "load"]

#: The oldest DuckDB whose C extension API has what the extension uses.
MIN_DUCKDB = (1, 2, 0)

#: The file's name: DuckDB names the entry point after it, ``md5x_init_c_api``.
FILE_NAME = "md5x.duckdb_extension"


class LoadError(RuntimeError):
    """The extension could not be loaded into a DuckDB connection."""


def load(con) -> None:
    """Loads md5x's functions into the database of DuckDB connection ``con``.

    Raises ``LoadError`` saying what to do when the database does not allow
    unsigned extensions, when its DuckDB is older than 1.2.0, when the
    cache directory is one another user could write, or when DuckDB
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
    # Checked just now; an absolute path, which DuckDB's LOAD takes as it
    # is (it expands a leading `~` and searches its own directories for a
    # bare name).
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
    """The extension file for DuckDB's ``platform``, checked as the module
    docstring says: this package's native module with DuckDB's metadata
    footer, written once into a cache directory (``$MD5X_DUCKDB_CACHE``,
    else ``$XDG_CACHE_HOME/md5x`` where that is absolute, else
    ``~/.cache/md5x``; a private one of this process's own where that
    cannot be written) and replaced when its bytes differ. An absolute
    path with no symbolic links.

    Raises ``LoadError`` when the cache directory is one another user
    could write, or ``MD5X_DUCKDB_CACHE`` is not an absolute path.
    """
    if not re.fullmatch(r"[A-Za-z0-9_]+", platform):
        raise LoadError(f"DuckDB names its platform {platform!r}, not a name md5x can make a file of")
    data = Path(_md5x.__file__).read_bytes() + _md5x.duckdb_extension_footer(platform)
    tag = _md5x.hexdigest_many([data])[0][:16]
    name = f"duckdb-{platform}-{tag}"
    cache = _cache_directory()
    if cache is not None:
        try:
            return _cached(os.path.join(cache, name), data)
        except OSError as e:
            unwritable = e
    else:
        unwritable = None
    # A cache that cannot be written (a read-only or missing home, a
    # container's arbitrary user): one private directory for the process.
    try:
        return _cached(os.path.join(_private_directory(), name), data)
    except OSError as e:
        where = f"to {cache} ({unwritable}) nor " if cache is not None else ""
        raise LoadError(
            f"md5x could not write its DuckDB extension {where}to a private temporary directory ({e}): "
            "set MD5X_DUCKDB_CACHE to a directory you can write"
        ) from e


def _cache_directory() -> str | None:
    """The cache directory the environment names, an absolute path:
    ``$MD5X_DUCKDB_CACHE`` (a leading ``~`` expanded), else
    ``$XDG_CACHE_HOME/md5x`` where that is absolute (the XDG rule: a
    relative one is ignored), else ``~/.cache/md5x``. ``None`` when there
    is no home to put it in. An empty variable counts as unset."""
    cache = os.environ.get("MD5X_DUCKDB_CACHE")
    if cache:
        expanded = os.path.expanduser(cache)
        if not os.path.isabs(expanded):
            raise LoadError(
                f"MD5X_DUCKDB_CACHE is {cache!r}, not an absolute path: set it to one "
                "(a relative one would put the cache wherever the process runs)"
            )
        return expanded
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "md5x")
    home = os.path.expanduser("~")
    return os.path.join(home, ".cache", "md5x") if os.path.isabs(home) else None


def _cached(directory: str, data: bytes) -> Path:
    """``directory/md5x.duckdb_extension`` holding ``data``, the directory
    made (owner-only) where missing and the file written where it does not
    hold ``data``, both checked as the module docstring says. Raises
    ``LoadError`` for a directory another user could write, ``OSError``
    where it cannot be made or written."""
    directory = _trusted_directory(directory)
    path = os.path.join(directory, FILE_NAME)
    if not _holds(path, data):
        _replace(directory, path, data)
        if not _holds(path, data):
            raise LoadError(f"md5x's DuckDB extension {path} changed as soon as it was written; not loading it")
    return Path(path)


def _trusted_owners() -> tuple[int, ...]:
    """Who may own what DuckDB loads: this process's user and root."""
    return (os.geteuid(), 0) if hasattr(os, "geteuid") else ()


def _trusted_directory(directory: str) -> str:
    """``directory`` with its symbolic links resolved, each missing
    component made (mode 0700), every component from ``/`` down checked:
    owned by this user or root, writable by no one else unless sticky, no
    symbolic link. Raises ``LoadError`` for one that fails, ``OSError``
    (``NotADirectoryError`` for a file in the way) where one cannot be
    made or read."""
    real = os.path.realpath(directory)
    if not hasattr(os, "geteuid"):
        # Windows: no owners to compare (the module docstring says so).
        os.makedirs(real, mode=0o700, exist_ok=True)
        return real
    current = os.path.abspath(os.sep)
    _check_directory(current, os.lstat(current), directory)
    for part in real.split(os.sep):
        if not part:
            continue
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current, 0o700)
            except FileExistsError:
                pass  # made just now by someone else: checked below like any other
            st = os.lstat(current)
        _check_directory(current, st, directory)
    return real


def _check_directory(path: str, st: os.stat_result, cache: str) -> None:
    """Raises unless ``path`` (``lstat`` ``st``), a component of ``cache``,
    is a directory only this user or root can change."""
    if stat.S_ISLNK(st.st_mode):
        _unsafe(cache, path, "became a symbolic link while it was checked")
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    if st.st_uid not in _trusted_owners():
        _unsafe(cache, path, f"is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()}) or root")
    # In a sticky directory (/tmp) others may add entries but not rename or
    # remove this user's: each entry below is checked on its own.
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        _unsafe(cache, path, f"is writable by other users (mode {stat.filemode(st.st_mode)})")


def _unsafe(cache: str, path: str, why: str) -> NoReturn:
    raise LoadError(
        f"md5x will not load its DuckDB extension from {cache}: {path} {why}, so another user could "
        "put code of theirs in the file DuckDB loads. Set MD5X_DUCKDB_CACHE to a directory that only "
        "you (or root) can write, or fix that directory's owner and mode; as root with another "
        "user's HOME (sudo -E), use sudo -H"
    )


def _holds(path: str, data: bytes) -> bool:
    """Whether ``path`` is a regular file (not a symbolic link) owned by
    this user or root, writable by no one else, holding exactly ``data``:
    read once, through the descriptor that was checked."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return False  # missing, a symbolic link (ELOOP), unreadable: written anew
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        if hasattr(os, "geteuid"):
            if st.st_uid not in _trusted_owners() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return False
        return f.read(len(data) + 1) == data


def _replace(directory: str, path: str, data: bytes) -> None:
    """Writes ``data`` whole under a new name (``O_EXCL``, mode 0600), then
    renames it over ``path``: a concurrent load sees the old file or the
    new one, never a part, and a process that has the old one mapped keeps
    it (writing over a loaded library in place would crash that process)."""
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".md5x-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# The private directory of each process that made one (a forked child
# makes its own: its parent removes the parent's at exit).
_private = {}
_private_lock = threading.Lock()


def _private_directory() -> str:
    """A directory of this process's own (``mkdtemp``: owner-only, a new
    name), made once and reused by every later load, removed at exit."""
    with _private_lock:
        pid = os.getpid()
        if pid not in _private:
            if not _private:
                atexit.register(_remove_private_directory)
            _private[pid] = tempfile.mkdtemp(prefix="md5x-duckdb-")
        return _private[pid]


def _remove_private_directory() -> None:
    directory = _private.get(os.getpid())
    if directory is not None:
        # DuckDB keeps the library it loaded mapped; its name can go.
        shutil.rmtree(directory, ignore_errors=True)
