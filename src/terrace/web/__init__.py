"""The web game: a Starlette server with a JSON API over the engine and
the game store, and a page written in plain JavaScript modules.

Start it with ``terrace play``; see ``docs/api.md`` for the API.
"""

from terrace.web.app import create_app

__all__ = ["create_app"]
