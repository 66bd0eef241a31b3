"""Write a small text file atomically: a reader sees the old file or the complete new one."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_text_atomically(path: str | os.PathLike[str], text: str, durable: bool = True) -> Path:
    """Write `text` (UTF-8) to a temporary file beside `path`, flush it to disk, then rename it over
    `path`; the temporary file is removed when anything fails (OSError is raised). A replaced file
    keeps its permission bits; a new one gets 0644. `durable=False` skips the fsync (settings
    written on every click: still never partial, only possibly the previous version after a power
    cut). Returns the path written."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o644
    # a short temporary name: any target name that fits the file system, fits here too
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".aesthete-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target
