"""`python -m aesthete_gui.cli` runs the `aesthete` command line (as the console script does)."""

from aesthete_gui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
