"""The web application: a Starlette app serving the page, its assets and one websocket.

=====================  =====================================================================
route                  what it gives
=====================  =====================================================================
``GET /``              the page (``static/index.html``)
``GET /static/...``    the page's scripts and styles, all shipped inside the package
``GET /api/info``      games, board sizes, rule presets, the registered agents, limits
``GET /api/health``    ``{"ok": true}``
``WS /ws``             the session: requests in, states, analysis and notices out (JSON)
=====================  =====================================================================

The first websocket message is ``{"type": "hello", "session": ID or null}``: a known id
reattaches the page to its session (a reload keeps the game), anything else starts one. Then
each request is one of :data:`imago.ui.web.session.HANDLERS` (or ``state``); a refused
request is answered ``{"type": "error", "message": ...}`` and changes nothing, and no
request, however malformed, stops the server.

Security: the server binds to 127.0.0.1 unless told otherwise; requests must name one of the
hosts it serves (no DNS rebinding) and a websocket must come from the page's own origin (no
other site can drive it); external programs (the ``gtp`` agent runs a command line) are
refused unless ``allow_commands`` is set at start (``--allow-engines``); every page load,
API call and websocket carries the server's random token; messages and uploads are
size-limited and read in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import math
import secrets
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from imago.ui.web.session import ClientError, Session, SessionConfig, agents_view
from imago.ui.web.uploads import MAX_UPLOAD_BYTES

MAX_MESSAGE_BYTES = MAX_UPLOAD_BYTES * 4 // 3 + (64 << 10)
"""The largest websocket message: an upload in base64, and some room."""
TICK_SECONDS = 0.125
"""How often a session's analysis and clocks are sent to its page."""
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(frozen=True)
class ServerConfig:
    """How the server runs."""

    host: str = "127.0.0.1"
    port: int = 8000
    session: SessionConfig = field(default_factory=SessionConfig)
    max_sessions: int = 16
    """Sessions kept at once; the one idle longest (and not connected) goes first."""
    idle_seconds: float = 3600.0
    """A session nobody has used for this long is closed."""
    allow_commands: bool = False
    """Allow the ``gtp`` agent (it runs a command line): refused unless the user allowed it
    when starting the server (``imago serve --allow-engines``), loopback or not."""
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    extra_hosts: tuple[str, ...] = ()
    """More Host names to accept (tests' ``testserver``; never by default)."""
    """The secret every page load, API call and websocket must carry (``?token=``), as
    Jupyter's: other local users and pages on other ports cannot drive the server."""

    @property
    def loopback(self) -> bool:
        """Whether the server listens on the loopback interface only."""
        if self.host in LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host.strip("[]")).is_loopback
        except ValueError:
            return False

    @property
    def commands_allowed(self) -> bool:
        return self.allow_commands


def static_text(name: str) -> str:
    """A file of the page, from the package."""
    return (resources.files("imago.ui.web") / "static" / name).read_text(encoding="utf-8")


def info(config: ServerConfig) -> dict[str, Any]:
    """What ``/api/info`` answers: what can be played and by whom."""
    from imago.core.move import MAX_SIZE
    from imago.games.go.handicap import max_fixed_handicap
    from imago.games.go.rules import GoRules
    from imago.games.othello import SIZES

    agents = agents_view()
    if not config.commands_allowed:
        agents = [a for a in agents if a["name"] != "gtp"]
    return {
        "games": {
            "go": {
                "sizes": list(range(2, MAX_SIZE + 1)),
                "default_size": 9,
                "rules": list(GoRules.PRESETS),
                "max_handicap": {s: max_fixed_handicap(s) for s in range(2, MAX_SIZE + 1)},
                "engine": config.session.engine_for("go", 9),
                "engines": {s: config.session.engine_for("go", s) for s in range(2, MAX_SIZE + 1)},
            },
            "othello": {
                "sizes": list(SIZES),
                "default_size": 8,
                "engine": config.session.engine_for("othello", 8),
                "engines": {s: config.session.engine_for("othello", s) for s in SIZES},
            },
        },
        "agents": agents,
        "limits": {"upload_bytes": MAX_UPLOAD_BYTES, "message_bytes": MAX_MESSAGE_BYTES},
        "exact_empties": config.session.analysis.exact_empties,
    }


