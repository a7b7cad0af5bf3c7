#!/usr/bin/env python3
"""S3 multipart ETags the straightforward way: each part read and hashed
with Python's hashlib, one after another, then the MD5 of the parts'
digests. The independent oracle of tests/etag.rs and the peer of
benches/etag.rs.

Usage: etag_reference.py PART_SIZE FILE...

Prints "<etag>  FILE" for each FILE ("-" is standard input), always in the
multipart form "<32 hex>-<N>", N from 1 up without S3's 10,000 limit; an
empty file is one empty part.
"""
import hashlib
import sys


def multipart_etag(stream, part_size):
    digests = []
    while True:
        part = stream.read(part_size)
        if not part and digests:
            break
        digests.append(hashlib.md5(part).digest())
        if len(part) < part_size:
            break
    return "%s-%d" % (hashlib.md5(b"".join(digests)).hexdigest(), len(digests))


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) == 0:
        sys.exit("usage: etag_reference.py PART_SIZE FILE...  (PART_SIZE in bytes, not 0)")
    part_size = int(argv[1])
    for name in argv[2:]:
        if name == "-":
            etag = multipart_etag(sys.stdin.buffer, part_size)
        else:
            with open(name, "rb") as f:
                etag = multipart_etag(f, part_size)
        print("%s  %s" % (etag, name))


if __name__ == "__main__":
    main(sys.argv)
