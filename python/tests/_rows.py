"""The rows the Arrow tests hash, and hashlib's answers for them."""

import base64
import hashlib
import random


def encoded(digest, output):
    """What hash_array's `output` form of `digest` reads back as in pyarrow."""
    if output == "hex":
        return digest.hex()
    if output == "base64":
        return base64.b64encode(digest).decode()
    return digest


def expected(rows, output="hex"):
    """hashlib's answer for each row; None for a null row."""
    out = []
    for row in rows:
        if row is None:
            out.append(None)
            continue
        data = row.encode() if isinstance(row, str) else row
        out.append(encoded(hashlib.md5(data).digest(), output))
    return out


def random_rows(seed, text, n=600):
    """Rows of 0 to 200 bytes, some long ones, the padding edges, nulls;
    non-ASCII characters in text rows."""
    rng = random.Random(seed)
    alphabet = "abcxyz019 é中🙂"
    lengths = [rng.randrange(201) for _ in range(n)]
    lengths += [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4095, 4096, 5000]
    rng.shuffle(lengths)
    rows = []
    for i, length in enumerate(lengths):
        if i % 17 == 5:
            rows.append(None)
        elif text:
            # `length` characters: up to 4 bytes each in UTF-8.
            rows.append("".join(rng.choice(alphabet) for _ in range(length)))
        else:
            rows.append(rng.randbytes(length))
    # Exact byte lengths at the padding edges for text too.
    if text:
        rows += ["a" * k for k in (55, 56, 63, 64)] + ["é" * 28, "é" * 32]
    else:
        rows += [b"\0" * k for k in (55, 56, 63, 64)]
    return rows
