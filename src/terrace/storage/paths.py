"""Where Terrace keeps its two databases: the saved games and the solver's
verdict cache. Every default path is decided here and nowhere else.

The games database is ``--db PATH`` when given, else ``$TERRACE_DB``, else
``games.sqlite`` in the user data folder. The solver's verdicts live in
``solver.sqlite3`` beside the games database (``--verdicts-db PATH`` on
``deal`` and ``survey`` names another file).

>>> from pathlib import Path
>>> verdicts_path(Path("backup") / "games.sqlite") == Path("backup") / VERDICTS_FILE_NAME
True
>>> verdicts_path(MEMORY) == default_verdicts_path()
True
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

from terrace.refusals import clip
from terrace.storage.base import StoreError

APP_NAME = "terrace"
GAMES_FILE_NAME = "games.sqlite"
VERDICTS_FILE_NAME = "solver.sqlite3"
HELD_NOTE_NAME = "held.json"
"""What Terrace notes of the games databases it closed (in :func:`data_folder`;
see :mod:`terrace.storage.held`)."""
FINDINGS_FOLDER_NAME = "stats-found"
"""What the statistics of a store opened only to read found sound (in
:func:`data_folder`; see :mod:`terrace.storage.findings`)."""
DB_ENV = "TERRACE_DB"
"""Environment variable naming the games database when no ``--db`` is given."""
MEMORY = ":memory:"
"""The games "path" that keeps everything in memory."""


def data_folder() -> Path:
    """The user data folder: ``~/.local/share/terrace`` on Linux (or under
    ``$XDG_DATA_HOME``), ``~/Library/Application Support/terrace`` on macOS,
    ``%LOCALAPPDATA%\\terrace`` on Windows."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def folder_ending(name: str) -> str | None:
    """Why a file's ``name`` is refused, or None: one that ends in a slash
    (it names a folder, and :class:`~pathlib.Path` would drop the slash and
    name a file), or one of white space only (a stray quoted space, as in
    ``--db " "``, made a file named by a space).

    >>> folder_ending("games.sqlite/")
    'ends in /, which names a folder: give the name of a file'
    >>> folder_ending(" ")
    'is only white space: give the name of a file'
    """
    if name.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        return f"ends in {os.sep}, which names a folder: give the name of a file"
    if name and not name.strip():
        return "is only white space: give the name of a file"
    return None


def held_note_path() -> Path:
    """The note of the games databases Terrace closed holding games."""
    return data_folder() / HELD_NOTE_NAME


def findings_folder() -> Path:
    """The folder of the notes of what the statistics of a store opened
    only to read found sound."""
    return data_folder() / FINDINGS_FOLDER_NAME


def default_games_path() -> Path:
    """``$TERRACE_DB`` when set, else ``games.sqlite`` in :func:`data_folder`;
    a name ending in a slash is a :class:`~terrace.storage.base.StoreError`
    (``TERRACE_DB=games.sqlite/`` made the file ``games.sqlite``)."""
    named = os.environ.get(DB_ENV)
    if named:
        why = folder_ending(named) if named != MEMORY else None
        if why is not None:
            raise StoreError(f"{DB_ENV}={clip(named)} {why}")
        return Path(named).expanduser()
    return data_folder() / GAMES_FILE_NAME


def games_path(given: str | os.PathLike[str] | None) -> Path | None:
    """The games database for a ``--db`` value: None for ``:memory:``."""
    if given is None:
        return default_games_path()
    if str(given) == MEMORY:
        return None
    return Path(given).expanduser()


def default_verdicts_path() -> Path:
    """The verdict cache beside the default games database."""
    return verdicts_path(None)


def verdicts_path(games_db: str | os.PathLike[str] | None) -> Path:
    """The solver's verdict cache that goes with a games database: in the
    same folder, or beside the default one for None and ``:memory:``, or in
    the user data folder when the default is ``:memory:`` too
    (``TERRACE_DB=:memory:``), never in the current directory."""
    default = games_path(default_games_path())  # None for TERRACE_DB=:memory:
    games = default if games_db is None else games_path(games_db) or default
    folder = data_folder() if games is None else games.parent
    return folder / VERDICTS_FILE_NAME


def no_new_file(folder: str | os.PathLike[str]) -> str | None:
    """Why no new file can be made in ``folder`` (the system's reason, such
    as "Read-only file system"), or None when one can: SQLite says only
    "unable to open database file"."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return str(error.strerror or error)
    return None


def label(path: str | os.PathLike[str]) -> str:
    """How messages name a database file: its name only, never the folders
    above it (a message may be shown in a browser), a newline or another
    control character in it escaped (the message stays one line), and
    clipped as anyone's input is (a name of 60,000 characters made "cannot
    read sss…: File name too long" one line too long, shown without why).

    >>> label("/home/ann/.local/share/terrace/games.sqlite"), label("/tmp/my\\ngames.sqlite")
    ('games.sqlite', 'my\\\\ngames.sqlite')
    >>> len(label("s" * 60_000))
    200
    """
    text = str(path)
    return text if text == MEMORY else clip(Path(text).name or text)


def given_label(given: str | os.PathLike[str], file: str | os.PathLike[str]) -> str:
    """How messages name a database the user gave as ``given`` whose file,
    symbolic links followed, is ``file``: by what the user gave, and where
    it points when that file goes by another name.

    >>> given_label("games.sqlite", "games.sqlite"), given_label("link.sqlite", "/srv/real.sqlite")
    ('games.sqlite', 'link.sqlite (a link to real.sqlite)')
    """
    name, target = label(given), label(file)
    return name if target == name else f"{name} (a link to {target})"
