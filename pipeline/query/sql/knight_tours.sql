-- The closed knight's tours of board A from cell 0, as cell sequences.
-- A closed tour ends, after 13 jumps, on a cell a knight's jump from cell 0
-- (cells 5 and 6 on board A). Each row walks parents back to the start.
--   duckdb data/puzzles.duckdb < queries/knight_tours.sql
WITH RECURSIVE closed AS (
    SELECT state AS tour, state, parent, depth
    FROM knight14
    WHERE depth = 13 AND list_position(cells('knight14', state), 2) - 1 IN (5, 6)
), walk AS (
    SELECT tour, state, parent, depth FROM closed
    UNION ALL
    SELECT walk.tour, k.state, k.parent, k.depth
    FROM walk JOIN knight14 k ON k.state = walk.parent
)
SELECT string_agg((list_position(cells('knight14', state), 2) - 1)::VARCHAR, ' ' ORDER BY depth)
       || ' 0' AS tour
FROM walk
GROUP BY walk.tour
ORDER BY tour;
