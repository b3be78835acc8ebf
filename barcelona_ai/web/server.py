"""``barcelona-ai serve``: the web board, a local HTTP server around webapi (optional extra ``[web]``).

Starlette (routing, JSON, streaming responses, a test client) served by uvicorn: small, well kept, and all this
needs; the page is plain HTML, CSS and JavaScript shipped in the package (barcelona_ai/data/web, no CDN). Every
route is one webapi call: no rule or search is here. It binds to 127.0.0.1 unless told otherwise.

The JSON API (every answer a JSON object; errors ``{"error": message}`` with 400 for a bad request, 404 for an
unknown id, 409 for a request the game cannot take now, 503 when the server's searches and their queue are full:
searches.py):

=======  ===================================  =====================================================================
GET      /                                    the page
POST     /api/games                           a new game: {mode, players, seat, seed, iterations, hint_iterations,
                                              record, position, setup} (all optional) -> the game document
GET      /api/table-setup                     the fields of a real table's setup, with their prompts
GET      /api/board-form                      ?from=NAME: the guided editor's questions, part by part, drawn
POST     /api/editions                        {from, name, answers} -> the board made, played by name from then on
GET      /api/games/{id}                      the game document (webapi.game_document)
POST     /api/games/{id}/move                 {"id": action id} or {"move": notation} -> {"game", "lines"}
POST     /api/games/{id}/step                 the engine's move or chance, one entry -> {"game", "lines"}
POST     /api/games/{id}/undo                 take back the seat's last move -> {"game", "message"}
POST     /api/games/{id}/hint                 {"iterations"} (optional) -> {"hints": [plan, ...]}
GET      /api/games/{id}/analysis             ?iterations=N: server-sent events, one analysis each, then "end"
POST     /api/games/{id}/analysis/stop        stop the running analysis (its last report still comes)
GET      /api/games/{id}/record               the game record (the seat's view until the game is over)
GET      /api/games/{id}/position             the position (the seat's view)
POST     /api/positions/new                   {players, seat, seed} -> {"position": a new setup from the seat}
POST     /api/positions/board                 {position} -> the position as the reader loads it, drawn (editor)
POST     /api/reviews                         {record, iterations, seed} -> the review document (runs on)
GET      /api/reviews/{id}                    the review so far
POST     /api/reviews/{id}/stop               stop the review before its next decision -> the review so far
GET      /api/reviews/{id}/positions/{index}  the position before entry index, drawn, with its review
GET      /api/searches                        how many searches run and wait on the server (searches.py)
=======  ===================================  =====================================================================
"""
from __future__ import annotations

import asyncio
import errno
import json
import secrets
import socket
import time
from html import escape
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..errors import BarcelonaError, ServerBusy
from ..rules.jsonio import parse_json
from ..search.levels import DEFAULT_LEVEL, LEVELS
from .api import (MAX_ITERATIONS, Editions, GameNotFound, Games, NotNow, Reviews, WebRequestError,
                     analysis_document, fresh_position, game_document, int_field, position_board, position_document,
                     record_document, table_setup_fields)
from .board_form import form_document, make_edition
from .guard import RequestGuard, is_loopback
from .searches import SearchSlots

__all__ = ["create_app", "serve", "STATIC_FILES"]

STATIC_FILES = {"app.js": "text/javascript", "board_form.js": "text/javascript", "style.css": "text/css",
                "index.html": "text/html"}
MAX_BODY = 4 * 2**20                   # a request body (a game record) of at most 4 MiB
MAX_CONNECTIONS = 256                  # connections served at once (uvicorn answers 503 beyond them)
KEEP_ALIVE_SECONDS = 5                 # an idle connection is closed after this
MAX_HEADERS = 64 * 1024                # bytes of a request's headers
BODY_SECONDS = 10                      # a request body arrives whole within this, or is refused
HEADER_SECONDS = 10                    # a request's headers arrive whole within this, or the connection is closed


def _static_path(name: str):
    return resources.files("barcelona_ai") / "data" / "web" / name


def _error(exc: Exception) -> JSONResponse:
    if isinstance(exc, ServerBusy):
        return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "1"})
    status = 404 if isinstance(exc, GameNotFound) else 409 if isinstance(exc, NotNow) else 400
    return JSONResponse({"error": str(exc)}, status_code=status)


