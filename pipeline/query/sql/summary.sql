-- One row per built table: positions, maximum depth, positions at the maximum,
-- and for a table of the first levels only (build --max-depth) the last depth built.
--   duckdb data/puzzles.duckdb < queries/summary.sql
SELECT puzzle, positions, max_depth, max_depth_positions, partial_depth
FROM summary
ORDER BY puzzle;
