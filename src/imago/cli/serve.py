"""``imago serve``: the board in the browser (play, review and analyse both games)."""

from __future__ import annotations

import typer

from imago.cli._common import console, err_console, fail


def serve(
    host: str = typer.Option(
        "127.0.0.1",
        help="Address to listen on. Anything but the loopback interface lets other machines "
        "use your engines: only do it on a network you trust.",
    ),
    port: int = typer.Option(8000, help="Port to listen on (0: any free port)."),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in a web browser."),
    go_engine: str = typer.Option(
        "auto",
        help="Default opponent, analysis and hint engine for Go (auto: the strongest for each "
        "board: az:mix=0.5 on 9x9, nnmcts on 13x13 and 19x19, else mcts; each on two cores "
        "where there are two).",
    ),
    othello_engine: str = typer.Option(
        "auto",
        help="Default opponent, analysis and hint engine for Othello (auto: alphabeta on 8x8, "
        "az with the shipped network on 6x6).",
    ),
    exact_empties: int = typer.Option(
        18, help="Othello analysis: exact scores of every move from this many empties (0: never)."
    ),
    allow_commands: bool = typer.Option(
        False,
        "--allow-engines",
        "--allow-commands",
        help="Allow external GTP programs (the gtp agent runs a command line as you); "
        "refused unless given.",
    ),
    models: list[str] = typer.Option(
        [],
        "--models",
        help="A folder whose network, weights and book files pages may name (repeatable); "
        "only imago's own data otherwise.",
    ),
    token: str = typer.Option(
        "",
        help="The secret the page's address must carry (?token=...); a random one by default.",
    ),
) -> None:
    """Serve imago's board on http://HOST:PORT/ (127.0.0.1 unless --host is given)."""
    try:
        import uvicorn  # noqa: F401 - the web extra's server

        from imago.ui.web import ServerConfig, SessionConfig
        from imago.ui.web.app import address, bind, make_server
        from imago.ui.web.live import AnalysisConfig
    except ModuleNotFoundError as error:
        raise fail(
            f"the web extra is not installed ({error.name}): pip install 'imago[web]'"
        ) from None
    import dataclasses
    import threading
    import webbrowser

    if not 0 <= port <= 65535:
        raise fail("--port must be 0..65535")
    if exact_empties < 0:
        raise fail("--exact-empties must be 0 or more")
    analysis = AnalysisConfig(exact_empties=exact_empties)
    try:
        session = SessionConfig(
            analysis=analysis,
            go_engine=go_engine,
            othello_engine=othello_engine,
            allow_commands=allow_commands,
            model_dirs=tuple(models),
        )
    except ValueError as error:  # a --models folder that cannot be found
        raise fail(f"--models {error}") from None
    config = ServerConfig(host=host, port=port, session=session, allow_commands=allow_commands)
    if token:
        config = dataclasses.replace(config, token=token)
    if not config.loopback:
        err_console.print(
            f"[bold yellow]warning:[/] listening on {host}: other machines can reach this "
            "server and use your CPU"
            + (
                " and run programs through the gtp agent (--allow-engines)."
                if allow_commands
                else " (external GTP programs are refused; --allow-engines allows them)."
            )
        )
    try:
        sock = bind(host, port)
    except OSError as error:
        from imago.core.errors import os_error_text

        raise fail(f"cannot listen on {host}:{port}: {os_error_text(error)}") from None
    url = address(sock, config.token)
    server = make_server(config)
    console.print(f"imago is serving the board on [bold]{url}[/] (Ctrl-C to stop)", highlight=False)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server.run(sockets=[sock])


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
