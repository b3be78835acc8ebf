"""The web board in a real browser: Debian's chromium, headless, driven by Playwright, against ``barcelona-ai serve``'s
application run by uvicorn on a free local port, at three widths: a phone (375 px), a tablet (768 px) and a desktop
(1280 px).

At each width: the page fits (no element wider than the window, every button on screen), a hint is asked and its badges
do not overlap, a click on the crossing the hint points at plays there (the hint's drawing takes no click), the log
names the round and the player; a short review is stepped through with the buttons and the arrow keys; a real table's
round entered by clicks (another player's placement refused with the rules' reason beside the board, then entered by
its crossing and its citizens; that player's likely move confirmed with Enter; a reveal and the seat's own draw from
their pickers); the board editor's position set up by clicks, a refused change saying why, and a game started from it;
a board made with the "Your board" form and a game played on it. Slow (CI runs them, -m slow): a whole 2-player game
played by clicking at each width (a highlighted place on the board, a menu when several moves share it, or the list of
moves for the moves that are no place), with a hint, an undo and an analysis on the way, then that game's review; a
position saved and loaded; a real table's setup; another site's page. With BARCELONA_WEB_SCREENSHOTS=DIR the page is
photographed at each width (docs/web-phone.png, docs/web-tablet.png, docs/web-desktop.png), the table entry at each
width (docs/web-table-phone.png, docs/web-table-tablet.png, docs/web-table-desktop.png), the board editor
(docs/web-editor.png), a whole game's review on the desktop and the phone (docs/web-review.png,
docs/web-review-phone.png) and the board at three moments of a game (the README's pictures: docs/web-opening-hints.png,
docs/web-midgame.png, docs/web-game-over.png).

They are skipped where Playwright or chromium is missing; the serve command's busy port is checked without them.
"""
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from barcelona_ai import new_game  # noqa: E402
from barcelona_ai.web.api import Games  # noqa: E402
from barcelona_ai.web.server import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = os.environ.get("BARCELONA_WEB_SCREENSHOTS")
WIDTHS = {"phone": 375, "tablet": 768, "desktop": 1280}

TOKEN = "the-browser-test-token"       # the page reads it from itself; the API calls of these tests send it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_in_thread(app, port):
    """uvicorn serving `app` on 127.0.0.1:`port` in a thread, once it answers: (server, thread)."""
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.05)
    return srv, thread


def test_serve_says_when_its_port_is_busy():
    """`barcelona-ai serve` on a port another program listens on: one error line that says so, exit code 2, and no
    board address printed."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "barcelona_ai", "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"error: port {port} is already in use (another server?); choose another with --port\n"
    assert "http://" not in proc.stdout


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    srv, thread = _serve_in_thread(create_app(token=TOKEN), port)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (Debian: apt install chromium)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,      # evil.test: a name rebound to this computer
                              args=["--no-sandbox", "--host-resolver-rules=MAP evil.test 127.0.0.1"])
        yield b
        b.close()


def _open(browser, server, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 500 else 800},
                                  accept_downloads=True)
    pg = context.new_page()
    pg.goto(f"{server}/?delay=0")
    pg.wait_for_function("() => document.querySelectorAll('#setup-fields input').length > 0")
    return context, pg


@pytest.fixture
def page(browser, server):
    context, pg = _open(browser, server)
    yield pg
    context.close()


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def sized(request, browser, server):
    """A page at each width: (its name, the page)."""
    context, pg = _open(browser, server, WIDTHS[request.param])
    yield request.param, pg
    context.close()


def _ready(page):
    """Wait until no request is in flight and the game waits for the player (or is over)."""
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game !== null && "
                           "['you', 'over', 'placement', 'draw', 'reveal'].includes(window.boardState.game.waiting)",
                           timeout=60_000)
    return page.evaluate("() => window.boardState.game")


def _error_text(page) -> str:
    """The error shown: the page's, or a refused move's beside the board."""
    return "".join(box.text_content() for box in (page.locator("#error"), page.locator("#move-error"))
                   if box.is_visible())


def _shot(page, name):
    if SHOTS:
        page.locator("#board svg").screenshot(path=os.path.join(SHOTS, name))


# What is wider than the window: the page's scroll width, and the page's elements (not the board's own drawing,
# which its SVG scales) whose box leaves the window, and the visible buttons that do; and what is cut: an element
# that clips its text (hidden overflow, an ellipsis) narrower than the text.
OVERFLOW = """() => {
  const w = window.innerWidth;
  const out = (r) => r.width > 0 && (r.right > w + 0.5 || r.left < -0.5);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ')[0] : '');
  const html = [...document.querySelectorAll('body *')]
    .filter((e) => !(e instanceof SVGElement) || e.tagName === 'svg');
  return {scroll: document.documentElement.scrollWidth, width: w,
          wide: html.filter((e) => out(e.getBoundingClientRect())).map(name).slice(0, 8),
          buttons: [...document.querySelectorAll('button, select, input')]
            .filter((e) => e.offsetParent !== null && out(e.getBoundingClientRect())).map(name),
          cut: html.filter((e) => {
            if (e instanceof SVGElement || ['SELECT', 'INPUT', 'TEXTAREA'].includes(e.tagName)) return false;
            const css = getComputedStyle(e);
            const clips = ['hidden', 'clip'].includes(css.overflowX) || css.textOverflow === 'ellipsis';
            return clips && e.scrollWidth > e.clientWidth + 1;
          }).map(name)};
}"""

# The pairs of hint badges (and the plans' numbers beside them) whose boxes on the screen overlap.
BADGE_OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('#board .overlay .hint-badge, #board .overlay .hint-label')]
    .map((e) => e.getBoundingClientRect());
  const pairs = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => {
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) pairs.push([i, i + 1 + j]);
  }));
  return {badges: document.querySelectorAll('#board .overlay .hint-badge').length, pairs};
}"""


