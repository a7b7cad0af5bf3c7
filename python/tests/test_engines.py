"""hash_array inside each engine the README shows, on random rows, against hashlib.

The README's own examples run in test_readme.py; these push the same
recipes through more of each engine: many batches and partitions, nulls,
non-ASCII text, binary columns, results taken straight from a query.
"""

import hashlib

import pyarrow as pa
import pytest

import md5x
from _rows import expected, random_rows

ROWS = random_rows(2026, True, n=3000)
BLOBS = [r.encode() if r is not None else None for r in ROWS]


def test_duckdb_arrow_udf_and_query_results():
    duckdb = pytest.importorskip("duckdb")
    from duckdb.sqltypes import BLOB, VARCHAR

    con = duckdb.connect()
    con.register("t", pa.table({"id": range(len(ROWS)), "s": ROWS, "b": BLOBS}))
    con.create_function(
        "md5_fast", lambda s: pa.chunked_array(md5x.hash_array(s)), [VARCHAR], VARCHAR, type="arrow"
    )
    con.create_function(
        "md5_blob",
        lambda b: pa.chunked_array(md5x.hash_array(b, output="binary")).cast(pa.binary()),
        [BLOB],
        BLOB,
        type="arrow",
    )
    got = con.execute("SELECT md5_fast(s), md5(s), md5_blob(b) FROM t ORDER BY id").fetchall()
    assert [g[0] for g in got] == expected(ROWS)
    assert [g[0] for g in got] == [g[1] for g in got]
    assert [g[2] for g in got] == expected(ROWS, "binary")
    # Straight from a relation, and from its Arrow reader.
    query = "SELECT s FROM t ORDER BY id"
    assert pa.chunked_array(md5x.hash_array(con.sql(query))).to_pylist() == expected(ROWS)
    reader = con.sql(query).arrow()
    assert pa.chunked_array(md5x.hash_array(reader)).to_pylist() == expected(ROWS)


def test_datafusion_udf_replaces_md5_and_dataframes_hash_directly():
    datafusion = pytest.importorskip("datafusion")
    ctx = datafusion.SessionContext()
    batches = [
        pa.record_batch({"id": range(i, i + len(ROWS[i : i + 500])), "s": ROWS[i : i + 500]})
        for i in range(0, len(ROWS), 500)
    ]
    ctx.register_record_batches("t", [batches[:3], batches[3:]])
    query = "SELECT md5(s) AS h FROM t ORDER BY id"
    builtin = ctx.sql(query).to_pydict()["h"]
    assert builtin == expected(ROWS)
    seen = []

    def md5_arrow(s):
        seen.append(s.type)
        return pa.array(md5x.hash_array(s))

    ctx.register_udf(datafusion.udf(md5_arrow, [pa.string()], pa.string(), "immutable", name="md5"))
    assert ctx.sql(query).to_pydict()["h"] == builtin
    assert seen and set(seen) == {pa.string()}
    # A DataFrame of one column is an Arrow stream.
    df = ctx.sql("SELECT s FROM t ORDER BY id")
    assert pa.chunked_array(md5x.hash_array(df)).to_pylist() == expected(ROWS)
    # string_view columns, as DataFusion reads Parquet.
    views = ctx.sql("SELECT arrow_cast(s, 'Utf8View') AS s FROM t ORDER BY id")
    assert pa.chunked_array(md5x.hash_array(views)).to_pylist() == expected(ROWS)


def test_polars_map_batches_lazy_and_chunked():
    pl = pytest.importorskip("polars")
    half = len(ROWS) // 2
    df = pl.concat([pl.DataFrame({"s": ROWS[:half]}), pl.DataFrame({"s": ROWS[half:]})], rechunk=False)
    md5 = pl.col("s").map_batches(lambda s: pl.Series(md5x.hash_array(s)), return_dtype=pl.String)
    out = df.lazy().with_columns(md5=md5).collect()
    assert out["md5"].to_list() == expected(ROWS)
    binary = pl.Series("b", BLOBS)
    got = pl.Series(md5x.hash_array(binary, output="base64")).to_list()
    assert got == expected(ROWS, "base64")


def test_pandas_string_and_object_columns():
    pd = pytest.importorskip("pandas")
    s = pd.Series(ROWS, index=range(7, 7 + len(ROWS)))
    got = pd.Series.from_arrow(md5x.hash_array(s)).set_axis(s.index)
    assert [None if pd.isna(v) else v for v in got] == expected(ROWS)
    assert list(got.index) == list(s.index)
    blobs = pd.Series(BLOBS, dtype=object)
    got = pd.Series.from_arrow(md5x.hash_array(blobs, output="binary"))
    assert [None if pd.isna(v) else v for v in got] == expected(ROWS, "binary")


def test_dask_map_partitions():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    import dask

    def md5_hex(s):
        return pd.Series.from_arrow(md5x.hash_array(s)).set_axis(s.index)

    text = [r if r is not None else "" for r in ROWS]
    ddf = dd.from_pandas(pd.DataFrame({"s": text}), npartitions=5)
    ddf["md5"] = ddf["s"].map_partitions(md5_hex, meta=("md5", "str"))
    with dask.config.set(scheduler="threads"):
        out = ddf.compute()
    assert out["md5"].tolist() == [hashlib.md5(t.encode()).hexdigest() for t in text]
