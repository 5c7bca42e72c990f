"""Series of games between agents: a schedule, played in parallel processes, kept in a folder.

A match folder holds ``match.json`` (the settings, the players and their agent specs, the
seed) and, for each finished game ``N``, ``games/N.sgf`` and ``games/N.json`` (the result as
data), each written atomically; the ``.json`` is written last and marks the game finished.
Running the same match on the same folder again plays only the games that have no ``.json``, so
an interrupted match resumes where it stopped, and asking for more games extends it.

Every game is reproducible from the seed: each player's agent is made afresh for each game with
a seed drawn from ``(seed, game number, colour)``, and openings from ``(seed, round)``. Making the
agents per game also means a GTP program that crashed or hung is restarted for the next game.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from imago.agents.base import Agent
from imago.agents.registry import make_agent, parse_agent_spec
from imago.arena._sgf import game_to_sgf
from imago.arena.game import GameResult, GameSettings, play_game
from imago.core.color import Color
from imago.core.files import atomic_write
from imago.core.move import Move
from imago.records.sgf import RU_OF_RULES

if TYPE_CHECKING:
    from imago.cluster import Executor, Tally

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Player:
    """A named agent spec: ``label=spec`` (or just ``spec``, which is then its own label)."""

    label: str
    spec: str

    @classmethod
    def parse(cls, text: str) -> Player:
        """Read ``"mcts:playouts=800"`` or ``"mcts800=mcts:playouts=800"``.

        Raises ``ValueError`` for text that is not an agent spec.
        """
        text = text.strip()
        head, equals, rest = text.partition("=")
        if equals and head.strip() and not any(c in head for c in ':"'):
            label, spec = head.strip(), rest.strip()
        else:
            label, spec = text, text
        parse_agent_spec(spec)
        return cls(label, spec)

    def make(
        self, game: str, seed: int | None, *, size: int | None = None, check: bool = False
    ) -> Agent:
        """A new agent for ``game`` on a ``size`` board seeded with ``seed``; ``check``: see
        that it can play there now (:func:`make_agent`; the command line checks every player
        once, before the first game, and each game's failures are that game's)."""
        name, options = parse_agent_spec(self.spec)
        return make_agent(name, game, options, seed=seed, size=size, check=check)


def distinct(players: Sequence[Player]) -> list[Player]:
    """The players with repeated labels numbered (``random#1``, ``random#2``)."""
    labels = [p.label for p in players]
    result = []
    for index, player in enumerate(players):
        if labels.count(player.label) > 1:
            number = labels[: index + 1].count(player.label)
            player = Player(f"{player.label}#{number}", player.spec)
        result.append(player)
    return result


@dataclass(frozen=True)
class Pairing:
    """Game ``index`` of a schedule: who has Black, who has White, and which opening."""

    index: int
    black: Player
    white: Player
    round: int = 0


@dataclass(frozen=True)
class MatchSettings:
    """Everything that decides the games of a match besides the players."""

    game: GameSettings = field(default_factory=GameSettings)
    seed: int = 0
    opening_plies: int = 0
    """Play this many random moves (the same for both games of a colour-swapped pair) first."""
    openings: tuple[tuple[str, ...], ...] = ()
    """Fixed openings (moves in the game's notation); round ``r`` uses ``openings[r % len]``."""

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["openings"] = [list(o) for o in self.openings]
        if data["game"]["time_control"] is None:  # folders written before clocks still resume
            del data["game"]["time_control"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSettings:
        return cls(
            game=GameSettings(**data["game"]),
            seed=int(data["seed"]),
            opening_plies=int(data["opening_plies"]),
            openings=tuple(tuple(o) for o in data["openings"]),
        )


@dataclass(frozen=True)
class GameRecord:
    """A finished game as the folder keeps it (JSON): players by label, result, moves, times."""

    index: int
    black: str
    white: str
    winner: str | None  # "B", "W" or None for a draw
    result: str
    reason: str
    moves: tuple[str, ...] = ()
    seconds: tuple[float, ...] = ()
    detail: str = ""
    engine_scores: dict[str, str] = field(default_factory=dict)
    disagreement: str = ""
    opening_plies: int = 0
    disputed: bool = False
    """The winner is in doubt (see :attr:`imago.arena.game.GameResult.disputed`)."""

    @property
    def winner_label(self) -> str | None:
        if self.winner is None:
            return None
        return self.black if self.winner == "B" else self.white

    def points(self, label: str) -> float:
        """What ``label`` scored in this game: 1, 0.5 or 0."""
        if label not in (self.black, self.white):
            raise ValueError(f"{label!r} did not play game {self.index}")
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner_label == label else 0.0

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["moves"], data["seconds"] = list(self.moves), list(self.seconds)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        data = dict(data)
        data["moves"] = tuple(data.get("moves", ()))
        data["seconds"] = tuple(data.get("seconds", ()))
        return cls(**data)


def game_record(pairing: Pairing, result: GameResult) -> GameRecord:
    """The record of ``result``, played as ``pairing``."""
    moves, seconds, opening = [], [], 0
    state = result.final
    for played in result.moves:
        moves.append("resign" if played.move.is_resign else _move_text(state, played.move))
        seconds.append(round(played.seconds, 3))
        opening += played.note == "opening"
    return GameRecord(
        index=pairing.index,
        black=pairing.black.label,
        white=pairing.white.label,
        winner=None if result.winner is None else result.winner.letter,
        result=result.result,
        reason=result.reason.value,
        moves=tuple(moves),
        seconds=tuple(seconds),
        detail=result.detail,
        engine_scores=dict(result.engine_scores),
        disagreement=result.disagreement,
        opening_plies=opening,
        disputed=result.disputed,
    )


def _move_text(state: Any, move: Move) -> str:
    return str(state.format_move(move))


# -- schedules ----------------------------------------------------------------------------------


def match_schedule(a: Player, b: Player, games: int, *, alternate: bool = True) -> list[Pairing]:
    """``games`` games of ``a`` (Black first) against ``b``; colours swap every game when
    ``alternate``, and each colour-swapped pair of games shares a round (an opening)."""
    pairings = []
    for index in range(games):
        swap = alternate and index % 2 == 1
        black, white = (b, a) if swap else (a, b)
        pairings.append(Pairing(index, black, white, index // 2 if alternate else index))
    return pairings


# -- seeds and openings -------------------------------------------------------------------------


def derived_seed(seed: int, *keys: int) -> int:
    """An independent 32-bit seed for ``keys`` (game number, colour, ...) from the match seed."""
    sequence = np.random.SeedSequence(seed, spawn_key=tuple(keys))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def opening_moves(settings: MatchSettings, round_: int) -> list[Move]:
    """The moves played before the agents take over in games of round ``round_``."""
    state = settings.game.new_game()
    if settings.openings:
        moves = []
        for text in settings.openings[round_ % len(settings.openings)]:
            move = state.parse_move(text)
            state = state.play(move)
            moves.append(move)
        return moves
    rng = np.random.default_rng(derived_seed(settings.seed, round_, 2))
    moves = []
    for _ in range(settings.opening_plies):
        sensible = getattr(state, "sensible_moves", None)
        candidates = [m for m in (sensible() if sensible else state.legal_moves()) if m.is_play]
        if not candidates or state.is_over():
            break
        move = candidates[int(rng.integers(len(candidates)))]
        state = state.play(move)
        moves.append(move)
    return moves


def read_openings(path: Path, plies: int = 6) -> tuple[tuple[str, ...], ...]:
    """Openings from a text file: one per line, moves separated by spaces; ``#`` comments.

    Othello transcripts without spaces (``f5d6c3``) are split into two-character moves. A
    WTHOR database file (``.wtb``) gives the first ``plies`` moves of its games, each distinct
    opening once, in the order of the file.
    """
    if path.suffix.lower() == ".wtb":
        return _wthor_openings(path, plies)
    openings = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) == 1 and len(words[0]) > 3 and words[0][1].isdigit():
            text = words[0]
            words = [text[i : i + 2] for i in range(0, len(text), 2)]
        openings.append(tuple(words))
    if not openings:
        raise ValueError(f"no openings in {path}")
    return tuple(openings)


def _wthor_openings(path: Path, plies: int) -> tuple[tuple[str, ...], ...]:
    from imago.records.wthor import read_games

    if plies < 1:
        raise ValueError("openings from a WTHOR file need a number of plies (--opening-plies)")
    seen: dict[tuple[str, ...], None] = {}
    for game in read_games(path):
        if len(game.moves) >= plies:
            seen.setdefault(tuple(m.to_algebraic() for m in game.moves[:plies]), None)
    if not seen:
        raise ValueError(f"no game of {path} has {plies} moves")
    return tuple(seen)


# -- the folder ---------------------------------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (the folder is made
    if needed; the file gets the umask's permissions, :func:`imago.core.files.atomic_write`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text.encode("utf-8"))


@dataclass(frozen=True)
class MatchFolder:
    """The folder of a match or tournament (see the module docstring)."""

    path: Path

    @property
    def header_path(self) -> Path:
        return self.path / "match.json"

    def game_path(self, index: int, suffix: str) -> Path:
        return self.path / "games" / f"{index + 1:05d}{suffix}"

    def open(self, settings: MatchSettings, players: Sequence[Player], kind: str) -> None:
        """Create the folder, or check that it holds the same match (to resume or extend it).

        Raises ``ValueError`` when the folder holds another match.
        """
        specs = {p.label: p.spec for p in players}
        if self.header_path.exists():
            old = json.loads(self.header_path.read_text(encoding="utf-8"))
            if old.get("settings") != settings.to_json():
                raise ValueError(
                    f"{self.path} holds a match with other settings; use another folder"
                )
            old_specs: dict[str, str] = old.get("players", {})
            for label, spec in specs.items():
                if old_specs.get(label, spec) != spec:
                    raise ValueError(f"{self.path}: player {label!r} was {old_specs[label]!r}")
            specs = {**old_specs, **specs}
        header = {
            "format": FORMAT_VERSION,
            "kind": kind,
            "settings": settings.to_json(),
            "players": specs,
        }
        write_atomically(self.header_path, json.dumps(header, indent=2) + "\n")

    def settings(self) -> MatchSettings:
        data = json.loads(self.header_path.read_text(encoding="utf-8"))
        return MatchSettings.from_json(data["settings"])

    def records(self) -> dict[int, GameRecord]:
        """The finished games, by index."""
        found = {}
        folder = self.path / "games"
        if not folder.is_dir():
            return {}
        for path in sorted(folder.glob("*.json")):
            record = GameRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
            found[record.index] = record
        return found

    def save(self, record: GameRecord, sgf: str) -> None:
        write_atomically(self.game_path(record.index, ".sgf"), sgf)
        write_atomically(
            self.game_path(record.index, ".json"), json.dumps(record.to_json(), indent=1) + "\n"
        )


# -- playing ------------------------------------------------------------------------------------


def play_pairing(
    settings: MatchSettings, pairing: Pairing, folder: Path | None = None
) -> GameRecord:
    """Play one scheduled game (making and closing both agents) and save it in ``folder``."""
    record, sgf = played_game(pairing, settings)
    if folder is not None:
        MatchFolder(folder).save(record, sgf)
    return record


def played_game(pairing: Pairing, settings: MatchSettings) -> tuple[GameRecord, str]:
    """Play one scheduled game (making and closing both agents, on whichever node runs it);
    its record and its SGF, for the driver to save."""
    game = settings.game.game
    agents: list[Agent] = []
    try:
        for color, player in ((Color.BLACK, pairing.black), (Color.WHITE, pairing.white)):
            agents.append(player.make(game, derived_seed(settings.seed, pairing.index, color)))
        opening = opening_moves(settings, pairing.round)
        result = play_game(settings.game, agents[0], agents[1], opening=opening)
    finally:
        for agent in agents:
            agent.close()
    record = game_record(pairing, result)
    return record, _sgf(settings, pairing, result, record)


def _sgf(settings: MatchSettings, pairing: Pairing, result: GameResult, record: GameRecord) -> str:
    notes = [f"end: {record.reason}"]
    if record.detail:
        notes.append(record.detail)
    if record.disputed:
        notes.append("disputed")
    if record.disagreement:
        notes.append(record.disagreement)
    root = {
        "PB": pairing.black.label,
        "PW": pairing.white.label,
        "RE": record.result,
        "EV": "imago match",
        "RO": str(pairing.round + 1),
        "GN": f"game {pairing.index + 1}",
        "GC": "; ".join(notes),
    }
    if settings.game.game == "go":
        root["KM"] = f"{settings.game.go_rules().komi:g}"
        root["RU"] = RU_OF_RULES.get(settings.game.rules, settings.game.rules)
    if settings.game.time_per_move is not None:
        root["TM"] = "0"
        root["OT"] = f"{settings.game.time_per_move:g} s per move"
    control = settings.game.clock
    if control is not None:
        root["TM"] = f"{control.main:g}"
        root["OT"] = f"{control} ({control.describe()})"
    return game_to_sgf(result.final, result.moves, root=root)


ResultCallback = Callable[[GameRecord], bool]
"""Receives each finished game; returns ``True`` to stop the run (games under way finish)."""


def run_games(
    settings: MatchSettings,
    schedule: Iterable[Pairing],
    *,
    folder: Path | None = None,
    jobs: int = 1,
    on_result: ResultCallback | None = None,
    kind: str = "match",
    executor: Executor | None = None,
    tally: Tally | None = None,
    on_lost: LostCallback | None = None,
) -> list[GameRecord]:
    """Play the games of ``schedule`` that ``folder`` does not hold yet; all records, in order.

    The games run on ``executor`` (:mod:`imago.cluster`: local processes or a Ray cluster),
    by default on ``jobs`` local processes (in this process for ``jobs=1``); this process
    saves each game in ``folder`` as it finishes, whichever node played it. ``folder`` is
    created (or checked to hold the same match: ``ValueError`` otherwise) before any game is
    played. A game lost with its worker (a killed process, a lost node) is played again
    (``on_lost`` is told); ``tally`` counts the games by node.
    """
    from imago.cluster import Execution, map_unordered, open_executor

    schedule = list(schedule)
    done: dict[int, GameRecord] = {}
    store = MatchFolder(folder) if folder is not None else None
    if store is not None:
        players = {p.label: p for pairing in schedule for p in (pairing.black, pairing.white)}
        store.open(settings, list(players.values()), kind)
        done = store.records()
    planned = {p.index: p for p in schedule}
    for index, record in done.items():
        pairing = planned.get(index)
        if pairing is not None and (record.black, record.white) != (
            pairing.black.label,
            pairing.white.label,
        ):
            raise ValueError(
                f"game {index + 1} in {folder} is {record.black} - {record.white}, "
                f"not {pairing.black.label} - {pairing.white.label} as scheduled"
            )
    todo = [p for p in schedule if p.index not in done]
    records = {i: r for i, r in done.items() if i in planned}
    owned = executor is None
    runner = open_executor(Execution(workers=max(1, jobs))) if executor is None else executor
    halt = threading.Event()

    def lost(pairing: Pairing, error: Exception, attempt: int) -> None:
        if on_lost is not None:
            on_lost(pairing, error, attempt)

    try:
        games = map_unordered(
            runner, played_game, todo, settings, halt=halt, tally=tally, on_lost=lost
        )
        for _pairing, (record, sgf), _node in games:
            if store is not None:
                store.save(record, sgf)
            if halt.is_set():
                continue  # a game under way when the run was stopped: saved, not counted
            records[record.index] = record
            if on_result is not None and on_result(record):
                halt.set()
    finally:
        if owned:
            runner.close()
    return [records[i] for i in sorted(records)]


LostCallback = Callable[[Pairing, Exception, int], None]
"""``(pairing, error, attempt)``: a game was lost with its worker and is played again."""


def _can_play(players: Sequence[Player], game: str) -> dict[str, str]:
    """On the node that runs it: the players whose agent cannot be made or started here, and
    why."""
    from imago.arena.external import GtpAgent

    problems = {}
    for player in players:
        try:
            agent = player.make(game, seed=0)
            try:
                if isinstance(agent, GtpAgent):
                    agent.start()
            finally:
                agent.close()
        except Exception as error:
            problems[player.label] = f"{type(error).__name__}: {error}"
    return problems


def check_nodes(executor: Executor, players: Sequence[Player], game: str) -> None:
    """Raise :class:`~imago.cluster.ClusterError` naming each node that cannot make or start
    one of the players (an external program missing there, say), before any game."""
    from imago.cluster import ClusterError

    lines = [
        f"node {node} cannot run {label!r}: {why}"
        for node, problems in executor.on_each_node(_can_play, list(players), game).items()
        for label, why in problems.items()
    ]
    if lines:
        raise ClusterError("; ".join(lines))
