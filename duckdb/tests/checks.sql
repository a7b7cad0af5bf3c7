-- md5x's functions against DuckDB's own on every row: each check prints
-- its name, how many rows (or cases) it covered and how many differed. Run
-- by tests/test_extension.py in the duckdb Python package and in the
-- DuckDB CLI, after LOAD of the extension.
SET threads = 2;

-- 20,000 rows: lengths 0 to 200, the inline/out-of-line edge (11 to 14
-- bytes), empty strings, long ones (up to 6 KB), non-ASCII, NULLs; BLOBs
-- with zero bytes.
CREATE TEMP TABLE t AS
SELECT i,
    CASE WHEN i % 11 = 0 THEN NULL
        ELSE substr(repeat(md5(i::VARCHAR) || CASE WHEN i % 3 = 0 THEN 'é☃𝄞' ELSE '' END, 200),
            1, CASE i % 5 WHEN 0 THEN i % 201 WHEN 1 THEN 11 + i % 4 WHEN 2 THEN 1000 + i % 5000
                WHEN 3 THEN 0 ELSE 1 + i % 64 END)
    END AS s,
    CASE WHEN i % 13 = 0 THEN NULL
        ELSE ('\x00'::BLOB || unhex(repeat(md5(i::VARCHAR), i % 23)) || '\x00\x00'::BLOB)[1:i % 300]
    END AS b
FROM range(20000) r(i);

CREATE MACRO differs(x) AS
    (md5x(x) IS DISTINCT FROM md5(x))::INT
    + (md5x_number(x) IS DISTINCT FROM md5_number(x))::INT
    + (md5x_binary(x) IS DISTINCT FROM unhex(md5(x)))::INT;

-- Results kept past the chunk that made them: stored in a table, sorted.
CREATE TEMP TABLE kept AS SELECT i, md5x(s) AS h, md5x_binary(b) AS hb, md5x_number(s) AS hn FROM t;

SELECT 'varchar rows' AS check, count(*) AS cases, sum(differs(s)) AS differ FROM t
UNION ALL
SELECT 'blob rows', count(*), sum(differs(b)) FROM t
UNION ALL
-- What the rows cover: each of these must be non-zero.
SELECT 'covers NULL', count(*) FILTER (s IS NULL), 0 FROM t
UNION ALL
SELECT 'covers empty', count(*) FILTER (s = ''), 0 FROM t
UNION ALL
SELECT 'covers 12 bytes', count(*) FILTER (strlen(s) = 12), 0 FROM t
UNION ALL
SELECT 'covers 13 bytes', count(*) FILTER (strlen(s) = 13), 0 FROM t
UNION ALL
SELECT 'covers non-ASCII', count(*) FILTER (strlen(s) > length(s)), 0 FROM t
UNION ALL
SELECT 'covers long', count(*) FILTER (strlen(s) > 4096), 0 FROM t
UNION ALL
SELECT 'covers zero bytes', count(*) FILTER (contains(hex(b), '00')), 0 FROM t
UNION ALL
-- The types are DuckDB's.
SELECT 'types', count(*),
    count(*) FILTER (typeof(md5x(s)) <> typeof(md5(s)) OR typeof(md5x_number(s)) <> typeof(md5_number(s))
        OR typeof(md5x_binary(s)) <> 'BLOB' OR octet_length(md5x_binary(s)) <> 16)
FROM t WHERE s IS NOT NULL
UNION ALL
-- A constant, folded by the planner or not.
SELECT 'constant', count(*), sum(differs('a constant longer than twelve bytes') + differs('short')) FROM range(5000)
UNION ALL
-- CASE: a mix of constants, NULLs and the column, chunk by chunk.
SELECT 'case', count(*), sum(differs(CASE WHEN i % 3 = 0 THEN 'abcdefghijklmnopq' WHEN i % 3 = 1 THEN NULL ELSE s END))
FROM t
UNION ALL
-- A join's probe side: dictionary vectors over the few build rows.
SELECT 'join', count(*), sum(differs(d.s) + differs(d.b))
FROM range(30000) r(k) JOIN (SELECT i, s, b FROM t WHERE i < 40) d ON d.i = r.k % 40
UNION ALL
-- UNNEST of a list: its rows repeat the list's elements.
SELECT 'unnest', count(*), sum(differs(x))
FROM (SELECT unnest(['', 'a', NULL, 'twelve bytes', 'thirteen byte', repeat('é', 40), s]) AS x FROM t)
UNION ALL
SELECT 'kept in a table', count(*),
    count(*) FILTER (h IS DISTINCT FROM md5(s) OR hb IS DISTINCT FROM unhex(md5(b)) OR hn IS DISTINCT FROM md5_number(s))
FROM kept JOIN t USING (i)
UNION ALL
SELECT 'sorted', count(*), count(*) FILTER (h IS DISTINCT FROM md5(s))
FROM (SELECT md5x(s) AS h, s FROM t ORDER BY h, i)
UNION ALL
-- Many chunks on both threads: 10M rows.
SELECT '10M rows', count(*), count(*) FILTER (md5x(x) <> md5(x) OR md5x_number(x) <> md5_number(x))
FROM (SELECT i::VARCHAR || 'x' AS x FROM range(10000000) r(i));
