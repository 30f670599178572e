"""``python -m workbench``: the command-line interface."""

from workbench.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