def _fits(page):
    got = page.evaluate(OVERFLOW)
    assert got["scroll"] <= got["width"], got
    assert got["wide"] == [] and got["buttons"] == [] and got["cut"] == [], got


def _hint(page):
    """Ask for a hint and wait for its drawing: the hints."""
    page.click("#hint")
    page.wait_for_selector("#board .overlay .hint-badge", timeout=60_000)
    _ready(page)
    return page.evaluate("() => hints")


def _badges_apart(page):
    got = page.evaluate(BADGE_OVERLAPS)
    assert got["badges"] > 0 and got["pairs"] == [], got


def _play_one(page, game) -> None:
    """One decision by clicking: a highlighted board place if the move has one, else the list of moves."""
    entries = game["entries"]
    legal = page.locator("#board .target.legal")
    if legal.count():
        legal.first.click()
        menu = page.locator("#menu")
        if menu.is_visible():
            menu.locator("button").first.click()
    else:
        page.locator("#moves button").first.click()
    page.wait_for_function(f"() => window.boardState.busy === 0 && window.boardState.game.entries > {entries}",
                           timeout=60_000)


def _start(page, players=2, seed=5, mode="play"):
    page.select_option("#opt-mode", mode)
    page.select_option("#opt-players", str(players))
    if mode == "play":
        page.select_option("#opt-iterations", "20")
    page.select_option("#opt-hint", "1000")
    page.fill("#opt-seed", str(seed))
    page.click("#start")
    return _ready(page)


def _log_lines(page) -> list[str]:
    return page.locator("#log li:not(.event)").all_text_contents()


def test_the_page_loads_with_its_own_assets(page, server):
    """The page and its script and style come from the package (no CDN): every request goes to the server."""
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    page.reload()
    page.wait_for_selector("#new-game")
    assert seen and all(u.startswith(server) for u in seen), seen
    assert page.title().startswith("Barcelona")


def test_the_table_setup_shows_only_for_a_table(page):
    assert not page.locator("#setup-fields").is_visible()
    assert page.locator("#opt-iterations").is_visible()
    page.select_option("#opt-mode", "table")
    assert page.locator("#setup-fields").is_visible() and page.locator("#setup-hand").is_visible()
    assert not page.locator("#opt-iterations").is_visible()            # no engine plays at a table
    page.select_option("#opt-mode", "play")
    assert not page.locator("#setup-fields").is_visible()