async def _body(request: Request) -> dict:
    """The request's JSON object, read as a stream and cut at MAX_BODY (a body without a Content-Length, whose
    length the guard could not check, is never held whole past the limit) or after BODY_SECONDS (a body sent
    a byte at a time does not hold its connection)."""
    chunks, size = [], 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise WebRequestError(f"request body: at most {MAX_BODY // 2**20} MiB")
                chunks.append(chunk)
    except TimeoutError:
        raise WebRequestError(f"request body: not sent whole within {BODY_SECONDS} seconds") from None
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    doc = parse_json(raw, "request body", WebRequestError)     # UTF-8, valid, not nested too deep
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WebRequestError(f"request body: a string holds {exc.object[exc.start]!r}, a lone surrogate, "
                              f"not text") from None
    if not isinstance(doc, dict):
        raise WebRequestError(f"request body: expected a JSON object, not {type(doc).__name__}")
    return doc


def _handler(work):
    """A route that runs work(request, body) in a worker thread (the engine searches without the GIL) and
    answers its JSON, or the error's."""
    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else {}
            return JSONResponse(await run_in_threadpool(work, request, body))
        except (BarcelonaError, ValueError) as exc:
            return _error(exc)
    return endpoint


class _Endpoints:
    """The routes' work, one method each (run in a worker thread by _handler); a game's lock makes one request
    at a time change it, and the server's search slots bound the searches of all games together."""

    def __init__(self, games: Games, reviews: Reviews, searches: SearchSlots):
        self.games = games
        self.reviews = reviews
        self.searches = searches

    def game_of(self, request: Request):
        return self.games.get(request.path_params["gid"])

    def locked(self, request: Request, work, search: bool = False):
        """work(game) for the request's game, with the game's lock held (and, for work that may search, one of
        the server's search slots). A game busy with another request (a search) answers 409 at once: no worker
        thread waits for it, so one game's long search never holds the threads that other requests need."""
        game = self.game_of(request)
        if not game.lock.acquire(blocking=False):
            raise NotNow("the game is busy with another request (a search): try again when it answers")
        try:
            if not search:
                return work(game)
            with self.searches.slot():
                return work(game)
        finally:
            game.lock.release()

    def search_status(self, request, body):
        return self.searches.status()

    def setup_fields(self, request, body):
        editions = self.games.editions
        return {"fields": table_setup_fields(editions.by_name[editions.default]), **editions.listing()}

    def board_form(self, request, body):
        return form_document(self.games.editions, request.query_params.get("from"))

    def new_edition(self, request, body):
        return make_edition(self.games.editions, body)

    def new_game(self, request, body):
        return game_document(self.games.create(body))

    def show(self, request, body):
        return self.locked(request, game_document)

    def move(self, request, body):
        unknown = sorted(set(body) - {"id", "move"})
        if unknown:
            raise WebRequestError(f"{unknown[0]}: unknown field of a move (give 'id' or 'move')")
        return self.locked(request, lambda game: _with_game(game, lines=game.move(body.get("id"),
                                                                                  body.get("move"))),
                           search=True)

    def step(self, request, body):
        return self.locked(request, lambda game: _with_game(game, lines=game.step()), search=True)

    def undo(self, request, body):
        return self.locked(request, lambda game: _with_game(game, message=game.undo()))

    def hint(self, request, body):
        iterations = int_field(body, "iterations", 1, MAX_ITERATIONS, None)

        def timed(game):
            t0 = time.perf_counter()
            hints = game.hints(iterations)
            return {"hints": hints, "seconds": round(time.perf_counter() - t0, 3)}
        return self.locked(request, timed, search=True)

    def stop(self, request, body):
        self.game_of(request).stop_analysis()
        return {"stopped": True}

    def record(self, request, body):
        return self.locked(request, record_document)

    def position(self, request, body):
        return self.locked(request, position_document)

    def new_position(self, request, body):
        return fresh_position(body, self.games.editions)

    def position_board(self, request, body):
        return position_board(body, self.games.editions)

    def new_review(self, request, body):
        return self.reviews.start(body, self.games.editions).document()

    def show_review(self, request, body):
        return self.reviews.get(request.path_params["rid"]).document()

    def stop_review(self, request, body):
        review = self.reviews.get(request.path_params["rid"])
        review.stop()
        return review.document()

    def review_position(self, request, body):
        return self.reviews.get(request.path_params["rid"]).position(request.path_params["index"])

    async def analysis(self, request: Request) -> Response:
        """Server-sent events: one analysis report each, until the budget is spent or the search is stopped."""
        try:
            game = self.game_of(request)
            raw = request.query_params.get("iterations")
            iterations = int_field({"iterations": int(raw) if raw is not None and raw.isdigit() else raw},
                                   "iterations", 1, MAX_ITERATIONS, None)
            if not game.lock.acquire(blocking=False):
                raise NotNow("the game is busy with another request (a search): try again when it answers")
            try:
                stream = game.analysis_stream(iterations)
            finally:
                game.lock.release()
        except (BarcelonaError, ValueError) as exc:
            return _error(exc)
        return StreamingResponse(_events(request, game, stream, self.searches), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})


