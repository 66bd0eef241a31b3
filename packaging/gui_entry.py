"""Entry script of the packaged `aesthete-gui` desktop app (PyInstaller needs a file to start from)."""

import multiprocessing

from aesthete_gui.app import main

if __name__ == "__main__":
    # the import uses a process pool: in the frozen app its workers re-enter this script
    multiprocessing.freeze_support()
    raise SystemExit(main())
