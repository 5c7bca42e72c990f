"""``imago solve BOARD SIDE``: solve an Othello endgame exactly."""

from __future__ import annotations

import typer

from imago.cli._common import console, err_console, fail


def solve(
    ctx: typer.Context,
    board: str = typer.Argument(
        ...,
        help="64 characters a1..h1, a2..h8: X black, O white, - empty (FFO format); 36 for a "
        "6x6 board (a1..f6), 16 for 4x4.",
    ),
    side: str = typer.Argument(None, help="Side to move: X (black) or O (white)."),
    all_moves: bool = typer.Option(False, "--all", help="Score every legal move exactly."),
    table_bits: int = typer.Option(21, help="Transposition table of 2**BITS entries."),
) -> None:
    """Print the exact final disc difference for the side to move, a best move and nodes/s.

    A board may start with "-" (imago solve --XX... X): words that are no option of this
    command are read as arguments.
    """
    from imago.agents.othello.endgame import EndgameSolver, parse_board

    if board.startswith("--") and not set(board) <= set("-.XOxo"):
        ctx.fail(f"No such option: {board}")  # a mistyped option, read as the board
    if side is None:
        ctx.fail("Missing argument 'SIDE'.")
    try:
        parse_board(board, side)
    except ValueError as error:
        raise fail(
            f"{error} (BOARD: 64 characters for a1..h1, a2..h2, ... h8: X black, O white, - or "
            ". empty; SIDE: X or O)"
        ) from None
    if not 10 <= table_bits <= 26:
        raise fail("--table-bits must be in 10..26")
    empties = board.count("-") + board.count(".")
    if empties > 30:
        console.print(f"[yellow]warning:[/] {empties} empties may take a very long time")
    from imago.cli.warmup import cold

    if cold("othello"):  # the answer is on standard output: the note goes to standard error
        err_console.print(
            "imago: compiling the solver's kernels on this machine, once (about 20 s; "
            "`imago warmup` does it ahead)…",
            highlight=False,
        )
    result = EndgameSolver(table_bits).solve_board(board, side, exact_all=all_moves)
    console.print(f"score {result.score:+d}")
    console.print(f"best move {result.move_text}")
    if all_moves:
        scores = sorted(result.move_scores, key=lambda pair: -pair[1])
        console.print("moves " + " ".join(f"{m.to_algebraic()}:{v:+d}" for m, v in scores))
    console.print(
        f"nodes {result.nodes:,}  time {result.seconds:.3f} s  "
        f"speed {result.nodes_per_second:,.0f} nodes/s"
    )


def register(app: typer.Typer) -> None:
    # FFO boards mostly start with "-": an unknown option is the board, not an error
    app.command("solve", context_settings={"ignore_unknown_options": True})(solve)
