#!/usr/bin/env python3
"""Builds the md5x Python package's sdist: `maturin sdist`, then one fix.

    python3 ci/sdist.py OUT_DIR      # maturin on PATH; prints the tarball's path

The native module's crate (python/, a workspace of its own) depends on the
Rust crate md5x by path, and md5x is a member of the repository's root
workspace. maturin carries md5x into the sdist and, beside it, the root's
Cargo.toml as it stands: a manifest of the `md-5` package too, whose sources
the sdist does not hold, so Cargo refuses it ("can't find library `md5`")
and the sdist cannot build. (maturin strips the package from a workspace
manifest only when it is the main crate's workspace, not a dependency's.)
This script replaces that file in the tarball with the workspace alone: the
members the tarball holds, nothing else. It then checks that no folder of
the tarball is both a crate and a Python package, which would put Rust
sources into the wheel.
"""

import io
import pathlib
import subprocess
import sys
import tarfile
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def built_sdist(out_dir: pathlib.Path) -> pathlib.Path:
    before = set(out_dir.glob("*.tar.gz"))
    subprocess.run(
        ["maturin", "sdist", "--manifest-path", "python/Cargo.toml", "--out", str(out_dir)],
        check=True,
        cwd=ROOT,
    )
    made = set(out_dir.glob("*.tar.gz")) - before
    tarballs = sorted(made or before, key=lambda p: p.stat().st_mtime)
    if not tarballs:
        sys.exit("ci/sdist.py: maturin made no sdist")
    return tarballs[-1]


def workspace_only(manifest: bytes, present: set[str]) -> bytes:
    """The [workspace] of `manifest`, its members cut to those in `present`."""
    workspace = tomllib.loads(manifest.decode())["workspace"]
    members = [m for m in workspace.get("members", []) if m != "." and m in present]
    listed = ", ".join(f'"{m}"' for m in members)
    return (
        "# The repository's workspace, without its root package (md-5), whose\n"
        "# sources the sdist does not carry; written by ci/sdist.py.\n"
        f"[workspace]\nmembers = [{listed}]\n"
    ).encode()


def rewrite(tarball: pathlib.Path) -> None:
    with tarfile.open(tarball) as tar:
        members = tar.getmembers()
        top = members[0].name.split("/")[0]
        names = {m.name for m in members}
        crates = {n[len(top) + 1 : -len("/Cargo.toml")] for n in names if n.endswith("/Cargo.toml")}
        root_manifest = f"{top}/Cargo.toml"
        files = {m.name: tar.extractfile(m).read() for m in members if m.isfile()}

    manifest = tomllib.loads(files[root_manifest].decode()) if root_manifest in files else {}
    if "package" in manifest and "workspace" in manifest:
        files[root_manifest] = workspace_only(files[root_manifest], crates)
        print(f"ci/sdist.py: {root_manifest}: the workspace only, members in the sdist")

    packages = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    both = sorted(p for p in packages if f"{p}/Cargo.toml" in names)
    if both:
        sys.exit(f"ci/sdist.py: a crate and a Python package share a folder: {both}")

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as out:
        for m in members:
            if m.isfile():
                m.size = len(files[m.name])
                out.addfile(m, io.BytesIO(files[m.name]))
            else:
                out.addfile(m)
    tarball.write_bytes(buffer.getvalue())


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = pathlib.Path(sys.argv[1]).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    tarball = built_sdist(out_dir)
    rewrite(tarball)
    print(tarball)


if __name__ == "__main__":
    main()
