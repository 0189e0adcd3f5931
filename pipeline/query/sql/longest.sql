-- The positions farthest from the roots of one table (the deepest level).
-- The depth filter lets DuckDB skip every file but the last level's.
--   duckdb data/puzzles.duckdb -cmd "SET VARIABLE puzzle = '3x3'" < queries/longest.sql
SELECT board(getvariable('puzzle'), state) AS position, state, depth
FROM query_table(getvariable('puzzle'))
WHERE depth = (SELECT max_depth FROM puzzles WHERE name = getvariable('puzzle'))
ORDER BY state;
