"""Whether a table's files are the ones its manifest describes, before anything reads them.

Four guards, from cheapest to dearest:
- every file written since page checksums exist carries a CRC32 on each data
  page, and every read the API makes asks pyarrow to check it (a guard against
  damage only: whoever changes a page recomputes its CRC);
- the footer (the row groups' statistics a point look-up chooses by, which
  no page checksum covers) is hashed into the manifest and checked when a
  file is opened (:func:`check_footer`, :func:`read_footer`);
- every column chunk is hashed into the manifest (format version 2:
  :func:`chunk_sha256`) and checked as a read takes it (storage/reader.py's
  ``HashedFile``), each chunk of a file version once (:class:`Known`);
- where neither can help (DuckDB reads pages without checking them; tables
  of format version 1, whose manifests hold no chunk hashes), a file's sha256
  is compared with the manifest's before it is first used, remembered outside
  the data folder so that it is computed once (:func:`check_table`,
  :func:`check_file`). The memory is keyed on the change time
  (``st_ctime_ns``) with size, mtime, inode and device: every write moves the
  change time and nothing but the clock can set it (``touch -r`` puts back an
  mtime, not a ctime), so an edit is hashed again. Bit rot under the file
  system changes no metadata: only the page checksums (pyarrow reads) and
  ``verify`` see it in a file remembered.

The manifest's rows and state range of a file, which no hash covers (a point
look-up skips files by that range, SQL counts levels by those rows), are held
against its footer whenever it is opened or hashed (:func:`check_range`).

Arrays derived from tables and kept in a data folder (pattern databases'
``_pdb.npy``) are covered by no manifest: one is trusted only when this
machine wrote it, remembered here by its stamp and a key of its sources
(:func:`remember_derived`, :func:`is_derived`). ctime cannot be set back by
a user, so a file changed or replaced since no longer matches its stamp.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import hints
from pipeline.errors import CorruptTable
from pipeline.storage.format import CLASS_SIZE, wrong_columns
from pipeline.storage.manifest import FileEntry, Manifest

#: Where the checked files are remembered (never inside a data folder).
CACHE_ENV = "PUZZLEDB_CACHE"
#: How long before a check a file must have last changed to be remembered.
SETTLED_NS = 2_000_000_000
#: The largest footer read. A build's files hold at most 16 row groups, whose
#: footers measure 1 to 4 KB; a footer's length is the file's own word, read
#: before anything else, so a forged one must not size a read (1 GiB did).
FOOTER_LIMIT = 1 << 20
#: (start, end) of a column chunk in its file.
Span = tuple[int, int]
#: The folder of a data folder where builds stage their files (storage/staging.py).
STAGING = ".staging"
#: What a remembered footer check is keyed by (a full check, by the path alone).
_FOOTER = "footer:"
_ORBITS = "orbits:"
_CHUNKS = "chunks:"  # the column chunks of a file found sound (Known)
#: The memory of checks as read, by key (a file's path, or a prefix and it): JSON
#: lists (a file's stamp, the manifest's figures, ...), compared whole or checked
#: where they are read, as a hand-edited memory must not be trusted further.
Memory = dict[str, object]


def footer_sha256(data: bytes | pa.Buffer) -> str:
    """The sha256 of a Parquet file's footer: its metadata, length and magic."""
    tail = bytes(data[-8:])
    length = int.from_bytes(tail[:4], "little")
    return hashlib.sha256(bytes(data[-(8 + length) :])).hexdigest()


def chunk_spans(md: pq.FileMetaData) -> list[list[Span]]:
    """Each column chunk's bytes, by row group then column, as pyarrow reads them: from
    the dictionary page when there is one before the data pages, else the first data
    page, for ``total_compressed_size`` bytes. ``md``: the file's ``FileMetaData``."""
    out = []
    for i in range(md.num_row_groups):
        group = md.row_group(i)
        row = []
        for c in range(group.num_columns):
            chunk = group.column(c)
            start = chunk.data_page_offset
            dictionary = chunk.dictionary_page_offset or 0
            if chunk.has_dictionary_page and 0 < dictionary < start:
                start = dictionary
            row.append((start, start + chunk.total_compressed_size))
        out.append(row)
    return out


