"""md5x_datafusion against datafusion's own md5 and hashlib, through
datafusion-python's SessionContext: every input type, register and
override_md5, the DataFrame API, clean errors for wrong types and for a
datafusion of another major."""

import hashlib
import os
import random
import subprocess
import sys

import pyarrow as pa
import pytest
from datafusion import SessionContext, col

import md5x_datafusion

ROWS = 20_000
CHARS = "aZ0 éß€😀"


def _texts(seed, n):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        if rng.random() < 0.1:
            rows.append(None)
            continue
        length = rng.choice([0, 55, 56, 64, rng.randrange(201)])
        s = ""
        while len(s.encode()) < length:
            s += rng.choice(CHARS)
        rows.append(s.encode()[:length].decode("utf-8", "ignore"))
    return rows


def _table():
    texts = _texts(1, ROWS)
    blobs = [None if t is None else t.encode() + b"\xff\x00" for t in texts]
    rng = random.Random(2)
    fixed = [None if rng.random() < 0.1 else rng.randbytes(56) for _ in range(ROWS)]
    columns = {
        # The order to read results in: a query on several partitions
        # may return the batches in another order.
        "id": pa.array(range(ROWS), pa.int64()),
        "utf8": pa.array(texts, pa.string()),
        "large_utf8": pa.array(texts, pa.large_string()),
        "utf8_view": pa.array(texts, pa.string_view()),
        "binary": pa.array(blobs, pa.binary()),
        "large_binary": pa.array(blobs, pa.large_binary()),
        "binary_view": pa.array(blobs, pa.binary_view()),
        "fixed": pa.array(fixed, pa.binary(56)),
        "dict": pa.array(texts, pa.string()).dictionary_encode(),
    }
    rows = {
        name: [None if v is None else (v.encode() if isinstance(v, str) else v) for v in vals]
        for name, vals in [
            ("utf8", texts),
            ("large_utf8", texts),
            ("utf8_view", texts),
            ("binary", blobs),
            ("large_binary", blobs),
            ("binary_view", blobs),
            ("fixed", fixed),
            ("dict", texts),
        ]
    }
    return pa.table(columns), rows


@pytest.fixture(scope="module")
def ctx_rows():
    table, rows = _table()
    ctx = SessionContext()
    # Batches of 1,000 rows, some sliced out of larger buffers.
    ctx.register_record_batches("t", [table.to_batches(max_chunksize=1000)])
    md5x_datafusion.register(ctx)
    return ctx, rows


def _hashlib(rows):
    return [None if r is None else hashlib.md5(r).hexdigest() for r in rows]


@pytest.mark.parametrize(
    "column",
    ["utf8", "large_utf8", "utf8_view", "binary", "large_binary", "binary_view", "fixed", "dict"],
)
def test_md5x_equals_hashlib_and_md5(ctx_rows, column):
    ctx, rows = ctx_rows
    md5_arg = f"arrow_cast({column}, 'Binary')" if column == "fixed" else column
    result = ctx.sql(
        f"SELECT md5x({column}) AS x, md5({md5_arg}) AS m, md5x_binary({column}) AS b "
        "FROM t ORDER BY id"
    ).to_arrow_table()
    expected = _hashlib(rows[column])
    assert result.column("x").to_pylist() == expected
    assert result.column("m").to_pylist() == expected
    assert result.column("b").to_pylist() == [
        None if h is None else bytes.fromhex(h) for h in expected
    ]
    assert result.schema.field("x").type == result.schema.field("m").type == pa.string_view()


def test_dataframe_api(ctx_rows):
    ctx, rows = ctx_rows
    # Sorted last: DataFusion 55 may spread a projection over a sorted
    # input across partitions and return its batches out of order (its
    # own md5 as well).
    df = (
        ctx.table("t")
        .select(
            col("id"),
            md5x_datafusion.md5x(col("utf8")).alias("x"),
            md5x_datafusion.md5x_binary(col("binary")).alias("b"),
        )
        .sort(col("id"))
    )
    result = df.to_arrow_table()
    assert result.column("x").to_pylist() == _hashlib(rows["utf8"])
    assert result.column("b").to_pylist() == [
        None if r is None else hashlib.md5(r).digest() for r in rows["binary"]
    ]


def test_override_md5():
    ctx = SessionContext()
    batch = pa.record_batch({"s": pa.array(["abc", None, ""], pa.string())})
    ctx.register_record_batches("t", [[batch]])
    fixed = "SELECT md5(arrow_cast(x'616263', 'FixedSizeBinary(3)')) AS h"
    before = ctx.sql("SELECT md5(s) FROM t").to_arrow_table()
    md5x_datafusion.override_md5(ctx)
    after = ctx.sql("SELECT md5(s) FROM t").to_arrow_table()
    assert after == before
    assert after.column(0).to_pylist() == [
        "900150983cd24fb0d6963f7d28e17f72",
        None,
        "d41d8cd98f00b204e9800998ecf8427e",
    ]
    # md5x's md5 takes fixed-width bytes as they are.
    assert ctx.sql(fixed).to_pylist() == [{"h": "900150983cd24fb0d6963f7d28e17f72"}]


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("SELECT md5x(1)", "got Int64"),
        ("SELECT md5x_binary(true)", "got Boolean"),
        ("SELECT md5x('a', 'b')", "takes 1 argument"),
    ],
)
def test_wrong_types_are_errors_naming_the_accepted_types(ctx_rows, sql, said):
    ctx, _ = ctx_rows
    with pytest.raises(Exception) as raised:
        ctx.sql(sql).collect()
    message = str(raised.value)
    assert "Utf8, LargeUtf8, Utf8View, Binary" in message
    assert said in message


def test_unknown_name_is_a_value_error():
    with pytest.raises(ValueError, match="md5x, md5x_binary or md5"):
        md5x_datafusion.ScalarUdf("sha1")


def test_the_major_it_serves_is_the_installed_one():
    import datafusion

    assert int(datafusion.__version__.split(".")[0]) == md5x_datafusion.DATAFUSION_MAJOR


@pytest.mark.skipif(
    not os.environ.get("MD5X_DATAFUSION_OTHER_MAJOR"),
    reason="MD5X_DATAFUSION_OTHER_MAJOR names no datafusion of another major",
)
def test_another_major_is_refused_with_a_message_not_a_crash():
    # A datafusion of another major, first on the path, in a process of its own.
    script = (
        "import datafusion, md5x_datafusion\n"
        "print(datafusion.__version__)\n"
        "md5x_datafusion.register(datafusion.SessionContext())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.environ["MD5X_DATAFUSION_OTHER_MAJOR"])
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert not done.stdout.startswith(f"{md5x_datafusion.DATAFUSION_MAJOR}."), done.stdout
    # An exception, exit status 1: no signal (a negative status), no abort.
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "RuntimeError" in done.stderr, done.stderr
    assert f"built for datafusion {md5x_datafusion.DATAFUSION_MAJOR}.x" in done.stderr