def _with_game(game, **answer) -> dict:
    """An answer that changed the game: what it says, and the game document after it."""
    return {**answer, "game": game_document(game)}


async def _events(request: Request, game, stream, searches: SearchSlots):
    """The analysis reports of `stream` as server-sent events, each report's search run in one of the server's
    search slots (so that analyses share them with every other search); a full queue ends the stream with a
    "busy" event saying so."""
    seat = game.session.seat

    def next_report():
        with searches.slot():
            return next(stream, None)
    try:
        while True:
            try:
                report = await run_in_threadpool(next_report)
            except ServerBusy as exc:
                yield f"event: busy\ndata: {json.dumps({'error': str(exc)})}\n\n"
                break
            if report is None:
                break
            yield f"data: {json.dumps(analysis_document(report, seat))}\n\n"
            if await request.is_disconnected():
                stream.stop()
                break
    finally:
        if game.analysis is stream:
            game.analysis = None
    yield "event: end\ndata: {}\n\n"


TOKEN_META = '<meta name="barcelona-token" content="">'
LEVELS_MARK = "<!-- levels -->"


def level_options() -> str:
    """The engine menu: a level a line, named as search/levels.py names it, what it was measured to do as its
    title (the page shows it beside the menu)."""
    return "".join(f'<option value="{lv.iterations}" title="{escape(lv.description)}"'
                   f'{" selected" if lv.name == DEFAULT_LEVEL else ""}>{escape(lv.name)} ({lv.iterations:,} a move)'
                   "</option>" for lv in LEVELS)


def _page(token: str):
    """The page, with the server's token inside it (only the page itself can read it: guard.py)."""
    html = _static_path("index.html").read_text(encoding="utf-8")
    assert TOKEN_META in html, "index.html has the token's meta tag"
    html = html.replace(TOKEN_META, f'<meta name="barcelona-token" content="{token}">')
    assert LEVELS_MARK in html, "index.html has the engine menu's place"
    html = html.replace(LEVELS_MARK, level_options())

    async def page(request: Request) -> Response:
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})
    return page


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        return JSONResponse({"error": f"no file {name!r}"}, status_code=404)
    return FileResponse(str(_static_path(name)), media_type=STATIC_FILES[name])


async def _no_route(request: Request, exc) -> JSONResponse:
    """An unknown path or a method the path does not take: a JSON answer like every other."""
    status = getattr(exc, "status_code", 404)
    what = "no such address" if status == 404 else f"{request.method} is not taken here"
    return JSONResponse({"error": f"{what}: {request.url.path[:200]}"}, status_code=status)


