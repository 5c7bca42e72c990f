"""``python -m imago`` runs the command line."""

from imago.cli.app import main

main()
