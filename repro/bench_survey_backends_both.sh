#!/bin/sh
# Defect: bench/survey.py --help says "--backends: local, cluster or both." but
# "--backends both" (and any misspelt backend) ended in a KeyError traceback,
# after the table's header was printed.
cd "$(dirname "$0")/.." && .venv/bin/python bench/survey.py --deals 1-1 --max-seconds 1 --repeats 1 \
    --workers 1 --backends both 2>&1 | tail -3
.venv/bin/python bench/survey.py --deals 1-1 --max-seconds 1 --repeats 1 --workers 1 --backends locl 2>&1 | tail -3
