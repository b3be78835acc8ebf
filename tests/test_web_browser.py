"""The web board in a real browser: Debian's chromium, headless, driven by Playwright, against
``barcelona-ai serve``'s application run by uvicorn on a free local port.

A whole 2-player game is played against a fast engine by clicking: a highlighted place on the board (a menu
when several moves share it), or the list of moves for the moves that are no place (end actions, skip ...).
On the way: a hint drawn on the board, an undo, an analysis with its meter, a position saved and loaded; then a
review's graph, and a click on one of its points. With BARCELONA_WEB_SCREENSHOTS=DIR the board is
photographed at three moments (the README's pictures: docs/web-*.png).

Slow (about a minute): CI runs it (-m slow); it is skipped where Playwright or chromium is missing.
"""
import http.server
import json
import os
import shutil
import socket
import threading
import time
import urllib.request

import pytest

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no chromium on this machine (Debian: apt install chromium)", allow_module_level=True)

from barcelona_ai.web.api import Games  # noqa: E402
from barcelona_ai.web.server import create_app  # noqa: E402

SHOTS = os.environ.get("BARCELONA_WEB_SCREENSHOTS")


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


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    srv, thread = _serve_in_thread(create_app(token=TOKEN), port)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,      # evil.test: a name rebound to this computer
                              args=["--no-sandbox", "--host-resolver-rules=MAP evil.test 127.0.0.1"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.goto(f"{server}/?delay=0")
    yield pg
    context.close()


def _ready(page):
    """Wait until no request is in flight and the game waits for the player (or is over)."""
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game !== null && "
                           "['you', 'over', 'placement', 'draw', 'reveal'].includes(window.boardState.game.waiting)",
                           timeout=60_000)
    return page.evaluate("() => window.boardState.game")


def _error_text(page) -> str:
    box = page.locator("#error")
    return box.text_content() if box.is_visible() else ""


def _shot(page, name):
    if SHOTS:
        page.locator("#board svg").screenshot(path=os.path.join(SHOTS, name))


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
    page.select_option("#opt-iterations", "20")
    page.select_option("#opt-hint", "1000")
    page.fill("#opt-seed", str(seed))
    page.click("#start")
    return _ready(page)


def test_the_page_loads_with_its_own_assets(page, server):
    """The page and its script and style come from the package (no CDN): every request goes to the server."""
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    page.reload()
    page.wait_for_selector("#new-game")
    assert seen and all(u.startswith(server) for u in seen), seen
    assert page.title().startswith("Barcelona")


def test_a_whole_game_by_clicking_with_a_hint_an_undo_and_an_analysis(page):
    game = _start(page)
    assert game["waiting"] == "you" and game["seat"] == 0
    assert page.locator("#board .target.legal").count() > 0            # placements: the crossings light up

    page.click("#hint")                                                  # a hint, drawn on the board
    page.wait_for_selector("#board .overlay .hint-badge", timeout=60_000)
    _ready(page)
    assert page.locator("#hints li").count() >= 1
    assert "win" in page.locator("#hints li").first.text_content()
    _shot(page, "web-opening-hints.png")

    _play_one(page, _ready(page))                                        # a move, then undo it
    game = _ready(page)
    assert game["can_undo"]
    page.click("#undo")
    page.wait_for_function("() => window.boardState.busy === 0 && window.boardState.game.entries === 0")

    page.click("#analyse")                                               # the meter fills as the search runs
    page.wait_for_selector("#meter .row", timeout=60_000)
    if page.locator("#stop").is_enabled():                              # (it may have ended already)
        page.click("#stop")
    page.wait_for_function("() => document.querySelector('#stop').disabled", timeout=60_000)
    assert page.locator("#meter .row").count() == 2
    assert page.locator("#meter .meter-best").text_content().startswith("best: ")

    decisions = 0
    while True:
        game = _ready(page)
        assert not _error_text(page), _error_text(page)
        if game["waiting"] == "over":
            break
        _play_one(page, game)
        decisions += 1
        if decisions == 15 and game["waiting"] == "you":           # a hint in the middle of a turn: listed, and
            page.click("#hint")                                    # drawn where its moves have a board place
            page.wait_for_selector("#hints li", timeout=60_000)    # (an "end actions" or "skip" has none)
            game = _ready(page)
            placed = page.evaluate("() => hints.some((h) => h.targets.some((t) => t))")
            assert (page.locator("#board .overlay .hint-badge").count() > 0) == placed
            _shot(page, "web-midgame.png")
        assert decisions < 400, "the game does not end"
    assert "Game over" in page.locator("#caption").text_content()
    assert len(game["result"]["scores"]) == 2
    _shot(page, "web-game-over.png")

    page.evaluate("document.querySelector('#review-iterations').value = '100'")   # (on the hidden tab)
    page.click("#review-game")
    page.wait_for_function("() => document.querySelector('#review-status').textContent.startsWith('reviewed')",
                           timeout=120_000)
    assert page.locator("#graph polyline").count() == 2


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


def _finished_record(server) -> dict:
    """A whole 2-player game played through the API (the engine at 5 iterations, the seat its first move)."""
    def call(path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(server + path, data=data, method="POST" if data is not None else "GET",
                                     headers={"Content-Type": "application/json", "X-Barcelona-Token": TOKEN})
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())
    g = call("/api/games", {"players": 2, "seed": 2, "iterations": 5})
    while g["waiting"] != "over":
        g = call(f"/api/games/{g['id']}/step", {})["game"] if g["waiting"] == "step" else \
            call(f"/api/games/{g['id']}/move", {"id": g["legal"][-1]["id"]})["game"]
    return call(f"/api/games/{g['id']}/record")


def test_a_review_graph_and_a_click_on_it(page, server, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_finished_record(server)))
    page.click("#tab-review")
    page.set_input_files("#review-file", str(path))
    page.select_option("#review-iterations", "100")
    page.click("#review-start")
    page.wait_for_function("() => document.querySelector('#review-status').textContent.startsWith('reviewed')",
                           timeout=120_000)
    points = page.locator("#graph circle.point")
    assert points.count() > 20
    assert page.locator("#graph polyline").count() == 2                 # one line per player
    points.nth(5).click()
    page.wait_for_selector("#review-board svg", timeout=30_000)
    assert "played" in page.locator("#review-decision").text_content()


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
    assert "place (2,1) U/W" in page.locator("#log").text_content()


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