def test_the_board_fits_and_a_click_through_a_hint_plays_there(sized):
    """At each width: nothing wider than the window; a hint whose badges do not overlap; a click on the centre of
    the crossing the best plan starts at (under the plan's arrow) plays there; the log says the round and who.
    Then play on to the next turn's placement, and a hint there (the page's picture at this width)."""
    name, page = sized
    _fits(page)
    game = _start(page)
    assert page.locator("#board svg").bounding_box()["width"] <= WIDTHS[name]
    _fits(page)
    best = _hint(page)[0]
    _badges_apart(page)
    _fits(page)
    target, move = best["targets"][0], best["moves"][0]
    assert target and target.startswith("crossing:"), best
    box = page.locator(f'#board [data-target="{target}"]').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    under = page.evaluate(f"() => [...document.querySelectorAll('#board .overlay *')].filter((e) => {{"
                          f"const r = e.getBoundingClientRect(); return r.left - 1 <= {x} && {x} <= r.right + 1 && "
                          f"r.top - 1 <= {y} && {y} <= r.bottom + 1; }}).length")
    if sum(1 for t in best["targets"] if t) > 1:
        assert under > 0                                                 # the arrow starts on that crossing
    assert page.evaluate(f"() => document.elementFromPoint({x}, {y}).closest('[data-target]')"
                         f".dataset.target") == target
    page.mouse.click(x, y)
    if page.locator("#menu").is_visible():                               # the classes on top: a menu
        _fits(page)
        page.locator("#menu button", has_text=move).first.click()
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game.entries > 0")
    assert not _error_text(page)
    assert _log_lines(page)[0].startswith(f"Round 1, {game['names'][0]}: {move}"), _log_lines(page)

    game = _ready(page)
    for _ in range(60):                                                  # on to the seat's next placement
        if game["waiting"] == "you" and all((m["target"] or "").startswith("crossing:") for m in game["legal"]):
            break
        _play_one(page, game)
        game = _ready(page)
    assert game["round"] == 2, game["caption"]
    _hint(page)
    _badges_apart(page)
    _fits(page)
    lines = _log_lines(page)
    assert any(line.startswith(f"Round 1, {game['names'][1]}: ") for line in lines), lines
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"web-{name}.png"), full_page=True)


def _review_done(page):
    page.wait_for_function("() => document.querySelector('#review-status').textContent.startsWith('reviewed')",
                           timeout=120_000)
    page.wait_for_function("() => window.boardState.busy === 0 && document.querySelector('#review-board svg')",
                           timeout=30_000)


