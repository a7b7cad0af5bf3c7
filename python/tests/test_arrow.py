"""md5x.hash_array against hashlib, row by row, over every Arrow layout it reads."""

import base64
import gc
import hashlib
import random
import re
import zlib

import numpy as np
import pyarrow as pa
import pytest

import md5x
from _rows import expected, random_rows
from conftest import gil_data, released_gil

TEXT_TYPES = [pa.string(), pa.large_string(), pa.string_view()]
BINARY_TYPES = [pa.binary(), pa.large_binary(), pa.binary_view()]
OUTPUTS = ["hex", "binary", "base64"]


def hashed(column, output="hex"):
    """hash_array's result, imported by pyarrow, as a Python list."""
    result = md5x.hash_array(column, output)
    if isinstance(result, md5x.ArrowStream):
        return pa.chunked_array(result).to_pylist()
    return pa.array(result).to_pylist()


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("arrow_type", TEXT_TYPES + BINARY_TYPES, ids=str)
def test_every_type_against_hashlib(arrow_type, output):
    text = arrow_type in TEXT_TYPES
    rows = random_rows(zlib.crc32(str(arrow_type).encode()), text)
    column = pa.array(rows, type=arrow_type)
    assert hashed(column, output) == expected(rows, output)


@pytest.mark.parametrize("arrow_type", TEXT_TYPES + BINARY_TYPES, ids=str)
def test_output_types(arrow_type):
    column = pa.array(["abc", None] if arrow_type in TEXT_TYPES else [b"abc", None], arrow_type)
    # Strings in the input's family: views for views.
    views = arrow_type in (pa.string_view(), pa.binary_view())
    text = pa.string_view() if views else pa.string()
    assert pa.array(md5x.hash_array(column)).type == text
    assert pa.array(md5x.hash_array(column, "base64")).type == text
    assert pa.array(md5x.hash_array(column, "binary")).type == pa.binary(16)
    assert pa.array(md5x.hash_array(column)).to_pylist() == [
        "900150983cd24fb0d6963f7d28e17f72",
        None,
    ]
    assert pa.array(md5x.hash_array(column, "base64")).to_pylist() == [
        "kAFQmDzST7DWlj99KOF/cg==",
        None,
    ]


@pytest.mark.parametrize("arrow_type", TEXT_TYPES + BINARY_TYPES, ids=str)
def test_empty_and_all_null(arrow_type):
    for output in OUTPUTS:
        empty = pa.array(md5x.hash_array(pa.array([], arrow_type), output))
        assert len(empty) == 0
        nulls = pa.array(md5x.hash_array(pa.array([None] * 70, arrow_type), output))
        assert nulls.null_count == 70 and nulls.to_pylist() == [None] * 70


@pytest.mark.parametrize("arrow_type", TEXT_TYPES + BINARY_TYPES, ids=str)
def test_slices(arrow_type):
    rows = random_rows(7, arrow_type in TEXT_TYPES, n=300)
    column = pa.array(rows, type=arrow_type)
    # Offsets that are and are not multiples of 8, so that the validity
    # bitmap is read from a bit inside a byte.
    for start, length in [(3, 50), (8, 40), (13, 7), (1, 0), (0, 1), (5, len(rows) - 5)]:
        part = column.slice(start, length)
        assert hashed(part) == expected(rows[start : start + length]), (start, length)
    twice = column.slice(9, 100).slice(3, 50)
    assert hashed(twice) == expected(rows[12:62])
    assert hashed(column.slice(len(rows))) == []


def test_slice_of_the_null_bitmap_across_bytes():
    rows = [None if i % 3 == 0 else f"r{i}" for i in range(64)]
    column = pa.array(rows)
    for start in range(17):
        assert hashed(column.slice(start, 30)) == expected(rows[start : start + 30])


@pytest.mark.parametrize("output", OUTPUTS)
def test_chunked_array_gives_a_stream_of_as_many_chunks(output):
    parts = [random_rows(i, True, n=50) for i in range(4)]
    chunked = pa.chunked_array([pa.array(p) for p in parts] + [pa.array([], pa.string())])
    result = md5x.hash_array(chunked, output)
    assert isinstance(result, md5x.ArrowStream)
    back = pa.chunked_array(result)
    assert back.num_chunks == 5
    assert [len(c) for c in back.chunks] == [len(p) for p in parts] + [0]
    assert back.to_pylist() == expected(sum(parts, []), output)
    # A slice of a chunked array starts inside a chunk.
    sliced = chunked.slice(30, 60)
    assert pa.chunked_array(md5x.hash_array(sliced)).to_pylist() == expected(
        sum(parts, [])[30:90]
    )


