"""The web server without a browser: every route and every websocket request, good and bad.

A refused request is answered with an error that says why, changes nothing, and the server
goes on serving the same page.
"""

from __future__ import annotations

import base64
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from imago.records import sgf, wthor
from imago.ui.web import ServerConfig, SessionConfig, create_app
from imago.ui.web.live import AnalysisConfig
from imago.ui.web.uploads import MAX_UPLOAD_BYTES

ORIGIN = {"origin": "http://testserver"}


class Page:
    """A websocket client speaking to the server as the page does."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    def hello(self, session: str | None = None) -> dict[str, Any]:
        self.ws.send_json({"type": "hello", "session": session})
        welcome = self.ws.receive_json()
        assert welcome["type"] == "welcome"
        state = self.ws.receive_json()
        assert state["type"] == "state"
        return {"welcome": welcome, "state": state}

    def next(self, *types: str, timeout: float = 60.0) -> dict[str, Any]:
        """The next message of one of ``types`` (others are kept in ``seen``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.ws.receive_json()
            self.seen.append(message)
            if message["type"] in types:
                return message
        raise TimeoutError(f"no {types} message")

    def ask(self, message: dict[str, Any], *types: str) -> dict[str, Any]:
        """Send a request; its answer (a state or an error unless ``types`` says)."""
        self.ws.send_json(message)
        return self.next(*(types or ("state", "error")))

    def refused(self, message: dict[str, Any], words: str) -> dict[str, Any]:
        answer = self.ask(message, "error")
        assert words in answer["message"], answer["message"]
        return answer

    def state(self) -> dict[str, Any]:
        return self.ask({"type": "state"}, "state")


TOKEN = "test-token"
TRUSTED: dict[str, Any] = {"token": TOKEN, "extra_hosts": ("testserver",), "allow_commands": True}


@pytest.fixture
def client() -> Iterator[TestClient]:
    config = ServerConfig(
        session=SessionConfig(analysis=AnalysisConfig(exact_empties=14)), **TRUSTED
    )
    with TestClient(create_app(config)) as test_client:
        test_client.params = {"token": TOKEN}
        yield test_client


@pytest.fixture
def page(client: TestClient) -> Iterator[Page]:
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        p = Page(ws)
        p.hello()
        yield p


# -- routes ------------------------------------------------------------------------------------


def test_the_page_and_its_assets_are_served_from_the_package(client: TestClient):
    index = client.get("/")
    assert index.status_code == 200 and "/static/app.js" in index.text
    for name, kind in (
        ("app.js", "javascript"),
        ("board.js", "javascript"),
        ("style.css", "css"),
        ("icon.svg", "svg"),
    ):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"], name
    assert "http" not in client.get("/").text.replace("http-equiv", "")  # no CDN, no outside link
    assert client.get("/static/missing.js").status_code == 404
    assert client.get("/static/../session.py").status_code == 404
    assert client.get("/static/%2e%2e/session.py").status_code == 404


def test_info_lists_games_rules_and_agents(client: TestClient):
    info = client.get("/api/info").json()
    assert info["games"]["othello"]["sizes"] == [4, 6, 8]
    assert info["games"]["go"]["sizes"][0] == 2 and info["games"]["go"]["sizes"][-1] == 25
    assert "japanese" in info["games"]["go"]["rules"]
    names = {a["name"] for a in info["agents"]}
    assert {"random", "alphabeta", "mcts", "gtp"} <= names
    assert client.get("/api/health").json()["ok"] is True


def test_a_server_open_to_the_network_refuses_external_programs():
    app = create_app(ServerConfig(host="0.0.0.0", token=TOKEN, extra_hosts=("testserver",)))
    with TestClient(app) as client:
        client.params = {"token": TOKEN}
        names = {a["name"] for a in client.get("/api/info").json()["agents"]}
        assert "gtp" not in names
        with client.websocket_connect("/ws", headers=ORIGIN) as ws:
            p = Page(ws)
            p.hello()
            p.refused({"type": "new_game", "white": 'gtp:command="gnugo --mode gtp"'}, "programs")
            p.refused({"type": "analyze", "engine": "gtp:command=x"}, "programs")


def test_other_hosts_and_other_origins_are_refused(client: TestClient):
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws,
    ):
        ws.send_json({"type": "hello"})
        ws.receive_json()


