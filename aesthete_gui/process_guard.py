"""Helper processes that end when the Aesthete process that started them dies (kill -9 included).

Pool workers wait for work on a pipe that nobody closes when their parent is killed, and the fork
server outlives its parent because the workers hold its "alive" pipe open; without help they stay
for hours. On Linux the kernel can signal a process when its parent dies (`PR_SET_PDEATHSIG`); a
thread watching `os.getppid()` does the same job where that is missing.

Pool workers call `exit_with_parent` as their initializer: they are killed with their parent. The
fork server (which forks the workers, so it must stay single-threaded) imports
`aesthete_gui.forkserver_guard`, which calls `guard_fork_server`: the kernel sends it SIGUSR1 when
the *thread* that started it ends (a GUI job thread, say) as well as when its parent process dies,
so the handler exits only when the parent really is gone (its parent id changed). Once the fork
server is gone its workers follow, and the resource tracker, which waits for every holder of its
pipe to close it, ends last.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 0.5
_server_pid: int | None = None
_server_parent: int | None = None


def set_parent_death_signal(signum: int) -> bool:
    """Ask the kernel to send `signum` to this process when its parent dies; True when it could."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def exit_with_parent() -> None:
    """Pool initializer: this worker is killed when the process that started it dies."""
    parent = os.getppid()
    set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent or parent == 1:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _parent_gone(_signum: int, _frame: object) -> None:
    if os.getpid() == _server_pid and os.getppid() != _server_parent:
        os._exit(0)


def guard_fork_server() -> None:
    """In the fork server: exit when the Aesthete process that started it dies (see the module docstring)."""
    global _server_pid, _server_parent
    _server_pid, _server_parent = os.getpid(), os.getppid()
    with contextlib.suppress(ValueError, OSError):  # not the main thread: nothing to arm
        signal.signal(signal.SIGUSR1, _parent_gone)
        set_parent_death_signal(signal.SIGUSR1)