def chunk_sha256(data: bytes | pa.Buffer) -> list[list[str]]:
    """The sha256 of each column chunk of the Parquet file ``data`` (its bytes), by row
    group then column: what a manifest of format version 2 records."""
    view = memoryview(data).cast("B")
    md = pq.read_metadata(pa.BufferReader(data))
    return [[hashlib.sha256(view[a:b]).hexdigest() for a, b in row] for row in chunk_spans(md)]


def damaged(path: Path, table: str, why: str) -> CorruptTable:
    """One line naming the file, what is wrong and the command that rebuilds its table
    (``--data`` when the folder is not the default: the file's grandparent)."""
    return CorruptTable(
        f"{path} {why}: rebuild with {hints.build(table, path.parent.parent, True)}"
    )


def check_footer(path: Path, entry: FileEntry, table: str) -> bytes:
    """The file has the size and (when recorded) the footer the manifest says; its
    footer's bytes (metadata, length and magic)."""
    fd = open_regular(path, table)
    try:
        if entry.footer_sha256 is None:
            check_size(fd, path, entry, table)
            check_file(path, entry, table)  # written before footers were hashed
        return read_footer(fd, path, entry, table)
    finally:
        os.close(fd)


def open_regular(path: Path, table: str) -> int:
    """The file opened to read, never through a link nor waiting on a FIFO (:func:`regular`)."""
    st = regular(path, table)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise damaged(path, table, f"cannot be read ({e.strerror or e})") from None
    now = os.fstat(fd)
    if (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev) or not stat.S_ISREG(now.st_mode):
        os.close(fd)
        raise damaged(path, table, "was replaced while it was opened")
    return fd


def check_size(fd: int, path: Path, entry: FileEntry, table: str) -> int:
    """The size of the file open at ``fd``, which must be the manifest's."""
    size = os.fstat(fd).st_size
    if size != entry.bytes:
        raise damaged(path, table, f"has {size} bytes, the manifest says {entry.bytes}")
    return size


def read_footer(fd: int, path: Path, entry: FileEntry, table: str) -> bytes:
    """The footer of the file open at ``fd`` (metadata, length and magic), once its size
    and, when the manifest records it, its sha256 are the manifest's."""
    size = check_size(fd, path, entry, table)
    try:
        length = int.from_bytes(os.pread(fd, 4, max(0, size - 8)), "little")
        if not 0 < length <= min(FOOTER_LIMIT, size - 12):
            raise damaged(path, table, f"has a damaged footer (of {length:,} bytes)")
        tail = os.pread(fd, length + 8, size - 8 - length)
    except OSError as e:
        raise damaged(path, table, f"cannot be read ({e.strerror or e})") from None
    if entry.footer_sha256 is not None and hashlib.sha256(tail).hexdigest() != entry.footer_sha256:
        raise damaged(path, table, "has a damaged footer (its hash differs from the manifest's)")
    return tail


def check_range(
    path: Path, entry: FileEntry, table: str, rows: int, bounds: list[tuple[int, int]]
) -> None:
    """The manifest's rows and state range of a file are its footer's (``rows`` and
    each row group's (min, max) state): a point look-up skips files by that range,
    and the footer hash, which the manifest holds too, cannot vouch for it."""
    if rows != entry.rows:
        raise damaged(path, table, f"has {rows} rows, the manifest says {entry.rows}")
    lo, hi = (bounds[0][0], bounds[-1][1]) if bounds else (None, None)
    if (lo, hi) != (entry.min_state, entry.max_state):
        raise damaged(
            path, table, f"holds states {lo} to {hi}, the manifest says "
            f"{entry.min_state} to {entry.max_state} (min_state, max_state)",
        )  # fmt: skip


def check_columns(path: Path, schema: pa.Schema, m: Manifest) -> None:
    """The file has the format's columns, the path counts when the manifest says so,
    and a class_size column exactly when the manifest declares one."""
    wrong = wrong_columns(schema, m.has_paths)
    if (CLASS_SIZE in schema.names) != m.classes:
        wrong.append(f"{CLASS_SIZE} is {'declared' if m.classes else 'not declared'}")
    if wrong:
        raise damaged(path, m.table, f"lacks the format's columns ({'; '.join(wrong)})")