# -- the session -----------------------------------------------------------------------------


def test_malformed_messages_are_answered_and_the_page_goes_on(page: Page):
    page.ws.send_text("not json")
    assert "JSON object" in page.next("error")["message"]
    page.ws.send_text("[1, 2]")
    assert "JSON object" in page.next("error")["message"]
    page.ws.send_bytes(b"\x00\x01")
    assert "JSON text" in page.next("error")["message"]
    page.refused({"type": "fly"}, "unknown request")
    page.refused({"no": "type"}, "unknown request")
    page.refused({"type": "hello"}, "already connected")
    assert page.ask({"type": "play", "point": [4, 4]})["position"]["board"][40] == "1"


def test_a_reloaded_page_finds_its_game(client: TestClient):
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        first = Page(ws)
        sid = first.hello()["welcome"]["session"]
        first.ask({"type": "play", "point": [2, 2]})
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        again = Page(ws).hello(sid)
        assert again["welcome"]["session"] == sid
        assert again["state"]["position"]["board"][20] == "1"
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        other = Page(ws).hello("no-such-session")
        assert other["welcome"]["session"] != sid
        assert "1" not in other["state"]["position"]["board"]


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "go", "size": 26}, "2..25"),
        ({"game": "go", "size": "nine"}, "must be a number"),
        ({"game": "go", "size": 9.5}, "whole number"),
        ({"game": "othello", "size": 10}, "4, 6, 8"),
        ({"game": "go", "komi": 6.3}, "multiple of 0.5"),
        ({"game": "go", "rules": "lunar"}, "unknown rules"),
        ({"game": "go", "size": 5, "handicap": 2}, "no handicap"),
        ({"game": "go", "size": 9, "handicap": 10}, "2..9"),
        ({"move_time": 0}, "0.05..3600"),
        ({"clock": "soon"}, "bad time control"),
        ({"white": "nobody"}, "unknown agent"),
        ({"white": "mcts:playouts=many"}, "is not a whole number"),
        ({"game": "go", "white": "alphabeta:colour=red"}, "no option"),
    ],
)
def test_bad_new_game_settings_are_refused(page: Page, settings: dict[str, Any], words: str):
    page.ask({"type": "play", "point": [0, 0]})
    page.refused({"type": "new_game", **settings}, words)
    assert page.state()["position"]["board"][0] == "1"  # the game in progress is kept


def test_a_new_go_game_with_handicap_komi_and_rules(page: Page):
    state = page.ask(
        {
            "type": "new_game",
            "game": "go",
            "size": 13,
            "komi": 0.5,
            "rules": "japanese",
            "handicap": 4,
        }
    )
    assert state["size"] == 13 and state["position"]["to_play"] == "W"
    assert state["position"]["board"].count("1") == 4
    assert state["info"]["KM"] == "0.5" and state["info"]["RU"] == "Japanese"
    saved = sgf.read_game(page.ask({"type": "export"}, "sgf")["text"])
    assert saved.initial.komi == 0.5 and saved.state.to_play.letter == "W"  # type: ignore[attr-defined]


def test_moves_illegal_moves_and_turns(page: Page):
    page.ask({"type": "new_game", "game": "go", "size": 9, "white": "mcts", "move_time": 2})
    page.refused({"type": "play", "point": [9, 0]}, "off the 9x9 board")
    page.refused({"type": "play", "point": [1]}, "[row, column]")
    page.refused({"type": "play", "point": [True, 1]}, "[row, column]")
    page.refused({"type": "play", "move": "Z99"}, "off a 9x9 board")
    page.refused({"type": "play", "move": "hello"}, "not a GTP vertex")
    page.refused({"type": "play"}, "a move is")
    state = page.ask({"type": "play", "move": "E5"})
    assert state["thinking"] == "W"
    page.refused({"type": "play", "point": [0, 0]}, "mcts's turn")  # it thinks for 2 s
    while page.next("state")["thinking"] is not None:
        pass
    page.refused({"type": "play", "point": [4, 4]}, "E5 is illegal: the point is occupied")