@pytest.mark.slow
def test_a_whole_game_by_clicking(sized):
    """A whole 2-player game against the engine at 20 iterations, played by clicks, fitting the window after
    every decision; on the desktop a hint, an undo and an analysis on the way. Then its review."""
    name, page = sized
    game = _start(page)
    assert game["waiting"] == "you" and game["seat"] == 0
    assert page.locator("#board .target.legal").count() > 0            # placements: the crossings light up
    if name == "desktop":
        hints = _hint(page)
        _badges_apart(page)
        assert page.locator("#hints li").count() == len(hints) >= 1
        assert "win" in page.locator("#hints li").first.text_content()
        _shot(page, "web-opening-hints.png")

        _play_one(page, _ready(page))                                    # a move, then undo it
        game = _ready(page)
        assert game["can_undo"]
        page.click("#undo")
        page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game.entries === 0")

        page.click("#analyse")                                           # the meter fills as the search runs
        page.wait_for_selector("#meter .row", timeout=60_000)
        if page.locator("#stop").is_enabled():                          # (it may have ended already)
            page.click("#stop")
        page.wait_for_function("() => document.querySelector('#stop').disabled", timeout=60_000)
        assert page.locator("#meter .row").count() == 2
        assert page.locator("#meter .meter-best").text_content().startswith("best: ")

    decisions = 0
    while True:
        game = _ready(page)
        assert not _error_text(page), _error_text(page)
        _fits(page)
        if game["waiting"] == "over":
            break
        _play_one(page, game)
        decisions += 1
        if decisions == 15 and game["waiting"] == "you" and name == "desktop":
            page.click("#hint")                                    # a hint in the middle of a turn: listed, and
            page.wait_for_selector("#hints li", timeout=60_000)    # drawn where its moves have a board place
            game = _ready(page)                                    # (an "end actions" or "skip" has none)
            placed = page.evaluate("() => hints.some((h) => h.targets.some((t) => t))")
            assert (page.locator("#board .overlay .hint-badge").count() > 0) == placed
            if placed:
                _badges_apart(page)
            _shot(page, "web-midgame.png")
        assert decisions < 400, "the game does not end"
    assert "Game over" in page.locator("#caption").text_content()
    assert len(game["result"]["scores"]) == 2
    lines = _log_lines(page)
    unnamed = [line for line in lines if not line.startswith("Round ") or  # a reveal is chance's: no player
               ", P" not in line.split(":")[0] and not line.split(": ", 1)[-1].startswith("reveal ")]
    assert lines and not unnamed, unnamed
    if name == "desktop":
        _shot(page, "web-game-over.png")

    page.evaluate("document.querySelector('#review-iterations').value = '100'")   # (on the hidden tab)
    page.click("#review-game")
    _review_done(page)
    assert page.locator("#graph polyline").count() == 2
    assert page.locator("#graph .round-tick").count() >= 3              # the page saw the game's rounds
    worst = page.evaluate("() => review.decisions.reduce((a, d) => (d.loss > a.loss ? d : a)).index")
    page.locator(f'#graph circle.point[data-index="{worst}"]').click()
    assert _review_at(page) == worst and page.locator("#review-at").text_content().startswith("Round ")
    _fits(page)
    if SHOTS and name != "tablet":
        page.screenshot(path=os.path.join(SHOTS, "web-review.png" if name == "desktop" else "web-review-phone.png"),
                        full_page=True)


def _record(server, players=2, seed=2, entries=None) -> dict:
    """A 2-player game played through the API (the engine at 5 iterations, the seat its last listed move): its
    record, the whole game or its first `entries` entries."""
    def call(path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(server + path, data=data, method="POST" if data is not None else "GET",
                                     headers={"Content-Type": "application/json", "X-Barcelona-Token": TOKEN})
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())
    g = call("/api/games", {"players": players, "seed": seed, "iterations": 5})
    while g["waiting"] != "over" and (entries is None or g["entries"] < entries):
        g = call(f"/api/games/{g['id']}/step", {})["game"] if g["waiting"] == "step" else \
            call(f"/api/games/{g['id']}/move", {"id": g["legal"][-1]["id"]})["game"]
    return call(f"/api/games/{g['id']}/record")


def _review(page, record, tmp_path, iterations="100"):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    page.click("#tab-review")
    page.set_input_files("#review-file", str(path))
    page.evaluate(f"document.querySelector('#review-iterations').value = '{iterations}'")
    page.click("#review-start")
    _review_done(page)


def _review_at(page) -> int:
    page.wait_for_function("() => window.boardState.busy === 0")
    return page.evaluate("() => reviewAt")


def test_a_review_stepped_through(sized, server, tmp_path):
    """At each width: a short game's review, its graph with a legend and an axis, stepped through move by move
    with the buttons and the arrow keys, the board shown at each step; a click on a point shows its decision,
    with the engine's move."""
    name, page = sized
    record = _record(server, entries=14)
    n = len(record["actions"])
    _review(page, record, tmp_path, "100")
    assert page.locator("#graph polyline").count() == 2                 # one line per player
    assert page.locator("#graph-legend .legend-item").count() >= 3      # two players and the marks
    assert page.locator("#review-summary p").count() == len(page.evaluate("() => review.summary")) >= 1
    assert page.locator("#graph text").filter(has_text="round").count() + \
        page.locator("#graph text").filter(has_text="move").count() == 1
    assert _review_at(page) == 0
    assert "move 1 of" in page.locator("#review-at").text_content().lower()
    assert page.locator("#review-prev").is_disabled()
    page.click("#review-next")
    assert _review_at(page) == 1
    assert "move 2 of" in page.locator("#review-at").text_content().lower()
    page.locator("body").press("ArrowRight")
    page.locator("body").press("ArrowRight")
    assert _review_at(page) == 3
    page.locator("body").press("ArrowLeft")
    assert _review_at(page) == 2
    caption = page.locator("#review-board svg .caption").text_content()
    assert "before move 3 of" in caption and caption.startswith("Round ")        # as the page counts moves
    page.locator("body").press("End")
    assert _review_at(page) == n and page.locator("#review-next").is_disabled()
    _fits(page)
    points = page.locator("#graph circle.point")
    assert points.count() > 3
    points.nth(2).click()
    index = int(points.nth(2).get_attribute("data-index"))
    assert _review_at(page) == index
    decision = page.locator("#review-decision").text_content()
    assert "played" in decision and ("The engine's move" in decision or "the same move" in decision)
    line = page.evaluate(f"() => review.decisions.find((d) => d.index === {index}).engine_line")
    if line:                                                             # the engine's better line, as it gives it
        assert page.locator("#review-decision .line").text_content() == " ; ".join(line)
    _fits(page)


