"""The command-line interface (Typer + Rich): option parsing and rendering, no logic."""