def _footer_figures(path: Path, entry: FileEntry, table: str, m: Manifest | None = None) -> None:
    """:func:`check_range` of a file just hashed: the SQL paths count rows and levels
    by the manifest's figures, which the hash does not cover (and, with ``m``, its
    columns: :func:`check_columns`)."""
    try:
        pf = pq.ParquetFile(path)
        md, schema = pf.metadata, pf.schema_arrow
        bounds = row_group_bounds(md)
    except (OSError, pa.ArrowException, ValueError, AttributeError, TypeError, IndexError):
        raise damaged(path, table, "has row groups without statistics") from None
    check_range(path, entry, table, md.num_rows, bounds)
    if m is not None:
        check_columns(path, schema, m)


def row_group_bounds(md: pq.FileMetaData) -> list[tuple[int, int]]:
    """(min, max) state of each row group of a Parquet file's metadata, from the
    footer's statistics (what a point look-up chooses row groups by)."""
    col = md.schema.names.index("state")
    out = []
    for i in range(md.num_row_groups):
        st = md.row_group(i).column(col).statistics
        if st is None:
            raise AttributeError("a row group without statistics")
        lo, hi = st.min, st.max
        if lo is None or hi is None:
            raise TypeError("a row group without its states' range")
        out.append((int(lo), int(hi)))
    return out


def regular(path: Path, table: str) -> os.stat_result:
    """The file's status; a FIFO or a device is refused (reading one may never end), and
    so is a link: a part is read where it is, never followed out of its folder (a link
    to itself took every command down with an OSError)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        raise damaged(path, table, "is missing") from None
    except OSError as e:
        raise damaged(path, table, f"cannot be read ({e.strerror or e})") from None
    if stat.S_ISLNK(st.st_mode):
        raise damaged(path, table, "is a symbolic link, not a file (never followed)")
    if not stat.S_ISREG(st.st_mode):
        raise damaged(path, table, "is not a regular file")
    return st


def check_table(directory: Path, manifest: Manifest) -> None:
    """Every file of the table matches the manifest's sha256 (remembered once checked)."""
    cache = _load()
    before = dict(cache)
    try:
        for entry in manifest.files:
            _check(directory / entry.name, entry, manifest.table, cache, manifest)
    finally:
        if cache != before:
            _save(cache)


def check_footers(directory: Path, manifest: Manifest) -> None:
    """Every file of the table as a point look-up opens it: its size and footer hash,
    rows, state range and columns against the manifest (remembered as :func:`check_table`
    is, which covers this). What answers from the manifest (a histogram, a count) is
    then the footers' word: a file listed twice, or counts swapped between levels, is
    refused. About half a millisecond a file the first time, a stat a file after."""
    cache = _load()
    before = dict(cache)
    try:
        for entry in manifest.files:
            path = directory / entry.name
            now = time.time_ns()
            st = regular(path, manifest.table)
            key, known = str(path.resolve()), _stamp(st, entry)
            if _FOOTER + key in cache and cache[_FOOTER + key] == [*known, *_shape(manifest)]:
                continue
            if cache.get(key) == known:
                continue
            check_footer(path, entry, manifest.table)
            _footer_figures(path, entry, manifest.table, manifest)
            if _settled(st, now):
                cache[_FOOTER + key] = [*known, *_shape(manifest)]
    finally:
        if cache != before:
            _save(cache)


def _shape(m: Manifest) -> list[list[str]]:
    """What else a footer check held a file against: the columns the manifest declares."""
    return [sorted(m.columns)]


def orbit_sum(path: Path, entry: FileEntry, table: str, read: Callable[[], int]) -> int:
    """The sum of a file's class sizes: ``read()`` computes it (one column read), and it
    is remembered by the file's stamp, so a manifest's ``orbit_positions`` is checked
    against the rows themselves once per file version, not taken on its word."""
    now = time.time_ns()
    st = regular(path, table)
    key, known = _ORBITS + str(path.resolve()), _stamp(st, entry)
    cache = _load()
    hit = cache.get(key)
    if isinstance(hit, list) and hit[:-1] == known and type(hit[-1]) is int:
        return hit[-1]
    total = int(read())
    if _settled(st, now):
        cache[key] = [*known, total]
        _save(cache)
    return total