def test_stream_is_exported_again_from_the_start():
    result = md5x.hash_array(pa.chunked_array([["a"], ["b", None]]))
    first = pa.chunked_array(result).to_pylist()
    assert pa.chunked_array(result).to_pylist() == first == expected(["a", "b", None])
    assert "2 arrays" in repr(result) and "3 rows" in repr(result) and "1 null" in repr(result)


def test_record_batch_reader_of_one_column():
    batches = [pa.record_batch({"s": pa.array(p)}) for p in (["a", None], ["bc"])]
    reader = pa.RecordBatchReader.from_batches(batches[0].schema, batches)
    assert hashed(reader) == expected(["a", None, "bc"])
    table = pa.Table.from_batches(batches)
    assert hashed(table) == expected(["a", None, "bc"])
    assert hashed(batches[0].slice(1)) == [None]


def test_struct_nulls_and_column_nulls_combine():
    child = pa.array(["a", None, "c", "d", "e"] * 4)
    mask = pa.array([i % 4 == 3 for i in range(20)])
    struct = pa.StructArray.from_arrays([child], names=["s"], mask=mask)
    rows = [None if i % 4 == 3 else v for i, v in enumerate(child.to_pylist())]
    assert hashed(struct) == expected(rows)
    assert hashed(struct.slice(3, 11)) == expected(rows[3:14])


def test_polars_series():
    pl = pytest.importorskip("polars")
    rows = random_rows(11, True, n=200)
    series = pl.Series("s", rows)
    assert hashed(series) == expected(rows)
    back = pl.Series(md5x.hash_array(series))
    assert back.dtype == pl.String and back.to_list() == expected(rows)
    binary = pl.Series("b", [r.encode() if r is not None else None for r in rows])
    assert hashed(binary) == expected(rows)
    assert pl.Series(md5x.hash_array(binary, "binary")).to_list() == expected(rows, "binary")
    # Several chunks give a stream of as many.
    chunked = pl.concat([series, series.slice(5, 20)], rechunk=False)
    assert chunked.n_chunks() == 2
    assert pl.Series(md5x.hash_array(chunked)).to_list() == expected(rows + rows[5:25])
    assert hashed(series.slice(3, 40)) == expected(rows[3:43])
    # Polars exports views, and takes views back as they are.
    assert "hex digests as string_view" in repr(md5x.hash_array(series))


def test_polars_lazy_map_batches_of_many_rows():
    # Enough rows for parts on several threads, called from Polars' pool.
    pl = pytest.importorskip("polars")
    rows = [None if i % 1000 == 7 else f"row {i}" for i in range(100_000)]
    lf = pl.LazyFrame({"i": range(len(rows)), "s": rows})
    md5 = pl.col("s").map_batches(lambda s: pl.Series(md5x.hash_array(s)), return_dtype=pl.String)
    out = lf.with_columns(md5=md5).filter(pl.col("i") % 3 == 0).collect()
    assert out["md5"].to_list() == expected(rows[::3])


def test_nanoarrow_and_arro3():
    na = pytest.importorskip("nanoarrow")
    ac = pytest.importorskip("arro3.core")
    rows = ["a", None, "é" * 40, ""]
    assert hashed(na.c_array(rows, na.string())) == expected(rows)
    assert hashed(na.Array(rows, na.large_string())) == expected(rows)
    # (nanoarrow 0.9 crashes building a string_view array from a list, by
    # itself: views come from pyarrow and Polars above.)
    assert hashed(ac.Array(rows, ac.DataType.string())) == expected(rows)
    assert hashed(ac.Array(rows, ac.DataType.large_utf8())) == expected(rows)
    # They read the results too.
    assert na.Array(md5x.hash_array(pa.array(rows))).to_pylist() == expected(rows)
    assert ac.Array.from_arrow(md5x.hash_array(pa.array(rows))).to_pylist() == expected(rows)


