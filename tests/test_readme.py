"""The README's examples run as written, and every guide link resolves.

A fenced block tagged ``sh`` runs in bash, ``sql`` in the DuckDB CLI on the
catalog, ``python`` in this process; a ``text`` block after one of them holds
lines its output must contain, and a ``python`` line ending in a comment that
is a Python literal (``# 55``) must equal it. A block after an HTML comment
``<!-- not run: NAME (why) -->`` is skipped by that name. Blocks run with the
working directory holding ``data/`` (a copy of the default tables with its
catalog rewritten there: its views name the copy's files) and a
``.venv`` link to this interpreter's environment, as in the repository root,
in a fresh shell's environment: the venv's ``bin`` is not on PATH (issue #45:
``puzzledb list`` as written failed there), so a block says ``.venv/bin/``.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RUN = ("sh", "sql", "python")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: ([\w-]+) \((.*?)\) -->\s*$")


@dataclass
class Block:
    """One runnable fenced block, the output lines it must print, and a skip reason."""

    line: int
    lang: str
    code: str
    expect: list[str] = field(default_factory=list)
    skip: str | None = None

    @property
    def name(self) -> str:
        return f"{self.lang}-line{self.line}"


def blocks(text: str) -> list[Block]:
    """The README's runnable blocks in order, each with the text blocks after it."""
    found: list[Block] = []
    for m in FENCE.finditer(text):
        lang, code = m.group(1), m.group(2)
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if lang in RUN:
            found.append(Block(text.count("\n", 0, m.start()) + 1, lang, code))
            skipped = NOT_RUN.search(before)
            if skipped:
                found[-1].skip = f"not run: {skipped.group(1)} ({skipped.group(2)})"
        elif lang == "text" and found:
            found[-1].expect += [x.strip() for x in code.splitlines() if x.strip()]
    return found


ALL = blocks(README.read_text())


@pytest.fixture(scope="module")
def repo(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out like the repository root after `make build-db`."""
    root = tmp_path_factory.mktemp("readme")
    shutil.copytree(data, root / "data", ignore=shutil.ignore_patterns("puzzles.duckdb"))
    (root / ".venv").symlink_to(Path(sys.prefix))
    env = environment(root)
    subprocess.run(
        [".venv/bin/puzzledb", "catalog"], cwd=root, env=env, check=True, capture_output=True
    )
    return root


def environment(root: Path) -> dict[str, str]:
    """A fresh shell's: no venv activated (its bin off PATH, no VIRTUAL_ENV, no
    $PUZZLEDB_DATA), and a cache of this test's own."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PUZZLEDB_DATA")}
    env["PUZZLEDB_CACHE"] = str(root / "cache")
    venv_bins = {str(Path(sys.prefix) / "bin"), str(Path(sys.prefix).resolve() / "bin")}
    path = [d for d in env.get("PATH", "").split(os.pathsep) if d and d not in venv_bins]
    env["PATH"] = os.pathsep.join(path or ["/usr/bin", "/bin"])
    return env


def shell(block: Block, root: Path) -> str:
    """Run a sh block (stopping at the first failing command) or a sql block; its stdout."""
    if block.lang == "sh":
        args, stdin = ["bash", "-euo", "pipefail", "-c", block.code], None
    else:
        args, stdin = [".venv/bin/duckdb", "data/puzzles.duckdb"], block.code
    done = subprocess.run(
        args, cwd=root, env=environment(root), input=stdin, capture_output=True, text=True
    )
    assert done.returncode == 0, f"README line {block.line}:\n{done.stderr}"
    assert "Error" not in done.stderr, done.stderr
    return done.stdout


def with_asserts(code: str) -> str:
    """Each one-line expression whose comment is a Python literal becomes an assert."""
    lines = []
    for line in code.splitlines():
        comments = [t for t in tokens(line) if t.type == tokenize.COMMENT]
        literal = comments and literal_of(comments[-1].string[1:].strip())
        if literal:
            expr = line[: comments[-1].start[1]].rstrip()
            line = f"assert ({expr}) == {literal}, ({expr})"
        lines.append(line)
    return "\n".join(lines)


