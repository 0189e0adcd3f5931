"""Writing a picture to a file: one clear line when it cannot be written."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import BadOutput
from pipeline.storage import files


def write(path: Path, data: bytes | str) -> Path:
    """Write a file, or raise BadOutput with the reason in one line. Written aside and
    renamed: a link at ``path`` (``report.html`` planted in a data folder, say) is
    replaced, never written through."""
    try:
        files.replace(path, data, sync=False)
    except OSError as e:
        raise BadOutput(f"cannot write {path}: {e.strerror or e}") from None
    return path


def svg_file(path: Path, svg: str) -> Path:
    """Write an SVG document (the suffix must say so)."""
    if path.suffix.lower() != ".svg":
        raise BadOutput(f"{path}: a board is written as .svg, not {path.suffix or 'no suffix'}")
    return write(path, '<?xml version="1.0" encoding="utf-8"?>\n' + svg)
