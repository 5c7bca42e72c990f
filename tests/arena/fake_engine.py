"""A misbehaving GTP program for tests (standard library only, starts fast).

It remembers the vertices played and answers ``genmove`` with ``pass`` (or, with ``--first-free``,
the first unplayed vertex in reading order, so games do not end at once), except that it can be
told to misbehave on its N-th ``genmove``:

    --illegal-at N   answer a vertex that is already occupied (or off the board)
    --die-at N       exit without answering
    --hang-at N      never answer (sleep)
    --garbage-at N   answer something that is not a move
    --ignore-quit    answer ``quit`` but keep running (until stdin closes)
    --ignore-term    ignore SIGTERM (so only SIGKILL stops it)
    --score TEXT     what ``final_score`` answers (default: ``0``); given, ``list_commands``
                     names ``final_score``
    --time-commands  list ``time_settings``, ``kgs-time_settings`` and ``time_left``
    --log PATH       append every command received to PATH
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--illegal-at", "--die-at", "--hang-at", "--garbage-at"):
        parser.add_argument(flag, type=int, default=0)
    parser.add_argument("--ignore-quit", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--first-free", action="store_true")
    parser.add_argument("--score", default=None)
    parser.add_argument("--time-commands", action="store_true")
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    size = 19
    played: list[str] = []
    genmoves = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        ident = words.pop(0) if words[0].isdigit() else ""
        if args.log:
            with open(args.log, "a") as log:
                log.write(" ".join(words) + "\n")
        command, rest = words[0], words[1:]
        answer: str | None = ""
        ok = True
        if command == "protocol_version":
            answer = "2"
        elif command == "name":
            answer = "fake"
        elif command == "list_commands":
            known = ["protocol_version", "name", "boardsize", "play", "genmove"]
            if args.time_commands:
                known += ["time_settings", "kgs-time_settings", "time_left"]
            if args.score is not None:
                known.append("final_score")
            answer = "\n".join(known)
        elif command == "boardsize":
            size = int(rest[0])
            played = []
        elif command == "clear_board":
            played = []
        elif command == "play":
            if rest[1].lower() != "pass":
                played.append(rest[1].upper())
        elif command == "genmove":
            genmoves += 1
            if genmoves == args.die_at:
                sys.exit(3)
            if genmoves == args.hang_at:
                time.sleep(3600)
            if genmoves == args.garbage_at:
                answer = "banana"
            elif genmoves == args.illegal_at:
                answer = played[0] if played else f"{COLUMNS[size]}1"
            else:
                answer = "pass"
                if args.first_free:
                    free = [
                        f"{COLUMNS[c]}{r}"
                        for r in range(size, 0, -1)
                        for c in range(size)
                        if f"{COLUMNS[c]}{r}" not in played
                    ]
                    answer = free[0] if free else "pass"
                if answer != "pass":
                    played.append(answer)
        elif command == "final_score":
            answer = "0" if args.score is None else args.score
        elif command == "quit":
            sys.stdout.write(f"={ident}\n\n")
            sys.stdout.flush()
            if args.ignore_quit:
                continue
            return
        elif command in ("komi", "time_settings", "kgs-time_settings", "time_left"):
            pass
        else:
            ok, answer = False, "unknown command"
        sys.stdout.write(f"{'=' if ok else '?'}{ident} {answer}\n\n")
        sys.stdout.flush()
    if args.ignore_quit:
        time.sleep(3600)


if __name__ == "__main__":
    main()