def test_save_and_load_a_position(page, tmp_path):
    game = _start(page, players=3, seed=8)
    for _ in range(3):
        _play_one(page, game)
        game = _ready(page)
    with page.expect_download() as info:
        page.click("#save-position")
    path = tmp_path / "position.json"
    info.value.save_as(path)
    doc = json.loads(path.read_text())
    assert doc["viewpoint"] == 0                       # the seat's view: the engine's citizens are not in it
    page.set_input_files("#load-file", str(path))
    loaded = _ready(page)
    assert loaded["mode"] == "table" and loaded["id"] != game["id"]
    assert loaded["scores"] == game["scores"] and loaded["round"] == game["round"]


def test_a_real_tables_setup_and_another_players_placement(page):
    """Table mode: the setup typed from the table, then another player's placement entered by a click on its
    crossing (which fills in the coordinates) and the citizens typed."""
    page.select_option("#opt-mode", "table")
    page.select_option("#opt-players", "3")
    page.select_option("#opt-seat", "2")
    setup = {"actions": "COB INT CER WID IMP / CLO PS TAK COI NAR / TRM", "cerda": "SC01 SC03 SC14",
             "display": "SC08 SC09 SC12 SC18", "services": "antoni estacio hospital lluis universitat",
             "hand": "W M"}
    for name, text in setup.items():
        page.fill(f"#setup-{name}", text)
    page.click("#start")
    game = _ready(page)
    assert (game["mode"], game["seat"], game["waiting"]) == ("table", 2, "placement")
    page.locator('#board [data-target="crossing:7"]').click()
    assert page.input_value("#placement-text") == "place (2,1) "
    page.fill("#placement-text", "place (2,1) U/W")
    page.press("#placement-text", "Enter")
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game.entries > 0")
    assert not _error_text(page)
    assert any(line.endswith("place (2,1) U/W") and line.startswith("Round 1, P0")
               for line in _log_lines(page)), _log_lines(page)


# ---------------------------------------------------------------------------------------------------------------
# a real table's turn entered by clicks, and the board editor

def _table_position() -> dict:
    """Seed 1's 2-player setup from seat 1, P0 (to place first) without a Coin: the crossings that cost one are
    refused."""
    doc = new_game(2, seed=1).to_json(viewpoint=1)
    doc["players"][0]["coins"] = 0
    return doc


def _entered(page, entries):
    page.wait_for_function(f"() => window.boardState.busy === 0 && window.boardState.game.entries > {entries}",
                           timeout=60_000)
    return _ready(page)


def _inside(page, inner, outer) -> bool:
    a, b = page.locator(inner).bounding_box(), page.locator(outer).bounding_box()
    return b["x"] - 1 <= a["x"] and a["x"] + a["width"] <= b["x"] + b["width"] + 1 and \
        b["y"] - 1 <= a["y"] and a["y"] + a["height"] <= b["y"] + b["height"] + 1


