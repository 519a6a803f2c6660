#!/bin/sh
# Defect: Ctrl+C on `terrace solve` / `hint` / `deal --winnable` ended with
# click's "Aborted!" and exit status 1 (the status of an error), while
# `terrace survey` ends with "stopped: ..." and 130. A script could not tell
# an interrupted solve from a failed one. (sig_harness.py resets SIGINT to
# its default: a background job of a non-interactive shell ignores it.)
cd "$(dirname "$0")/.." || exit 1
export XDG_DATA_HOME="${XDG_DATA_HOME:-/tmp/att_xdg}"
.venv/bin/python repro/sig_harness.py INT 2 solve -v admirals-patience -n 6 --json --max-seconds 60
.venv/bin/python repro/sig_harness.py INT 2 hint -v admirals-patience -n 6 --json --seconds 60 --samples 1000
