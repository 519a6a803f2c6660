"""How to add one of terrace's optional extras (``charts``, ``cluster``) to
the Python that runs it.

``pip install 'terrace[cluster]'`` asks PyPI for "terrace", which there is
another project (PyTorch utilities); the extra's own packages, pinned as
terrace's metadata pins them, installed by this Python's pip, are what the
extra adds.

>>> command = install_command("cluster")
>>> " -m pip install dask==" in command and " distributed==" in command
True
"""

from __future__ import annotations

import importlib.metadata
import re
import shlex
import sys


def extra_requirements(extra: str) -> list[str]:
    """The requirements terrace's installed metadata lists for ``extra``
    (empty when terrace is not installed, only imported from its folder)."""
    try:
        requires = importlib.metadata.requires("terrace") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    return [requirement.split(";", 1)[0].strip() for requirement in requires
            if ";" in requirement and marker.search(requirement.split(";", 1)[1])]


def install_command(extra: str) -> str:
    """The command that installs ``extra`` into this Python."""
    requirements = extra_requirements(extra)
    if not requirements:
        return f"pip install -e '.[{extra}]' in terrace's folder"
    return " ".join([shlex.quote(sys.executable), "-m", "pip", "install",
                     *(shlex.quote(requirement) for requirement in requirements)])