def test_undo_takes_back_the_engine_reply_too(page: Page):
    page.refused({"type": "undo"}, "nothing to undo")
    page.ask({"type": "new_game", "game": "othello", "white": "random"})
    page.ask({"type": "play", "move": "f5"})
    while (state := page.next("state"))["thinking"] is not None:
        pass
    assert state["position"]["move_number"] == 2
    state = page.ask({"type": "undo"})
    assert state["position"]["move_number"] == 0 and state["tree_diff"]["remove"]
    assert len(page.state()["tree"]) == 1


def test_resign_and_the_end_of_a_game(page: Page):
    page.ask({"type": "play", "point": [4, 4]})
    state = page.ask({"type": "resign"})  # White, to play, resigns
    assert state["ending"]["result"] == "B+R" and state["info"]["RE"] == "B+R"
    page.refused({"type": "play", "point": [0, 0]}, "the game is over (B+R)")
    page.refused({"type": "resign"}, "already over")
    page.ask({"type": "new_game", "white": "random", "black": "random", "move_time": 0.05})
    page.refused({"type": "resign"}, "no person plays")


def test_passes_count_dead_stones_and_accept(page: Page):
    page.refused({"type": "toggle_dead", "point": [0, 0]}, "two passes")
    page.refused({"type": "accept_count"}, "no count")
    page.ask({"type": "new_game", "game": "go", "size": 5})
    for point in ([0, 2], [0, 3], [1, 2], [1, 3], [2, 2], [2, 3], [3, 2], [3, 3], [4, 2], [4, 3]):
        page.ask({"type": "play", "point": point})
    page.ask({"type": "pass"})
    state = page.ask({"type": "pass"})
    counting = state["counting"]
    assert counting["outcome"]["result"] == "W+2.5" and counting["dead"] == []
    assert len(counting["territory"]["B"]) == 10 and len(counting["territory"]["W"]) == 5
    page.refused({"type": "toggle_dead", "point": [0, 0]}, "click a stone")
    page.refused({"type": "toggle_dead", "point": [7, 7]}, "off the board")
    state = page.ask({"type": "toggle_dead", "point": [0, 3]})
    assert len(state["counting"]["dead"]) == 5
    assert state["counting"]["outcome"]["result"] == "B+17.5"
    state = page.ask({"type": "toggle_dead", "point": [4, 3]})
    assert state["counting"]["outcome"]["result"] == "W+2.5"
    state = page.ask({"type": "accept_count"})
    assert state["ending"] == {"result": "W+2.5", "reason": "count"}
    page.refused({"type": "toggle_dead", "point": [0, 3]}, "accepted")


def test_a_handicap_game_counts_white_a_point_per_stone(page: Page):
    # area counting, as GNU Go and the Chinese rules count: White gets the 2 handicap stones
    state = page.ask({"type": "new_game", "game": "go", "size": 9, "handicap": 2})
    komi = float(state["info"]["KM"])
    page.ask({"type": "pass"})
    state = page.ask({"type": "pass"})
    expected = f"B+{81 - 2 - komi:g}"
    assert state["counting"]["outcome"]["result"] == expected
    # the same with a stone marked dead (its point still Black's area)
    state = page.ask({"type": "toggle_dead", "point": [2, 6]})
    assert len(state["counting"]["dead"]) == 1
    assert state["counting"]["outcome"]["result"] == expected


VARIATIONS = "(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cc](;B[gg];W[gc])(;B[cg]C[second])(;B[dd]))"


