"""Big and adversarial records on the server (issue 43 items 4 and 6): memory follows what is
shown, not the file, and a keypress costs a message of what changed, not the whole tree.

Plain websocket clients (Starlette's test client); memory is measured with tracemalloc, which
numpy's arrays (the Go positions) report to.
"""

from __future__ import annotations

import base64
import json
import random
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from imago.core.move import Move
from imago.records import sgf
from imago.records.tree import Game
from imago.ui.web import ServerConfig, SessionConfig, create_app, positions
from imago.ui.web.session import Session

ORIGIN = {"origin": "http://testserver"}
TOKEN = "test-token"
MIB = 1 << 20


class Client:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.sizes: list[int] = []

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.sizes.append(len(text))
        message: dict[str, Any] = json.loads(text)
        return message

    def ask(self, message: dict[str, Any], *types: str) -> dict[str, Any]:
        self.ws.send_json(message)
        wanted = types or ("state", "error")
        while True:
            answer = self.receive()
            if answer["type"] in wanted:
                return answer


@pytest.fixture
def app_client() -> Iterator[TestClient]:
    config = ServerConfig(session=SessionConfig(), token=TOKEN, extra_hosts=("testserver",))
    app = create_app(config)
    with TestClient(app) as client:
        client.params = {"token": TOKEN}
        yield client


@pytest.fixture
def board(app_client: TestClient) -> Iterator[Client]:
    with app_client.websocket_connect("/ws", headers=ORIGIN) as ws:
        client = Client(ws)
        ws.send_json({"type": "hello", "session": None})
        assert client.receive()["type"] == "welcome"
        assert client.receive()["type"] == "state"
        yield client


def _session(app_client: TestClient) -> Session:
    sessions = list(app_client.app.state.store.sessions.values())  # type: ignore[attr-defined]
    assert len(sessions) == 1
    session: Session = sessions[0]
    return session


def _upload(name: str, data: bytes) -> dict[str, Any]:
    return {"type": "load", "files": [{"name": name, "data": base64.b64encode(data).decode()}]}


