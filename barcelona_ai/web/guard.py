"""Only the board's own page drives the server: the checks every request passes before a route sees it.

A page of another site that the player visits can send requests to a server on the player's computer (a form
POST, a ``no-cors`` fetch), and with DNS rebinding even read the answers. So:

- **Host**: on a loopback address the Host header must name this computer (``127.0.0.1``, ``localhost``,
  ``[::1]``): a rebound name is refused.
- **Token**: every ``/api/`` request carries the server's token (header ``X-Barcelona-Token``, or ``?token=`` for
  the analysis stream, which the browser's EventSource opens without headers). The page receives it inside
  itself; another origin cannot read the page, so it cannot learn the token.
- **Origin**: a request that says where it comes from (``Origin``, ``Sec-Fetch-Site``) must come from the page
  itself.
- **JSON only**: a POST with a body must say ``Content-Type: application/json`` (a form cannot), and a body
  longer than ``max_body`` is refused from its ``Content-Length`` before it is read.

On a non-loopback address (``serve --host 0.0.0.0``) any name may reach the server, so the page itself needs the
token too: the address printed at start carries it (``/?token=...``).
"""
from __future__ import annotations

import hmac
import json
from urllib.parse import parse_qs

from starlette.datastructures import Headers

TOKEN_HEADER = "x-barcelona-token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_NAMES or host.startswith("127.")


def _host_name(host_header: str) -> str:
    """The name of a Host header without its port ("[::1]:8000" -> "[::1]")."""
    if host_header.startswith("["):
        return host_header.split("]")[0] + "]"
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


class RequestGuard:
    """ASGI middleware: a request that fails a check is answered 403 (413 for a body too long, 415 for a body
    that is not JSON) and reaches no route."""

    def __init__(self, app, token: str, loopback: bool, max_body: int):
        self.app = app
        self.token = token
        self.loopback = loopback
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope) -> tuple[int, str] | None:
        """(status, message) of the first check the request fails, or None."""
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.loopback and not is_loopback(_host_name(host)):
            return 403, (f"Host: {host[:80]!r} is not this computer's name: open the board at the address "
                         f"barcelona-ai serve printed (http://127.0.0.1:...)")
        path = scope["path"]
        api = path.startswith("/api/")
        if api or (path == "/" and not self.loopback):
            given = self._token_of(scope, headers).encode("utf-8", "surrogatepass")
            if not hmac.compare_digest(given, self.token.encode()):
                if api:
                    return 403, "token: this server answers only requests from its own page, which holds its token"
                return 403, "token: open the board at the address barcelona-ai serve printed (it ends in ?token=...)"
        if not api:
            return None
        origin = headers.get("origin")
        if origin is not None and origin != f"{scope.get('scheme', 'http')}://{host}":
            return 403, f"Origin: {origin[:80]!r} is not this server's page"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, f"Sec-Fetch-Site: {site[:20]!r}: only the server's own page may send requests"
        if scope["method"] == "POST":
            return self._body_refusal(headers)
        return None

    def _token_of(self, scope, headers: Headers) -> str:
        token = headers.get(TOKEN_HEADER)
        if token is None:
            token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        return token

    def _body_refusal(self, headers: Headers) -> tuple[int, str] | None:
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                return 400, "Content-Length: not a number"
            if int(length) > self.max_body:
                return 413, f"request body: at most {self.max_body // 2**20} MiB"
            if int(length) == 0:
                return None
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, f"Content-Type: {kind[:40] or 'none'!r}: the API takes JSON (application/json)"
        return None