def tokens(line: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def literal_of(text: str) -> str | None:
    """The text when it is a Python literal, else None."""
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return text


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=b.name, marks=[pytest.mark.skip(b.skip)] if b.skip else []) for b in ALL],
)
def test_readme_block(
    block: Block, repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The block runs as written, and prints what the README says it prints."""
    if block.lang == "python":
        monkeypatch.chdir(repo)
        monkeypatch.setenv("PUZZLEDB_CACHE", str(repo / "cache"))
        exec(compile(with_asserts(block.code), f"README.md:{block.line}", "exec"), {})
        out = capsys.readouterr().out
    else:
        out = shell(block, repo)
    lines = [x.strip() for x in out.splitlines()]
    for want in block.expect:
        assert want in lines, f"README line {block.line}: {want!r} not in\n{out}"


def test_readme_is_short() -> None:
    """The front door stays a ten-minute read (issue #34)."""
    assert len(README.read_text().splitlines()) <= 250


def test_readme_skips_only_the_slow_blocks() -> None:
    """What is not run is named: the make targets, an interactive session, a first 4x4 solve."""
    skipped = {b.skip.split()[2] for b in ALL if b.skip}
    assert skipped == {"make-targets", "duckdb-session", "solve-4x4"}
    assert sum(1 for b in ALL if not b.skip) >= 5


def test_readme_commands_run_without_an_activated_venv(repo: Path) -> None:
    """Issue #45 item 1: `puzzledb` is not on a fresh shell's PATH, so every command
    the README's runnable blocks type says where it is (`.venv/bin/puzzledb`)."""
    done = subprocess.run(
        ["bash", "-c", "command -v puzzledb || echo none"],
        env=environment(repo),
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "none"
    typed = [
        line.split()[0]
        for b in ALL
        if b.lang == "sh"
        for line in b.code.splitlines()
        if line.strip() and "puzzledb" in line.split()[0]
    ]
    assert len(typed) >= 5 and set(typed) == {".venv/bin/puzzledb"}, typed


#: A path under queries/ as the guides and the shipped SQL files' comments write it.
QUERY_PATH = re.compile(r"(?<![\w/])(queries|query/sql)/(\w+\.sql)")


def test_guides_name_query_files_that_exist() -> None:
    """Issue #45 item 2: the guides said `query/sql/...`, a folder the clone has not
    (`queries/` is the link); every SQL path they name opens from the clone's root."""
    pages = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("queries/*.sql"))]
    named = [(p.name, m.group(0)) for p in pages for m in QUERY_PATH.finditer(p.read_text())]
    assert len(named) >= 15, named
    assert [x for x in named if not (ROOT / x[1]).is_file()] == []


LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(m) for m in re.findall(r"^#+ (.*)$", text, re.M)}


def md_links(path: Path) -> list[str]:
    """The relative links of a Markdown file: guides, pictures, its own headings (code left out)."""
    found = LINK.findall(FENCE.sub("", path.read_text()))
    return [x for x in found if "://" not in x and not x.startswith("mailto:")]


@pytest.mark.parametrize(
    "page", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name
)
def test_guide_links_resolve(page: Path) -> None:
    """Every relative link names a file that exists, and a heading in it that exists."""
    for link in md_links(page):
        file, _, anchor = link.partition("#")
        target = (page.parent / file).resolve() if file else page
        assert target.is_file(), f"{page.name}: {link}"
        if anchor:
            assert anchor in anchors(target), f"{page.name}: {link}"


#: The guides' blocks a newcomer runs after the README's: (guide, a word its block
#: holds); each runs as the README says the guides' commands do, after `source
#: .venv/bin/activate` (SYMMETRY.md's builds english33-sym: minutes).
GUIDE_BLOCKS = (("CATALOG.md", "queries/histogram.sql"), ("SYMMETRY.md", "english33-sym"))


