"""md5x.duckdb's extension cache: DuckDB LOADs code from it, so md5x loads
only a file that no user but this one (or root) could have written or can
still write, from the directory the environment names, and leaves no copy
behind where it has to make one of its own.

The tests of another local user run as root and act as `nobody` through
setpriv, in a shared directory made like /tmp (root's, sticky, writable by
all)."""

import ast
import hashlib
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest

import md5x.duckdb
from md5x.duckdb import LoadError

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="the cache's owner checks are POSIX's")


def unsigned():
    return duckdb.connect(config={"allow_unsigned_extensions": "true"})


def platform():
    return unsigned().execute("PRAGMA platform").fetchone()[0]


def extension_bytes():
    """The bytes md5x writes for this DuckDB, found apart from md5x.duckdb:
    what an attacker would plant for a victim to accept."""
    return Path(md5x._md5x.__file__).read_bytes() + md5x._md5x.duckdb_extension_footer(platform())


def entry_name():
    """The directory under the cache that holds the file."""
    return f"duckdb-{platform()}-{hashlib.md5(extension_bytes()).hexdigest()[:16]}"


def loaded_files():
    """The files this process has mapped (its libraries among them), where
    Linux says; "" elsewhere, where the checks of it are left out."""
    maps = Path("/proc/self/maps")
    return maps.read_text() if maps.exists() else ""


def assert_works(con):
    assert con.execute("SELECT md5x('abc')").fetchone()[0] == hashlib.md5(b"abc").hexdigest()