def test_navigation_comments_and_editing_the_tree(page: Page):
    state = page.ask({"type": "load", "text": VARIATIONS})
    assert state["mode"] == "review" and state["position"]["move_number"] == 0
    for to, number in (("forward", 1), ("forward", 2), ("end", 4), ("back", 3), ("start", 0)):
        assert page.ask({"type": "nav", "to": to})["position"]["move_number"] == number
    page.ask({"type": "nav", "to": "forward"})
    page.ask({"type": "nav", "to": "forward"})
    state = page.ask({"type": "nav", "to": "forward", "variation": 1})
    assert state["comment"] == "second"
    assert page.ask({"type": "nav", "to": "next_variation"})["position"]["last"] == [3, 3]
    assert page.ask({"type": "nav", "to": "previous_variation"})["comment"] == "second"
    page.refused({"type": "nav", "to": "sideways"}, "nav goes to")
    page.refused({"type": "nav", "to": "node", "node": 999}, "no such node")
    page.refused({"type": "nav", "to": "node", "node": "1"}, "no such node")
    page.refused({"type": "nav", "to": "forward", "variation": "x"}, "must be a number")
    node = state["node"]
    page.refused({"type": "comment", "node": node, "text": 5}, "a comment is text")
    page.refused({"type": "comment", "node": node, "text": "x" * (65 << 10)}, "at most")
    assert page.ask({"type": "comment", "node": node, "text": "edited"})["comment"] == "edited"
    page.ask({"type": "promote", "node": node})
    # now the main line: first in document order after W cc
    assert page.state()["tree"][3][0] == node
    page.refused({"type": "delete", "node": 0}, "cannot be deleted")
    state = page.ask({"type": "delete", "node": node})
    assert state["position"]["move_number"] == 2 and len(page.state()["tree"]) == 6
    page.refused({"type": "mode", "mode": "party"}, "play or review")
    saved = sgf.read_game(page.ask({"type": "export"}, "sgf")["text"])
    assert [c.move.to_sgf(9) for c in saved.children[0].children[0].children] == ["gg", "dd"]  # type: ignore[union-attr]


def test_uploads_of_every_format_and_broken_ones(page: Page, data_dir: Path):
    files = [
        {"name": "WTH_1980.wtb", "data": _b64(data_dir / "wthor" / "WTH_1980.wtb")},
        {"name": "WTH.JOU", "data": _b64(data_dir / "wthor" / "WTH.JOU")},
    ]
    library = page.ask({"type": "load", "files": files}, "library", "error")
    records = wthor.read_games(data_dir / "wthor" / "WTH_1980.wtb")
    players = wthor.read_names(data_dir / "wthor" / "WTH.JOU")
    assert len(library["games"]) == len(records)
    assert library["games"][2]["black"] == players[records[2].black]
    page.refused({"type": "open", "index": len(records)}, "there is no game")
    page.refused({"type": "open", "index": "2"}, "must be a number")
    state = page.ask({"type": "open", "index": 2})
    assert state["game"] == "othello" and state["info"]["PB"] == players[records[2].black]
    state = page.ask({"type": "load", "text": "f5d6c3d3c4"})
    assert state["game"] == "othello" and len(state["tree"]) == 6
    page.refused({"type": "load", "text": "f5 f5"}, "no game could be read")
    page.refused({"type": "load", "files": "x"}, "one to eight files")
    page.refused({"type": "load", "files": [{"name": "a.sgf", "data": "%%%"}]}, "not base64")
    page.refused({"type": "load", "files": [{"name": "a.sgf"}]}, "{name, data")
    page.refused({"type": "load", "files": [{"name": "a.doc", "data": "AAAA"}]}, "unknown record")
    page.refused({"type": "load", "files": [{"name": "x.wtb", "data": "AAAA"}]}, "x.wtb")
    page.refused(
        {
            "type": "load",
            "files": [{"name": "WTH.JOU", "data": _b64(data_dir / "wthor" / "WTH.JOU")}],
        },
        "add the .wtb",
    )
    big = base64.b64encode(b"(" * (MAX_UPLOAD_BYTES + 1)).decode()
    page.refused({"type": "load", "files": [{"name": "big.sgf", "data": big}]}, "the limit is")
    page.refused({"type": "load", "text": "(;GM[1]SZ[99];B[aa])"}, "no game could be read")
    state = page.ask({"type": "load", "text": "(;GM[1]SZ[9];B[ee];W[ee];B[dd])"})
    assert page.next("notice")["level"] == "warning"  # read with problems: shown, not hidden
    assert "!" in "".join(row[5] for row in state["tree"])


