"""``puzzledb serve``: a local web explorer over a data folder (docs/EXPLORER.md).

documents.py gives the service's answers (pipeline/service/: every surface asks it)
as plain dicts, the JSON endpoints' shapes; pages.py draws them as HTML with
the project's own SVG boards and charts; app.py routes requests to both over
one Database, whose folder is read once and again only when it changes.
Read-only: request text is parsed by the puzzle's codec and looked up by the
manifest's ranges, never turned into SQL or a path.
"""
