"""Importing folders into a real profile: bad input, re-import, moves, vanished files, XMP, bursts, cancel."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import traceback
from pathlib import Path

import pytest

from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.services import library_passes, library_pool
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import Profile, open_profile
from tests.services.library_images import write_bad_inputs, write_jpeg


def test_a_photograph_edited_in_place_is_checked_and_scored_again(profile: Profile, tmp_path: Path) -> None:
    # third attack: a frame blurred in place and imported again kept its old "focus ok" check, its
    # old properties and its old built-in score (3.67, above sharp frames; a fresh profile gave 1.25)
    from PIL import Image, ImageFilter
    from skimage import data as skdata

    from aesthete_gui.services.scoring import BUILTIN, score_library

    folder = tmp_path / "shoot"
    folder.mkdir()
    Image.fromarray(skdata.astronaut()).save(folder / "a.jpg", quality=92)
    Image.fromarray(skdata.coffee()).save(folder / "b.jpg", quality=92)
    import_folders(profile, [folder], workers=1)
    score_library(profile, BUILTIN)
    ids = {Path(i.path).name: i.id for i in profile.catalog.images()}
    before = profile.scores.of_scorer(BUILTIN)[ids["a.jpg"]]["overall"]
    assert ids["a.jpg"] not in profile.checks.suggested_rejects()
    with Image.open(folder / "a.jpg") as img:
        img.convert("RGB").filter(ImageFilter.GaussianBlur(12)).save(folder / "a.jpg", quality=92)
    os.utime(folder / "a.jpg", ns=(1, 3_000_000_000))
    again = import_folders(profile, [folder], workers=1)
    assert (again.imported, again.unchanged) == (1, 1)
    assert ids["a.jpg"] in profile.checks.suggested_rejects()  # its checks measured the new pixels
    assert ids["a.jpg"] not in profile.scores.of_scorer(BUILTIN)  # the old score is gone, not kept
    assert ids["b.jpg"] in profile.scores.of_scorer(BUILTIN)  # the unchanged frame keeps its own
    score_library(profile, BUILTIN)
    assert profile.scores.of_scorer(BUILTIN)[ids["a.jpg"]]["overall"] < before - 1.0


EXPECTED_ERRORS = {
    "truncated": "truncated",
    "corrupt": "corrupt",
    "zero_bytes": "empty file",
    "random_bytes": "not an image",
    "bomb": "decompression bomb",
    "broken_symlink": "broken symbolic link",
    "non_utf8_name": "not valid UTF-8",
}
DECODED_FINE = ("tiff_16bit", "cmyk", "animated_gif", "wrong_extension")


@pytest.fixture
def profile(tmp_path: Path):
    opened = open_profile(tmp_path / "profile.db")
    yield opened
    opened.close()


def _shoot(folder: Path, count: int, start: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [write_jpeg(folder / f"IMG_{n:04d}.jpg", seed=n) for n in range(start, start + count)]


@pytest.mark.parametrize("workers", [1, 2])
def test_every_bad_input_is_recorded_with_a_reason_and_the_import_goes_on(
    profile: Profile, tmp_path: Path, workers: int
) -> None:
    cases = write_bad_inputs(tmp_path / "shoot")
    _shoot(tmp_path / "shoot" / "good", 3)
    summary = import_folders(profile, [tmp_path / "shoot"], workers=workers)
    by_path = {i.path: i for i in profile.catalog.images()}
    for case, fragment in EXPECTED_ERRORS.items():
        image = by_path[cases[case]]
        assert image.status == "error", case
        assert fragment in image.error, (case, image.error)
    for case in DECODED_FINE:
        image = by_path[cases[case]]
        assert image.status == "ok" and image.error is None, (case, image.error)
        assert image.thumb_path and Path(image.thumb_path).is_file()
    assert "first frame" in " ".join(by_path[cases["animated_gif"]].exif["notes"])
    assert "content is PNG" in " ".join(by_path[cases["wrong_extension"]].exif["notes"])
    assert len(profile.catalog.images(status="ok")) == 3 + len(DECODED_FINE)
    assert summary.errors == len(EXPECTED_ERRORS) and summary.found == len(cases) + 3
    assert profile.integrity_check() == "ok"


def test_file_deleted_mid_import_is_recorded_and_later_marked_missing(profile: Profile, tmp_path: Path) -> None:
    files = _shoot(tmp_path / "shoot", 5)
    victim = files[-1]

    def delete_a_later_file(_: Progress) -> None:
        if victim.exists():
            victim.unlink()

    summary = import_folders(profile, [tmp_path / "shoot"], progress=delete_a_later_file, workers=1)
    record = profile.catalog.image_by_path(str(victim))
    assert record.status in ("missing", "error") and "not found" in record.error
    assert summary.imported == 4
    again = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert again.unchanged == 4
    assert profile.catalog.image_by_path(str(victim)).status == "missing"


def test_reimport_of_unchanged_files_decodes_nothing(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _shoot(tmp_path / "shoot", 6)
    first = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert first.imported == 6
    ids = {i.path: i.id for i in profile.catalog.images()}

    def must_not_run(*_args: object) -> None:
        raise AssertionError("an unchanged file was read again")

    monkeypatch.setattr(library_passes, "process_file", must_not_run)
    again = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert (again.unchanged, again.imported, again.errors) == (6, 0, 0)
    monkeypatch.undo()
    # A changed file (new mtime and content) is read again; its id is kept.
    write_jpeg(files[2], seed=99)
    os.utime(files[2], ns=(1, 2_000_000_000))
    third = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert (third.unchanged, third.imported) == (5, 1)
    assert {i.path: i.id for i in profile.catalog.images()} == ids
    assert profile.catalog.image_count() == 6


def test_moved_file_keeps_its_id_and_marks_and_vanished_files_are_missing(
    profile: Profile, tmp_path: Path
) -> None:
    files = _shoot(tmp_path / "shoot", 4)
    import_folders(profile, [tmp_path / "shoot"], workers=1)
    moved_id = profile.catalog.image_by_path(str(files[0])).id
    profile.marks.set(moved_id, stars=5, flag="pick")
    (tmp_path / "shoot" / "selects").mkdir()
    new_path = tmp_path / "shoot" / "selects" / "renamed.jpg"
    files[0].rename(new_path)
    files[1].unlink()
    summary = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert (summary.moved, summary.missing, summary.imported) == (1, 1, 0)
    moved = profile.catalog.image_by_path(str(new_path))
    assert moved.id == moved_id and moved.status == "ok"
    assert profile.marks.get(moved_id).stars == 5
    assert profile.catalog.image_by_path(str(files[0])) is None
    assert profile.catalog.image_by_path(str(files[1])).status == "missing"
    assert profile.catalog.image_count() == 4


def test_xmp_ratings_are_read_on_import_and_profile_marks_win(profile: Profile, tmp_path: Path) -> None:
    files = _shoot(tmp_path / "shoot", 2)
    (tmp_path / "shoot" / "IMG_0000.xmp").write_text(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4" xmp:Label="Green"/>'
        "</rdf:RDF></x:xmpmeta>",
        encoding="utf-8",
    )
    (tmp_path / "shoot" / "IMG_0001.jpg.xmp").write_text("broken <xml", encoding="utf-8")
    summary = import_folders(profile, [tmp_path / "shoot"], workers=1)
    first = profile.catalog.image_by_path(str(files[0]))
    mark = profile.marks.get(first.id)
    assert (mark.stars, mark.label, summary.marks_from_xmp) == (4, "Green", 1)
    second = profile.catalog.image_by_path(str(files[1]))
    assert second.status == "ok" and "sidecar unreadable" in " ".join(second.exif["notes"])
    assert summary.sidecar_problems == [(second.path, second.exif["notes"][-1])]
    assert all(not i.path.endswith(".xmp") for i in profile.catalog.images())


def test_frames_shot_in_quick_succession_form_a_burst(profile: Profile, tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    burst = [write_jpeg(shoot / f"B_{n}.jpg", seed=7, when="2024:05:01 10:00:00", subsec=f"{n * 2}0")
             for n in range(4)]  # fmt: skip
    write_jpeg(shoot / "later.jpg", seed=50, when="2024:05:01 11:30:00")
    summary = import_folders(profile, [shoot], workers=1)
    assert summary.bursts == 1
    [group] = profile.catalog.bursts()
    assert [profile.catalog.image_by_id(i).path for i in group.image_ids] == [str(p) for p in burst]
    assert profile.catalog.image_by_path(str(burst[1])).capture_time.endswith("00:00.200000")


def test_cancel_leaves_a_consistent_profile_and_a_rerun_completes(profile: Profile, tmp_path: Path) -> None:
    _shoot(tmp_path / "shoot", 24)
    token = CancelToken()

    def cancel_soon(progress: Progress) -> None:
        if progress.done >= 1:
            token.cancel()

    summary = import_folders(profile, [tmp_path / "shoot"], progress=cancel_soon, cancel=token, workers=2)
    assert summary.cancelled
    assert 1 <= summary.imported < 24
    assert profile.integrity_check() == "ok"
    assert profile.catalog.images(status="missing") == []
    assert profile.runs.get(summary.run_id).status == "cancelled"
    rest = import_folders(profile, [tmp_path / "shoot"], workers=2)
    assert rest.unchanged == summary.imported and rest.imported == 24 - summary.imported
    assert profile.catalog.image_count() == 24


def test_import_of_a_missing_folder_is_refused(profile: Profile, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a folder"):
        import_folders(profile, [tmp_path / "nope"])
    assert profile.catalog.image_count() == 0


def test_hidden_sidecar_and_other_files_are_skipped_images_found_by_content(
    profile: Profile, tmp_path: Path
) -> None:
    shoot = tmp_path / "shoot"
    _shoot(shoot, 1)
    write_jpeg(shoot / "no_extension", seed=3)
    write_jpeg(shoot / ".hidden.jpg", seed=4)
    (shoot / ".cache").mkdir()
    write_jpeg(shoot / ".cache" / "x.jpg", seed=5)
    (shoot / "notes.txt").write_text("hello")
    (shoot / "clip.mov").write_bytes(b"\x00" * 100)
    (shoot / "unknown.dat").write_bytes(b"not an image at all")
    os.symlink(shoot, shoot / "loop")  # a symlink loop must not be walked twice
    import_folders(profile, [shoot], workers=1)
    assert sorted(Path(i.path).name for i in profile.catalog.images()) == ["IMG_0000.jpg", "no_extension"]


def _import_as_unprivileged_user(profile_path: Path, folder: Path) -> None:
    """Import `folder` as uid/gid 65534 in a forked child (root ignores permission bits).

    The child is a fork of this interpreter with every module already imported (the stdlib lives
    under /root, which `nobody` cannot read), and imports with one worker, in process.
    """
    warm_up = folder.parent / "warm"
    _shoot(warm_up, 1)
    scratch = open_profile(folder.parent / "warm.db")
    import_folders(scratch, [warm_up], workers=1)
    scratch.close()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, import, report through the exit status
        code = 1
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            child_profile = open_profile(profile_path)
            import_folders(child_profile, [folder], workers=1)
            child_profile.close()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_unreadable_file_is_recorded_with_permission_denied() -> None:
    # Outside pytest's tmp folders: their parents are private to root, and the child runs as nobody.
    base = Path(tempfile.mkdtemp(prefix="aesthete-perm-"))
    try:
        base.chmod(0o777)
        readable, locked = _shoot(base / "shoot", 2)
        locked.chmod(0)
        profile_path = base / "profile.db"
        if os.geteuid() == 0:
            _import_as_unprivileged_user(profile_path, base / "shoot")
        else:
            with open_profile(profile_path) as opened:
                import_folders(opened, [base / "shoot"], workers=1)
        opened = open_profile(profile_path)
        assert opened.catalog.image_by_path(str(readable)).status == "ok"
        record = opened.catalog.image_by_path(str(locked))
        assert record.status == "error" and "permission denied" in record.error
        opened.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _grandchildren() -> list[int]:
    """Pids of processes whose parent is a child of this process (the pool's worker processes)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    children = {pid for pid, parent in parents.items() if parent == os.getpid()}
    return [pid for pid, parent in parents.items() if parent in children]


def test_a_crashed_worker_process_does_not_lose_files(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _shoot(tmp_path / "shoot", 30)
    killed: list[int] = []
    pools: list[object] = []

    class CountedPool(library_pool.ProcessPoolExecutor):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            pools.append(self)

    monkeypatch.setattr(library_pool, "ProcessPoolExecutor", CountedPool)

    def kill_a_worker(progress: Progress) -> None:
        if progress.done == 2 and not killed:
            workers = _grandchildren()
            assert workers, "the pool's workers were not found"
            os.kill(workers[0], signal.SIGKILL)  # as the kernel's OOM killer or a codec crash would
            killed.append(workers[0])

    summary = import_folders(profile, [tmp_path / "shoot"], progress=kill_a_worker, workers=2)
    assert killed and len(pools) == 2  # the broken pool was replaced and its files retried
    assert (summary.imported, summary.errors) == (30, 0)
    assert len(profile.catalog.images(status="ok")) == 30
