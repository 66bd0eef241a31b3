"""A report is never written over the profile, a photograph, a sidecar or a database (an attack
replaced a photograph and the whole profile with a CSV through `export --output`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.services.library import export, import_folders
from aesthete_gui.services.output_guard import ProtectedOutputError, check_report_target
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def library(tmp_path: Path):
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(2):
        write_jpeg(shoot / f"IMG_{n}.JPG", seed=n)
    (shoot / "IMG_0.xmp").write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>", encoding="utf-8")
    profile = open_profile(tmp_path / "p.db")
    import_folders(profile, [shoot], workers=1)
    yield profile, shoot
    profile.close()


def test_export_refuses_photographs_sidecars_and_the_profiles_own_files(library, tmp_path: Path) -> None:
    profile, shoot = library
    (tmp_path / "alias.db").symlink_to(tmp_path / "p.db")
    os.link(shoot / "IMG_1.JPG", tmp_path / "hardlink.txt")
    protected = [shoot / "IMG_0.JPG", shoot / "IMG_0.xmp", tmp_path / "p.db", tmp_path / "alias.db",
                 tmp_path / "p.db-wal", tmp_path / "p.db.settings.json", shoot / "report.jpg", shoot]  # fmt: skip
    before = {p: _digest(p) for p in [*shoot.iterdir(), tmp_path / "p.db"] if p.is_file()}
    for target in protected:
        with pytest.raises(ProtectedOutputError, match="choose another file name"):
            export(profile, "csv", target)
    assert {p: _digest(p) for p in before} == before
    assert not (shoot / "report.jpg").exists()
    assert len(profile.catalog.image_ids()) == 2  # the profile still opens and holds its photographs


def test_a_previous_export_is_replaced_as_asked(library, tmp_path: Path) -> None:
    profile, _shoot = library
    out = tmp_path / "marks.csv"
    out.write_text("an older export\n", encoding="utf-8")
    result = export(profile, "json", out)
    assert result.destination == str(out) and out.read_text(encoding="utf-8").startswith("[")
    assert check_report_target(Path("relative.csv")) == Path.cwd() / "relative.csv"


def test_the_cli_says_why_in_one_line_and_changes_nothing(library, tmp_path: Path, capsys) -> None:
    profile, shoot = library
    profile.close()
    photo = shoot / "IMG_1.JPG"
    before = _digest(photo)
    assert main(["--profile", str(tmp_path / "p.db"), "export", "--format", "csv", "--output", str(photo)]) == 2
    assert "is a photograph" in capsys.readouterr().err and _digest(photo) == before
    assert main(["rank", "--output", str(photo), str(_pairs(tmp_path))]) == 2
    assert "is a photograph" in capsys.readouterr().err and _digest(photo) == before


def _pairs(tmp_path: Path) -> Path:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("a,b,winner\nx,y,a\ny,z,a\n", encoding="utf-8")
    return pairs


def test_a_full_disk_is_said_in_words_not_as_an_errno(library, tmp_path: Path, capsys, monkeypatch) -> None:
    import errno

    from aesthete_gui.services import output_guard

    profile, _shoot = library
    profile.close()

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output_guard, "write_temporary", full)
    out = tmp_path / "exports" / "marks.csv"
    out.parent.mkdir()
    assert main(["--profile", str(tmp_path / "p.db"), "export", "--format", "csv", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"destination is full: {out.parent}" in err and "Errno" not in err and not out.exists()


def test_what_a_file_is_counts_not_only_its_name(library, tmp_path: Path, capsys) -> None:
    # a second attack: another profile named without a suffix, a photograph without one, the
    # profile's move journal and thumbnail cache, and rank --output over a -wal (marks lost)
    profile, shoot = library
    other = open_profile(tmp_path / "q" / "other")
    other.close()
    photo = tmp_path / "IMG_0005"
    photo.write_bytes((shoot / "IMG_0.JPG").read_bytes())
    (tmp_path / "p.db.thumbs").mkdir(exist_ok=True)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    targets = [tmp_path / "q" / "other", photo, tmp_path / "p.db.moves.jsonl", tmp_path / "q" / "other-wal",
               tmp_path / "q" / "other.settings.json", tmp_path / "p.db.thumbs" / "x.csv", fifo]  # fmt: skip
    before = {t: _digest(t) for t in targets if t.is_file()}
    for target in targets:
        with pytest.raises(ProtectedOutputError):
            export(profile, "csv", target)
    assert {t: _digest(t) for t in before} == before
    profile.close()
    assert main(["rank", "--output", str(tmp_path / "p.db-wal"), str(_pairs(tmp_path))]) == 2
    assert "profile's own files" in capsys.readouterr().err and not (tmp_path / "p.db-wal").exists()
    assert main(["rank", "--output", str(fifo), str(_pairs(tmp_path))]) == 2
    assert "leave --output out to print" in capsys.readouterr().err


@pytest.mark.parametrize("head", [b"IIRO\x08\x00\x00\x00", b"IIU\x00\x08\x00\x00\x00", b"FOVb", b"II\x1a\x00\x00\x00HEAPCCDR",
                                  b"\xff\x0a", b"\x00\x00\x00\x0cJXL \r\n\x87\n", b"8BPS"])  # fmt: skip
def test_raw_and_layered_files_without_a_suffix_are_known_by_their_first_bytes(tmp_path: Path, head: bytes) -> None:
    # a third attack overwrote ORF, RW2, X3F, CRW, JPEG XL and PSD files named without a suffix
    target = tmp_path / "frame"
    target.write_bytes(head + bytes(200))
    with pytest.raises(ProtectedOutputError, match="a photograph"):
        check_report_target(target)


def test_a_photograph_swapped_under_the_name_during_the_write_is_put_back(tmp_path: Path, monkeypatch) -> None:
    # a third attack exchanged an earlier export and a JPEG under the output name in a loop: one
    # round in 15 the JPEG was replaced, as it arrived between the check and the write
    from aesthete_gui.services import output_guard

    out, photo = tmp_path / "r.csv", tmp_path / "hold"
    out.write_text("an earlier export\n", encoding="utf-8")
    photo.write_bytes(b"\xff\xd8\xff\xe0" + bytes(300))
    jpeg = photo.read_bytes()
    real = output_guard.write_temporary

    def and_meanwhile(*args, **kwargs):  # the other program swaps right after our check
        made = real(*args, **kwargs)
        output_guard.exchange(out, photo)
        return made

    monkeypatch.setattr(output_guard, "write_temporary", and_meanwhile)
    with pytest.raises(ProtectedOutputError, match="put back"):
        output_guard.write_report(out, "id,stars\n")
    assert out.read_bytes() == jpeg and photo.read_text(encoding="utf-8") == "an earlier export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hold", "r.csv"]


def test_a_report_is_written_where_modes_cannot_be_set_and_through_a_link_to_an_earlier_one(tmp_path: Path, monkeypatch) -> None:
    # a fourth attack: on a FAT (FUSE) folder chmod fails with ENOSYS and every report failed; a link
    # named as the output was replaced instead of its earlier export being updated
    import errno

    from aesthete_gui import atomic_write
    from aesthete_gui.services.output_guard import write_report

    earlier = tmp_path / "earlier.csv"
    earlier.write_text("old\n", encoding="utf-8")
    (tmp_path / "link.csv").symlink_to(earlier)

    def no_modes(*_args, **_kwargs):
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(atomic_write.os, "chmod", no_modes)
    write_report(tmp_path / "link.csv", "new\n")
    assert (tmp_path / "link.csv").is_symlink() and earlier.read_text(encoding="utf-8") == "new\n"
    write_report(tmp_path / "fresh.csv", "first\n")
    assert (tmp_path / "fresh.csv").read_text(encoding="utf-8") == "first\n"
