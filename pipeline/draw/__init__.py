"""Drawing: the SVG toolkit the families draw their positions with (below the puzzles).

- :mod:`~pipeline.draw.svg`: a few helpers to write SVG text;
- :mod:`~pipeline.draw.geometry`: where each cell sits, read from the text layout;
- :mod:`~pipeline.draw.art`: the :class:`~pipeline.draw.art.Art` base a family's
  drawing extends (its own class, in its own module: pipeline/puzzles/*).

It knows no puzzle: it reads a puzzle's cell codec only. pictures/ puts the
families' drawings together into boards, strips, charts and the report.
"""
