"""Stored checks, bound to the current checks version, and suggested rejects as a state of their own
beside the user's marks."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.store import ImageUpdate, Profile, open_profile

REJECT = [{"name": "focus", "value": 0.5, "verdict": "reject", "reason": "even the sharpest part of the frame is soft"}]
OK = [{"name": "focus", "value": 3.5, "verdict": "ok", "reason": "subject sharp (3.50)"}]


def _images(profile: Profile, tmp_path: Path, n: int) -> list[int]:
    updates = [ImageUpdate(path=str(tmp_path / f"{i}.jpg"), folder_id=None, status="ok") for i in range(n)]
    return profile.catalog.write_images(updates)


def test_checks_answer_for_the_current_version_only(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db", checks_version=lambda: "2.1")
    a, b = _images(profile, tmp_path, 2)
    faces = [{"box": [0.1, 0.2, 0.3, 0.4], "eyes": "open"}]
    profile.checks.put_many([(a, "2.1", REJECT, faces, "reject"), (b, "1.1", REJECT, [], "reject")])
    assert profile.checks.version == "2.1"
    assert profile.checks.get(a) == (REJECT, faces)
    assert profile.checks.get(b) is None  # measured by an older version: not checked until a rescan
    assert profile.checks.checked_ids() == {a}
    assert profile.checks.rejected_ids() == {a}
    assert profile.checks.suggested_rejects() == {a}
    assert profile.checks.all() == {a: (REJECT, faces)}
    profile.close()


def test_the_real_checks_version_is_the_default(profile: Profile) -> None:
    from aesthete_gui.imaging.checks import checks_version

    assert profile.checks.version == checks_version()


def test_suggestions_never_overwrite_and_yield_to_user_marks(profile: Profile, tmp_path: Path) -> None:
    a, b, c, d = _images(profile, tmp_path, 4)
    current = profile.checks.version
    profile.checks.put_many([(a, current, REJECT, [], "reject"), (b, current, REJECT, [], "reject"),
                             (c, current, REJECT, [], "reject"), (d, current, OK, [], "ok")])  # fmt: skip
    profile.marks.set(b, flag="pick")
    assert profile.checks.suggested_rejects() == {a, c}
    assert profile.marks.get(b).flag == "pick"  # the user's own mark stays
    assert profile.marks.get(a).flag is None  # a suggestion is not a mark (XMP sees none)
    profile.checks.dismiss_suggestions([c])
    assert profile.checks.suggested_rejects() == {a}
    profile.checks.restore_suggestions([c])
    assert profile.checks.suggested_rejects() == {a, c}
