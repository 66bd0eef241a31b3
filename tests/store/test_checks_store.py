"""Stored checks, and suggested rejects as a state of their own beside the user's marks."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.store import ImageUpdate, Profile

REJECT = [{"name": "focus", "value": 0.5, "verdict": "reject", "reason": "even the sharpest part of the frame is soft"}]
OK = [{"name": "focus", "value": 3.5, "verdict": "ok", "reason": "subject sharp (3.50)"}]


def _images(profile: Profile, tmp_path: Path, n: int) -> list[int]:
    updates = [ImageUpdate(path=str(tmp_path / f"{i}.jpg"), folder_id=None, status="ok") for i in range(n)]
    return profile.write_images(updates)


def test_checks_round_trip_with_their_version(profile: Profile, tmp_path: Path) -> None:
    (a,) = _images(profile, tmp_path, 1)
    faces = [{"box": [0.1, 0.2, 0.3, 0.4], "eyes": "open"}]
    profile.put_checks_many([(a, "1.1", REJECT, faces, "reject")])
    assert profile.stored_checks(a) == (REJECT, faces)
    assert profile.stored_checks(a, "1.1") == (REJECT, faces)
    assert profile.stored_checks(a, "2.1") is None
    assert profile.checked_image_ids("1.1") == {a}
    assert profile.all_checks() == {a: (REJECT, faces)}


def test_suggestions_never_overwrite_and_yield_to_user_marks(profile: Profile, tmp_path: Path) -> None:
    a, b, c, d = _images(profile, tmp_path, 4)
    profile.put_checks_many([(a, "1", REJECT, [], "reject"), (b, "1", REJECT, [], "reject"),
                             (c, "1", REJECT, [], "reject"), (d, "1", OK, [], "ok")])  # fmt: skip
    profile.set_mark(b, flag="pick")
    assert profile.suggested_rejects() == {a, c}
    assert profile.mark_for(b).flag == "pick"  # the user's own mark stays
    assert profile.mark_for(a).flag is None  # a suggestion is not a mark (XMP sees none)
    profile.dismiss_suggestions([c])
    assert profile.suggested_rejects() == {a}
    profile.restore_suggestions([c])
    assert profile.suggested_rejects() == {a, c}


def test_accepting_suggestions_makes_rejects_and_undo_brings_them_back(profile: Profile, tmp_path: Path) -> None:
    a, b, c = _images(profile, tmp_path, 3)
    profile.put_checks_many([(i, "1", REJECT, [], "reject") for i in (a, b, c)])
    profile.set_mark(c, stars=3)  # marks without a flag: still suggested
    assert profile.accept_suggestions([a, c, 999]) == [a, c]
    assert profile.mark_for(a).flag == "reject"
    assert profile.mark_for(c).flag == "reject" and profile.mark_for(c).stars == 3
    assert profile.suggested_rejects() == {b}
    profile.unaccept_suggestions([a, c])
    assert profile.mark_for(c).flag is None and profile.mark_for(c).stars == 3
    assert profile.suggested_rejects() == {a, b, c}
    assert profile.accept_suggestions() == [a, b, c]
