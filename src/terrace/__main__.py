"""``python -m terrace`` runs the command line."""

from terrace.cli import main

main()