def test_live_analysis_of_go_and_othello(page: Page):
    page.ask({"type": "new_game", "game": "go", "size": 9})
    page.ask({"type": "play", "point": [4, 4]})
    page.refused({"type": "analyze", "on": "yes"}, "true or false")
    page.refused({"type": "analyze", "engine": "nobody"}, "unknown agent")
    state = page.ask({"type": "analyze", "on": True, "engine": "mcts"})
    assert state["analysis"]["on"] is True
    seen = [page.next("analysis", timeout=120) for _ in range(3)]
    assert all(m["kind"] == "search" and m["node"] == state["node"] for m in seen)
    assert seen[-1]["candidates"][0]["visits"] > 0 and seen[-1]["to_play"] == "W"
    assert seen[-1]["seq"] > seen[0]["seq"]
    state = page.ask({"type": "analyze", "on": False})
    assert state["analysis"]["on"] is False
    assert any(v is not None for v in state["graph"]["values"])  # the analysis feeds the graph

    page.ask({"type": "load", "text": "f5d6c3d3c4f4f6f3e6e7"})
    page.ask({"type": "nav", "to": "end"})
    page.ask({"type": "analyze", "on": True, "engine": "alphabeta"})
    update = page.next("analysis", timeout=120)
    while update["phase"] != "depth" or update["depth"] < 2:
        update = page.next("analysis", timeout=120)
    values = [c["value"] for c in update["candidates"]]
    assert all(v is not None for v in values) and values == sorted(values, reverse=True)
    page.ask({"type": "stop"})


def test_a_hint_and_a_whole_game_review(page: Page):
    page.ask({"type": "new_game", "game": "go", "size": 7, "move_time": 0.1})
    for point in ([3, 3], [2, 2], [0, 0]):
        page.ask({"type": "play", "point": point})
    hint = page.ask({"type": "hint"}, "hint", "error")
    assert hint["type"] == "hint" and hint["move"]
    page.refused({"type": "review", "seconds": 0}, "0.05..600")
    page.ask({"type": "review", "seconds": 0.05, "engine": "mcts"})
    review = page.next("review", timeout=120)
    while not review["done"]:
        review = page.next("review", timeout=120)
    assert review["positions"] == 4 and len(review["moves"]) == 3
    assert review["unit"] == "win rate" and all(m["loss"] >= 0 for m in review["moves"])


def test_a_dead_engine_gives_its_seat_to_a_person(page: Page):
    # one that never starts is refused with the new game; one that dies in it gives its seat
    new_game = {"type": "new_game", "game": "go", "size": 9}
    page.refused({**new_game, "white": 'gtp:command="false"'}, "does not answer as a GTP engine")
    fake = Path(__file__).resolve().parents[2] / "arena" / "fake_engine.py"
    page.ask({**new_game, "white": f'gtp:command="{sys.executable} {fake} --die-at 1"'})
    page.ask({"type": "play", "point": [4, 4]})
    notice = page.next("notice", timeout=60)
    assert notice["level"] == "error" and "played by hand" in notice["message"]
    state = page.next("state")
    assert state["seats"]["W"]["human"] is True
    assert page.ask({"type": "play", "point": [2, 2]})["position"]["board"][20] == "2"


def test_a_player_whose_clock_runs_out_loses_on_time(page: Page):
    page.refused({"type": "new_game", "clock": 7}, "text such as")
    state = page.ask({"type": "new_game", "game": "go", "size": 9, "clock": "1"})
    assert state["clocks"]["B"]["running"] is True
    state = page.next("state", timeout=10)
    while state["ending"] is None:
        state = page.next("state", timeout=10)
    assert state["ending"]["result"] == "W+T"
    assert state["clocks"]["B"]["flagged"] is True


def _b64(path: Path) -> str:
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    return base64.b64encode(path.read_bytes()).decode()


def test_an_external_gtp_program_plays_a_seat(page: Page, gnugo: str):
    command = f'gtp:command="{gnugo} --mode gtp --level 1"'
    page.ask({"type": "new_game", "game": "go", "size": 9, "white": command})
    page.ask({"type": "play", "point": [4, 4]})
    state = page.next("state", timeout=120)
    while state["thinking"] is not None:
        state = page.next("state", timeout=120)
    assert state["position"]["move_number"] == 2 and state["position"]["last_color"] == "W"
    assert state["seats"]["W"]["spec"] == command and not state["seats"]["W"]["human"]
