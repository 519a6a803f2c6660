"""Reading a pickle that may have been made to do harm (:class:`AllowedUnpickler`).

Pickle runs whatever a pickle names: bytes that name ``os.system`` run a
command. :meth:`terrace.game.State.from_bytes` reads bytes that may come
from anywhere; their digest shows they were not changed by accident, but
anyone can write bytes with a right digest. So it reads them with an
unpickler that takes only the classes and functions it is given, looks
them up among the modules already imported (it imports none: importing a
module runs it), and refuses a pickle whose own instructions would make
the unpickler allocate more than the pickle's size (a memo index of four
billion, one opcode, fills a table of gigabytes before anything is read).

>>> import pickle
>>> AllowedUnpickler(pickle.dumps([1, {2: "x"}]), lambda found: False).load()
[1, {2: 'x'}]
>>> AllowedUnpickler(pickle.dumps(print), lambda found: False).load()
Traceback (most recent call last):
...
terrace.unpickling.NotAllowedError: builtins.print
"""

from __future__ import annotations

import io
import pickle
import pickletools
import sys
from collections.abc import Callable

_MEMO_PUTS = frozenset(("PUT", "BINPUT", "LONG_BINPUT"))
"""The opcodes that store into the memo at an index the pickle gives."""


class NotAllowedError(pickle.UnpicklingError):
    """The pickle names a class or function the reader does not take: its
    text is the name (``module.name``)."""


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle's instructions are cut short, unknown, or would make the
    unpickler allocate more than the pickle's size."""


def check_instructions(data: bytes) -> None:
    """Refuse (:class:`UnsafePickleError`) a pickle whose opcodes are not
    all whole and known, whose memo indexes go beyond the opcodes read so
    far (the unpickler sizes its memo table by the index), or whose frame
    is longer than what follows it. Lengths of bytes and text are checked
    by reading them (:func:`pickletools.genops` reads each whole), so none
    can ask for more than the pickle holds."""
    read = 0
    try:
        for opcode, argument, at in pickletools.genops(data):
            read += 1
            if opcode.name in _MEMO_PUTS and not (isinstance(argument, int) and 0 <= argument < read):
                raise UnsafePickleError(f"a memo index of {argument} after {read} opcodes")
            left = len(data) - (at or 0)
            if opcode.name == "FRAME" and not (isinstance(argument, int) and argument <= left):
                raise UnsafePickleError(f"a frame of {argument} bytes in {len(data)}")
    except UnsafePickleError:
        raise
    except Exception as error:  # (pickletools' ValueError of a cut or unknown opcode, say)
        raise UnsafePickleError(str(error)) from None


class AllowedUnpickler(pickle.Unpickler):
    """An unpickler of ``data`` (checked by :func:`check_instructions` first)
    that takes a global only when ``allows`` says yes to the object it
    names, found among the modules already imported (never importing one);
    any other is a :class:`NotAllowedError`."""

    def __init__(self, data: bytes, allows: Callable[[object], bool]) -> None:
        check_instructions(data)
        super().__init__(io.BytesIO(data))
        self._allows = allows

    def find_class(self, module: str, name: str) -> object:
        found: object = sys.modules.get(module)
        for part in name.split(".") if found is not None else ():
            found = getattr(found, part, None)
        if found is None or not self._allows(found):
            raise NotAllowedError(f"{module}.{name}"[:200])
        return found
