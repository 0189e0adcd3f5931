-- The path from a typed position to the root of its table, by walking parents.
-- For tables enumerated from the goal (sliding puzzles) it is an optimal solution.
--   duckdb data/puzzles.duckdb -cmd "SET VARIABLE puzzle = '3x3'" \
--     -cmd "SET VARIABLE position = '8 6 7 2 5 4 3 0 1'" < queries/path.sql
-- One row group read a depth (README, "The path macro"): fast on every board.
SELECT step, position, depth, state
FROM path(getvariable('puzzle'), state_of(getvariable('puzzle'), getvariable('position')))
ORDER BY step;
