"""One person's board in the browser: a game tree with a cursor, who plays each side, clocks,
the count at the end of a Go game, live analysis and game review.

The session is a thin layer: positions, legality and scoring are the rules' own
(:mod:`imago.games`), the tree is :mod:`imago.records`' (so any record opens and every game
saves as SGF), moves come from registered agents (:mod:`imago.agents`, external GTP programs
included) and clocks from :mod:`imago.arena.clock`. Its methods run on the server's event
loop; agents think on background :class:`~imago.ui.web.live.Runner` threads, whose news the
app brings back to the loop (``post``).

Every request either succeeds or raises :class:`ClientError` and changes nothing; what the
page shows comes from :meth:`Session.state_message`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import datetime
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from imago.agents.base import Agent, Limit, SearchResult
from imago.agents.registry import agent_specs, make_agent, parse_agent_spec
from imago.arena.clock import GRACE, SideClock, TimeControl, move_budget
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError
from imago.core.game import GameState
from imago.core.move import Move, Point
from imago.games import make
from imago.gtp import go_support
from imago.records import sgf
from imago.records.sgf import RU_OF_RULES
from imago.records.tree import Cursor, Game, GameNode
from imago.ui import review as reviewing
from imago.ui.web import view
from imago.ui.web.counting import GoCount, count_go, string_of, territory
from imago.ui.web.live import (
    Job,
    Publish,
    Runner,
    hint_job,
    othello_move_scores,
    root_search,
)
from imago.ui.web.positions import Positions
from imago.ui.web.settings import (
    ClientError,
    PlaySettings,
    SessionConfig,
    check_agent_allowed,
    number_field,
)
from imago.ui.web.treesync import TreeSync
from imago.ui.web.uploads import Library, UploadError, read_text, read_upload
from imago.ui.web.view import Json, NodeIds

MAX_COMMENT = 64 << 10
__all__ = ["ClientError", "PlaySettings", "Session", "SessionConfig", "agents_view"]


@dataclass(frozen=True, slots=True)
class Ending:
    """How a played game ended when the rules alone do not say: resignation, time, a count."""

    result: str
    reason: str


@dataclass
class _Turn:
    """An agent asked for a move: where, and when it started."""

    node: GameNode
    color: Color


@dataclass
class _Clocks:
    control: TimeControl
    sides: dict[Color, SideClock]
    running: Color | None = None
    since: float = 0.0

    def view(self) -> Json:
        now = time.monotonic()
        out: Json = {"control": str(self.control)}
        for color in Color:
            side = self.sides[color]
            remaining = side.remaining
            if self.running is color:
                remaining -= now - self.since
            out[color.letter] = {
                "remaining": round(remaining, 2),
                "stones": side.stones,
                "running": self.running is color,
                "flagged": side.flagged,
            }
        return out


Post = Callable[[Callable[[], None]], None]
Send = Callable[[Json], None]


class Session:
    """One board (see the module docstring). ``post(fn)`` must run ``fn`` on the event loop
    from any thread; ``send`` (set while a page is connected) delivers a message to it."""

    def __init__(self, sid: str, post: Post, config: SessionConfig | None = None) -> None:
        self.sid = sid
        self.config = config or SessionConfig()
        self.post = post
        self.send: Send | None = None
        self.touched = time.monotonic()
        self.seat_runner = Runner("seat", self._notify_seat)
        self.analysis_runner = Runner("analysis", self._notify_analysis)
        self.settings = PlaySettings()
        self.mode = "play"
        self.seats: dict[Color, Agent | None] = {Color.BLACK: None, Color.WHITE: None}
        self.seat_specs: dict[Color, str] = {Color.BLACK: "human", Color.WHITE: "human"}
        self.ids = NodeIds()
        self.tree_version = 0
        self.tree_sync = TreeSync()
        self.game = Game.new("go", size=9)
        self.cursor = Cursor(self.game)
        self.positions = Positions.for_board("go", 9)
        self.ending: Ending | None = None
        self.counts: dict[GameNode, GoCount] = {}
        self.clocks: _Clocks | None = None
        self.turn: _Turn | None = None
        self.analysis_on = False
        self.analysis_spec = ""
        self.analysis_agent: Agent | None = None
        self.analysis_agent_spec = ""
        self.solver: Any = None
        self.analysis_key: object = None
        self.sent_seq = -1
        self.evals: dict[GameNode, tuple[float, str]] = {}
        self.library: Library | None = None
        self.review_running = False
        self._new_game(PlaySettings())

    # -- plumbing ---------------------------------------------------------------------------
    def emit(self, message: Json) -> None:
        """Send ``message`` to the page, if one is connected."""
        if self.send is not None:
            self.send(message)

    def notice(self, text: str, level: str = "info") -> None:
        self.emit({"type": "notice", "level": level, "message": text})

    def _notify_seat(self, key: object) -> None:
        self.post(lambda: self._guarded(self._seat_news, key))

    def _notify_analysis(self, key: object) -> None:
        self.post(lambda: self._guarded(self._analysis_news, key))

    def _guarded(self, function: Callable[[object], None], key: object) -> None:
        """Run an engine's news on the event loop; a failure is shown, never raised."""
        try:
            function(key)
        except ClientError as error:
            self.emit({"type": "error", "message": str(error)})
        except Exception as error:
            traceback.print_exc()
            self.emit({"type": "error", "message": f"internal error: {error}"})

    def close(self) -> None:
        """Stop the engines and release them (the session is not used afterwards)."""
        self.seat_runner.close()
        self.analysis_runner.close()
        agents = [*self.seats.values(), self.analysis_agent]
        unique = {id(a): a for a in agents if a is not None}
        for agent in unique.values():
            with contextlib.suppress(Exception):  # a dead engine cannot be closed more
                agent.close()

    # -- requests ---------------------------------------------------------------------------
    def handle(self, message: Json) -> None:
        """Carry out one request from the page (see :data:`HANDLERS`)."""
        self.touched = time.monotonic()
        kind = message.get("type")
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            known = ", ".join(sorted(HANDLERS))
            raise ClientError(f"unknown request {kind!r} (known: {known})")
        handler(self, message)

    def on_new_game(self, message: Json) -> None:
        settings = PlaySettings.from_message(message)
        seats = {
            Color.BLACK: self._make_seat(settings.black, settings.game, settings.size),
            Color.WHITE: self._make_seat(settings.white, settings.game, settings.size),
        }
        self._new_game(settings, seats)

    def _make_seat(self, spec: str, game: str, size: int) -> Agent | None:
        if spec == "human":
            return None
        return self._make_agent(spec, game, size)

    def _make_agent(self, spec: str, game: str, size: int) -> Agent:
        """The agent ``spec`` for ``game``, checked to play a ``size`` board (Agent.prepare)."""
        try:
            name, options = parse_agent_spec(spec)
        except (ValueError, TypeError) as error:
            raise ClientError(f"cannot start {spec!r}: {error}") from None
        check_agent_allowed(name, options, self.config)
        try:
            return make_agent(name, game, options, size=size)
        except (ValueError, TypeError) as error:
            raise ClientError(f"cannot start {spec!r}: {error}") from None

    def _new_game(
        self, settings: PlaySettings, seats: dict[Color, Agent | None] | None = None
    ) -> None:
        rules = go_support.rules_for(settings.rules, settings.size, settings.komi)
        options: dict[str, Any] = {"size": settings.size}
        if settings.game == "go":
            options.update(rules=rules, handicap=settings.handicap)
        try:
            initial = make(settings.game, **options)
        except ValueError as error:
            for agent in (seats or {}).values():
                if agent is not None:
                    agent.close()
            raise ClientError(str(error)) from None
        self._stop_engines()
        self._close_seats()
        self.settings = settings
        self.seats = seats or {Color.BLACK: None, Color.WHITE: None}
        self.seat_specs = {Color.BLACK: settings.black, Color.WHITE: settings.white}
        game = Game(initial)
        game.set_text("PB", settings.black)
        game.set_text("PW", settings.white)
        game.set_text("DT", datetime.date.today().isoformat())
        game.set_text("AP", "imago")
        if settings.game == "go":
            game.properties["KM"] = [f"{rules.komi:g}"]
            game.properties["RU"] = [RU_OF_RULES.get(settings.rules, settings.rules)]
            if settings.handicap:
                game.properties["HA"] = [str(settings.handicap)]
        if settings.clock:
            game.set_text("TM", f"{TimeControl.parse(settings.clock).main:g}")
            game.set_text("OT", TimeControl.parse(settings.clock).describe())
        self.clocks = None
        if settings.clock:
            control = TimeControl.parse(settings.clock)
            self.clocks = _Clocks(control, {c: control.start() for c in Color})
        self.mode = "play"
        self._replace_game(game)

    def _replace_game(self, game: Game) -> None:
        self.game = game
        self.cursor = Cursor(game)
        self.positions = Positions.for_board(game.game_name, game.size)
        self.ids = NodeIds()
        self.tree_sync.reset()
        self.tree_version += 1
        self.ending = None
        self.counts = {}
        self.evals = {}
        self.turn = None
        if self.analysis_agent is not None:
            self.analysis_agent.reset()
        self.solver = None
        self._after_change()

    def _close_seats(self) -> None:
        for agent in {id(a): a for a in self.seats.values() if a is not None}.values():
            with contextlib.suppress(Exception):
                agent.close()

    def _stop_engines(self) -> None:
        self.seat_runner.cancel()
        self.analysis_runner.cancel()
        self.turn = None
        self.review_running = False

    # -- moves ------------------------------------------------------------------------------
    def on_play(self, message: Json) -> None:
        node = self.cursor.node
        state = self._state(node)
        move = self._read_move(message, state)
        if self.mode == "play":
            self._check_human_turn(state)
        color = state.to_play
        if move.is_resign:
            self._resign(color)
            return
        try:
            self.cursor.play(move, color)
        except (IllegalMoveError, InvalidMoveError) as error:
            raise ClientError(self._illegal_text(state, move, error)) from None
        if node.children and node.children[-1] is self.cursor.node:
            self.tree_version += 1
        self._charge_clock(color)
        self._after_change()

    def _illegal_text(self, state: GameState, move: Move, error: Exception) -> str:
        text = view.move_text(state.game, state.size, move)
        if isinstance(error, IllegalMoveError):
            return f"{text} is illegal: {error.reason.value}"
        return f"{text} is not a move here: {error}"

    def _read_move(self, message: Json, state: GameState) -> Move:
        spot = message.get("point")
        word = message.get("move")
        if spot is not None:
            if (
                not isinstance(spot, list)
                or len(spot) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in spot)
            ):
                raise ClientError("a point is [row, column]")
            point = Point(spot[0], spot[1])
            if not point.on_board(state.size):
                raise ClientError(f"{spot} is off the {state.size}x{state.size} board")
            return Move.play(point)
        if word in ("pass", "resign"):
            return Move.PASS if word == "pass" else Move.RESIGN
        if isinstance(word, str) and len(word) < 8:
            try:
                move = state.parse_move(word)
            except InvalidMoveError as error:
                raise ClientError(str(error)) from None
            return move
        raise ClientError("a move is a point [row, column], pass or resign")

    def _check_human_turn(self, state: GameState) -> None:
        if self.ending is not None:
            raise ClientError(f"the game is over ({self.ending.result}): start a new one")
        agent = self.seats[state.to_play]
        if agent is not None:
            raise ClientError(f"it is {self.seat_specs[state.to_play]}'s turn ({state.to_play})")

    def on_pass(self, message: Json) -> None:
        self.on_play({"move": "pass"})

    def on_resign(self, message: Json) -> None:
        if self.mode != "play":
            raise ClientError("resigning is for games being played")
        if self.ending is not None or self._state(self.cursor.node).is_over():
            raise ClientError("the game is already over")
        humans = [c for c in Color if self.seats[c] is None]
        if not humans:
            raise ClientError("no person plays in this game")
        to_play = self._state(self.cursor.node).to_play
        self._resign(to_play if to_play in humans else humans[0])

    def _resign(self, color: Color) -> None:
        self._end(Ending(f"{color.opponent.letter}+R", f"{color} resigned"))

    def _end(self, ending: Ending) -> None:
        self.seat_runner.cancel()
        self.turn = None
        self.ending = ending
        self.game.set_text("RE", ending.result)
        if self.clocks is not None:
            self.clocks.running = None
        self._after_change()

    def on_undo(self, message: Json) -> None:
        if self.mode != "play":
            raise ClientError("undo is for games being played; in review, go back or delete")
        node = self.cursor.node
        if node.parent is None:
            raise ClientError("nothing to undo")
        if node.children:
            raise ClientError("undo takes back the last move: go to the end of the line first")
        self.seat_runner.cancel()
        self.turn = None
        removed = 0
        while node.parent is not None and node.move is not None:
            parent = node.parent
            parent.remove_variation(node)
            removed += 1
            node = parent
            if self.seats[self._state(node).to_play] is None and not self._must_pass(node):
                break
        self.cursor.node = node
        self.tree_version += 1
        if self.ending is not None:
            self.ending = None
            self.game.set_text("RE", None)
        self._after_change()

    def on_hint(self, message: Json) -> None:
        node = self.cursor.node
        state = self._state(node)
        if state.is_over():
            raise ClientError("the game is over")
        agent, name = self._analysis_engine(state)
        self.analysis_key = ("hint", node)
        self.sent_seq = -1
        limit = Limit(time=self.settings.move_time)
        self.analysis_runner.submit(self.analysis_key, hint_job(agent, state, limit, name))

    # -- the end of a game -------------------------------------------------------------------
    def on_toggle_dead(self, message: Json) -> None:
        node = self.cursor.node
        count = self.counts.get(node)
        if count is None:
            raise ClientError("stones are marked dead when a Go game is over by two passes")
        if self.ending is not None and self.ending.reason == "count":
            raise ClientError("the count was accepted; undo to change it")
        state = self._state(node)
        spot = message.get("point")
        if not (
            isinstance(spot, list) and len(spot) == 2 and all(isinstance(v, int) for v in spot)
        ):
            raise ClientError("a point is [row, column]")
        point = Point(spot[0], spot[1])
        if not point.on_board(state.size):
            raise ClientError(f"{spot} is off the board")
        group = string_of(state, point)
        if not group:
            raise ClientError("click a stone to mark its group dead or alive")
        dead = count.dead - group if group <= count.dead else count.dead | group
        self.counts[node] = count_go(state, frozenset(dead), self._handicap(node))
        self._send_state()

    def on_accept_count(self, message: Json) -> None:
        node = self.cursor.node
        count = self.counts.get(node)
        if count is None:
            raise ClientError("there is no count to accept")
        self._end(Ending(count.outcome.result(), "count"))

    @staticmethod
    def _handicap(node: GameNode) -> int:
        """The handicap stones the record says Black was given (``HA``; 0 when absent or not
        a number): White's points for them under area counting."""
        text = node.root().get_text("HA")
        try:
            return max(0, int(text or 0))
        except ValueError:
            return 0

    def _game_end(self, node: GameNode, state: GameState) -> None:
        """A position that is over: count it (Go) or end the game (Othello)."""
        if state.game == "go":
            if getattr(state, "resigned", None) is None and node not in self.counts:
                self.counts[node] = count_go(state, handicap=self._handicap(node))
            return
        if self.mode == "play" and self.ending is None:
            outcome = state.outcome()
            if outcome is not None:
                self.ending = Ending(outcome.result(), "count")
                self.game.set_text("RE", outcome.result())

    # -- navigation and editing ---------------------------------------------------------------
    def on_nav(self, message: Json) -> None:
        to = message.get("to")
        cursor = self.cursor
        if to == "node":
            node = self.ids.node(message.get("node"))
            if node is None or node.root() is not self.game:
                raise ClientError("no such node")
            cursor.go_to(node)
        elif to == "back":
            cursor.back()
        elif to == "forward":
            variation = message.get("variation", 0)
            if not isinstance(variation, int):
                raise ClientError("variation must be a number")
            cursor.forward(variation)
        elif to == "start":
            cursor.to_start()
        elif to == "end":
            cursor.to_end()
        elif to == "next_variation":
            cursor.next_variation()
        elif to == "previous_variation":
            cursor.previous_variation()
        else:
            raise ClientError(
                "nav goes to: back, forward, start, end, next_variation, previous_variation or node"
            )
        self.seat_runner.cancel()
        self.turn = None
        self._after_change()

    def on_comment(self, message: Json) -> None:
        node = self._node(message)
        text = message.get("text")
        if not isinstance(text, str) or len(text) > MAX_COMMENT:
            raise ClientError(f"a comment is text of at most {MAX_COMMENT} characters")
        node.comment = text
        self.tree_version += 1
        self._send_state()

    def on_delete(self, message: Json) -> None:
        node = self._node(message)
        parent = node.parent
        if parent is None:
            raise ClientError("the start of the game cannot be deleted")
        if self.cursor.node in set(node.walk()):
            self.cursor.node = parent
        parent.remove_variation(node)
        self.tree_version += 1
        self.seat_runner.cancel()
        self.turn = None
        self._after_change()

    def on_promote(self, message: Json) -> None:
        node = self._node(message)
        while node.parent is not None:
            node.parent.promote_to_main(node)
            node = node.parent
        self.tree_version += 1
        self._send_state()

    def _node(self, message: Json) -> GameNode:
        node = self.ids.node(message.get("node", self.ids.id_of(self.cursor.node)))
        if node is None or node.root() is not self.game:
            raise ClientError("no such node")
        return node

    def on_mode(self, message: Json) -> None:
        """Review or play; ``{"mode": "play", "engine": SPEC}`` plays from the current
        position against ``SPEC`` (``""``: the strongest for the board), the person taking
        the side to move."""
        mode = message.get("mode")
        if mode not in ("play", "review"):
            raise ClientError("mode is play or review")
        engine = message.get("engine")
        if engine is not None:
            if mode != "play" or not isinstance(engine, str) or len(engine) > 500:
                raise ClientError("engine is an agent such as nnmcts, to play from here")
            self._play_from_here(engine.strip())
        elif mode == "play" and self.mode == "review":
            self.seat_specs = {Color.BLACK: "human", Color.WHITE: "human"}
        self.mode = mode
        self.seat_runner.cancel()
        self.turn = None
        self._after_change()

    def _play_from_here(self, engine: str) -> None:
        """The person plays the side to move at the cursor, ``engine`` the other."""
        state = self._state(self.cursor.node)
        if state.is_over():
            raise ClientError("the game is over here: go back to a move to play from")
        spec = engine if engine and engine.lower() != "human" else ""
        spec = spec or self.config.engine_for(state.game, state.size)
        agent = self._make_agent(spec, state.game, state.size)
        self._stop_engines()
        self._close_seats()
        color = state.to_play.opponent
        self.seats = {color: agent, color.opponent: None}
        self.seat_specs = {color: spec, color.opponent: "human"}
        self.settings = dataclasses.replace(
            self.settings, black=self.seat_specs[Color.BLACK], white=self.seat_specs[Color.WHITE]
        )
        self.clocks = None
        self.ending = None

    # -- records ------------------------------------------------------------------------------
    def on_load(self, message: Json) -> None:
        try:
            if "text" in message:
                text = message["text"]
                if not isinstance(text, str):
                    raise ClientError("text must be a string")
                library = read_text(text)
            else:
                library = read_upload(self._files(message))
        except UploadError as error:
            raise ClientError(str(error)) from None
        if len(library.entries) == 1:
            self._open(library, 0)
            return
        self.library = library
        self.emit({"type": "library", "name": library.name, "games": library.listing()})
        if library.errors:
            self.notice(_problems(library.errors), "warning")

    @staticmethod
    def _files(message: Json) -> list[tuple[str, bytes]]:
        files = message.get("files")
        if not isinstance(files, list) or not files or len(files) > 8:
            raise ClientError("send one to eight files: [{name, data (base64)}]")
        out = []
        for item in files:
            if not isinstance(item, dict):
                raise ClientError("a file is {name, data}")
            name, data = item.get("name"), item.get("data")
            if not isinstance(name, str) or not isinstance(data, str) or len(name) > 255:
                raise ClientError("a file is {name, data (base64)}")
            try:
                out.append((name, base64.b64decode(data, validate=True)))
            except (binascii.Error, ValueError):
                raise ClientError(f"{name}: the data is not base64") from None
        return out

    def on_open(self, message: Json) -> None:
        if self.library is None:
            raise ClientError("no file with several games is open")
        index = message.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise ClientError("index must be a number")
        self._open(self.library, index)

    def _open(self, library: Library, index: int) -> None:
        try:
            game = library.open(index)
        except UploadError as error:
            raise ClientError(str(error)) from None
        self._stop_engines()
        self._close_seats()
        self.seats = {Color.BLACK: None, Color.WHITE: None}
        self.seat_specs = {Color.BLACK: "human", Color.WHITE: "human"}
        self.clocks = None
        self.mode = "review"
        self.settings = dataclasses.replace(
            self.settings, game=game.game_name, size=game.size, black="human", white="human"
        )
        self._replace_game(game)
        problems = [str(e) for e in game.errors] or library.errors
        if problems:
            self.notice(_problems(problems), "warning")

    def on_export(self, message: Json) -> None:
        names = [self.game.black_player, self.game.white_player]
        stem = "-".join(n for n in names if n) or "game"
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in stem)[:60]
        self.emit({"type": "sgf", "name": f"{safe}.sgf", "text": sgf.write_string(self.game)})

    # -- analysis -----------------------------------------------------------------------------
    def on_analyze(self, message: Json) -> None:
        on = message.get("on", True)
        if not isinstance(on, bool):
            raise ClientError("on must be true or false")
        spec = message.get("engine", self.analysis_spec)
        if spec is not None and not isinstance(spec, str):
            raise ClientError("engine must be an agent such as mcts:threads=2")
        if on:
            spec = (spec or "").strip()
            if spec:
                game = self.game.game_name
                if spec != self.analysis_agent_spec:
                    agent = self._make_agent(spec, game, self.game.size)
                    self._set_analysis_agent(agent, spec)
            self.analysis_spec = spec or ""
        self.analysis_on = on
        if not on:
            self.analysis_runner.cancel()
            self.analysis_key = None
        self._restart_analysis()
        self._send_state()

    def _set_analysis_agent(self, agent: Agent, spec: str) -> None:
        self.analysis_runner.cancel()
        old = self.analysis_agent
        self.analysis_agent, self.analysis_agent_spec = agent, spec
        if old is not None:  # closed aside: it may still be finishing a stopped search
            threading.Thread(target=old.close, name="imago-web-close", daemon=True).start()

    def _analysis_engine(self, state: GameState) -> tuple[Agent, str]:
        spec = self.analysis_spec or self.config.engine_for(state.game, state.size)
        if self.analysis_agent is None or spec != self.analysis_agent_spec:
            self._set_analysis_agent(self._make_agent(spec, state.game, state.size), spec)
        assert self.analysis_agent is not None
        try:  # the same engine on another board: it says now whether it can play it
            self.analysis_agent.prepare(state.game, state.size)
        except ValueError as error:
            raise ClientError(f"cannot start {spec!r}: {error}") from None
        return self.analysis_agent, spec

    def _restart_analysis(self) -> None:
        if not self.analysis_on or self.review_running:
            return
        node = self.cursor.node
        if self.turn is not None:  # an agent is thinking about its move: it has the CPU
            self.analysis_runner.cancel()
            return
        try:
            state = self._state(node)
        except ClientError:
            return
        if state.is_over():
            self.analysis_runner.cancel()
            self.analysis_key = None
            return
        try:
            agent, name = self._analysis_engine(state)
        except ClientError as error:
            self.analysis_on = False
            self.notice(str(error), "error")
            return
        self.analysis_key = ("analysis", node, object())
        self.sent_seq = -1
        self.analysis_runner.submit(self.analysis_key, self._analysis_job(agent, state, name))

    def _analysis_job(self, agent: Agent, state: GameState, name: str) -> Job:
        config = self.config.analysis
        if state.game == "othello" and state.size == 8 and agent.name == "alphabeta":
            if self.solver is None and config.exact_empties:
                from imago.agents.othello.endgame import EndgameSolver

                self.solver = EndgameSolver(table_bits=20)
            return othello_move_scores(agent, self.solver, state, name, config)
        return root_search(agent, state, name, config)

    def _analysis_news(self, key: object) -> None:
        if key != self.analysis_key:
            return
        snapshot = self.analysis_runner.snapshot()
        if snapshot.key is not key:
            return
        kind = key[0] if isinstance(key, tuple) else None
        if kind == "hint" and not snapshot.running:
            if snapshot.error:
                self.notice(f"hint failed: {snapshot.error}", "error")
            elif snapshot.data is not None:
                self.emit({"type": "hint", **snapshot.data})
            self.analysis_key = None
            self._restart_analysis()
        elif kind == "review":
            self._review_news(snapshot)
        elif kind == "analysis" and snapshot.error and not snapshot.running:
            self.notice(f"analysis stopped: {snapshot.error}", "error")
            self.analysis_on = False
            self._send_state()

    def tick(self) -> None:
        """Called a few times a second by the app: the latest analysis to the page, and the
        clocks watched."""
        self._check_flag()
        key = self.analysis_key
        if key is None or not isinstance(key, tuple) or key[0] != "analysis":
            return
        snapshot = self.analysis_runner.snapshot()
        if snapshot.key is not key or snapshot.data is None:
            return
        if snapshot.seq == self.sent_seq and not snapshot.running:
            return
        fresh = snapshot.seq != self.sent_seq
        self.sent_seq = snapshot.seq
        node = key[1]
        self._record_eval(node, snapshot.data)
        value, unit = self.evals.get(node, (None, None))
        self.emit(
            {
                "type": "analysis",
                "node": self.ids.id_of(node),
                "graph": {"value": value, "unit": unit},  # Black's, for the win-rate graph
                "seq": snapshot.seq,
                "fresh": fresh,
                "running": snapshot.running,
                "elapsed": round(time.perf_counter() - snapshot.started, 2),
                **snapshot.data,
            }
        )

    def _record_eval(self, node: GameNode, data: Json) -> None:
        color = Color.BLACK if data.get("to_play") == "B" else Color.WHITE
        if data.get("kind") == "scores":
            value = data.get("value")
            if value is not None:
                self.evals[node] = (value if color is Color.BLACK else -value, reviewing.DISCS)
            return
        candidates = data.get("candidates") or []
        winrate = candidates[0].get("winrate") if candidates else data.get("winrate")
        if winrate is not None:
            self.evals[node] = (winrate if color is Color.BLACK else 1 - winrate, reviewing.WINRATE)

    # -- whole-game review ------------------------------------------------------------------
    def on_review(self, message: Json) -> None:
        seconds = number_field(message, "seconds", 1.0, float)
        if not 0.05 <= seconds <= 600:
            raise ClientError("seconds per position must be 0.05..600")
        state = self._state(self.game)
        spec = (
            message.get("engine")
            or self.analysis_spec
            or self.config.engine_for(state.game, state.size)
        )
        if not isinstance(spec, str):
            raise ClientError("engine must be an agent such as mcts")
        agent = self._make_agent(spec, state.game, state.size)
        nodes = reviewing.line_of(self.cursor.node)
        self.seat_runner.cancel()
        self.turn = None
        self.analysis_on = False
        self.review_running = True
        self.analysis_key = ("review", nodes[0], object())
        limit = Limit(time=seconds)
        self.analysis_runner.submit(self.analysis_key, self._review_job(agent, nodes, limit, spec))
        self._send_state()

    def _review_job(self, agent: Agent, nodes: list[GameNode], limit: Limit, spec: str) -> Job:
        def job(stop: threading.Event, publish: Publish) -> None:
            evals: list[reviewing.PositionEval] = []

            def on_eval(index: int, evaluation: reviewing.PositionEval) -> None:
                evals.append(evaluation)
                publish({"nodes": nodes, "evals": list(evals), "done": False})

            try:
                result = reviewing.review_line(
                    nodes, agent, limit, engine=spec, stop=stop, on_eval=on_eval
                )
                publish({"nodes": nodes, "evals": list(evals), "done": True, "review": result})
            finally:
                agent.close()

        return job

    def _review_news(self, snapshot: Any) -> None:
        data = snapshot.data
        if snapshot.error and not snapshot.running:
            self.review_running = False
            self.notice(f"review stopped: {snapshot.error}", "error")
            self._send_state()
            return
        if data is None:
            return
        nodes, evals = data["nodes"], data["evals"]
        for node, evaluation in zip(nodes, evals, strict=False):
            self.evals[node] = (evaluation.for_color(Color.BLACK), evaluation.unit)
        message: Json = {
            "type": "review",
            "done": data["done"],
            "positions": len(nodes),
            "reviewed": len(evals),
        }
        if data["done"] or not snapshot.running:
            self.review_running = False
            result = data.get("review")
            if result is not None:
                message.update(self._review_view(result, nodes))
        self.emit(message)
        if not self.review_running:
            self._send_state()

    def _review_view(self, result: reviewing.GameReview, nodes: list[GameNode]) -> Json:
        game, size, unit = result.game, result.size, result.unit
        node_of: dict[int, GameNode] = {}
        count = 0
        for node in nodes[1:]:
            if node.move is not None:
                count += 1
                node_of[count] = node

        def move_row(m: reviewing.MoveReview) -> Json:
            node = node_of.get(m.number)
            return {
                "number": m.number,
                "node": None if node is None else self.ids.id_of(node),
                "color": m.color.letter,
                "move": view.move_text(game, size, m.move),
                "loss": m.loss,
                "grade": m.grade(),
                "better": None if m.better is None else view.move_text(game, size, m.better),
                "pv": [view.move_text(game, size, x) for x in m.before.pv],
            }

        return {
            "unit": unit,
            "engine": result.engine,
            "moves": [move_row(m) for m in result.moves],
            "mistakes": [move_row(m) for m in result.mistakes(10)],
            "average": {c.letter: result.average_loss(c) for c in Color},
        }

    def on_stop(self, message: Json) -> None:
        """Stop live analysis, a hint or a review."""
        self.analysis_runner.cancel()
        self.analysis_on = False
        self.review_running = False
        self.analysis_key = None
        self._send_state()

    # -- agents' moves ------------------------------------------------------------------------
    def _maybe_agent_turn(self) -> None:
        if self.mode != "play" or self.ending is not None or self.turn is not None:
            return
        node = self.cursor.node
        if node.children:
            return
        state = self._state(node)
        if state.is_over():
            return
        agent = self.seats[state.to_play]
        if agent is None:
            return
        self.turn = _Turn(node, state.to_play)
        limit = self._limit(state.to_play, state)
        key = self.turn

        def job(stop: threading.Event, publish: Publish) -> None:
            started = time.perf_counter()
            result = agent.select_move(state, limit, stop=stop)
            publish({"result": result, "seconds": time.perf_counter() - started})

        self.analysis_runner.cancel()
        self.seat_runner.submit(key, job)

    def _limit(self, color: Color, state: GameState) -> Limit:
        if self.clocks is None:
            return Limit(time=self.settings.move_time)
        empties = int((state.board() == 0).sum())
        budget = move_budget(self.clocks.control, self.clocks.sides[color], max(empties / 2, 1))
        return Limit(time=budget)

    def _seat_news(self, key: object) -> None:
        turn = self.turn
        if turn is None or key is not turn:
            self.seat_runner.take_finished()
            return
        snapshot = self.seat_runner.snapshot()
        if snapshot.key is not key or snapshot.running:
            return
        self.turn = None
        name = self.seat_specs[turn.color]
        if self.cursor.node is not turn.node:
            return
        if snapshot.error or snapshot.data is None:
            self._seat_failed(turn.color, f"{name} failed: {snapshot.error or 'no move'}")
            return
        result: SearchResult = snapshot.data["result"]
        self._charge_clock(turn.color)
        if self.ending is not None:
            self._after_change()
            return
        move = result.move
        if move.is_resign:
            self._resign(turn.color)
            return
        try:
            self.cursor.play(move, turn.color)
        except (IllegalMoveError, InvalidMoveError) as error:
            state = self._state(turn.node)
            self._seat_failed(turn.color, f"{name} played {self._illegal_text(state, move, error)}")
            return
        self.tree_version += 1
        self._after_change()

    def _seat_failed(self, color: Color, message: str) -> None:
        """An engine that failed gives its seat to a person; the game goes on."""
        agent = self.seats[color]
        self.seats[color] = None
        self.seat_specs[color] = "human"
        if agent is not None:
            with contextlib.suppress(Exception):
                agent.close()
        self.notice(f"{message}. {color} is now played by hand.", "error")
        self._after_change()

    # -- clocks --------------------------------------------------------------------------------
    def _charge_clock(self, color: Color) -> None:
        clocks = self.clocks
        if clocks is None or clocks.running is not color:
            return
        spent = time.monotonic() - clocks.since
        clocks.sides[color] = clocks.sides[color].after(clocks.control, spent)
        clocks.running = None
        if clocks.sides[color].flagged and self.ending is None:
            self.ending = Ending(f"{color.opponent.letter}+T", f"{color} lost on time")
            self.game.set_text("RE", self.ending.result)

    def _start_clock(self) -> None:
        clocks = self.clocks
        if clocks is None:
            return
        node = self.cursor.node
        live = (
            self.mode == "play"
            and self.ending is None
            and not node.children
            and not self._state(node).is_over()
        )
        color = self._state(node).to_play if live else None
        if clocks.running is not color:
            clocks.running = color
            clocks.since = time.monotonic()

    def _check_flag(self) -> None:
        clocks = self.clocks
        if clocks is None or clocks.running is None or self.ending is not None:
            return
        color = clocks.running
        side = clocks.sides[color]
        if time.monotonic() - clocks.since > side.available(clocks.control) + GRACE:
            self._charge_clock(color)
            if self.ending is None:  # the clock's own arithmetic gives the last word
                self.ending = Ending(f"{color.opponent.letter}+T", f"{color} lost on time")
                self.game.set_text("RE", self.ending.result)
            self.seat_runner.cancel()
            self.turn = None
            self._after_change()

    # -- after every change --------------------------------------------------------------------
    def _must_pass(self, node: GameNode) -> bool:
        state = self._state(node)
        return (
            state.game == "othello"
            and not state.is_over()
            and not any(m.is_play for m in state.legal_moves())
        )

    def _after_change(self) -> None:
        node = self.cursor.node
        if self.mode == "play" and not node.children and self.ending is None:
            while self._must_pass(self.cursor.node):  # Othello: a side without a move passes
                color = self._state(self.cursor.node).to_play
                self.cursor.play(Move.PASS, color)
                self.tree_version += 1
                self.notice(f"{color} has no legal move and passes.", "pass")
            node = self.cursor.node
        state = self._state(node)
        if state.is_over():
            self._game_end(node, state)
        self._start_clock()
        self._maybe_agent_turn()
        self._restart_analysis()
        self._send_state()

    def _state(self, node: GameNode) -> GameState:
        try:
            return self.positions.state(node)
        except (IllegalMoveError, InvalidMoveError, ValueError) as error:
            raise ClientError(f"this position cannot be shown: {error}") from None

    # -- what the page shows ---------------------------------------------------------------------
    def _send_state(self) -> None:
        if self.send is not None:
            self.emit(self.state_message(with_tree=False))

    def state_message(self, *, with_tree: bool = True) -> Json:
        """Everything the page draws (see :mod:`imago.ui.web.view`): with the whole tree, or
        (``with_tree=False``) with what changed in it since the last state message
        (:mod:`imago.ui.web.treesync`)."""
        node = self.cursor.node
        game = self.game
        state = self._state(node)
        self.positions.keep(node)
        message: Json = {
            "type": "state",
            "session": self.sid,
            "mode": self.mode,
            "game": game.game_name,
            "size": game.size,
            "node": self.ids.id_of(node),
            "tree_version": self.tree_version,
            "position": view.position_view(state, node),
            "comment": node.comment,
            "info": {
                ident: game.get_text(ident)
                for ident in ("PB", "PW", "RE", "KM", "RU", "HA", "EV", "DT", "TM", "OT")
                if game.get_text(ident) is not None
            },
            "komi": getattr(state, "komi", None),
            "seats": {
                c.letter: {"spec": self.seat_specs[c], "human": self.seats[c] is None}
                for c in Color
            },
            "thinking": None if self.turn is None else self.turn.color.letter,
            "clocks": None if self.clocks is None else self.clocks.view(),
            "ending": None if self.ending is None else dataclasses.asdict(self.ending),
            "counting": self._count_view(node, state),
            "graph": self._graph(node),
            "analysis": {
                "on": self.analysis_on,
                "engine": self.analysis_spec or self.config.engine_for(game.game_name, game.size),
                "reviewing": self.review_running,
            },
            "settings": dataclasses.asdict(self.settings),
            "can_undo": self.mode == "play" and node.parent is not None and not node.children,
        }
        self.tree_sync.update(message, game, self.ids, self.tree_version, full=with_tree)
        self.tree_sync.line(message, view.line_ids(node, self.ids), full=with_tree)
        return message

    def _count_view(self, node: GameNode, state: GameState) -> Json | None:
        count = self.counts.get(node)
        if count is None:
            return None
        shaded = territory(state, count)
        return {
            "dead": view.points(count.dead),
            "seki": view.points(count.seki),
            "territory": {k: view.points(v) for k, v in shaded.items()},
            "outcome": view.outcome_view(count.outcome),
            "scoring": state.rules.scoring.value,  # type: ignore[attr-defined]
            "accepted": self.ending is not None and self.ending.reason == "count",
            "unsettled": view.points(count.unsettled),
        }

    def _graph(self, node: GameNode) -> Json:
        nodes = reviewing.line_of(node)
        values: list[float | None] = []
        unit = None
        for n in nodes:
            entry = self.evals.get(n)
            if entry is None:
                values.append(None)
            else:
                values.append(entry[0])
                unit = entry[1]
        return {"unit": unit, "values": values if unit is not None else []}


