"""How a command stopped by Ctrl+C ends, in a module that imports
nothing, so that :mod:`terrace.cli` can end that way even while its own
modules load (see :mod:`terrace.cli.errors` for every other ending)."""

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl+C (128 + SIGINT)."""

STOPPED = "stopped: interrupted (Ctrl+C)"
"""What a command stopped by Ctrl+C says on standard error."""
