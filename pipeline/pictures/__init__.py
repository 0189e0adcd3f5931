"""Pictures: boards as SVG, depth histograms as charts, and the HTML report.

- :mod:`~pipeline.pictures.boards`: a position, or a solution as a strip of boards,
  each drawn by its family's drawing (pipeline/draw/ is the toolkit; a family
  declares its own: pipeline/puzzles/family.py);
- :mod:`~pipeline.pictures.charts`: positions per depth with matplotlib (SVG or PNG);
- :mod:`~pipeline.pictures.report`: one self-contained HTML page for a data folder.

Every picture carries its numbers as data attributes (``data-cell``/``data-value``
on board cells, ``data-depth``/``data-count`` on chart bars and points), so
tests read them back and compare with the tables.
"""