def passes(count: int, size: int = 19) -> bytes:
    """The adversarial record of the issue: ``count`` passes (160 KB for 20,000)."""
    return b"(;GM[1]FF[4]SZ[%d]" % size + b";B[];W[]" * (count // 2) + b")"


def wide_tree(size: int, branches: int, length: int, seed: int = 1) -> bytes:
    """A record of ``branches`` variations from the start, each ``length`` random moves."""
    rng = random.Random(seed)
    game = Game.new("go", size=size)
    for _ in range(branches):
        node = game
        for _ in range(length):
            state = node.state
            moves = [m for m in state.legal_moves() if m.is_play]
            node = node.add_variation(rng.choice(moves) if moves else Move.PASS)
    return sgf.write_bytes(game)


# -- item 4: memory per upload --------------------------------------------------------------------


@pytest.mark.parametrize("size", [19, 9])
def test_twenty_thousand_passes_are_refused_before_any_position_is_made(
    board: Client, app_client: TestClient, size: int
):
    data = passes(20_000, size)
    assert len(data) < 170_000
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        answer = board.ask(_upload("passes.sgf", data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer["type"] == "error"
    assert "longest line has 20,000 moves" in answer["message"], answer["message"]
    assert f"{size}x{size} Go board here keeps at most" in answer["message"]
    # The old server replayed and kept every position: 1.1 GB on 19x19, 200 MB on 9x9.
    print(f"\n20,000 passes on {size}x{size}: refused, peak {(peak - before) / MIB:.1f} MiB")
    assert peak - before < 48 * MIB, f"{(peak - before) / MIB:.1f} MiB"
    assert board.ask({"type": "state"})["size"] == 9  # the board goes on as it was


def test_a_line_within_the_budget_loads_and_its_end_is_shown(board: Client):
    longest = positions.max_line("go", 9)
    state = board.ask(_upload("passes.sgf", passes(2_000, 9)))
    assert state["type"] == "state" and len(state["tree"]) == 2_001 and longest >= 2_000
    state = board.ask({"type": "nav", "to": "end"})
    assert state["position"]["move_number"] == 2_000


def test_too_many_nodes_are_refused_with_the_limit(board: Client):
    many = b"(;GM[1]SZ[9]" + b"(;B[aa])" * (positions.MAX_TREE_NODES + 1) + b")"
    answer = board.ask(_upload("many.sgf", many))
    assert answer["type"] == "error"
    assert f"a game here has at most {positions.MAX_TREE_NODES:,}" in answer["message"]


def test_walking_many_variations_keeps_positions_within_the_budget(
    board: Client, app_client: TestClient, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(positions, "POSITION_BUDGET", 4 * MIB)
    capacity = positions.max_line("go", 19)
    data = wide_tree(19, branches=12, length=40)
    state = board.ask(_upload("wide.sgf", data))
    assert state["type"] == "state"
    session = _session(app_client)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(12):  # the end of every variation, one after the other
            board.ask({"type": "nav", "to": "end"})
            assert len(session.positions) <= capacity
            board.ask({"type": "nav", "to": "start"})
            board.ask({"type": "nav", "to": "forward"})
            board.ask({"type": "nav", "to": "next_variation"})
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    shown = 12 * 40
    assert shown > capacity  # without dropping positions, all of them would be kept
    assert grown < 2 * positions.POSITION_BUDGET, f"{grown / MIB:.1f} MiB"


# -- item 6: the tree once, then what changed --------------------------------------------------


def variations_of_passes(branches: int, length: int, size: int = 9) -> bytes:
    """``branches`` variations from the start, each ``length`` moves (passes after a first
    stone on a point of its own), ``branches * length + 1`` nodes in all."""
    letters = "abcdefghijklmnopqrstuvwxyz"[:size]
    points = [f"{c}{r}" for r in letters for c in letters]
    out = [b"(;GM[1]FF[4]SZ[%d]" % size]
    for index in range(branches):
        moves = [f";B[{points[index % len(points)]}]"]
        moves += [f";{'WB'[i % 2]}[]" for i in range(length - 1)]
        out.append(("(" + "".join(moves) + ")").encode())
    out.append(b")")
    return b"".join(out)


def test_a_keypress_on_a_20000_node_tree_sends_what_changed_not_the_tree(board: Client):
    state = board.ask(_upload("big.sgf", variations_of_passes(100, 200)))
    assert len(state["tree"]) == 20_001
    full = board.sizes[-1]
    assert full > 700_000  # the whole tree, once: what every message carried before
    board.sizes.clear()
    for to in ("forward", "forward", "end", "back", "start", "forward", "next_variation"):
        state = board.ask({"type": "nav", "to": to})
        assert "tree" not in state and "tree_diff" not in state
    assert max(board.sizes) < 4_000, board.sizes
    print(f"\n20,001 nodes: the whole tree {full:,} bytes once; a keypress {max(board.sizes):,}")
    board.sizes.clear()
    state = board.ask({"type": "nav", "to": "end"})
    state = board.ask({"type": "play", "point": [8, 8]})  # a new node: one row added
    diff = state["tree_diff"]
    assert [row[0] for row in diff["rows"]] == [state["node"]] and not diff["remove"]
    assert state["line"][-1] == state["node"]
    state = board.ask({"type": "comment", "node": state["node"], "text": "new"})
    assert state["tree_diff"]["rows"][0][5] == "c"
    state = board.ask({"type": "delete", "node": state["node"]})
    assert len(state["tree_diff"]["remove"]) == 1
    assert max(board.sizes) < 4_000, board.sizes
    assert len(board.ask({"type": "state"})["tree"]) == 20_001  # asked for: the whole tree


def test_memory_per_node_and_per_position_is_as_stated(board: Client, app_client: TestClient):
    """The figures behind the budget: a read node without its position, and a position."""
    data = variations_of_passes(100, 200)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        state = board.ask(_upload("big.sgf", data))
        session = _session(app_client)
        assert len(list(session.game.walk())) == 20_001
        nodes = tracemalloc.get_traced_memory()[0] - before
        before = tracemalloc.get_traced_memory()[0]
        board.ask({"type": "nav", "to": "end"})
        line = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert state["type"] == "state"
    per_node, per_position = nodes / 20_001, line / 200
    print(
        f"\nper node read (no position): {per_node:,.0f} B; per 9x9 position: {per_position:,.0f} B"
    )
    assert per_node < 4_096
    assert per_position < positions.position_bytes("go", 9) * 1.25
