-- Positions at each depth of one table, counted from its Parquet files.
-- In the DuckDB CLI, from the repository root:
--   duckdb data/puzzles.duckdb -cmd "SET VARIABLE puzzle = '2x5'" < queries/histogram.sql
SELECT depth, count(*) AS positions
FROM query_table(getvariable('puzzle'))
GROUP BY depth
ORDER BY depth;
