"""``python -m strat_tools`` runs the command line."""

from strat_tools.cli import main

main()