def test_a_real_tables_turn_by_clicks(sized, tmp_path):
    """At each width, a real table's round entered by clicks only: another player's placement refused with the
    rules' reason beside the board, then entered by its crossing and its citizens top first (only the classes
    still unseen offered); that player's likely move proposed and confirmed with the Enter key; the seat's own
    placement, a Modernisme reveal chosen from the picker of named tiles with their text, and the seat's own draw
    chosen from its picker. The page fits the window throughout (the picture of the table entry at this width)."""
    name, page = sized
    path = tmp_path / "table.json"
    path.write_text(json.dumps(_table_position()))
    page.set_input_files("#load-file", str(path))
    game = _ready(page)
    assert (game["mode"], game["seat"], game["waiting"]) == ("table", 1, "placement")
    assert 12 not in game["placement"]["crossings"]                    # (2,2) costs a Coin P0 does not have
    assert page.locator('#board [data-target="crossing:17"].legal').count() == 1
    assert page.locator('#board [data-target="crossing:12"].legal').count() == 0
    _fits(page)

    page.locator('#board [data-target="crossing:12"]').click()         # a refused placement, by clicks
    assert page.locator("#order").is_visible() and page.input_value("#placement-text") == "place (2,2) "
    assert page.locator("#order-classes button").all_text_contents() == ["W: Working", "M: Middle", "U: Upper"]
    page.click('#order-classes button[data-cls="W"]')
    assert page.input_value("#placement-text") == "place (2,2) W/"
    page.click('#order-classes button[data-cls="M"]')
    page.wait_for_function("() => window.boardState.busy === 0 && !document.querySelector('#move-error').hidden")
    assert page.locator("#move-error").text_content() == \
        "'place (2,2) W/M' cannot be played now: crossing (2,2) costs 1 Coin; P0 has 0"
    assert _inside(page, "#move-error", "#side") and _ready(page)["entries"] == 0
    page.locator('#board [data-target="crossing:17"]').click()         # then entered: (2,3), W on top of M
    page.click('#order-classes button[data-cls="W"]')
    _fits(page)
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"web-table-{name}.png"), full_page=True)
    page.click('#order-classes button[data-cls="M"]')
    game = _entered(page, 0)
    assert not page.locator("#move-error").is_visible()
    assert _log_lines(page)[-1] == "Round 1, P0: place (2,3) W/M", _log_lines(page)

    assert game["waiting"] == "you" and game["to_move"] == 0 and game["proposal"]["move"] == "gain 2 coins"
    proposal = page.locator("#proposal-go").text_content()
    assert proposal.startswith("Likely: P0: gain 2 coins") and "press Enter" in proposal
    _fits(page)
    page.keyboard.press("Enter")                                       # one key confirms it
    game = _entered(page, game["entries"])
    assert any(line == "Round 1, P0: gain 2 coins" for line in _log_lines(page)), _log_lines(page)

    assert game["waiting"] == "you" and game["to_move"] == 1           # the seat's own placement, at (0,4)
    page.locator('#board [data-target="crossing:20"]').click()
    if page.locator("#menu").is_visible():
        page.locator("#menu button").first.click()
    game = _entered(page, game["entries"])
    take = page.locator("#moves button", has_text="take ").first       # a Modernisme tile taken: a reveal next
    preview = take.get_attribute("title")
    assert preview, "a choice of the seat's own says what it will do"
    take.hover()
    assert page.locator("#preview").text_content().endswith(preview)
    take.click()
    game = _entered(page, game["entries"])
    assert game["waiting"] == "reveal"
    picks = page.locator("#moves button.pick")
    assert picks.count() == len(game["legal"]) > 1
    first = game["legal"][0]
    assert picks.first.locator("b").text_content() == first["name"] and first["move"] == f"reveal {first['name']}"
    assert picks.first.locator(".text").text_content().startswith("Gain ")
    _fits(page)
    picks.first.click()
    game = _entered(page, game["entries"])
    assert _log_lines(page)[-1].endswith(first["move"])
    for _ in range(10):                                                # on to the end of the seat's actions
        if game["waiting"] == "draw":
            break
        page.locator("#moves button", has_text="end actions").first.click()
        game = _entered(page, game["entries"])
    assert game["waiting"] == "draw"
    assert page.locator("#moves button.pick b").all_text_contents() == [m["name"] for m in game["legal"]]
    _fits(page)
    page.locator("#moves button.pick", has_text="Working citizen").click()
    _entered(page, game["entries"])
    assert _log_lines(page)[-1] == "Round 1, P1 (you): draws W", _log_lines(page)
    _fits(page)


