"""Entry script of the packaged `aesthete` command-line tool (PyInstaller needs a file to start from)."""

from aesthete_gui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