def assert_not_loaded(con, path):
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT md5x('abc')")
    assert str(path) not in loaded_files()


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("MD5X_DUCKDB_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


# Another local user.


@pytest.fixture
def other_user():
    """Runs a shell script as `nobody`, another local user."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    if shutil.which("setpriv") is None:
        pytest.skip("acting as another user needs setpriv (util-linux)")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody to act as")

    def run(script, *args, data=None):
        command = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
        return subprocess.run(
            [*command, "sh", "-c", script, "sh", *map(str, args)], input=data, capture_output=True
        )

    run.uid = nobody.pw_uid
    return run


@pytest.fixture
def shared():
    """A directory made like /tmp: root's, sticky, writable by all."""
    path = Path(tempfile.mkdtemp(prefix="md5x-shared-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path)


PLANT = 'umask 022 && mkdir -p "$1" && cat > "$1/md5x.duckdb_extension"'


def test_planted_in_a_shared_cache_is_refused(shared, other_user, clean_env):
    # The other user makes the shared cache first and plants the exact
    # bytes md5x would write; once a victim had loaded them, a rewrite of
    # the file in place would run the other user's code in the victim.
    cache = shared / "md5x"
    planted = cache / entry_name() / "md5x.duckdb_extension"
    assert other_user(PLANT, planted.parent, data=extension_bytes()).returncode == 0
    clean_env.setenv("MD5X_DUCKDB_CACHE", str(cache))
    con = unsigned()
    why = f"from {cache}/duckdb-.*: {cache} is owned by uid {other_user.uid}, not by"
    with pytest.raises(LoadError, match=why.replace(str(cache), re.escape(str(cache)))):
        md5x.duckdb.load(con)
    assert_not_loaded(con, planted)
    # Rewritten, by its owner, in place: still refused, still never loaded.
    assert other_user('printf rewritten > "$1"', planted).returncode == 0
    with pytest.raises(LoadError, match="owned by uid"):
        md5x.duckdb.load(con)
    assert_not_loaded(con, planted)
    assert planted.read_bytes() == b"rewritten"


def test_planted_entry_in_a_sticky_cache_is_refused(shared, other_user, clean_env):
    # The cache is the sticky shared directory itself: the other user
    # makes the entry md5x would make.
    planted = shared / entry_name() / "md5x.duckdb_extension"
    assert other_user(PLANT, planted.parent, data=extension_bytes()).returncode == 0
    clean_env.setenv("MD5X_DUCKDB_CACHE", str(shared))
    con = unsigned()
    with pytest.raises(LoadError, match=re.escape(f"{planted.parent} is owned by uid {other_user.uid}")):
        md5x.duckdb.load(con)
    assert_not_loaded(con, planted)


@pytest.mark.parametrize("where", ["their directory", "their home", "a link to their directory", "open to all"])
def test_cache_another_user_can_change_is_refused(shared, other_user, clean_env, tmp_path, where):
    # Empty, but the other user could rename what md5x writes there and put
    # a file of theirs in its place before the LOAD.
    theirs = shared / "theirs"
    assert other_user('mkdir -m 755 "$1"', theirs).returncode == 0
    if where == "their directory":
        clean_env.setenv("MD5X_DUCKDB_CACHE", str(theirs / "cache"))
        why = f"{theirs} is owned by uid {other_user.uid}"
    elif where == "their home":
        # Root with another user's HOME (sudo -E, su without -).
        clean_env.setenv("HOME", str(theirs))
        why = f"{theirs} is owned by uid {other_user.uid}"
    elif where == "a link to their directory":
        (tmp_path / "link").symlink_to(theirs)
        clean_env.setenv("MD5X_DUCKDB_CACHE", str(tmp_path / "link"))
        why = f"{theirs} is owned by uid {other_user.uid}"
    else:
        open_dir = shared / "open"
        open_dir.mkdir()
        open_dir.chmod(0o777)
        clean_env.setenv("MD5X_DUCKDB_CACHE", str(open_dir))
        why = f"{open_dir} is writable by other users"
    con = unsigned()
    with pytest.raises(LoadError, match=re.escape(why) + ".*MD5X_DUCKDB_CACHE"):
        md5x.duckdb.load(con)
    assert_not_loaded(con, shared)
    assert list(theirs.iterdir()) == []


def test_own_entry_in_a_sticky_cache_is_out_of_others_reach(shared, other_user, clean_env):
    # In a sticky shared directory md5x makes its entry itself, which the
    # other user can neither write, rename nor remove.
    clean_env.setenv("MD5X_DUCKDB_CACHE", str(shared))
    con = unsigned()
    md5x.duckdb.load(con)
    assert_works(con)
    entry = shared / entry_name()
    path = entry / "md5x.duckdb_extension"
    assert str(path) in loaded_files() or not loaded_files()
    assert path.read_bytes() == extension_bytes()
    for script in ['printf x > "$1/md5x.duckdb_extension"', 'mv "$1" "$1.moved"', 'rm -rf "$1"']:
        assert other_user(script, entry).returncode != 0, script
    assert path.read_bytes() == extension_bytes()
    again = unsigned()
    md5x.duckdb.load(again)
    assert_works(again)


# This user's own cache, in the shapes it may take.


def test_symlink_in_place_of_the_file_is_replaced(tmp_path, clean_env):
    # Not followed: the file DuckDB loads is the one md5x wrote there.
    clean_env.setenv("MD5X_DUCKDB_CACHE", str(tmp_path / "cache"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(extension_bytes())
    path = tmp_path / "cache" / entry_name() / "md5x.duckdb_extension"
    path.parent.mkdir(parents=True)
    path.symlink_to(elsewhere)
    con = unsigned()
    md5x.duckdb.load(con)
    assert_works(con)
    assert not path.is_symlink() and path.read_bytes() == extension_bytes()
    assert str(elsewhere) not in loaded_files()


def test_file_others_can_write_is_replaced(tmp_path, clean_env):
    clean_env.setenv("MD5X_DUCKDB_CACHE", str(tmp_path))
    path = tmp_path / entry_name() / "md5x.duckdb_extension"
    path.parent.mkdir()
    path.write_bytes(extension_bytes())
    path.chmod(0o666)
    inode = path.stat().st_ino
    md5x.duckdb.load(unsigned())
    # A new file renamed into place: a process with the old one mapped
    # keeps it.
    assert path.stat().st_ino != inode
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == extension_bytes()


def test_tilde_in_cache_is_home(tmp_path, clean_env):
    # DuckDB's LOAD expands a leading ~; md5x checks and loads the same file.
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    clean_env.setenv("HOME", str(home))
    clean_env.setenv("MD5X_DUCKDB_CACHE", "~/c")
    clean_env.chdir(work)
    con = unsigned()
    md5x.duckdb.load(con)
    assert_works(con)
    assert (home / "c" / entry_name() / "md5x.duckdb_extension").read_bytes() == extension_bytes()
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("variable", ["MD5X_DUCKDB_CACHE", "XDG_CACHE_HOME"])
def test_empty_or_relative_cache_is_not_the_working_directory(tmp_path, clean_env, variable):
    # An empty MD5X_DUCKDB_CACHE is unset; a relative XDG_CACHE_HOME is
    # ignored, as the XDG spec says. Neither puts the file where the process
    # happens to run.
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    clean_env.setenv("HOME", str(home))
    clean_env.setenv(variable, "" if variable == "MD5X_DUCKDB_CACHE" else "relative")
    clean_env.chdir(work)
    con = unsigned()
    md5x.duckdb.load(con)
    assert_works(con)
    assert (home / ".cache" / "md5x" / entry_name() / "md5x.duckdb_extension").exists()
    assert list(work.iterdir()) == []


def test_relative_cache_variable_is_refused(tmp_path, clean_env):
    clean_env.setenv("MD5X_DUCKDB_CACHE", "relative")
    clean_env.chdir(tmp_path)
    with pytest.raises(LoadError, match="MD5X_DUCKDB_CACHE is 'relative', not an absolute path"):
        md5x.duckdb.load(unsigned())
    assert list(tmp_path.iterdir()) == []


def test_unwritable_cache_leaves_one_private_directory_removed_at_exit(tmp_path):
    # A file where the cache's directory should be: it cannot be written.
    # Loads into many databases share one private directory, gone once the
    # process exits.
    (tmp_path / "a file").write_bytes(b"")
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {
        **os.environ,
        "MD5X_DUCKDB_CACHE": str(tmp_path / "a file" / "cache"),
        "TMPDIR": str(temp),
    }
    code = """
import os, hashlib, sys
import duckdb, md5x.duckdb
for _ in range(5):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    md5x.duckdb.load(con)
    assert con.execute("SELECT md5x('abc')").fetchone()[0] == hashlib.md5(b"abc").hexdigest()
temp = sys.argv[1]
print(sorted((os.path.relpath(d, temp), sorted(f)) for d, _, f in os.walk(temp)))
"""
    done = subprocess.run(
        [sys.executable, "-c", code, str(temp)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    listing = ast.literal_eval(done.stdout)
    assert [files for _, files in listing] == [[], [], ["md5x.duckdb_extension"]], listing
    assert listing[1][0].startswith("md5x-duckdb-")
    assert list(temp.iterdir()) == []