def fresh(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 3600) -> str:
    """A command in a fresh shell's environment; its stdout (it must succeed)."""
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.full
def test_a_newcomers_first_hour(tmp_path: Path) -> None:
    """Issue #45's session replayed (`make test-newcomer`): a fresh clone of this commit,
    `make build-db`, then every runnable README block and the guides' commands in a
    fresh shell that starts in another folder, and a solve from that other folder."""
    clone, elsewhere = tmp_path / "puzzledb", tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = environment(clone)
    branch = fresh(["git", "rev-parse", "--abbrev-ref", "HEAD"], ROOT, env).strip()
    fresh(["git", "clone", "--quiet", "--branch", branch, str(ROOT), str(clone)], tmp_path, env)
    fresh(["make", "build-db"], clone, env)
    for block in [b for b in blocks((clone / "README.md").read_text()) if not b.skip]:
        if block.lang == "sh":
            out = fresh(
                ["bash", "-euo", "pipefail", "-c", f"cd {clone}\n{block.code}"], elsewhere, env
            )
        elif block.lang == "sql":
            duckdb = [str(clone / ".venv/bin/duckdb"), str(clone / "data/puzzles.duckdb")]
            out = subprocess.run(
                duckdb, cwd=elsewhere, env=env, input=block.code, capture_output=True, text=True
            ).stdout  # from another folder: the catalog's views name the files in full
        else:
            code = with_asserts(block.code)
            out = fresh([str(clone / ".venv/bin/python"), "-c", code], clone, env)
        lines = [x.strip() for x in out.splitlines()]
        for want in block.expect:
            assert want in lines, f"README line {block.line}: {want!r} not in\n{out}"
    for guide, word in GUIDE_BLOCKS:
        text = (clone / "docs" / guide).read_text()
        (code,) = [c for lang, c in FENCE.findall(text) if lang == "sh" and word in c][:1]
        script = f"cd {clone}\nsource .venv/bin/activate\n{code}"
        fresh(["bash", "-euo", "pipefail", "-c", script], elsewhere, env)
    _a_definition_then_the_path_query(clone, elsewhere, env)
    puzzledb = str(clone / ".venv/bin/puzzledb")
    solve = [puzzledb, "solve", "3x3", "8 6 7 2 5 4 3 0 1", "--oneline"]
    lost = subprocess.run(solve, cwd=elsewhere, env=env, capture_output=True, text=True)
    assert lost.returncode == 1 and "unless --data DIR or $PUZZLEDB_DATA" in lost.stderr
    found = fresh(solve, elsewhere, dict(env, PUZZLEDB_DATA=str(clone / "data")))
    assert found.splitlines()[0] == "3x3: 31 moves to the goal (optimal)"


#: A twsearch definition of the replay's own: three pieces of two orientations; A and B
#: swap two of them and flip both, C flips the first (order 2: no move has other powers).
TWIST3 = """Name Twist3
Set PIECE 3 2
Solved
PIECE
1 2 3
0 0 0
End
Move A
PIECE
2 1 3
1 1 0
End
Move B
PIECE
1 3 2
0 1 1
End
Move C
PIECE
1 2 3
1 0 0
End
"""


def _twist3_moves(pos: tuple[tuple[int, ...], tuple[int, ...]]) -> list[tuple[Any, Any]]:
    """Our own reading of TWIST3's moves: the piece at j comes from perm[j] with the
    twist written there (ksolve's way)."""
    labels, twists = pos
    out = []
    for perm, twist in (((1, 0, 2), (1, 1, 0)), ((0, 2, 1), (0, 1, 1)), ((0, 1, 2), (1, 0, 0))):
        moved = tuple(labels[k] for k in perm)
        out.append((moved, tuple((twists[k] + twist[k]) % 2 for k in perm)))
    return out


def _a_definition_then_the_path_query(clone: Path, elsewhere: Path, env: dict[str, str]) -> None:
    """The twisty and SQL steps a newcomer took next: a definition of their own, named as
    twsearch names its files (a digit first), built; then the README's path query, which
    a twisty table in the catalog once broke (`Table function cannot contain
    subqueries`), in the DuckDB CLI and through `puzzledb query`; and a walk of the
    definition's own table."""
    from tests.conftest import distances_from

    tws = clone.parent / "3x1x1.tws"
    tws.write_text(TWIST3)
    puzzledb = str(clone / ".venv/bin/puzzledb")
    fresh([puzzledb, "build", "--spec", str(tws)], clone, env)
    levels = json.loads(fresh([puzzledb, "histogram", "3x1x1", "--json"], clone, env))
    ours = distances_from(((1, 2, 3), (0, 0, 0)), _twist3_moves)
    counts = [sum(1 for d in ours.values() if d == k) for k in range(max(ours.values()) + 1)]
    assert [r["positions"] for r in levels["histogram"]] == counts
    readme = (clone / "README.md").read_text()
    (query,) = [x.split("--")[0].strip() for x in readme.splitlines() if "max(step)" in x]
    duckdb = [str(clone / ".venv/bin/duckdb"), str(clone / "data/puzzles.duckdb"), "-csv"]
    assert fresh([*duckdb, "-c", query], elsewhere, env).split()[-1] == "31"
    out = fresh([puzzledb, "query", query, "--format", "csv"], clone, env)
    assert out.split()[-1] == "31"
    deepest = json.loads(fresh([puzzledb, "longest", "3x1x1", "--json"], clone, env))
    walk = f"SELECT max(step) FROM path('3x1x1', state_of('3x1x1', '{deepest['positions'][0]}'))"
    assert fresh([*duckdb, "-c", walk], elsewhere, env).split()[-1] == str(len(counts) - 1)
