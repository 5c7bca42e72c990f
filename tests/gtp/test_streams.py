"""The protocol loop over injected streams: live analysis until the next command arrives."""

from __future__ import annotations

import io
import os
import threading
import time

from gtp_helpers import AnalysingAgent, make_server


class Output(io.StringIO):
    """A StringIO that can be read while another thread writes."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


def serve(server: object) -> tuple[io.TextIOWrapper, Output, threading.Thread]:
    read, write = os.pipe()
    stdin = os.fdopen(read, "r")
    pipe = os.fdopen(write, "w", buffering=1)
    out = Output()
    thread = threading.Thread(target=server.run, args=(stdin, out), daemon=True)  # type: ignore[attr-defined]
    thread.start()
    return pipe, out, thread


def wait_for(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_run_answers_every_command_in_order():
    server = make_server("go")
    stdin = io.StringIO("1 name\n\n# comment\n2 play b D4\nbogus\n3 list_stones b\nquit\nname\n")
    out = io.StringIO()
    server.run(stdin, out)
    assert out.getvalue() == "=1 imago\n\n=2\n\n? unknown command\n\n=3 D4\n\n=\n\n"


def test_run_ends_at_end_of_input():
    server = make_server("othello")
    out = io.StringIO()
    server.run(io.StringIO("protocol_version"), out)
    assert out.getvalue() == "= 2\n\n"


def test_lz_analyze_streams_until_the_next_command():
    agent = AnalysingAgent(forever=True, pause=0.01)
    pipe, out, thread = serve(make_server("go", agent=agent))
    pipe.write("5 lz-analyze b 2\n")
    wait_for(lambda: out.text().count("info move") >= 9)
    pipe.write("6 name\nquit\n")
    thread.join(10)
    assert not thread.is_alive()
    text = out.text()
    head, _, rest = text.partition("\n")
    assert head == "=5"
    analysis, _, tail = rest.partition("\n\n")
    assert all(line.startswith("info move ") for line in analysis.split("\n"))
    assert tail == "=6 imago\n\n=\n\n"
    assert agent.limits[0].time == 600.0  # live analysis runs until the next command


def test_genmove_analyze_ends_by_itself():
    agent = AnalysingAgent(updates=3, pause=0.01)
    pipe, out, thread = serve(make_server("go", agent=agent))
    pipe.write("lz-genmove_analyze b 1\nlist_stones black\nquit\n")
    thread.join(10)
    lines = out.text().split("\n")
    assert lines[0] == "="
    assert lines[1].startswith("info move A9")
    assert "play A9" in lines
    assert out.text().endswith("play A9\n\n= A9\n\n=\n\n")


def test_analysis_without_search_information_is_one_error():
    pipe, out, thread = serve(make_server("go"))
    pipe.write("7 kata-analyze b 10\n8 name\nquit\n")
    thread.join(10)
    assert out.text() == (
        "?7 no search information: agent random does not analyse positions\n\n=8 imago\n\n=\n\n"
    )


def test_end_of_input_during_live_analysis():
    pipe, out, thread = serve(make_server("go", agent=AnalysingAgent(forever=True)))
    pipe.write("lz-analyze b 1\n")
    wait_for(lambda: "info move" in out.text())
    pipe.close()
    thread.join(10)
    assert not thread.is_alive()
    assert out.text().endswith("\n\n")
