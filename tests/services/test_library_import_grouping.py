"""Burst grouping across imports: an unchanged library is not grouped again, what grouping learns
(colour signatures, pixel verdicts) is kept in the profile, and changes still regroup."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from aesthete_gui.services import library_bursts
from aesthete_gui.services.library import GROUPING_STATE, import_folders, regroup_bursts
from aesthete_gui.services.library_bursts import library_burst_groups
from aesthete_gui.services.library_upkeep import GROUPING_VERSION
from aesthete_gui.store import Profile, open_profile
from tests.imaging.conftest import photo
from tests.services.library_images import write_jpeg


@pytest.fixture
def profile(tmp_path: Path):
    opened = open_profile(tmp_path / "profile.db")
    yield opened
    opened.close()


def _crops(folder: Path) -> dict[str, Path]:
    """An untimed photograph, a crop of it saved smaller, and an unrelated photograph."""
    folder.mkdir(parents=True, exist_ok=True)
    original = photo((900, 600), "chelsea")
    files = {
        "original": (original, folder / "cat.jpg"),
        "crop": (original.crop((90, 60, 760, 560)).resize((402, 300), Image.Resampling.LANCZOS), folder / "cat_crop.jpg"),
        "other": (photo((900, 600), "coffee"), folder / "coffee.jpg"),
    }
    for img, path in files.values():
        img.save(path, quality=88)
    return {name: path for name, (_, path) in files.items()}


def _groups(profile: Profile) -> list[set[str]]:
    paths = {image.id: Path(image.path).name for image in profile.catalog.images()}
    return [{paths[i] for i in burst.image_ids} for burst in profile.catalog.bursts()]


def test_an_unchanged_library_is_not_grouped_again(profile: Profile, tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"B_{n}.jpg", seed=7, when="2024:05:01 10:00:00", subsec=f"{n * 2}0")
    first = import_folders(profile, [shoot], workers=1)
    before = [burst.id for burst in profile.catalog.bursts()]
    assert first.bursts == 1 and len(before) == 1
    fingerprint = profile.grouping.library_state(GROUPING_STATE)
    again = import_folders(profile, [shoot], workers=1)
    assert again.unchanged == 3 and again.bursts == 1
    assert [burst.id for burst in profile.catalog.bursts()] == before  # regrouping would have made a new burst
    assert profile.grouping.library_state(GROUPING_STATE) == fingerprint

    write_jpeg(shoot / "B_3.jpg", seed=7, when="2024:05:01 10:00:00", subsec="60")  # one more frame
    grown = import_folders(profile, [shoot], workers=1)
    assert grown.imported == 1 and _groups(profile) == [{"B_0.jpg", "B_1.jpg", "B_2.jpg", "B_3.jpg"}]
    (shoot / "B_3.jpg").unlink()
    (shoot / "B_2.jpg").unlink()
    (shoot / "B_1.jpg").unlink()  # a burst of one is no burst
    shrunk = import_folders(profile, [shoot], workers=1)
    assert shrunk.missing == 3 and profile.catalog.bursts() == []


def test_an_edited_burst_counts_as_a_change(profile: Profile, tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"B_{n}.jpg", seed=7, when="2024:05:01 10:00:00", subsec=f"{n * 2}0")
    import_folders(profile, [shoot], workers=1)
    ids = [image.id for image in profile.catalog.images()]
    stored = profile.grouping.library_state(GROUPING_STATE)
    profile.catalog.set_burst(ids[:2])  # the user makes a burst of their own
    assert profile.grouping.library_fingerprint() not in (stored or "")
    assert regroup_bursts(profile) == 0  # the third frame is alone: no automatic burst left
    assert [sorted(b.image_ids) for b in profile.catalog.bursts()] == [sorted(ids[:2])]


def test_signatures_and_pixel_verdicts_are_kept_in_the_profile(profile: Profile, tmp_path: Path) -> None:
    files = _crops(tmp_path / "shoot")
    summary = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert summary.bursts == 1 and _groups(profile) == [{"cat.jpg", "cat_crop.jpg"}]
    hashes = {Path(i.path).stem: i.content_hash for i in profile.catalog.images()}
    assert set(profile.grouping.signatures()) == set(hashes.values())
    verdicts = profile.grouping.crop_verdicts()
    pair = tuple(sorted((hashes["cat"], hashes["cat_crop"])))
    assert verdicts[pair] is True  # type: ignore[index]
    assert all(isinstance(v, bool) for v in verdicts.values())

    library_bursts._thumb_view.cache_clear()  # as in a new process: nothing in memory
    for path in {Path(i.thumb_path) for i in profile.catalog.images()}:
        path.unlink()  # and the thumbnails dropped from the cache: the verdicts still hold
    groups, matcher = library_burst_groups(profile)
    assert matcher.comparisons == 0
    assert [sorted(g) for g in groups] == [sorted(profile.catalog.image_by_path(str(files[k])).id for k in ("original", "crop"))]


def test_a_profile_without_signatures_measures_them_once(profile: Profile, tmp_path: Path) -> None:
    _crops(tmp_path / "shoot")
    import_folders(profile, [tmp_path / "shoot"], workers=1)
    stored = profile.grouping.signatures()
    profile.conn.execute("DELETE FROM colour_signatures")  # as an older profile would be ...
    profile.grouping.put_signatures([(next(iter(stored)), b"\x00" * 12)])  # ... with one damaged row
    groups, _ = library_burst_groups(profile)
    assert len(groups) == 1
    measured = profile.grouping.signatures()  # from the thumbnails: as the import measures them, give or take JPEG
    assert set(measured) == set(stored)
    assert all(abs(measured[h] - stored[h]).max() < 0.02 for h in stored)
    for image in profile.catalog.images():
        Path(image.thumb_path).unlink()
    library_burst_groups(profile)
    assert {h: v.tobytes() for h, v in profile.grouping.signatures().items()} == {h: v.tobytes() for h, v in measured.items()}


def test_a_comparison_remakes_a_thumbnail_dropped_from_the_cache(profile: Profile, tmp_path: Path) -> None:
    _crops(tmp_path / "shoot")
    cache = tmp_path / "thumbs"
    import_folders(profile, [tmp_path / "shoot"], workers=1, cache_dir=cache)
    profile.conn.execute("DELETE FROM crop_verdicts")  # nothing remembered ...
    library_bursts._thumb_view.cache_clear()
    for image in profile.catalog.images():
        Path(image.thumb_path).unlink()  # ... and no thumbnails: they are made again to compare
    groups, matcher = library_burst_groups(profile, cache)
    assert len(groups) == 1 and matcher.comparisons >= 1
    remade = {Path(image.path).name for image in profile.catalog.images() if Path(image.thumb_path).is_file()}
    assert {"cat.jpg", "cat_crop.jpg"} <= remade


def test_the_import_groups_in_one_of_its_worker_processes(profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aesthete_gui.services import library, library_upkeep

    _crops(tmp_path / "shoot")
    for n, seed in enumerate((3, 4, 5)):  # more frames, so that the pool starts
        write_jpeg(tmp_path / "shoot" / f"extra_{n}.jpg", seed=seed)
    tasks: list[str] = []
    real_run = library.WorkerPool.run

    def counted(self, items, task, *args, **kwargs):  # type: ignore[no-untyped-def]
        tasks.append(task.__name__)
        return real_run(self, items, task, *args, **kwargs)

    monkeypatch.setattr(library.WorkerPool, "run", counted)
    monkeypatch.setattr(library_upkeep, "GROUP_IN_WORKER_FROM", 2)  # as if the library were large
    library_bursts._thumb_view.cache_clear()
    summary = import_folders(profile, [tmp_path / "shoot"], workers=2)
    assert "group_profile" in tasks and library_bursts._thumb_view.cache_info().currsize == 0  # not compared here
    assert summary.bursts == 1 and _groups(profile) == [{"cat.jpg", "cat_crop.jpg"}]
    assert True in profile.grouping.crop_verdicts().values()  # what the worker learnt is in the profile


def test_an_import_during_grouping_leaves_the_library_due(profile: Profile, tmp_path: Path, monkeypatch) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(2):
        write_jpeg(shoot / f"B_{n}.jpg", seed=7, when="2024:05:01 10:00:00", subsec=f"{n * 2}0")
    import_folders(profile, [shoot], workers=1)
    late = tmp_path / "late"
    late.mkdir()
    write_jpeg(late / "B_2.jpg", seed=7, when="2024:05:01 10:00:00", subsec="40")
    landed: list[bool] = []

    def groups_then_an_import_lands(*args, **kwargs):
        found = library_burst_groups(*args, **kwargs)
        if not landed:  # another process's import finishes while this grouping runs
            landed.append(True)
            other = open_profile(profile.path)
            try:
                import_folders(other, [late], workers=1)
            finally:
                other.close()
        return found

    monkeypatch.setattr(library_bursts, "library_burst_groups", groups_then_an_import_lands)
    regroup_bursts(profile, force=True)
    monkeypatch.undo()
    assert len(profile.catalog.images()) == 3
    assert profile.grouping.library_state(GROUPING_STATE) != f"{GROUPING_VERSION}/{profile.grouping.library_fingerprint()}"
    regroup_bursts(profile)  # the next look sees the frame the import added and groups it
    assert _groups(profile) == [{"B_0.jpg", "B_1.jpg", "B_2.jpg"}]