def _problems(errors: list[str]) -> str:
    shown = "; ".join(errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return f"read with {len(errors)} problem(s): {shown}{more}"


def agents_view() -> list[Json]:
    """The registered agents, for the page's engine choosers."""
    return [
        {
            "name": spec.name,
            "games": list(spec.games),
            "summary": spec.summary,
            "options": [[n, t, d] for n, t, d in spec.option_fields()],
        }
        for spec in agent_specs().values()
    ]


HANDLERS: dict[str, Callable[[Session, Json], None]] = {
    "new_game": Session.on_new_game,
    "play": Session.on_play,
    "pass": Session.on_pass,
    "resign": Session.on_resign,
    "undo": Session.on_undo,
    "hint": Session.on_hint,
    "toggle_dead": Session.on_toggle_dead,
    "accept_count": Session.on_accept_count,
    "nav": Session.on_nav,
    "comment": Session.on_comment,
    "delete": Session.on_delete,
    "promote": Session.on_promote,
    "mode": Session.on_mode,
    "load": Session.on_load,
    "open": Session.on_open,
    "export": Session.on_export,
    "analyze": Session.on_analyze,
    "review": Session.on_review,
    "stop": Session.on_stop,
}
"""Request type -> handler (the ``state`` request is answered by the app itself)."""
