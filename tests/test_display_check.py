"""The GUI's pre-flight check: a clear message instead of Qt's abort when no screen can be opened."""

from __future__ import annotations

import subprocess
import sys

from aesthete_gui.display_check import XCB_LIBRARIES, display_problem


def _all_found(name: str) -> str:
    return f"lib{name}.so"


def test_no_display_is_a_clear_error_naming_the_ways_out() -> None:
    problem, settings = display_problem([], {}, "linux", _all_found)
    assert problem is not None and "no display found" in problem
    assert "QT_QPA_PLATFORM=offscreen" in problem and "--screenshot" in problem
    assert settings == {}


def test_a_screenshot_without_a_display_renders_offscreen() -> None:
    assert display_problem(["--screenshot", "x.png"], {}, "linux", _all_found) == (None, {"QT_QPA_PLATFORM": "offscreen"})


def test_missing_xcb_libraries_are_named_with_their_packages() -> None:
    present = {"xcb-icccm", "xcb-image"}
    problem, _ = display_problem([], {"DISPLAY": ":0"}, "linux", lambda n: f"lib{n}.so" if n in present else None)
    assert problem is not None
    for name, package in XCB_LIBRARIES.items():
        assert (package in problem) == (name not in present)
    assert "sudo apt-get install" in problem


def test_nothing_to_say_on_a_working_desktop_wayland_or_other_systems() -> None:
    assert display_problem([], {"DISPLAY": ":0"}, "linux", _all_found) == (None, {})
    assert display_problem([], {"WAYLAND_DISPLAY": "wayland-0"}, "linux", lambda n: None) == (None, {})
    assert display_problem([], {"QT_QPA_PLATFORM": "offscreen"}, "linux", lambda n: None) == (None, {})
    assert display_problem([], {}, "darwin", lambda n: None) == (None, {})
    assert display_problem([], {}, "win32", lambda n: None) == (None, {})


def test_the_entry_point_exits_2_with_the_message_and_no_qt_abort() -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    result = subprocess.run(
        [sys.executable, "-m", "aesthete_gui"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "no display found" in result.stderr