def create_app(games: Games | None = None, reviews: Reviews | None = None, token: str | None = None,
               host: str = "127.0.0.1", searches: SearchSlots | None = None) -> Starlette:
    """The web board's application (games and reviews kept in memory), behind the request guard (guard.py):
    `token` the server's (a new random one when None), `host` the address it is served on (a loopback one
    checks the Host header; another requires the token for the page too)."""
    token = token or secrets.token_urlsafe(24)
    e = _Endpoints(games or Games(), reviews or Reviews(), searches or SearchSlots())
    post = ["POST"]
    routes = [
        Route("/", _page(token)), Route("/static/{name}", _static),
        Route("/api/games", _handler(e.new_game), methods=post),
        Route("/api/table-setup", _handler(e.setup_fields)),
        Route("/api/board-form", _handler(e.board_form)),
        Route("/api/editions", _handler(e.new_edition), methods=post),
        Route("/api/games/{gid}", _handler(e.show)),
        Route("/api/games/{gid}/move", _handler(e.move), methods=post),
        Route("/api/games/{gid}/step", _handler(e.step), methods=post),
        Route("/api/games/{gid}/undo", _handler(e.undo), methods=post),
        Route("/api/games/{gid}/hint", _handler(e.hint), methods=post),
        Route("/api/games/{gid}/analysis", e.analysis),
        Route("/api/games/{gid}/analysis/stop", _handler(e.stop), methods=post),
        Route("/api/games/{gid}/record", _handler(e.record)),
        Route("/api/games/{gid}/position", _handler(e.position)),
        Route("/api/positions/new", _handler(e.new_position), methods=post),
        Route("/api/positions/board", _handler(e.position_board), methods=post),
        Route("/api/reviews", _handler(e.new_review), methods=post),
        Route("/api/reviews/{rid}", _handler(e.show_review)),
        Route("/api/reviews/{rid}/stop", _handler(e.stop_review), methods=post),
        Route("/api/reviews/{rid}/positions/{index:int}", _handler(e.review_position)),
        Route("/api/searches", _handler(e.search_status)),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _no_route, 405: _no_route})
    app.add_middleware(RequestGuard, token=token, loopback=is_loopback(host), max_body=MAX_BODY)
    app.state.token = token
    return app


def _listening_socket(host: str, port: int) -> socket.socket:
    """The board's socket, bound to host:port before anything is printed (uvicorn serves on it); a port another
    program holds, or an address this computer cannot bind, is a BarcelonaError that says so."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise BarcelonaError(f"port {port} is already in use (another server?); choose another with --port") \
                from None
        raise BarcelonaError(f"cannot serve on {host} port {port}: {exc.strerror or exc}") from None
    return sock


def uvicorn_config(app, host: str, port: int, log_level: str = "warning"):
    """How uvicorn serves the board: its connection, keep-alive and header limits, and a deadline for each
    request's headers (_header_deadline_protocol)."""
    import uvicorn
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, limit_concurrency=MAX_CONNECTIONS,
                          timeout_keep_alive=KEEP_ALIVE_SECONDS, h11_max_incomplete_event_size=MAX_HEADERS,
                          http=_header_deadline_protocol())


def _header_deadline_protocol():
    """uvicorn's HTTP/1.1 protocol with a deadline for a request's headers: a connection that has not sent a
    whole request line and headers within HEADER_SECONDS of opening, or of its last answer, is closed (uvicorn
    has no such timeout: a connection sending a byte now and then was held for good)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm_header_deadline()

        def _arm_header_deadline(self) -> None:
            self._header_deadline = self.loop.call_later(HEADER_SECONDS, self._headers_late)

        def _headers_late(self) -> None:
            if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:   # a request's headers came
                self._header_deadline.cancel()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._header_deadline.cancel()
            self._arm_header_deadline()

        def connection_lost(self, exc) -> None:
            self._header_deadline.cancel()
            super().connection_lost(exc)
    return HeaderDeadline


def serve(host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning", edition=None) -> None:
    """Run the web board until Ctrl-C; `edition` (a name, a data-file path or a tables.Edition) is the board of
    new games, offered beside the shipped editions."""
    app = create_app(games=Games(editions=Editions(edition)), host=host)
    config = uvicorn_config(app, host, port, log_level)
    sock = _listening_socket(host, port)
    if is_loopback(host):
        print(f"barcelona-ai web board: http://{host}:{port}/  (this computer only; Ctrl-C stops it)", flush=True)
    else:
        print(f"barcelona-ai web board: http://{host}:{port}/?token={app.state.token}\n"
              f"  anyone who can reach this address and has this link can play and search here: share it only "
              f"with the people at your table (Ctrl-C stops it)", flush=True)
    import uvicorn
    uvicorn.Server(config).run(sockets=[sock])
