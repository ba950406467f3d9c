"""`python -m tritoncfg` runs the CLI."""

from tritoncfg.cli.app import main

main()
