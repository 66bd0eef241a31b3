"""Faults during an import: a failing file becomes its error row, and the run always records how it ended."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.imaging.ingest import ingest_file
from aesthete_gui.jobs import Progress
from aesthete_gui.services import library_worker
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import Profile, open_profile
from tests.services.library_images import write_jpeg


@pytest.fixture
def profile(tmp_path: Path):
    opened = open_profile(tmp_path / "profile.db")
    yield opened
    opened.close()


def _shoot(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [write_jpeg(folder / f"IMG_{n}.jpg", seed=n) for n in range(count)]


def test_an_exception_while_processing_a_file_becomes_its_error_row(
    profile: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _shoot(tmp_path / "shoot", 3)

    def overflowing(path: str, *args: object, **kwargs: object) -> object:
        # fault injection: a failure the per-file step does not expect
        if path.endswith("IMG_1.jpg"):
            raise OverflowError("cannot convert float infinity to integer")
        return ingest_file(path, *args, **kwargs)

    monkeypatch.setattr(library_worker, "ingest_file", overflowing)
    summary = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert (summary.imported, summary.errors) == (2, 1)
    failed = profile.catalog.image_by_path(str(files[1]))
    assert failed.status == "error" and "unexpected error (OverflowError" in failed.error
    assert [run.status for run in profile.runs.all("import")] == ["done"]


def test_a_failing_import_ends_its_run_as_failed_and_the_next_one_completes(
    profile: Profile, tmp_path: Path
) -> None:
    _shoot(tmp_path / "shoot", 3)

    def broken_progress(progress: Progress) -> None:
        if progress.total and progress.done == 2:
            raise RuntimeError("the progress display failed")

    with pytest.raises(RuntimeError, match="progress display failed"):
        import_folders(profile, [tmp_path / "shoot"], progress=broken_progress, workers=1)
    [run] = profile.runs.all("import")
    assert run.status == "failed" and "RuntimeError: the progress display failed" in run.result["error"]
    summary = import_folders(profile, [tmp_path / "shoot"], workers=1)
    assert summary.imported + summary.unchanged == 3
    assert [r.status for r in profile.runs.all("import")] == ["failed", "done"]


def test_the_gui_import_job_runs_the_same_service_and_reports_unreadable_sidecars(
    profile: Profile, tmp_path: Path
) -> None:
    from aesthete_gui.qt.actions import describe_import, import_job

    files = _shoot(tmp_path / "shoot", 2)
    files[0].with_suffix(".xmp").write_text('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf='
                                            '"http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
                                            'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="1e400"/>'
                                            "</rdf:RDF></x:xmpmeta>")  # fmt: skip
    summary = import_job(profile, [str(tmp_path / "shoot")], tmp_path / "thumbs")
    assert summary.imported == 2 and profile.catalog.image_count() == 2
    assert describe_import(summary) == "Import done: 2 imported, 1 sidecar unreadable (left as it is)"
    assert [run.status for run in profile.runs.all("import")] == ["done"]


def test_a_rescan_leaves_out_a_folder_that_is_not_there_and_touches_none_of_its_photographs(tmp_path: Path) -> None:
    """An unplugged drive must not fail the whole rescan (F5, the re-measure after an upgrade), nor
    mark its photographs missing; a plain import of a folder that is not there still fails."""
    from aesthete_gui.qt.actions import describe_import

    here, away = tmp_path / "here", tmp_path / "drive"
    for folder, seed in ((here, 1), (away, 2)):
        folder.mkdir()
        write_jpeg(folder / "a.jpg", seed=seed)
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [here, away], workers=1)
    away.rename(tmp_path / "unplugged")
    write_jpeg(here / "b.jpg", seed=3)
    with pytest.raises(FileNotFoundError, match="not a folder"):
        import_folders(profile, [here, away], workers=1)
    summary = import_folders(profile, [here, away], workers=1, skip_missing=True)
    assert summary.folders_not_found == [str(away)] and summary.imported == 1 and summary.missing == 0
    assert {i.status for i in profile.catalog.images()} == {"ok"} and len(profile.catalog.images()) == 3
    assert describe_import(summary) == "Import done: 1 imported, 1 unchanged, 1 folder not found (its photographs untouched)"
    profile.close()
