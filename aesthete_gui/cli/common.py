"""Helpers the sub-commands share: the profile named on the command line, the images named on it,
the one filter every line the CLI prints goes through, the progress bar, Ctrl-C as Cancel and the
`--shoot-type` option."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from aesthete_gui.cli import EXIT_INTERRUPTED, UserError
from aesthete_gui.imaging.shoot_types import shoot_types
from aesthete_gui.imaging.verdict_models import VerdictModelError
from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.safe_text import terminal_lines, terminal_text

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def open_cli_profile(args: argparse.Namespace, *, must_exist: bool = True) -> Profile:
    """The profile `--profile` names (or the default one); a ProfileError says why it cannot be used.

    Marks set through it are attributed to the command line in the mark history. `must_exist`: every
    command but those that bring photographs in (import, ingest, judge --save) refuses a named
    profile that is not there (store.NoProfileError) instead of making a new, empty profile at a
    mistyped path and answering as if the library were empty; the default profile is made on first use."""
    from aesthete_gui.settings import default_profile_path, resolve_profile_path
    from aesthete_gui.store import open_profile

    path = resolve_profile_path(args.profile)
    try:
        return open_profile(path, actor="cli", create=not must_exist or path == default_profile_path())
    except OSError as error:
        raise UserError(f"cannot open the profile: {error}") from error


@contextmanager
def saved_profile(args: argparse.Namespace) -> Iterator[Profile | None]:
    """The opened profile when `--save` asks to keep results (closed afterwards), else None."""
    if not args.save:
        yield None
        return
    profile = open_cli_profile(args, must_exist=False)  # a judgment of files named on the command line
    try:
        yield profile
    finally:
        profile.close()


def not_in_library(given: str, message: str) -> str:
    """Why `given` has no image in the profile: not an image at all, or not imported yet."""
    from pathlib import Path

    from aesthete_gui.services.library_scan import IMAGE_EXTENSIONS

    suffix = Path(given).suffix.lower()
    if suffix and not given.isdigit() and suffix not in IMAGE_EXTENSIONS:
        return f"{terminal_text(given)} is not an image (Aesthete reads JPEG, PNG, TIFF, WebP, HEIC and camera RAW files)"
    return f"{message} (import its folder first)"


def library_image_ids(profile: Profile, names: Sequence[str]) -> list[int]:
    """The image ids of images named on the command line (an id, a stored path, or a path on disk
    relative to the current folder), resolved the same way by every command; UserError names the
    first one that is not in the library."""
    from aesthete_gui.services.library import resolve_image

    ids = []
    for name in names:
        try:
            ids.append(resolve_image(profile, name))
        except KeyError as error:
            raise UserError(not_in_library(name, error.args[0])) from error
    return ids


class TerminalSafeStream:
    """A text stream that escapes control, escape and bidirectional characters in everything written
    (tabs and line endings kept): what the CLI prints cannot move the cursor, recolour or clear the
    terminal, or reorder a line, whichever command printed it."""

    def __init__(self, stream: TextIO, name: str = "") -> None:
        self._stream = stream
        self._name = name  # "stdout" / "stderr": after `detach()`, follow whatever sys.<name> is then
        self._detached = False

    @property
    def unfiltered(self) -> TextIO:
        """The stream written to: the wrapped one, or after `detach()` the current sys.<name>."""
        if self._detached:
            current = getattr(sys, self._name, None)
            if current is not None and current is not self:
                return current
        return self._stream

    def detach(self) -> None:
        """Stop holding the wrapped stream: a logging handler created while the CLI ran (transformers
        makes one on first use) keeps writing to the process's current stream, not a closed one."""
        self._detached = bool(self._name)

    def write(self, text: str) -> int:
        self.unfiltered.write(terminal_lines(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self.unfiltered, name)


@contextmanager
def terminal_safe_output() -> Iterator[None]:
    """While inside, sys.stdout and sys.stderr escape what they are given (TerminalSafeStream)."""
    previous = sys.stdout, sys.stderr
    wrappers = TerminalSafeStream(sys.stdout, "stdout"), TerminalSafeStream(sys.stderr, "stderr")
    sys.stdout, sys.stderr = wrappers
    try:
        yield
    finally:
        sys.stdout, sys.stderr = previous
        for wrapper in wrappers:
            wrapper.detach()


def write_progress(stream: TextIO, text: str) -> None:
    """Redraw a one-line progress message in place: a carriage return, then `text` escaped."""
    target = getattr(stream, "unfiltered", stream)
    target.write("\r" + terminal_text(text))
    target.flush()


def pass_name(message: str) -> str:
    """The pass a progress message names, without the file or count after it: "reading IMG_1.JPG"
    gives "reading", "student epoch 3/50" "student epoch", "image properties and embeddings" all of it."""
    words = []
    for word in message.split():
        if any(c.isdigit() or c in "/.\\" for c in word):
            break
        words.append(word)
    return " ".join(words).rstrip(":,;") or message.split(" ", 1)[0]


class ProgressBar:
    """A one-line progress bar on stderr (redrawn at most ten times a second)."""

    def __init__(self, stream: Any = None, silent: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.silent = silent  # --json: stderr carries errors only
        self.last = 0.0
        self.drawn = False
        self.last_line = ""

    def __call__(self, progress: Progress) -> None:
        if self.silent:
            return
        now = time.monotonic()
        final = progress.total is not None and progress.done >= progress.total
        if not self._terminal():
            # a log file or a pipe: no redrawn line (one enormous line of carriage returns), only
            # each pass's end, on a line of its own
            line = f"{progress.done}/{progress.total} {terminal_text(pass_name(progress.message))}\n"
            if final and progress.total and line != self.last_line:
                self.stream.write(line)
                self.stream.flush()
                self.last_line = line
            return
        if now - self.last < 0.1 and not final:
            return
        self.last = now
        if progress.total:
            filled = int(30 * progress.done / progress.total)
            # the message says which pass this is ("reading …", "checking …"): a bare bar read as
            # two anonymous bars on an import
            text = f"[{'#' * filled}{'.' * (30 - filled)}] {progress.done}/{progress.total} {terminal_text(progress.message)}"
        else:
            text = terminal_text(progress.message)
        write_progress(self.stream, text[:100].ljust(100))
        self.drawn = True

    def _terminal(self) -> bool:
        target = getattr(self.stream, "unfiltered", self.stream)
        try:
            return bool(target.isatty())
        except (AttributeError, ValueError):
            return False

    def close(self) -> None:
        """End the bar's line."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


@contextmanager
def ctrl_c_cancels(token: CancelToken) -> Iterator[None]:
    """First Ctrl-C cancels the job (it stops cleanly); a second one interrupts at once."""

    def handle(_signum: int, _frame: Any) -> None:
        if token.cancelled:
            raise KeyboardInterrupt
        token.cancel()
        sys.stderr.write("\naesthete: stopping after the files in progress (Ctrl-C again to abort)\n")

    try:
        previous = signal.signal(signal.SIGINT, handle)
    except ValueError:  # not the main thread: no signal handling, the token still works
        yield
        return
    try:
        yield
    finally:
        # after a cancel the program winds down (worker processes joined, the profile closed); a second
        # Ctrl-C there raised in the interpreter's shutdown ("Exception ignored" and a traceback)
        signal.signal(signal.SIGINT, _exit_at_once if token.cancelled else previous)


def _exit_at_once(_signum: int, _frame: Any) -> None:
    """A second Ctrl-C while a cancelled command winds down: stop now, quietly (every write of ours is
    atomic or a committed transaction, so nothing is left half-written)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.write("aesthete: interrupted\n")
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def add_shoot_type_option(parser: argparse.ArgumentParser) -> None:
    """`--shoot-type NAME`: the profile's shoot type from now on (remembered, as in the window). An
    unreadable shoot types file leaves the choices open: the command says what is wrong when it judges."""
    try:
        kinds = shoot_types()
    except VerdictModelError:
        parser.add_argument("--shoot-type", metavar="TYPE", default=None, help="the kind of shoot (the shoot types file is unreadable)")
        return
    parser.add_argument(
        "--shoot-type", choices=list(kinds), metavar="TYPE", default=None,
        help="the kind of shoot, which decides which checks matter and how strict they are: "
             + ", ".join(f"{name} ({kind.label})" for name, kind in kinds.items())
             + "; remembered for the profile (the window's Culling ▸ Shoot type); default: the profile's, else general",
    )  # fmt: skip


def up_to_date(profile: Profile, judge: bool = True) -> None:
    """After an update of Aesthete: group the bursts again when grouping changed (from the stored
    thumbnails, made again from the files where the cache dropped them), else judge the stored
    measurements again when judging changed, saying so first on stderr (a large library takes a
    while). judge=False: the command judges itself next (recheck, a --shoot-type)."""
    from aesthete_gui.services.library_upkeep import grouping_outdated, regroup_bursts
    from aesthete_gui.services.verdicts import rejudge_library, verdicts_outdated
    from aesthete_gui.settings import thumbnail_cache_dir
    from aesthete_gui.store import ProfileError

    try:
        if grouping_outdated(profile):
            print("aesthete: grouping the bursts again for this version of Aesthete…", file=sys.stderr)
            regroup_bursts(profile, thumbnail_cache_dir(profile.path), judge=judge)
        elif judge and verdicts_outdated(profile):
            print("aesthete: judging the stored checks again for this version of Aesthete…", file=sys.stderr)
            rejudge_library(profile)
    except ProfileError as error:  # a read-only or busy profile still lists what it holds
        print(f"aesthete: bursts and verdicts shown as stored, not brought up to date for this version: {terminal_text(str(error))}",
              file=sys.stderr)  # fmt: skip


def use_shoot_type(profile: Profile, name: str | None) -> None:
    """Make `name` the profile's shoot type and judge the stored checks again under it (None: nothing)."""
    if name is None:
        return
    from aesthete_gui.services.verdicts import rejudge_library

    try:
        rejudge_library(profile, name)
    except OSError as error:
        raise UserError(f"could not remember the shoot type beside the profile: {error}") from error
