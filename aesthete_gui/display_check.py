"""Before Qt starts: say clearly when there is no screen or X11 lacks the libraries Qt needs.

Without this, Qt aborts the process with a plugin message that does not name the fix.
"""

from __future__ import annotations

import ctypes.util
from collections.abc import Callable, Mapping, Sequence

XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0",
    "xcb-render-util": "libxcb-render-util0",
    "xkbcommon-x11": "libxkbcommon-x11-0",
}
"""Libraries Qt 6's X11 (xcb) platform plugin loads, with the Debian/Ubuntu package of each."""


def display_problem(
    argv: Sequence[str],
    environ: Mapping[str, str],
    platform: str,
    find_library: Callable[[str], str | None] = ctypes.util.find_library,
) -> tuple[str | None, dict[str, str]]:
    """(an error message or None, environment variables to set) for starting the GUI here."""
    if not platform.startswith("linux") or environ.get("QT_QPA_PLATFORM") not in (None, "", "xcb"):
        return None, {}
    has_x11 = bool(environ.get("DISPLAY"))
    has_wayland = bool(environ.get("WAYLAND_DISPLAY"))
    if not has_x11 and not has_wayland and not environ.get("QT_QPA_PLATFORM"):
        if "--screenshot" in argv:
            return None, {"QT_QPA_PLATFORM": "offscreen"}  # a screenshot needs no screen
        return (
            "aesthete-gui: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Start it from "
            "a desktop session; on a headless machine use --screenshot OUT.png, or set "
            "QT_QPA_PLATFORM=offscreen.",
            {},
        )
    if has_x11 and (not has_wayland or environ.get("QT_QPA_PLATFORM") == "xcb"):
        missing = [package for name, package in XCB_LIBRARIES.items() if find_library(name) is None]
        if missing:
            packages = " ".join(missing)
            return (
                f"aesthete-gui: Qt needs these X11 libraries to open a window: {packages}. Install them "
                f"(Debian/Ubuntu: sudo apt-get install {packages}) and start it again.",
                {},
            )
    return None, {}