class Known:
    """What the memory of checks knows of one version of a file (its stamp, and the
    manifest's figures for it), without reading it: whether it is the manifest's
    whole (hashed and remembered: :func:`check_table`, ``verify``, a build's
    :func:`remember`; or staged by a build on this machine: :func:`is_staged`), and
    which of its column chunks were found to have the manifest's sha256 (by their
    place in ``chunk_sha256``). Chunks are remembered as whole files are, so a
    look-up that reads one again, in this process or a later one, does not hash it
    again; what a process finds is saved when it ends (one write, not one a chunk),
    and a file that changed in the last 2 s is not remembered."""

    def __init__(self, path: Path, st: os.stat_result, entry: FileEntry) -> None:
        resolved = str(path.resolve())
        cache = _load()
        self._key = _CHUNKS + resolved
        self._known = _stamp(st, entry)
        self._settled = _settled(st, time.time_ns())
        self._cache = _cache_file()
        staged = path.parent.parent.name == STAGING and is_staged(path, entry.fingerprint())
        self.whole = cache.get(resolved) == self._known or staged
        hit = _FOUND.get(self._cache, {}).get(self._key) or cache.get(self._key)
        self._sound: set[int] = set()
        if isinstance(hit, list) and hit[:-1] == self._known and isinstance(hit[-1], list):
            self._sound = set(hit[-1])

    def __contains__(self, place: int) -> bool:
        return place in self._sound

    def add(self, place: int) -> None:
        """The chunk at ``place`` was just hashed and found sound."""
        self._sound.add(place)
        if self._settled:
            if not _FOUND:
                atexit.register(_save_found)
            _FOUND.setdefault(self._cache, {})[self._key] = [*self._known, sorted(self._sound)]


#: Sound chunks found by this process, by the memory they go to (saved at exit).
_FOUND: dict[Path, Memory] = {}


def _save_found() -> None:
    for cache, found in _FOUND.items():
        _save(found, cache)


def check_file(path: Path, entry: FileEntry, table: str) -> None:
    cache = _load()
    if _check(path, entry, table, cache):
        _save(cache)


def _check(
    path: Path,
    entry: FileEntry,
    table: str,
    cache: Memory,
    m: Manifest | None = None,
) -> bool:
    """Compare one file with the manifest unless ``cache`` knows it; True if newly checked.
    (A file's size is bounded by the format before it is hashed: manifest.FileEntry.)"""
    now = time.time_ns()
    st = regular(path, table)
    key = str(path.resolve())
    known = _stamp(st, entry)
    if cache.get(key) == known:
        return False
    if st.st_size != entry.bytes or sha256(path) != entry.sha256:
        raise damaged(path, table, "does not match its checksum in the manifest")
    _footer_figures(path, entry, table, m)
    if _settled(st, now):
        cache[key] = known
    return True


def remember(directory: Path, manifest: Manifest) -> None:
    """Files just written and hashed by the build: remembered without reading them again."""
    cache = _load()
    for entry in manifest.files:
        path = directory / entry.name
        with contextlib.suppress(OSError):
            st = path.stat()
            if stat.S_ISREG(st.st_mode) and _settled(st, time.time_ns()):
                cache[str(path.resolve())] = _stamp(st, entry)
    _save(cache)


