"""Issue 43, items 1-3: the token, external programs, framing and Host (each failed before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from imago.ui.web import ServerConfig, create_app

TOKEN = "s3cret-token"


def make_client(**options: Any) -> TestClient:
    config = ServerConfig(token=TOKEN, extra_hosts=("testserver",), **options)
    return TestClient(create_app(config))


def test_the_page_and_the_api_need_the_token():
    with make_client() as client:
        assert client.get("/").status_code == 403
        assert client.get("/?token=wrong").status_code == 403
        assert client.get("/api/info").status_code == 403
        assert client.get(f"/?token={TOKEN}").status_code == 200
        assert client.get(f"/api/info?token={TOKEN}").status_code == 200


@pytest.mark.parametrize("query", ["", "?token=wrong", "?token="])
def test_a_websocket_without_the_token_is_refused_even_without_an_origin(query: str):
    with (
        make_client() as client,
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws{query}") as ws,
    ):
        ws.send_json({"type": "hello"})
        ws.receive_json()


def test_a_websocket_with_the_token_is_served():
    with make_client() as client, client.websocket_connect(f"/ws?token={TOKEN}") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["type"] in {"welcome", "state"}


def test_every_server_has_its_own_random_token():
    assert ServerConfig().token != ServerConfig().token
    assert len(ServerConfig().token) >= 24


def _new_game_answer(client: TestClient, **message: Any) -> dict[str, Any]:
    with client.websocket_connect(f"/ws?token={TOKEN}") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["type"] == "welcome"
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "new_game", **message})
        while True:
            answer = ws.receive_json()
            if answer["type"] in {"error", "state"}:
                return answer


def test_external_programs_are_refused_on_loopback_unless_allowed_at_start():
    with make_client() as client:
        names = {a["name"] for a in client.get(f"/api/info?token={TOKEN}").json()["agents"]}
        assert "gtp" not in names
        answer = _new_game_answer(client, black="gtp:command=\"sh -c 'touch /tmp/pwned'\"")
        assert answer["type"] == "error" and "programs" in answer["message"]


def test_the_page_may_not_be_framed_and_loads_only_its_own_assets():
    with make_client() as client:
        headers = client.get(f"/?token={TOKEN}").headers
        assert headers["x-frame-options"] == "DENY"
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert "unsafe-inline" not in policy


def test_testserver_is_not_a_production_host():
    with TestClient(create_app(ServerConfig(token=TOKEN))) as client:
        assert client.get(f"/?token={TOKEN}").status_code == 400


def test_with_host_only_the_served_name_is_accepted():
    config = ServerConfig(host="192.0.2.7", token=TOKEN)
    with TestClient(create_app(config), base_url="http://192.0.2.7") as client:
        assert client.get(f"/?token={TOKEN}").status_code == 200
        rebound = client.get(f"/?token={TOKEN}", headers={"host": "attacker.example"})
        assert rebound.status_code == 400


def test_the_info_json_is_plain():
    with make_client() as client:
        json.dumps(client.get(f"/api/info?token={TOKEN}").json())


# -- item 8: numbers no page would send ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"type": "new_game", "size": Infinity}', "finite"),
        ('{"type": "new_game", "size": 1e400}', "finite"),
        ('{"type": "new_game", "size": -Infinity}', "finite"),
        ('{"type": "new_game", "komi": 1e308}', "komi"),
        ('{"type": "new_game", "komi": Infinity}', "finite"),
        ('{"type": "new_game", "move_time": 1e400}', "finite"),
        ('{"type": "new_game", "clock": "99999999999+99999999999"}', "clock"),
    ],
)
def test_absurd_numbers_are_refused_clearly(text: str, words: str):
    with make_client() as client, client.websocket_connect(f"/ws?token={TOKEN}") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["type"] == "welcome"
        assert ws.receive_json()["type"] == "state"
        ws.send_text(text)
        answer = ws.receive_json()
        while answer["type"] not in {"error", "state"}:
            answer = ws.receive_json()
        assert answer["type"] == "error", answer
        assert "internal" not in answer["message"] and words in answer["message"], answer


# -- item 3: model files only from the package's data and the folders named at start ---------


@pytest.mark.parametrize(
    "spec",
    ["alphabeta:weights=/etc/passwd", "alphabeta:book=/etc/shadow", "nnmcts:model=../../x.pt"],
)
def test_model_paths_outside_the_named_folders_are_refused(spec: str):
    with make_client() as client:
        answer = _new_game_answer(client, white=spec)
        assert answer["type"] == "error" and "imago's data" in answer["message"], answer


def test_a_model_path_in_an_unknown_users_home_is_refused_with_a_clear_error():
    with make_client() as client:
        answer = _new_game_answer(client, white="nnmcts:model=~no-such-user/x.pt")
        assert answer["type"] == "error" and "no such user" in answer["message"], answer


def test_stderr_files_of_external_programs_are_refused_unless_allowed():
    with make_client() as client:
        answer = _new_game_answer(client, white='gtp:command="gnugo",stderr=/tmp/x.log')
        assert answer["type"] == "error" and "programs" in answer["message"]


@pytest.mark.parametrize(
    "folder, words",
    [("~no-such-user/nets", "no such user's home folder"), ("/no/such/folder", "no such folder")],
)
def test_a_models_folder_that_cannot_be_found_stops_the_server_at_start(
    folder: str, words: str, monkeypatch: pytest.MonkeyPatch
):
    from typer.testing import CliRunner

    import imago.ui.web.app as web_app
    from imago.cli.app import app

    def no_listening(*_: Any) -> None:
        raise AssertionError("the server went on to listen")

    monkeypatch.setattr(web_app, "bind", no_listening)
    result = CliRunner().invoke(app, ["serve", "--port", "0", "--models", folder])
    assert result.exit_code != 0
    assert words in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output and "serving" not in result.output


def test_a_models_folder_is_made_absolute_and_allows_only_its_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from imago.ui.web.settings import ClientError, SessionConfig, check_agent_allowed

    (tmp_path / "nets").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    config = SessionConfig(model_dirs=("~/nets",))
    assert config.model_dirs == (str((tmp_path / "nets").resolve()),)
    check_agent_allowed("az", {"model": str(tmp_path / "nets" / "g.pt")}, config)
    check_agent_allowed("az", {"model": "~/nets/g.pt"}, config)
    with pytest.raises(ClientError, match="imago's data"):
        check_agent_allowed("az", {"model": str(tmp_path / "g.pt")}, config)
