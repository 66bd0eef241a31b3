"""Services shared by the CLI and the GUI: each long operation takes progress and cancel."""
