"""The web game: a Starlette server with a JSON API over the engine and
the game store, and a page written in plain JavaScript modules.

Start it with ``terrace play``; see ``docs/api.md`` for the API.

:func:`create_app` is loaded on first use: a solver worker process
(:mod:`terrace.web.workers`) imports this package too, and needs neither
Starlette nor the store (0.4 CPU s of imports of its start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from terrace.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app``, imported when first asked for."""
    if name == "create_app":
        from terrace.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
