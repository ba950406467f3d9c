"""`python -m tritoncfg` runs the CLI."""

from tritoncfg.cli.main import main

main()
