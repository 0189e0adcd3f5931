-- Magic triangle solutions by common sum, after the article's duplicate rules:
-- board[0] < board[3] < board[6] (rotations, mirror) and the two middle numbers
-- of each side in order (board[1] < board[2], board[4] < board[5], board[7] < board[8]).
-- SQL lists count from 1: c[1] is place 0.
--   duckdb data/puzzles.duckdb < queries/magic_solutions.sql
WITH solutions AS (
    SELECT cells('magic9', state) AS c, board('magic9', state) AS position
    FROM magic9
    WHERE depth = 9
)
SELECT c[1] + c[2] + c[3] + c[4] AS side_sum, position
FROM solutions
WHERE c[1] < c[4] AND c[4] < c[7] AND c[2] < c[3] AND c[5] < c[6] AND c[8] < c[9]
ORDER BY side_sum, position;
