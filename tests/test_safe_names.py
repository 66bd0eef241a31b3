"""Names from outside are checked before they become paths: separators of any platform, `..`, absolute
names and control characters are refused with the reason; long names are shortened the same way every time."""

from __future__ import annotations

import os

import pytest

from aesthete_gui.safe_names import (
    UnsafeName,
    check_name,
    check_relative,
    fit_name,
    name_problem,
    path_problem,
)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "empty"),
        (".", "names a folder"),
        ("..", "names a folder"),
        ("a/b.jpg", "folder separator"),
        ("x\\..\\..\\..\\ESCAPED.jpg", "folder separator"),
        ("IMG\x00.jpg", "control character"),
        ("IMG\n.jpg", "control character"),
        ("IMG\x1b[2J.jpg", "control character"),
        ("C:evil.jpg", "absolute"),
    ],
)
def test_a_name_that_would_leave_its_folder_is_refused_with_the_reason(name: str, reason: str) -> None:
    assert reason in (name_problem(name) or "")
    with pytest.raises(UnsafeName, match=f"student name .* cannot be used as a file name: .*{reason}"):
        check_name(name, "student name")


@pytest.mark.parametrize("name", ["IMG_0001.JPG", "8:30 ceremony.jpg", "été à Noël.heic", "a..b.jpg", ".hidden"])
def test_ordinary_names_pass(name: str) -> None:
    assert check_name(name, "name") == name


def test_a_relative_path_is_checked_part_by_part() -> None:
    assert check_relative("2024/06-12/IMG_0001", "name") == "2024/06-12/IMG_0001"
    for bad, part in [("2024/../../etc", ".."), ("/etc/passwd", "absolute"), ("a//b", "empty"), ("a/x\\y", "separator")]:
        with pytest.raises(UnsafeName, match=part):
            check_relative(bad, "the name made from the card file")


def test_a_long_name_is_shortened_with_a_stable_suffix_and_keeps_its_extension() -> None:
    long = "wedding_" + "é" * 150 + ".JPG"  # 310 bytes
    short = fit_name(long, 255, reserve=12)
    assert len(os.fsencode(short)) <= 243 and short.endswith(".JPG") and "~" in short
    assert short == fit_name(long, 255, reserve=12)  # the same name every time: a rerun finds its file
    other = fit_name("wedding_" + "é" * 151 + ".JPG", 255, reserve=12)
    assert other != short  # names sharing a long beginning stay apart
    short.encode("utf-8")  # never half a character
    assert fit_name("IMG_0001.JPG", 255) == "IMG_0001.JPG"


def test_a_path_past_the_system_limit_is_named() -> None:
    assert path_problem("/tmp/" + "a" * 200 + "/IMG.jpg") is None
    assert "longer than" in (path_problem("/tmp/" + "/".join(["b" * 200] * 25)) or "")
    assert "longer than 255 bytes" in (path_problem("/tmp/" + "c" * 300) or "")