@pytest.mark.parametrize(
    ("column", "name"),
    [
        (pa.array([1, 2], pa.int64()), "int64"),
        (pa.array([1.5], pa.float64()), "float64"),
        (pa.array(["a", "b", "a"]).dictionary_encode(), "dictionary<values=string, indices=int32>"),
        (pa.array([[1]]), "list<item: int64>"),
        (pa.array([b"0123456789abcdef"], pa.binary(16)), "fixed_size_binary[16]"),
        (pa.table({"a": ["x"], "b": ["y"]}), "struct<a: string, b: string>"),
        (pa.array([None], pa.null()), "null"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_other_types_raise_type_error_naming_them(column, name):
    with pytest.raises(TypeError, match=f"not {re.escape(name)}$"):
        md5x.hash_array(column)


def test_non_arrow_input_raises_type_error():
    for bad in (["a", "b"], b"abc", None, 3):
        with pytest.raises(TypeError, match="Arrow array or stream"):
            md5x.hash_array(bad)


@pytest.mark.parametrize("output", ["HEX", "", "digest", "b64", "hexdigest"])
def test_bad_output_raises_value_error(output):
    with pytest.raises(ValueError, match="output must be"):
        md5x.hash_array(pa.array(["a"]), output)


def test_output_keyword_and_positional_array():
    assert pa.array(md5x.hash_array(pa.array(["a"]), output="base64")).to_pylist() == expected(
        ["a"], "base64"
    )
    with pytest.raises(TypeError):
        md5x.hash_array(array=pa.array(["a"]))


@pytest.mark.parametrize(
    ("arrow_type", "output"),
    [(pa.string(), "hex"), (pa.string_view(), "hex"), (pa.string_view(), "base64"), (pa.large_binary(), "binary")],
    ids=str,
)
def test_many_rows_on_several_threads_against_hashlib(arrow_type, output):
    # 140,003 rows: up to 4 parts of 32,768 rows or more, each on a thread
    # of its own, their last rows and NULLs where the parts meet.
    rng = random.Random(0x0B5)
    rows = [None if i % 97 == 0 else rng.randbytes(rng.randrange(80)).hex()[: rng.randrange(120)] for i in range(140_003)]
    if arrow_type == pa.large_binary():
        rows = [None if r is None else r.encode() for r in rows]
    column = pa.array(rows, arrow_type)
    want = expected(rows, output)
    for jobs in (1, 2, 3, 7):
        assert pa.array(md5x.hash_array(column, output, jobs=jobs)).to_pylist() == want
    window = column.slice(1001, 100_000)
    assert pa.array(md5x.hash_array(window, output, jobs=3)).to_pylist() == want[1001:101_001]
    chunked = pa.chunked_array([column, window])
    got = pa.chunked_array(md5x.hash_array(chunked, output, jobs=2)).to_pylist()
    assert got == want + want[1001:101_001]


@pytest.mark.parametrize("jobs", [0, -1, -(2**63)])
def test_jobs_below_one_raise_value_error(jobs):
    with pytest.raises(ValueError, match=f"jobs must be at least 1, not {jobs}"):
        md5x.hash_array(pa.array(["a"]), jobs=jobs)
    with pytest.raises(TypeError):
        md5x.hash_array(pa.array(["a"]), "hex", 2)  # a keyword only


def test_result_is_exported_without_copy_and_outlives_its_input():
    column = pa.array(random_rows(3, True, n=100))
    want = expected(column.to_pylist())
    result = md5x.hash_array(column)
    del column
    gc.collect()
    one, two = pa.array(result), pa.array(result)
    # Both imports read the one buffer the result holds.
    assert one.buffers()[2].address == two.buffers()[2].address
    del result
    gc.collect()
    assert one.to_pylist() == want == two.to_pylist()
    assert len(md5x.hash_array(pa.array(["a", None, "b"]))) == 3


def test_requested_schema():
    result = md5x.hash_array(pa.array(["a", None]))
    large = pa.array(result, type=pa.large_string())
    assert large.type == pa.large_string() and large.to_pylist() == expected(["a", None])
    assert pa.array(result, type=pa.string()).to_pylist() == expected(["a", None])
    with pytest.raises(ValueError, match="cannot export them as int32"):
        result.__arrow_c_array__(pa.int32().__arrow_c_schema__())
    binary = md5x.hash_array(pa.array(["a"]), "binary")
    with pytest.raises(ValueError, match="cannot export them as string"):
        binary.__arrow_c_array__(pa.string().__arrow_c_schema__())
    assert pa.array(result, type=pa.string_view()).to_pylist() == expected(["a", None])
    stream = md5x.hash_array(pa.chunked_array([["a"], ["b"]]))
    assert pa.chunked_array(stream, type=pa.large_string()).type == pa.large_string()
    empty = md5x.hash_array(pa.chunked_array([], pa.string()), "base64")
    assert "base64 digests" in repr(empty) and "0 arrays" in repr(empty)
    with pytest.raises(ValueError, match="cannot export them as int8"):
        empty.__arrow_c_stream__(pa.int8().__arrow_c_schema__())
    views = md5x.hash_array(pa.array(["a", None], pa.string_view()))
    assert pa.array(views, type=pa.string()).to_pylist() == expected(["a", None])


def test_input_capsules_are_taken_and_released_once():
    column = pa.array(["a", "b"])

    class Once:
        capsules = None

        def __arrow_c_array__(self, requested_schema=None):
            Once.capsules = column.__arrow_c_array__()
            return Once.capsules

    assert hashed(Once()) == expected(["a", "b"])
    schema, array = Once.capsules
    # hash_array moved both structs out: the capsules hold released ones,
    # which pyarrow refuses to import (and their destructors skip).
    with pytest.raises(ValueError, match="released"):
        pa.Array._import_from_c_capsule(schema, array)
    del schema, array
    Once.capsules = None
    gc.collect()
    assert column.to_pylist() == ["a", "b"]


def unchecked(arrow_type, length, buffers, **kw):
    """An array as given, not validated (nanoarrow builds it as told)."""
    na = pytest.importorskip("nanoarrow")
    return na.c_array_from_buffers(arrow_type, length, buffers, validation_level="none", **kw)


def test_malformed_arrays_raise_value_error():
    values = b"hello"
    cases = [
        ([0, 5, 3], 2, {}, "offsets decrease at row 1 \\(5 > 3\\)"),
        ([-1, 2], 1, {}, "first offset is negative"),
        ([0, 2], 1, {"null_count": 5}, "null_count is 5, for 1 rows"),
        ([0, 2], 1, {"null_count": -2}, "null_count is -2"),
        ([0, 2], 1, {"null_count": 1}, "no validity bitmap"),
    ]
    for offsets, length, kw, message in cases:
        buffers = [None, np.array(offsets, np.int32), values]
        with pytest.raises(ValueError, match=message):
            md5x.hash_array(unchecked(pa.binary(), length, buffers, **kw))
    buffers = [None, np.array([0, 2], np.int64), values]
    with pytest.raises(ValueError, match="offset is negative"):
        md5x.hash_array(unchecked(pa.large_binary(), 1, buffers, offset=-1))
    with pytest.raises(ValueError, match="values buffer is NULL"):
        md5x.hash_array(unchecked(pa.large_binary(), 1, [None, np.array([0, 2], np.int64), None]))
    good = unchecked(pa.large_binary(), 1, [None, np.array([0, 2], np.int64), values])
    assert hashed(good) == expected([b"he"])
    # A view of 20 bytes naming data buffer 1 of 1.
    view = np.zeros(16, dtype=np.uint8)
    view[0:4] = np.frombuffer(np.int32(20).tobytes(), np.uint8)
    view[8:12] = np.frombuffer(np.int32(1).tobytes(), np.uint8)
    data = pa.py_buffer(b"x" * 32)
    bad = pa.Array.from_buffers(pa.binary_view(), 1, [None, pa.py_buffer(view), data])
    with pytest.raises(ValueError, match="data buffer 1 of 1"):
        md5x.hash_array(bad)
    # One past the end of its data buffer.
    view[8:12] = 0
    view[12:16] = np.frombuffer(np.int32(13).tobytes(), np.uint8)
    bad = pa.Array.from_buffers(pa.binary_view(), 1, [None, pa.py_buffer(view), data])
    with pytest.raises(ValueError, match="past the end"):
        md5x.hash_array(bad)
    view[12:16] = np.frombuffer(np.int32(12).tobytes(), np.uint8)
    good = pa.Array.from_buffers(pa.binary_view(), 1, [None, pa.py_buffer(view), data])
    assert hashed(good) == expected([b"x" * 20])


def test_unaligned_offsets_are_read():
    rows = [b"ab", b"", b"cde", b"x" * 70]
    offsets = np.cumsum([0] + [len(r) for r in rows]).astype(np.int32).tobytes()
    # One byte in: the offsets' address is odd.
    shifted = pa.py_buffer(b"\0" + offsets).slice(1)
    assert shifted.address % 4 != 0
    column = pa.Array.from_buffers(pa.binary(), 4, [None, shifted, pa.py_buffer(b"".join(rows))])
    assert hashed(column) == expected(rows)


def test_gil_is_released_while_hashing():
    # The values are read from pages another Python thread supplies
    # (conftest.released_gil): the call finishes only if it lets the GIL go.
    n, width = 200_000, 40
    setup = f"""
    import numpy as np, pyarrow as pa
    offsets = np.arange(0, ({n} + 1) * {width}, {width}, dtype=np.int64)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(PAGES.view)]
    COLUMN = pa.Array.from_buffers(pa.large_binary(), {n}, buffers)
    """
    got = released_gil("pa.array(md5x.hash_array(COLUMN)).to_pylist()", n * width, setup)
    values = gil_data(n * width)
    assert got == [hashlib.md5(values[i * width : (i + 1) * width]).hexdigest() for i in range(n)]
