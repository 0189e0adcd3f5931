"""The service: each answer computed in one place, for every surface.

The API (pipeline/api.py), the command line, the explorer (pipeline/serve/)
and the report (pipeline/pictures/report.py) all ask these modules and print,
serve or draw what they answer (pipeline/answers.py):

- :mod:`~pipeline.service.folder`: a data folder's tables, read once and again
  only when the folder changes; the damaged ones with the line that says why;
- :mod:`~pipeline.service.walks`: the one walk along parents (a solve, a strip);
- :mod:`~pipeline.service.positions`: a position's depth and its moves with theirs;
- :mod:`~pipeline.service.tables`: a table's histogram, numbers and deepest positions.
"""
