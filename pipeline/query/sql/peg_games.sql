-- Peg solitaire games counted in jump sequences (needs a table built with --paths).
-- wins: jump sequences from the start that leave one peg in the goal hole;
-- dead_ends: games that end in a position with no legal jump, wins included.
--   duckdb data/puzzles.duckdb -cmd "SET VARIABLE puzzle = 'triangle15'" \
--     -cmd "SET VARIABLE goal = '............x..'" < queries/peg_games.sql
SELECT
    sum(paths) FILTER (WHERE state = state_of(getvariable('puzzle'), getvariable('goal')))
        AS wins,
    sum(paths) FILTER (WHERE NOT can_jump(getvariable('puzzle'), state)) AS dead_ends,
    count(*) FILTER (WHERE NOT can_jump(getvariable('puzzle'), state)) AS dead_end_positions
FROM query_table(getvariable('puzzle'));
