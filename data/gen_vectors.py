#!/usr/bin/env python3
"""Builds the test-vector files in this folder.

    python3 data/gen_vectors.py           # md5.txt -> md5.blb (and the 0.11 copy)
    python3 data/gen_vectors.py --refresh # recompute md5.txt with hashlib, then both

md5.txt is the readable source: one vector a line, `INPUT_HEX DIGEST_HEX`
(an empty input is `-`). Its digests come from Python's hashlib (OpenSSL),
an implementation independent of this crate. md5.blb holds the same pairs,
input then digest, in the blobby format that digest 0.10's `dev` helpers read.
compat/md-5-0.11/tests/data/md5_kat.blb holds them again in blobby 0.4's
format, which digest 0.11's `dev::new_test!` reads: it adds a header with the
blob count.
"""
import hashlib
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent

RFC1321 = [
    b"",
    b"a",
    b"abc",
    b"message digest",
    b"abcdefghijklmnopqrstuvwxyz",
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    b"1234567890" * 8,
]


def inputs():
    yield from RFC1321
    # Every length across the one- and two-block padding edges (55/56, 63/64,
    # 119/120, 127/128), then a few multi-block lengths.
    lengths = list(range(0, 131)) + [183, 184, 191, 192, 255, 256, 1000, 1024, 4095, 4096, 4097]
    for n in lengths:
        yield bytes((i * 31 + 7) & 0xFF for i in range(n))


def vlq(v):
    """blobby 0.3's variable-length integer."""
    out = [v & 0x7F]
    v >>= 7
    while v:
        v -= 1
        out.append(0x80 | (v & 0x7F))
        v >>= 7
    return bytes(reversed(out))


def main():
    txt = HERE / "md5.txt"
    if "--refresh" in sys.argv[1:]:
        lines = [f"{m.hex() or '-'} {hashlib.md5(m).hexdigest()}" for m in inputs()]
        txt.write_text("\n".join(lines) + "\n")
    blobs = []
    for line in txt.read_text().splitlines():
        msg, digest = line.split()
        blobs += [b"" if msg == "-" else bytes.fromhex(msg), bytes.fromhex(digest)]
    body = bytearray()
    for b in blobs:
        body += vlq(len(b) << 1) + b
    # blobby 0.3: the de-duplication table's length (none), then the blobs.
    (HERE / "md5.blb").write_bytes(vlq(0) + body)
    # blobby 0.4: the blob count and the table's length, then the blobs.
    kat_011 = HERE.parent / "compat" / "md-5-0.11" / "tests" / "data" / "md5_kat.blb"
    kat_011.write_bytes(vlq(len(blobs)) + vlq(0) + body)
    print(f"{len(blobs) // 2} vectors")


if __name__ == "__main__":
    main()
