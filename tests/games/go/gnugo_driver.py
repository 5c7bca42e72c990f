"""A minimal GTP driver for GNU Go, for the differential tests (the real GTP client is imago's).

Commands are sent in batches: one write of many lines, then the responses are read in order, so
checking the legality of every point costs one pipe round trip.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence


class GtpError(RuntimeError):
    """GNU Go answered ``? message``."""


class GnuGo:
    def __init__(self, binary: str, *options: str) -> None:
        self.process = subprocess.Popen(
            [binary, "--mode", "gtp", "--level", "0", *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1 << 16,
        )

    def batch(self, commands: Sequence[str]) -> list[str]:
        """Send ``commands``; return their answers (raise on the first error)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("".join(f"{command}\n" for command in commands))
        self.process.stdin.flush()
        answers = []
        for command in commands:
            lines = []
            while True:
                line = self.process.stdout.readline()
                if line == "":
                    raise GtpError(f"GNU Go exited during {command!r}")
                line = line.rstrip("\r\n")
                if line == "" and lines:
                    break
                if line:
                    lines.append(line)
            text = "\n".join(lines)
            if text.startswith("?"):
                raise GtpError(f"{command!r}: {text}")
            answers.append(text[1:].strip())
        return answers

    def command(self, command: str) -> str:
        return self.batch([command])[0]

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(GtpError):
                self.batch(["quit"])
            self.process.wait(timeout=10)

    def __enter__(self) -> GnuGo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
