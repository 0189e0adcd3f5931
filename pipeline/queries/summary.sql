-- One row per built table: positions, maximum depth, positions at the maximum.
--   duckdb data/puzzles.duckdb < queries/summary.sql
SELECT puzzle, positions, max_depth, max_depth_positions
FROM summary
ORDER BY puzzle;