def stamp(st: os.stat_result) -> list[int]:
    """One version of one file, known without reading it: a change of its bytes or
    a file put in its place changes the ctime (which no user can set) or inode."""
    return [st.st_ctime_ns, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def source_key(kind: str, manifests: Sequence[Manifest]) -> str:
    """What a derived array was made from: ``kind`` (what and how) and the sha256 of
    each source file as its table's manifest lists it."""
    doc = [kind, [[m.table, [[e.name, e.bytes, e.sha256] for e in m.files]] for m in manifests]]
    return "derived:" + hashlib.sha256(json.dumps(doc).encode()).hexdigest()


def is_derived(path: str, st: os.stat_result, sources: str) -> bool:
    """Whether this machine wrote the file ``st`` describes, at ``path``, from ``sources``."""
    return _load().get(path) == [*stamp(st), sources]


def remember_derived(path: str, st: os.stat_result, sources: str) -> None:
    """A derived file just written here (``st`` taken after its rename into place)."""
    cache = _load()
    cache[path] = [*stamp(st), sources]
    _save(cache)


def _staged_record(staging: Path) -> Path:
    """Where the files a build wrote into ``staging`` are remembered: a file of its own
    beside the memory of checked files (one build writes it, under its build lock)."""
    key = hashlib.sha256(str(staging.resolve()).encode()).hexdigest()[:32]
    return _cache_file().parent / "staged" / f"{key}.json"


def remember_staged(staging: Path, written: list[tuple[str, str]]) -> None:
    """Level files this build has just written into ``staging``, each (name, the
    fingerprint of its entry: ``FileEntry.fingerprint``) (:func:`is_staged`); a
    record that cannot be written only costs a resume."""
    record = _staged_record(staging)
    with contextlib.suppress(OSError, ValueError):
        known = json.loads(record.read_text()) if record.exists() else {}
        for name, digest in written:
            known[name] = [*stamp((staging / name).lstat()), digest]
        record.parent.mkdir(parents=True, exist_ok=True)
        tmp = record.with_name(f"{record.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known))
        os.replace(tmp, record)


def is_staged(path: Path, digest: str) -> bool:
    """Whether a build on this machine wrote the staged file ``path`` with the entry
    of that fingerprint, and it is unchanged since: a staging folder handed over with
    a folder (a forged progress file and level 0, hashes right) is no build of ours
    to resume, nor are figures of a progress file edited since the build wrote it."""
    try:
        known = json.loads(_staged_record(path.parent).read_text())
        return known.get(path.name) == [*stamp(path.lstat()), digest]
    except (OSError, ValueError, AttributeError):
        return False


def forget_staged(staging: Path) -> None:
    """The record of a staging folder that is published or started afresh."""
    with contextlib.suppress(OSError):
        _staged_record(staging).unlink()


def _stamp(st: os.stat_result, entry: FileEntry) -> list[int | str | None]:
    """What a checked file is remembered by: the change time first, which an edit
    always moves and cannot put back (an entry of an older cache, without it,
    simply does not match and the file is hashed again), and the manifest's
    figures checked with it (an edit of the manifest alone is checked again)."""
    figures: list[int | str | None] = [entry.sha256, entry.rows, entry.min_state, entry.max_state]
    return [*stamp(st), *figures]


def _settled(st: os.stat_result, now: int) -> bool:
    """Whether the file last changed well before ``now`` (when it was looked at): a
    change time is kept at the file system's granularity (ticks of milliseconds,
    up to seconds), so an edit in the same tick as the check would not move it;
    such a file is hashed again next time rather than remembered."""
    return st.st_ctime_ns < now - SETTLED_NS


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _cache_file() -> Path:
    root = os.environ.get(CACHE_ENV) or os.environ.get("XDG_CACHE_HOME")
    base = Path(root) if root else Path.home() / ".cache"
    return (base if os.environ.get(CACHE_ENV) else base / "puzzledb") / "checked.json"


@dataclass
class _Read:
    """The memory as last read (``doc``), by its file's path and stamp (``key``)."""

    key: list[str | int] = field(default_factory=list)
    doc: Memory = field(default_factory=dict)


#: A server checks every table's footers on each request (catalog.scan): a stat
#: and a copy rather than a parse.
_READ = _Read()


def _load(path: Path | None = None) -> Memory:
    path = path or _cache_file()
    try:
        key: list[str | int] = [str(path), *stamp(path.stat())]
        if _READ.key != key:
            doc = json.loads(path.read_text())
            _READ.key, _READ.doc = key, doc if isinstance(doc, dict) else {}
        return dict(_READ.doc)
    except (OSError, ValueError):
        return {}


#: Past this many entries, those of files gone (a test's folders, published staging)
#: are dropped when the memory is saved: a stat each, a few milliseconds a thousand.
PRUNE_AT = 4096


def _path_of(key: str) -> str:
    for prefix in (_FOOTER, _ORBITS, _CHUNKS):
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def _save(cache: Mapping[str, object], path: Path | None = None) -> None:
    """Merged into the file (``path``, else the memory's) as it is now, under a lock
    (processes at once each add their own: a build's staged files must not be lost to
    another process's save), written aside and renamed; a cache that cannot be written
    is simply not kept."""
    path = path or _cache_file()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            merged = {**_load(path), **cache}
            if len(merged) > PRUNE_AT:
                merged = {k: v for k, v in merged.items() if os.path.lexists(_path_of(k))}
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(merged))
            os.replace(tmp, path)
        finally:
            os.close(fd)