class SessionStore:
    """The sessions of a server by id, with a bound on how many and how long they live."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.sessions: dict[str, Session] = {}
        self.connected: dict[str, int] = {}

    def attach(self, sid: object) -> Session:
        """The session ``sid`` when it exists, else a new one (call on the event loop)."""
        self.expire()
        if isinstance(sid, str) and sid in self.sessions:
            session = self.sessions[sid]
        else:
            while len(self.sessions) >= self.config.max_sessions:
                idle = [s for s in self.sessions.values() if not self.connected.get(s.sid)]
                if not idle:
                    raise ClientError("too many pages are open on this server")
                self.drop(min(idle, key=lambda s: s.touched).sid)
            session = Session(
                secrets.token_urlsafe(16),
                self._poster(asyncio.get_running_loop()),
                dataclasses.replace(
                    self.config.session,
                    allow_commands=self.config.session.allow_commands or self.config.allow_commands,
                ),
            )
            self.sessions[session.sid] = session
        self.connected[session.sid] = self.connected.get(session.sid, 0) + 1
        return session

    @staticmethod
    def _poster(loop: asyncio.AbstractEventLoop) -> Callable[[Callable[[], None]], None]:
        """``post(fn)``: run ``fn`` on ``loop``, from any thread."""

        def post(function: Callable[[], None]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(function)

        return post

    def detach(self, session: Session) -> None:
        self.connected[session.sid] = max(0, self.connected.get(session.sid, 1) - 1)

    def expire(self) -> None:
        now = time.monotonic()
        for sid, session in list(self.sessions.items()):
            if not self.connected.get(sid) and now - session.touched > self.config.idle_seconds:
                self.drop(sid)

    def drop(self, sid: str) -> None:
        session = self.sessions.pop(sid, None)
        self.connected.pop(sid, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        for sid in list(self.sessions):
            self.drop(sid)


def encode(message: dict[str, Any]) -> str:
    """JSON text for the page (numpy numbers as numbers, NaN and infinities as null)."""
    try:
        return json.dumps(message, allow_nan=False, default=_plain)
    except ValueError:
        return json.dumps(_finite(message), allow_nan=False, default=_plain)


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if hasattr(value, "item"):
        return _finite(value.item())
    return value


SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def token_ok(given: str | None, config: ServerConfig) -> bool:
    """Whether ``given`` is the server's token (compared in constant time)."""
    return given is not None and secrets.compare_digest(given.encode(), config.token.encode())


def origin_allowed(websocket: WebSocket) -> bool:
    """Whether a websocket comes from a page this server served or from no browser (a
    program: it must still carry the token)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "")
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == host


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The application (see the module docstring)."""
    config = config or ServerConfig()
    store = SessionStore(config)

    def refused() -> Response:
        return PlainTextResponse(
            "imago: a missing or wrong token; open the address `imago serve` printed",
            status_code=403,
            headers=SECURITY_HEADERS,
        )

    async def index(request: Request) -> Response:
        if not token_ok(request.query_params.get("token"), config):
            return refused()
        return HTMLResponse(static_text("index.html"), headers=SECURITY_HEADERS)

    async def api_info(request: Request) -> Response:
        if not token_ok(request.query_params.get("token"), config):
            return refused()
        return JSONResponse(info(config), headers=SECURITY_HEADERS)

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "sessions": len(store.sessions)})

    async def websocket_endpoint(websocket: WebSocket) -> None:
        if not token_ok(websocket.query_params.get("token"), config) or not origin_allowed(
            websocket
        ):
            await websocket.close(code=1008, reason="this page may not drive imago")
            return
        await websocket.accept()
        await Connection(websocket, store, config).run()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        yield
        store.close()

    hosts = ["127.0.0.1", "localhost", "[::1]", "::1"]
    if not config.loopback:
        hosts.append(config.host.strip("[]") if ":" not in config.host else config.host)
    hosts.extend(config.extra_hosts)
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/info", api_info),
            Route("/api/health", health),
            WebSocketRoute("/ws", websocket_endpoint),
            Mount("/static", StaticFiles(packages=[("imago.ui.web", "static")]), name="static"),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.config = config
    return app


