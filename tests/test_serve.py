"""`puzzledb serve` over HTTP, without a browser: a real server in a subprocess,
real tables (the session's default ones), answers checked against the API."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest

import pipeline
from tests.conftest import one_line_error, run_cli

START = "8 6 7 2 5 4 3 0 1"  # a 3x3 position at depth 31, the deepest


@contextmanager
def serving(data: Path) -> Iterator[str]:
    """A real `puzzledb serve` on a free port of 127.0.0.1; its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "pipeline.cli", "serve", "--data", str(data), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base, proc)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _wait(base: str, proc: subprocess.Popen[str]) -> None:
    for _ in range(200):
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read() if proc.stderr else "server exited")
        try:
            urllib.request.urlopen(base + "/api/tables", timeout=5).close()
            return
        except urllib.error.HTTPError:
            return  # up, answering an error
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server did not answer")


def get(url: str) -> tuple[int, str]:
    """Status and body of a GET (errors included)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def position(base: str, name: str, text: str) -> dict[str, Any]:
    status, body = get(f"{base}/api/position/{name}?s={quote(text)}")
    assert status == 200, body
    return json.loads(body)


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[str]:
    with serving(data) as base:
        yield base


def test_home_lists_every_table_with_its_figures(server: str, db: pipeline.Database) -> None:
    rows = {r["puzzle"]: r for r in json.loads(get(server + "/api/tables")[1])}
    assert set(rows) == set(db.built())
    assert (rows["3x3"]["positions"], rows["3x3"]["max_depth"]) == (181440, 31)
    status, page = get(server + "/")
    assert status == 200 and 'href="/t/3x3"' in page and "181,440" in page


def test_every_move_of_a_position_has_the_depth_of_the_table(
    server: str, db: pipeline.Database
) -> None:
    answer = position(server, "3x3", START)
    assert answer["depth"] == 31 and len(answer["moves"]) == 3
    for m in answer["moves"]:
        assert m["depth"] == db.depth("3x3", m["position"]) == 30
        assert m["verdict"] == "nearer"


def test_best_moves_play_to_the_goal_one_level_a_click(server: str) -> None:
    text, depth = START, 31
    while depth:
        best = next(m for m in position(server, "3x3", text)["moves"] if m["verdict"] == "nearer")
        assert best["depth"] == depth - 1
        text, depth = best["position"], best["depth"]
    assert text == "1 2 3 4 5 6 7 8 0"


def test_peg_moves_are_won_or_lost_by_the_winnable_table(
    server: str, db: pipeline.Database
) -> None:
    answer = position(server, "triangle15", "x x x x x x x x x x x x . x x")
    assert answer["winnable"] == "triangle15-winnable" and answer["depth"] == 0
    second = position(server, "triangle15", answer["moves"][0]["position"])
    verdicts = {m["verdict"] for m in second["moves"]}
    for m in second["moves"]:
        assert m["depth"] == 2
        assert (m["verdict"] == "won") == _solvable(db, m["position"])
    assert verdicts <= {"won", "lost"}


def _solvable(db: pipeline.Database, text: str) -> bool:
    try:
        db.solve("triangle15", text)
    except pipeline.errors.BadPosition:
        return False
    return True


def test_solve_endpoint_has_the_shape_of_solve_json(server: str, data: Path) -> None:
    status, body = get(f"{server}/api/solve/3x3?s={quote(START)}")
    cli = run_cli("solve", "3x3", START, "--json", data=data)
    assert status == 200 and json.loads(body) == json.loads(cli.stdout)


@pytest.mark.parametrize(
    "name", ["2x3", "3x3", "pocket", "triangle15", "knight14", "magic9", "oshidori", "hex6"]
)
def test_every_family_has_a_position_page_with_its_board(server: str, name: str) -> None:
    status, page = get(f"{server}/p/{name}")
    assert status == 200 and "<svg" in page and "depth 0" in page
    status, page = get(f"{server}/t/{name}")
    assert status == 200 and "<svg" in page


def test_bad_requests_get_one_line(server: str) -> None:
    status, page = get(server + "/p/3x3?s=junk")
    assert status == 400 and page.count('class="error"') == 1 and "Traceback" not in page
    assert get(server + "/p/nope")[0] == 404
    assert get(server + "/p/..%2F..%2Fetc")[0] == 404
    status, body = get(server + "/api/position/3x3?s=1%201%201")
    assert status == 400 and list(json.loads(body)) == ["error"]
    assert get(server + "/pick/3x3?depth=99")[0] == 400
    status, page = get(server + "/strip/3x3?s=junk")
    assert status == 400 and page.count('class="error"') == 1
    assert get(server + "/strip/nope")[0] == 404


def test_a_position_at_a_depth_is_picked(server: str) -> None:
    with urllib.request.urlopen(server + "/pick/3x3?depth=31&n=1", timeout=30) as r:
        assert "/p/3x3?s=" in r.url
    assert "depth 31" in get(server + "/pick/3x3?depth=31")[1]


def test_a_damaged_table_names_its_rebuild(copy_of: Callable[..., Path]) -> None:
    folder = copy_of("2x3")
    victim = sorted((folder / "2x3").glob("d010-*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:100])
    with serving(folder) as base:
        status, page = get(base + "/p/2x3")
        home = json.loads(get(base + "/api/tables")[1])
    assert status == 500 and "puzzledb build 2x3 --force" in page
    assert "puzzledb build 2x3 --force" in home[0]["error"]


def test_fifty_clients_get_no_error(server: str) -> None:
    texts = [m["position"] for m in position(server, "3x3", START)["moves"]]
    urls = [f"{server}/api/position/3x3?s={quote(t)}" for t in texts * 100]
    with ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(lambda u: get(u)[0], urls))
    assert statuses == [200] * len(urls)


def test_serve_refuses_in_one_line(server: str, tmp_path: Path) -> None:
    port = server.rsplit(":", 1)[1]
    one_line_error(run_cli("serve", "--port", port, data=tmp_path / "none"), "does not exist")
    data = Path(__file__).parent  # any existing folder; the port is taken first
    r = run_cli("serve", "--port", port, data=data)
    one_line_error(r, f"cannot listen on 127.0.0.1:{port}")


def test_a_class_table_shows_the_class_board_and_its_jumps(tmp_path: Path) -> None:
    """triangle15-sym: a typed image opens its class's board; every move is one jump
    from that board (where a click on the board lands) to a stored class."""
    db = pipeline.open(tmp_path)
    db.build(["triangle15-sym", "triangle15-sym-winnable"])
    p = db.puzzle("triangle15-sym")
    mirror = "x x x x x x . . x x . x x x x"  # an image of the class below, not its board
    with serving(tmp_path) as base:
        answer = position(base, "triangle15-sym", mirror)
        page = get(f"{base}/p/triangle15-sym?s={quote(mirror)}")[1]
    assert answer["position"] == "x x x x x x x x . . x x x x ." and answer["typed"] == mirror
    assert answer["classes"] and answer["depth"] == 2 and "one position per symmetry class" in page
    state = p.parse(answer["position"])
    assert [m["move"] for m in answer["moves"]] == ["(1,8)", "(2,9)", "(6,8)", "(12,14)"]
    for m in answer["moves"]:
        (frm,), (to,) = m["from"], m["to"]
        assert p.variants(m["state"]) == [m["state"]] and m["depth"] == 3
        assert m["verdict"] in ("won", "lost")
        images = images_of(p, m["state"])
        made = [i for i in images if (state ^ i) & (1 << frm | 1 << to) == 1 << frm | 1 << to]
        assert any(bin(state ^ i).count("1") == 3 and (i >> to) & 1 for i in made)


def images_of(p: Any, state: int) -> list[int]:
    from pipeline.puzzles.pegs.symmetries import images

    return [int(i) for i in images(p.tables, np.array([state], np.uint64))[:, 0]]


def test_moves_carry_the_spots_a_click_picks(server: str) -> None:
    """3x3: a move empties the clicked tile's spot and fills the blank's."""
    answer = position(server, "3x3", START)
    blank = START.split().index("0")
    for m in answer["moves"]:
        tile = m["position"].split().index("0")  # the tile's old spot is the new blank
        assert (m["from"], m["to"]) == ([tile], [blank])


def test_the_walk_comes_after_the_page(server: str) -> None:
    """The position page answers without the walk (a look-up a level) and names where
    it is; the strip there holds every position from START to the goal."""
    page = get(f"{server}/p/3x3?s={quote(START)}")[1]
    assert 'id="walk"' in page and "<h2>The way to the goal" not in page
    status, strip = get(f"{server}/strip/3x3?s={quote(START)}")
    assert status == 200 and strip.startswith("<h2>The way to the goal</h2>")
    assert strip.count('data-text="') == 32 and 'data-text="1 2 3 4 5 6 7 8 0"' in strip


def test_only_boards_whose_clicks_tell_moves_apart_take_them(server: str) -> None:
    """3x3's two moves leave from different tiles; the cube's turns all repaint the
    same stickers, so its page offers no clicks (the list of moves does)."""
    tiles = get(f"{server}/p/3x3?s={quote(START)}")[1]
    cube = get(f"{server}/p/pocket")[1]
    assert tiles.count('"url": "/p/3x3?s=') == 3 and "Click a piece" in tiles
    assert 'id="moves"' not in cube and "Click a piece" not in cube


def test_an_error_page_keeps_the_position_to_retype(server: str) -> None:
    """Issue #45 item 12: a bad position's page held one line and no box to mend it in;
    the browser's /favicon.ico got a 404 in every log."""
    status, page = get(server + "/p/3x3?s=" + quote("1 2 3 4 5 6 7 8 <b>"))
    assert status == 400 and "expected 9 cells, got 9" not in page
    assert '<form action="/p/3x3">' in page
    assert '<input name="s" size="40" value="1 2 3 4 5 6 7 8 &lt;b&gt;">' in page
    assert get(server + "/p/nope?s=1")[1].count("<form") == 0  # no table: nothing to retype
    assert get(server + "/favicon.ico")[0] == 204 and '<link rel="icon"' in get(server + "/")[1]


def test_a_position_page_gives_its_properties(server: str) -> None:
    """Issue #45: the pegs left without SQL, and a solved mark at a goal."""
    status, page = get(server + "/p/triangle15")
    assert status == 200 and '<p class="props">pegs 14</p>' in page
    status, page = get(server + "/p/3x3?s=" + quote("1 2 3 4 5 6 7 8 0"))
    assert '<p class="props">solved, blank cell 8, tiles out of place 0</p>' in page
    assert position(server, "3x3", START)["properties"] == {
        "depth": 31,
        "solved": False,
        "blank cell": 7,
        "tiles out of place": 7,
    }
