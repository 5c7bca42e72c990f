"""The strongest engine by default (issue 43): the page's form, hints and analysis use what
``imago play`` would, nnmcts with the shipped network on the Go boards it plays."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient
from test_big_trees import Client

from imago.nn.shipped import strongest_agent
from imago.ui.web import ServerConfig, SessionConfig, create_app

ORIGIN = {"origin": "http://testserver"}
TOKEN = "test-token"


@pytest.fixture
def client() -> Iterator[TestClient]:
    config = ServerConfig(session=SessionConfig(), token=TOKEN, extra_hosts=("testserver",))
    with TestClient(create_app(config)) as test_client:
        test_client.params = {"token": TOKEN}
        yield test_client


def test_the_form_offers_the_strongest_engine_for_each_board(client: TestClient):
    games = client.get("/api/info").json()["games"]
    assert games["go"]["engines"]["19"] == strongest_agent("go", 19)
    assert games["go"]["engine"] == strongest_agent("go", 9)
    assert games["othello"]["engines"]["8"] == "alphabeta"
    pinned = ServerConfig(session=SessionConfig(go_engine="mcts"), token=TOKEN)
    assert SessionConfig(go_engine="mcts").engine_for("go", 19) == "mcts"
    assert pinned.session.engine_for("othello", 8) == "alphabeta"


def test_a_hint_on_an_empty_19x19_board_comes_from_the_network(client: TestClient):
    """With mcts by default the hint on an empty 19x19 board was H2, a second-line move."""
    pytest.importorskip("torch")
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        board = Client(ws)
        ws.send_json({"type": "hello", "session": None})
        board.receive()
        board.receive()
        state = board.ask({"type": "new_game", "game": "go", "size": 19, "move_time": 0.5})
        assert state["analysis"]["engine"].startswith("nnmcts")
        hint = board.ask({"type": "hint"}, "hint", "error")
        assert hint["type"] == "hint", hint
        row, col = hint["point"]
        assert 2 <= row <= 16 and 2 <= col <= 16, hint["move"]  # not on the first two lines