class Connection:
    """One page's websocket: hello, then requests until it closes."""

    def __init__(self, websocket: WebSocket, store: SessionStore, config: ServerConfig) -> None:
        self.websocket = websocket
        self.store = store
        self.config = config
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.session: Session | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.put_nowait(encode(message))

    async def run(self) -> None:
        sender = asyncio.create_task(self._sender())
        ticker: asyncio.Task[None] | None = None
        try:
            hello = await self._receive()
            if hello is None:
                return
            try:
                session = self.store.attach(hello.get("session"))
            except ClientError as error:
                self.send({"type": "error", "message": str(error)})
                return
            self.session = session
            session.send = self.send
            fresh = session.sid != hello.get("session")  # a new board, not a page reloaded
            self.send({"type": "welcome", "session": session.sid, "fresh": fresh})
            self.send(session.state_message())
            ticker = asyncio.create_task(self._ticker(session))
            while True:
                message = await self._receive()
                if message is None:
                    return
                self._handle(session, message)
        except WebSocketDisconnect:
            return
        finally:
            if self.session is not None:
                if self.session.send == self.send:
                    self.session.send = None
                self.store.detach(self.session)
            if ticker is not None:
                ticker.cancel()
            self.outbox.put_nowait(None)
            with contextlib.suppress(Exception):
                await sender

    def _handle(self, session: Session, message: dict[str, Any]) -> None:
        kind = message.get("type")
        try:
            if kind == "state":
                self.send(session.state_message())
            elif kind == "hello":
                raise ClientError("already connected")
            elif kind == "new_game" and not self.config.commands_allowed:
                for key in ("black", "white"):
                    if str(message.get(key, "")).strip().lower().startswith("gtp"):
                        raise ClientError("this server does not run external programs")
                session.handle(message)
            elif (
                kind in ("analyze", "review")
                and not self.config.commands_allowed
                and str(message.get("engine", "")).strip().lower().startswith("gtp")
            ):
                raise ClientError("this server does not run external programs")
            else:
                session.handle(message)
        except ClientError as error:
            self.send({"type": "error", "message": str(error), "request": kind})
        except Exception as error:  # a bug must not stop the server: say so and go on
            traceback.print_exc()
            self.send({"type": "error", "message": f"internal error: {error}", "request": kind})

    async def _receive(self) -> dict[str, Any] | None:
        while True:
            try:
                text = await self.websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError):
                return None
            except KeyError:  # a binary frame
                self.send({"type": "error", "message": "send JSON text, not binary frames"})
                continue
            if len(text) > MAX_MESSAGE_BYTES:
                self.send({"type": "error", "message": "the message is too large"})
                continue
            try:
                message = json.loads(text)
            except ValueError:
                self.send({"type": "error", "message": "a request is a JSON object"})
                continue
            if not isinstance(message, dict):
                self.send({"type": "error", "message": "a request is a JSON object"})
                continue
            return message

    async def _sender(self) -> None:
        while True:
            text = await self.outbox.get()
            if text is None:
                return
            try:
                await self.websocket.send_text(text)
            except Exception:
                return

    async def _ticker(self, session: Session) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                session.tick()
            except ClientError as error:
                self.send({"type": "error", "message": str(error)})
            except Exception as error:
                traceback.print_exc()
                self.send({"type": "error", "message": f"internal error: {error}"})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: any free port); ``OSError`` if taken."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError:
        sock.close()
        raise
    return sock


def address(sock: socket.socket, token: str | None = None) -> str:
    """The page's address for a bound socket: ``http://127.0.0.1:8000/?token=...``."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if sock.family == socket.AF_INET6 else host
    url = f"http://{shown}:{port}/"
    return f"{url}?token={token}" if token else url


def make_server(config: ServerConfig) -> Any:
    """A uvicorn server for the app (websockets by wsproto, size-limited messages)."""
    import uvicorn

    return uvicorn.Server(
        uvicorn.Config(
            create_app(config),
            ws="wsproto",
            ws_max_size=MAX_MESSAGE_BYTES,
            log_level="warning",
            lifespan="on",
        )
    )


@contextlib.contextmanager
def background_server(config: ServerConfig | None = None) -> Iterator[str]:
    """Run the server on a thread (tests, benchmarks); yields the page's address."""
    config = config or ServerConfig(port=0)
    sock = bind(config.host, config.port)
    server = make_server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="imago-web-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield address(sock, config.token)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