def _menu_pick(page, target, label, group=None):
    """In the board editor: a click on `target`, then the change `label` of the menu (under the heading
    `group` if given); waits for the redrawn board."""
    before = page.evaluate("() => JSON.stringify(window.boardState.editor)")
    page.locator(f'#ed-board [data-target="{target}"]').click()
    menu = page.locator("#menu")
    assert menu.is_visible()
    _fits(page)
    buttons = menu.locator("button")
    texts = buttons.all_text_contents()
    if group is not None:                               # the first `label` after the heading `group`
        heads = page.evaluate("() => [...document.querySelectorAll('#menu > *')].map((e) => "
                              "[e.tagName, e.textContent])")
        k, seen = -1, False
        for tag, text in heads:
            k += tag == "BUTTON"
            seen = seen or (tag == "DIV" and text.startswith(group))
            if seen and tag == "BUTTON" and text == label:
                break
        buttons.nth(k).click()
    else:
        buttons.nth(texts.index(label)).click()
    page.wait_for_function("() => window.boardState.busy === 0")
    assert page.evaluate("() => JSON.stringify(window.boardState.editor)") != before or \
        page.locator("#ed-error").is_visible()


def test_the_board_editor_sets_up_a_position_that_loads(sized, server):
    """At each width: a new setup in the board editor; citizens on a crossing, a Street tile and a Passenger, a
    building with a marker and a player's Coins set by clicks, each drawn as the reader loads it; a change the
    reader refuses is not made and says why in the reader's words; then a table game starts from the position."""
    name, page = sized
    page.click("#tab-editor")
    page.select_option("#ed-players-count", "2")
    page.click("#ed-fresh")
    page.wait_for_function("() => window.boardState.busy === 0 && document.querySelector('#ed-board svg')")
    doc = page.evaluate("() => window.boardState.editor")
    assert doc["viewpoint"] == 0 and len(doc["players"]) == 2 and "bag" not in doc
    _fits(page)
    _menu_pick(page, "crossing:7", "W/M")
    _menu_pick(page, "space:0", "P1's", "Street tile")
    _menu_pick(page, "space:0", "P1's", "Passenger")
    _menu_pick(page, "building:2", "Level 1")
    _menu_pick(page, "building:2", "add P0's")
    assert not page.locator("#ed-error").is_visible(), page.locator("#ed-error").text_content()
    doc = page.evaluate("() => window.boardState.editor")
    assert doc["crossings"]["(2,1)"] == {"citizens": {"bottom": "MIDDLE", "top": "WORKING"}, "intersection": None}
    assert doc["streets"]["V(0,0)"] == {"owner": 1, "passenger": 1}
    assert doc["buildings"]["B(1,0)"] == {"level": "L1", "markers": [0]}
    coins = page.locator('#ed-players input[data-seat="1"][data-field="Coins"]')
    coins.fill("3")
    coins.dispatch_event("change")
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.editor.players[1].coins === 3")
    coins.fill("99")                                                   # over the Warehouse: refused
    coins.dispatch_event("change")
    page.wait_for_function("() => window.boardState.busy === 0 && !document.querySelector('#ed-error').hidden")
    assert page.locator("#ed-error").text_content().startswith("players[1]")
    assert page.input_value('#ed-players input[data-seat="1"][data-field="Coins"]') == "3"
    assert page.evaluate("() => window.boardState.editor.players[1].coins") == 3
    _fits(page)
    if SHOTS and name == "desktop":
        page.screenshot(path=os.path.join(SHOTS, "web-editor.png"), full_page=True)
    page.click("#ed-play")
    game = _ready(page)
    assert (game["mode"], game["seat"]) == ("table", 0) and page.locator("#page-game").is_visible()
    req = urllib.request.Request(f"{server}/api/games/{game['id']}/position", headers={"X-Barcelona-Token": TOKEN})
    with urllib.request.urlopen(req) as r:
        loaded = json.loads(r.read())
    assert loaded["crossings"]["(2,1)"]["citizens"] == {"bottom": "MIDDLE", "top": "WORKING"}
    assert loaded["buildings"]["B(1,0)"] == {"level": "L1", "markers": [0]} and loaded["players"][1]["coins"] == 3


