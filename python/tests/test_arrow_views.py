"""hash_array on string_view and binary_view arrays made by hand: views
whose fields lie (a negative length, a data buffer that is not there, an
offset or length past the buffer's size, sums that would wrap an i32),
sizes and buffer pointers that cannot be, each refused with ValueError
naming the row; NULL rows and rows outside the array's window, whatever
their views hold, never read. And the views md5x exports for a view
input, checked field by field."""

import base64
import hashlib
import struct
import threading

import pyarrow as pa
import pytest

import md5x
from _cdata import Producer, buffer, schema


def view(length, data=b"", index=0, offset=0):
    """A 16-byte view: inline bytes for 12 or fewer, else the first 4
    bytes, a data buffer's index and an offset."""
    if 0 <= length <= 12:
        return struct.pack("<i12s", length, data)
    return struct.pack("<i4sii", length, data[:4], index, offset)


def views_array(views, data, sizes=None, fmt=b"vz", validity=None, **kw):
    """A view array (a producer exported once) over `views` (a list of
    16-byte views, or a ctypes buffer of them) and the data buffers
    `data` (bytes, or None for a NULL pointer), with the sizes `sizes`
    (default: the data's own)."""
    if sizes is None:
        sizes = [0 if d is None else len(d) for d in data]
    if isinstance(views, list):
        views = buffer(b"".join(views))
    kw.setdefault("length", len(views) // 16)
    buffers = [None if validity is None else buffer(validity), views]
    buffers += [None if d is None else buffer(d) for d in data]
    buffers.append(buffer(struct.pack(f"<{len(sizes)}q", *sizes)))
    return Producer(schema(fmt), kw.pop("length"), buffers, **kw)


def digests(array, output="hex"):
    return pa.array(md5x.hash_array(array, output)).to_pylist()


DATA = b"0123456789abcdefghijklmnopqrstuvwxyz"  # 36 bytes


def test_views_inline_and_in_buffers_are_hashed():
    rows = [b"", b"short", b"exactly12byt", b"thirteen byte", DATA[5:30], DATA]
    views = [view(len(r), r) for r in rows[:3]]
    views += [view(13, b"thir", 1, 0), view(25, DATA[5:9], 0, 5), view(36, DATA[:4], 0, 0)]
    for output in ("hex", "binary"):
        array = views_array(views, [DATA, b"thirteen byte"], fmt=b"vz" if output == "binary" else b"vu")
        want = [getattr(hashlib.md5(r), "hexdigest" if output == "hex" else "digest")() for r in rows]
        assert digests(array, output) == want


# (view, message): each for row 1 of [a good view, this one, a good view].
LIES = [
    (view(-1), "row 1's length is -1"),
    (struct.pack("<i4sii", -(2**31), b"", 0, 0), "row 1's length is -2147483648"),
    (view(13, b"", 2, 0), "row 1's view names data buffer 2 of 2"),
    (view(13, b"", -1, 0), "row 1's view names data buffer -1 of 2"),
    (view(13, b"", 2**31 - 1, 0), "names data buffer 2147483647 of 2"),
    (view(13, b"", 0, -1), r"row 1's view \(-1 \+ 13 bytes\) is past the end of data buffer 0 \(36 bytes\)"),
    (view(13, b"", 0, 24), r"\(24 \+ 13 bytes\) is past the end of data buffer 0 \(36 bytes\)"),
    (view(37, b"", 0, 0), r"\(0 \+ 37 bytes\) is past the end"),
    (view(13, b"", 1, 1), r"\(1 \+ 13 bytes\) is past the end of data buffer 1 \(13 bytes\)"),
    # offset + length past 2**31: an i32 sum would wrap to a small number.
    (view(2**31 - 1, b"", 0, 2**31 - 1), r"\(2147483647 \+ 2147483647 bytes\) is past the end"),
    (view(100, b"", 0, 2**31 - 50), r"\(2147483598 \+ 100 bytes\) is past the end"),
]


@pytest.mark.parametrize("output", ["hex", "binary", "base64"])
@pytest.mark.parametrize(("lie", "message"), LIES, ids=[m for _, m in LIES])
def test_a_view_that_lies_raises_value_error(lie, message, output):
    good = view(13, DATA[:4], 0, 0)
    array = views_array([good, lie, good], [DATA, b"thirteen byte"])
    with pytest.raises(ValueError, match=message):
        md5x.hash_array(array, output)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"sizes": [-1, 13]}, "data buffer 0's size is -1"),
        ({"sizes": [-(2**63), 13]}, "data buffer 0's size is -9223372036854775808"),
        ({"data": [None, b"thirteen byte"], "sizes": [36, 13]}, "data buffer 0 is NULL but of 36 bytes"),
    ],
)
def test_sizes_that_cannot_be_raise_value_error(fields, message):
    data = fields.pop("data", [DATA, b"thirteen byte"])
    array = views_array([view(13, DATA[:4], 0, 0)], data, **fields)
    with pytest.raises(ValueError, match=message):
        md5x.hash_array(array)


