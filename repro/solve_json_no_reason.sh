#!/bin/sh
# Defect: `terrace solve` says why an unknown result ran out ("budget ran out:
# nodes"), `terrace solve --json` did not: a script could not tell a time
# budget from a node or memory cap. Now the JSON carries "reason".
cd "$(dirname "$0")/.." || exit 1
export XDG_DATA_HOME="${XDG_DATA_HOME:-/tmp/att_xdg}"
.venv/bin/terrace solve -n 7 --max-nodes 1
.venv/bin/terrace solve -n 7 --max-nodes 1 --json; echo
