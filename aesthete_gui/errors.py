"""The base of every error a user can act on: shown as one message (CLI: one line, exit 2; GUI: a dialog).

Anything that is not an `AestheteError` is a bug and keeps its traceback. Each layer defines its own
subclasses (the profile: `store.errors.ProfileError`; the CLI: `cli.UserError`) and writes the
message so that it says what went wrong and what to do about it.
"""

from __future__ import annotations


class AestheteError(Exception):
    """A problem the user can fix (bad input, a damaged or read-only file, a full disk, a server down)."""