def test_a_view_past_a_buffer_its_size_cuts_short_is_refused():
    # The size the producer gives bounds the buffer, not its allocation.
    array = views_array([view(20, DATA[:4], 0, 0)], [DATA], sizes=[19])
    with pytest.raises(ValueError, match=r"\(0 \+ 20 bytes\) is past the end of data buffer 0 \(19 bytes\)"):
        md5x.hash_array(array)


def test_buffer_count_and_null_pointers_raise_value_error():
    two = Producer(schema(b"vu"), 1, [None, buffer(view(3, b"abc"))])
    with pytest.raises(ValueError, match="2 buffers, where the type has 3 or more"):
        md5x.hash_array(two)
    no_views = Producer(schema(b"vu"), 1, [None, None, buffer(b"")])
    with pytest.raises(ValueError, match="views buffer is NULL"):
        md5x.hash_array(no_views)
    no_sizes = Producer(schema(b"vu"), 1, [None, buffer(view(13, b"abcd")), buffer(DATA), None])
    with pytest.raises(ValueError, match="variadic sizes buffer is NULL"):
        md5x.hash_array(no_sizes)


def test_null_rows_and_rows_outside_the_window_are_not_read():
    lie = view(13, b"", 99, -5)  # names no buffer, at a negative offset
    good = [view(5, b"hello"), view(13, b"thir", 1, 0)]
    # Rows 1 and 3 NULL (bits 0b0101), their views lies.
    array = views_array([good[0], lie, good[1], lie], [DATA, b"thirteen byte"], validity=b"\x05", null_count=2)
    assert digests(array) == [hashlib.md5(b"hello").hexdigest(), None, hashlib.md5(b"thirteen byte").hexdigest(), None]
    # Lies before the offset and past the length: outside the window.
    window = views_array([lie, good[0], good[1], lie], [DATA, b"thirteen byte"], offset=1, length=2)
    assert digests(window) == [hashlib.md5(b"hello").hexdigest(), hashlib.md5(b"thirteen byte").hexdigest()]
    # The same lie inside the window is read, and refused.
    inside = views_array([lie, good[0], lie, good[1]], [DATA, b"thirteen byte"], offset=1, length=2)
    with pytest.raises(ValueError, match="row 1's view names data buffer 99 of 2"):
        md5x.hash_array(inside)


def test_a_window_the_views_buffer_cannot_hold_is_refused():
    # An offset of 2**60 views: 2**64 bytes in, past any address.
    array = views_array([view(3, b"abc")], [], offset=2**60, length=1)
    with pytest.raises(ValueError, match="no buffer is that large"):
        md5x.hash_array(array)


def test_views_rewritten_while_hashing_never_panic():
    # Another thread points a view at a buffer that is not there and back,
    # again and again, while hash_array reads it: each call gives the
    # digests of one of the two views or raises ValueError naming its row,
    # never PanicException, never bytes from elsewhere.
    n = 100_000
    rows = [DATA[i % 20 : i % 20 + 13 + i % 4] for i in range(n)]
    views_buffer = buffer(b"".join(view(len(r), r[:4], 0, i % 20) for i, r in enumerate(rows)))
    at = 16 * (n // 2) + 8  # the buffer index of row n // 2
    want = [hashlib.md5(r).hexdigest() for r in rows]
    stop = threading.Event()

    def vandal():
        while not stop.is_set():
            views_buffer[at : at + 4] = struct.pack("<i", 7)
            views_buffer[at : at + 4] = struct.pack("<i", 0)

    thread = threading.Thread(target=vandal)
    thread.start()
    outcomes = set()
    try:
        for _ in range(40):
            try:
                got = pa.array(md5x.hash_array(views_array(views_buffer, [DATA]))).to_pylist()
            except ValueError as e:
                assert f"row {n // 2}'s view names data buffer 7 of 1" in str(e)
                outcomes.add("ValueError")
            else:
                outcomes.add("hashed")
                assert got == want
    finally:
        stop.set()
        thread.join()
    assert outcomes


@pytest.mark.parametrize("output", ["hex", "base64"])
def test_exported_views_point_at_their_digests(output):
    # Each view of the result: the digest's length, its first 4 bytes,
    # data buffer 0, the row's offset; NULL rows keep theirs.
    rows = [f"row {i}" if i % 7 else None for i in range(70_000)]
    result = pa.array(md5x.hash_array(pa.array(rows, pa.string_view()), output))
    assert result.type == pa.string_view()
    result.validate(full=True)
    validity, views, data = result.buffers()
    width = 32 if output == "hex" else 24
    assert data.size == width * len(rows)
    raw = views.to_pybytes()
    for i in (1, 2, 12345, 69_999):
        length, prefix, index, offset = struct.unpack_from("<i4sii", raw, 16 * i)
        assert (length, index, offset) == (width, 0, width * i)
        assert prefix == result[i].as_py().encode()[:4]
    want = [None if r is None else hashlib.md5(r.encode()) for r in rows]
    if output == "hex":
        assert result.to_pylist() == [None if h is None else h.hexdigest() for h in want]
    else:
        assert result.to_pylist() == [None if h is None else base64.b64encode(h.digest()).decode() for h in want]
