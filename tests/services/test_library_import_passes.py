"""An import reads thumbnails first and measures checks and faces after: the grid can be browsed
before the verdicts are in, and the verdicts are announced as they are stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.services import library_passes
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import Profile, open_profile
from tests.services.library_images import write_jpeg


@pytest.fixture
def profile(tmp_path: Path):
    opened = open_profile(tmp_path / "profile.db")
    yield opened
    opened.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_thumbnails_are_in_before_the_checks_and_every_image_is_checked(profile: Profile, tmp_path: Path, workers: int) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(6):
        write_jpeg(shoot / f"IMG_{n}.jpg", seed=n)
    seen: list[tuple[str, int, int]] = []  # (event, images stored, images checked) when each arrived

    def record(event: object) -> None:
        checked = len(profile.checks.checked_ids())
        seen.append((type(event).__name__, profile.catalog.image_count(status="ok"), checked))

    unsubscribe = profile.events.subscribe(record)
    try:
        summary = import_folders(profile, [shoot], workers=workers)
    finally:
        unsubscribe()
    stored = [entry for entry in seen if entry[0] == "ImagesChanged"]  # one per batch of the first pass
    assert stored[-1] == ("ImagesChanged", 6, 0)  # the grid is complete, no verdict yet
    measured = [entry for entry in seen if entry[0] == "ChecksMeasured"]
    assert measured and measured[-1][2] == 6
    assert profile.checks.checked_ids() == {i.id for i in profile.catalog.images()}
    assert 0 < summary.browsable_seconds <= summary.checked_seconds <= summary.seconds


def test_only_the_checks_run_again_when_they_changed(profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"IMG_{n}.jpg", seed=n)
    import_folders(profile, [shoot], workers=1)
    profile.conn.execute("DELETE FROM image_checks")  # as after a new version of the checks

    def must_not_run(*_args: object) -> None:
        raise AssertionError("a thumbnail was made again")

    monkeypatch.setattr(library_passes, "process_file", must_not_run)
    summary = import_folders(profile, [shoot], workers=1)
    assert (summary.unchanged, summary.imported) == (3, 0)
    assert len(profile.checks.checked_ids()) == 3


def test_a_file_whose_checks_cannot_be_measured_is_reported_and_stays_unchecked(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    files = [write_jpeg(shoot / f"IMG_{n}.jpg", seed=n) for n in range(2)]
    real = library_passes.check_file

    def vanishing(path: str) -> object:
        if path.endswith("IMG_1.jpg"):
            Path(path).unlink()  # gone between the two passes
        return real(path)

    monkeypatch.setattr(library_passes, "check_file", vanishing)
    summary = import_folders(profile, [shoot], workers=1)
    assert summary.imported == 2
    assert [Path(p).name for p, _ in summary.problems] == ["IMG_1.jpg"]
    assert "checks not measured" in summary.problems[0][1]
    checked = profile.checks.checked_ids()
    assert checked == {profile.catalog.image_by_path(str(files[0])).id}
