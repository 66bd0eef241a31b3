"""`python -m aesthete_gui` starts the desktop app."""

from aesthete_gui.app import main

if __name__ == "__main__":
    raise SystemExit(main())
