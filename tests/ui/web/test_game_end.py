"""The end of a game on the server (issue 43): an unsettled count is said to be unsettled and
never proposes dead stones it could not judge; play goes on after it.

Plain websocket clients (Starlette's test client).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient
from test_big_trees import Client

from imago.core.move import Move
from imago.ui.web import ServerConfig, SessionConfig, create_app

ORIGIN = {"origin": "http://testserver"}
TOKEN = "test-token"

UNSETTLED = ["J4", "D17", "C6", "B12", "T19", "A19", "B15", "E1", "D3", "S7", "G9", "R11"]
"""Twelve scattered stones on 19x19, then two passes: the referee's count judges three of them
dead without being able to decide them (the old page proposed that count)."""


@pytest.fixture
def board() -> Iterator[Client]:
    config = ServerConfig(session=SessionConfig(), token=TOKEN, extra_hosts=("testserver",))
    with TestClient(create_app(config)) as client:
        client.params = {"token": TOKEN}
        with client.websocket_connect("/ws", headers=ORIGIN) as ws:
            page = Client(ws)
            ws.send_json({"type": "hello", "session": None})
            assert page.receive()["type"] == "welcome"
            assert page.receive()["type"] == "state"
            yield page


def _point(vertex: str, size: int) -> list[int]:
    point = Move.from_gtp(vertex, size).point
    assert point is not None
    return [point.row, point.col]


def _play_unsettled(board: Client) -> dict[str, Any]:
    board.ask({"type": "new_game", "game": "go", "size": 19})
    for vertex in UNSETTLED:
        assert board.ask({"type": "play", "point": _point(vertex, 19)})["type"] == "state"
    board.ask({"type": "pass"})
    return board.ask({"type": "pass"})


def test_an_unsettled_position_is_said_unsettled_and_no_stone_is_proposed_dead(board: Client):
    state = _play_unsettled(board)
    counting = state["counting"]
    assert counting is not None and state["position"]["over"]
    assert len(counting["unsettled"]) == 5
    assert counting["dead"] == []  # the old page proposed three stones dead
    assert counting["outcome"]["result"] == "W+7.5"  # the stones as they stand
    # The players may still mark a group dead themselves...
    marked = board.ask({"type": "toggle_dead", "point": _point("J4", 19)})["counting"]
    assert marked["dead"] == [_point("J4", 19)] and len(marked["unsettled"]) == 5
    # ... or play on: the next move resumes the game.
    state = board.ask({"type": "play", "point": _point("K10", 19)})
    assert state["counting"] is None and not state["position"]["over"]
    assert state["position"]["to_play"] == "W"


def test_a_settled_count_has_nothing_unsettled(board: Client):
    board.ask({"type": "new_game", "game": "go", "size": 9})
    board.ask({"type": "pass"})
    counting = board.ask({"type": "pass"})["counting"]
    assert counting["unsettled"] == [] and counting["outcome"]["result"] == "W+7"


RECORD = "(;GM[1]FF[4]SZ[7]KM[7.5]PB[b]PW[w];B[dd];W[cc];B[ec];W[dc])"


def test_play_from_here_against_an_engine(board: Client):
    """Issue 43: a record's position played on against an engine (the ``mode`` request with an
    engine); the person takes the side to move."""
    assert board.ask({"type": "load", "text": RECORD})["mode"] == "review"
    board.ask({"type": "nav", "to": "forward"})
    state = board.ask({"type": "nav", "to": "forward"})  # after W C5: Black to play
    answer = board.ask({"type": "mode", "mode": "review", "engine": "random"})
    assert answer["type"] == "error" and "to play from here" in answer["message"]
    answer = board.ask({"type": "mode", "mode": "play", "engine": "gtp:command=true"})
    assert answer["type"] == "error" and "--allow-engines" in answer["message"]
    state = board.ask({"type": "mode", "mode": "play", "engine": "random"})
    assert state["mode"] == "play"
    assert state["seats"] == {
        "B": {"spec": "human", "human": True},
        "W": {"spec": "random", "human": False},
    }
    state = board.ask({"type": "play", "point": [0, 0]})  # a new variation: A7
    node = state["node"]
    while state["type"] != "state" or state["position"]["move_number"] < 4 or state["thinking"]:
        state = board.receive()  # the engine's reply
    assert state["position"]["last_color"] == "W" and state["node"] != node
