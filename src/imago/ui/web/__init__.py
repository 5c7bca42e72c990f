"""The board in the browser: play, review and analyse Go and Othello (``imago serve``).

A small Starlette application (:mod:`~imago.ui.web.app`) serves one page -- plain HTML, CSS
and JavaScript shipped in ``static/``, no build step, nothing fetched from elsewhere -- and
talks to it over one websocket. Each page has a :class:`~imago.ui.web.session.Session`: a
thin layer over the game, records and agent APIs.
"""

from imago.ui.web.app import ServerConfig, create_app
from imago.ui.web.session import ClientError, PlaySettings, Session, SessionConfig

__all__ = ["ClientError", "PlaySettings", "ServerConfig", "Session", "SessionConfig", "create_app"]