def test_your_board_is_made_from_the_box_and_a_new_game_plays_it(sized):
    """At each width: the "Your board" form shows every part of the box drawn, with its questions; one value
    changed and the board made, the page says what changed and offers the board file; a new game on it names
    it, and says that no learned model was fitted there."""
    name, page = sized
    page.click("#tab-board")
    page.wait_for_selector("#bf-parts details")
    assert page.locator("#bf-parts details").count() == 15
    _fits(page)
    part = page.locator("#bf-parts details").nth(2)
    part.locator("summary").click()
    assert "r0" in part.locator("pre").text_content()
    page.fill('input[data-key="crossing (1,0)"]', "2")
    page.fill("#bf-name", f"box-{name}")
    page.click("#bf-make")
    page.wait_for_function("() => window.boardState.busy === 0 && !document.querySelector('#bf-result').hidden")
    result = page.locator("#bf-result").text_content()
    assert f'edition "box-{name}"' in result and "1 value changed" in result, result
    assert "Coins printed on crossing (1,0): 2 (was 0)" in result
    _fits(page)
    if SHOTS and name == "desktop":
        page.screenshot(path=os.path.join(SHOTS, "web-your-board.png"), full_page=False)
    page.click("#tab-game")
    page.select_option("#opt-edition", f"box-{name}")
    game = _start(page)
    assert game["edition"]["name"] == f"box-{name}"
    assert page.locator("#engine-note").is_visible()
    assert "No learned model was fitted on" in page.locator("#engine-note").text_content()


# ---------------------------------------------------------------------------------------------------------------
# another site's page cannot drive the board (barcelona_ai/web/guard.py)

EVIL_PAGE = """<!doctype html><html><body>
<form id="form" method="POST" action="BOARD/api/games" enctype="text/plain" target="sink">
<input name='{"players": 2, "x": "' value='"}'></form>
<iframe name="sink"></iframe>
<script>
(async () => {
  for (const headers of [{"Content-Type": "text/plain"}, {}]) {
    try { await fetch("BOARD/api/games", {method: "POST", mode: "no-cors", headers, body: '{"players": 2}'}); }
    catch (e) {}
  }
  document.getElementById("form").submit();
  setTimeout(() => { window.done = true; }, 1500);
})();
</script></body></html>"""


class _Counting:
    """ASGI wrapper: counts the requests for /api/games that reach the server (so the test sees them arrive)."""

    def __init__(self, app):
        self.app, self.seen = app, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"] == "/api/games":
            self.seen += 1
        await self.app(scope, receive, send)


@pytest.mark.slow
def test_another_sites_page_cannot_drive_the_board(browser):
    """From a page of another origin in the same browser: a form POST and two no-cors fetches reach the server and
    are refused; a rebound name (evil.test resolved to 127.0.0.1) gets nothing; no game is made. The board's own
    page then starts one."""
    games = Games()
    board = _Counting(create_app(games=games, token=TOKEN))
    board_port, evil_port = _free_port(), _free_port()
    srv, thread = _serve_in_thread(board, board_port)
    page_html = EVIL_PAGE.replace("BOARD", f"http://127.0.0.1:{board_port}").encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page_html)

        def log_message(self, *args):
            pass
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", evil_port), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(f"http://localhost:{evil_port}/")
        pg.wait_for_function("() => window.done === true", timeout=30_000)
        assert board.seen >= 3 and not games._items                        # they arrived, and changed nothing
        rebound = pg.goto(f"http://evil.test:{board_port}/")
        assert rebound.status == 403 and TOKEN not in pg.content()
        pg.goto(f"http://127.0.0.1:{board_port}/?delay=0")
        _start(pg)
        assert len(games._items) == 1
    finally:
        context.close()
        evil.shutdown()
        srv.should_exit = True
        thread.join(10)
