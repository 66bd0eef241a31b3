"""The real CLI against odd names and odd files (issue 19, second round): two photographs whose names
differ only in case, a FIFO, device, socket or folder under a sidecar's or photograph's name, a
sidecar linked to `/dev/zero`, and a file whose name, size, time and first 64 KiB equal those of
one ingested before. After each: every photograph copied once with its own sidecar under its own
name, one line for each file refused, nothing hangs, no temporary file."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

from PIL import Image

from tests.robustness.file_safety import cli_env, digest, every_hash, run_cli, temp_files
from tests.robustness.fs_faults import small_disk

XMP = (
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    '<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="{stars}"/></rdf:RDF></x:xmpmeta>\n'
)


def _photo(path: Path, colour: tuple[int, int, int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 48), colour).save(path, "JPEG", quality=90)
    return path


def _sidecar(path: Path, stars: int) -> Path:
    path.write_text(XMP.format(stars=stars), encoding="utf-8")
    return path


def _files(root: Path) -> dict[str, str]:
    """Every regular file under `root` that is not ours (journal, temporary files) by relative path → hash."""
    return {p.relative_to(root).as_posix(): digest(p) for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}  # fmt: skip


def test_card_photographs_whose_names_differ_only_in_case_are_both_copied(tmp_path: Path) -> None:
    card = tmp_path / "card" / "DCIM"
    sources = [
        _photo(card / "IMG_0001.JPG", (200, 10, 10)),
        _photo(card / "img_0001.JPG", (10, 200, 10)),  # a phone's photo merged into the camera's folder
        _photo(card / "IMG_0001.jpg", (10, 10, 200)),
        _sidecar(card / "IMG_0001.JPG.xmp", 5),
        _sidecar(card / "img_0001.JPG.xmp", 1),
    ]
    env = cli_env()
    for template in ("{name}{ext}", "{name}{ext_lower}", None):
        dest = tmp_path / f"library-{template is None}-{(template or '').endswith('lower}')}"
        args = ["ingest", "--no-import", "--quiet", *(["--template", template] if template else []), str(card.parent), str(dest)]
        first = run_cli(args, env)
        assert first.returncode == 0, first.stdout + first.stderr
        assert "3 photographs on the card: 3 copied and verified" in first.stdout
        copies = every_hash([dest])
        assert all(copies[digest(p)] == 1 for p in sources), (template, _files(dest))
        again = run_cli(args, env)
        assert again.returncode == 0 and "0 copied and verified, 3 already there" in again.stdout, again.stdout
        assert every_hash([dest]) == copies and temp_files(dest) == []
        if template == "{name}{ext}":  # each keeps its own name and its own sidecar beside it
            assert _files(dest) == {p.name: digest(p) for p in sources}


def test_move_of_photographs_whose_names_differ_only_in_case_keeps_each_ones_name_and_sidecar(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    big = _photo(shoot / "IMG_0001.JPG", (200, 10, 10))
    small = _photo(shoot / "img_0001.jpg", (10, 200, 10))
    profile = str(tmp_path / "p.db")
    env = cli_env()
    assert run_cli(["--profile", profile, "import", "--quiet", "--workers", "1", str(shoot)], env).returncode == 0
    for path, marks in ((big, ["--stars", "5"]), (small, ["--stars", "1", "--label", "Red"])):
        marked = run_cli(["--profile", profile, "mark", "--xmp", "--pick", *marks, str(path)], env)
        assert marked.returncode == 0, marked.stderr
    before = _files(shoot)
    assert set(before) == {"IMG_0001.JPG", "IMG_0001.xmp", "img_0001.jpg", "img_0001.xmp"}
    picks = tmp_path / "picks"
    moved = run_cli(["--profile", profile, "copy-picks", "--move", str(picks)], env)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert _files(shoot) == {} and _files(picks) == before  # same names, each sidecar beside its own photo
    assert run_cli(["--profile", profile, "sync-xmp"], env).returncode == 0
    import json

    listed = run_cli(["--profile", profile, "images", "--json"], env)
    marks = {Path(r["path"]).name: (r.get("stars"), r.get("label")) for r in json.loads(listed.stdout)}
    assert marks == {"IMG_0001.JPG": (5, None), "img_0001.jpg": (1, "Red")}


def _specials(folder: Path, stem: str) -> list[Path]:
    """A FIFO, a socket and a folder named as sidecars of `stem`, and a FIFO named as a photograph."""
    os.mkfifo(folder / f"{stem}.xmp")
    holder = socket.socket(socket.AF_UNIX)
    holder.bind(str(folder / f"{stem}.JPG.xmp"))
    holder.close()
    (folder / f"{stem}.jpeg.xmp").mkdir()
    os.mkfifo(folder / "IMG_0099.JPG")
    return [folder / f"{stem}.xmp", folder / f"{stem}.JPG.xmp", folder / "IMG_0099.JPG"]


def test_a_fifo_socket_or_folder_named_as_a_card_file_is_refused_in_one_line_and_nothing_hangs(tmp_path: Path) -> None:
    card = tmp_path / "card"
    photos = [_photo(card / f"IMG_000{n}.JPG", (n * 40, 90, 90)) for n in (1, 2, 3)]
    specials = _specials(card, "IMG_0002")
    (card / "IMG_0003.xmp").symlink_to("/dev/zero")
    dest = tmp_path / "library"
    result = run_cli(["ingest", "--no-import", "--quiet", "--template", "{name}{ext}", str(card), str(dest)], cli_env(), timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "3 photographs on the card: 3 copied and verified" in result.stdout
    for path, reason in zip(specials, ("a FIFO (named pipe)", "a socket", "a FIFO (named pipe)"), strict=True):
        assert f"{path}: {reason}, not a file that can be copied; skipped" in result.stderr, result.stderr
    assert f"{card / 'IMG_0003.xmp'}: a symbolic link; a sidecar is copied only as a file of its own; skipped" in result.stderr
    assert _files(dest) == {p.name: digest(p) for p in photos} and temp_files(dest) == []


def test_sidecars_that_are_fifos_or_links_to_dev_zero_do_not_stop_copy_picks_or_fill_the_disk(tmp_path: Path) -> None:
    shoot = tmp_path / "shoot"
    photos = [_photo(shoot / f"IMG_000{n}.JPG", (n * 40, 90, 90)) for n in (1, 2, 3)]
    profile = str(tmp_path / "p.db")
    env = cli_env()
    assert run_cli(["--profile", profile, "import", "--quiet", "--workers", "1", str(shoot)], env).returncode == 0
    assert run_cli(["--profile", profile, "mark", "--pick", "--no-xmp", *map(str, photos)], env).returncode == 0
    os.mkfifo(shoot / "IMG_0002.xmp")
    copied = run_cli(["--profile", profile, "copy-picks", str(tmp_path / "picks")], env, timeout=60)
    assert copied.returncode == 0 and "3 photographs copied" in copied.stdout, copied.stdout + copied.stderr
    assert f"{shoot / 'IMG_0002.xmp'}: a FIFO (named pipe), not a file that can be copied" in copied.stdout + copied.stderr
    (shoot / "IMG_0002.xmp").unlink()
    (shoot / "IMG_0002.xmp").symlink_to("/dev/zero")
    with small_disk(tmp_path / "small", 2048) as disk:
        moved = run_cli(["--profile", profile, "copy-picks", "--move", str(disk / "picks")], env, timeout=60)
        assert moved.returncode == 0 and "3 photographs moved" in moved.stdout, moved.stdout + moved.stderr
        assert "a symbolic link; a sidecar is copied only as a file of its own" in moved.stdout + moved.stderr
        assert sorted(_files(disk)) == ["picks/IMG_0001.JPG", "picks/IMG_0002.JPG", "picks/IMG_0003.JPG"]
        assert temp_files(disk) == []
    assert [p.name for p in shoot.iterdir()] == ["IMG_0002.xmp"] and (shoot / "IMG_0002.xmp").is_symlink()


def test_a_card_sidecar_linked_to_dev_zero_is_refused_and_the_rest_of_the_card_is_copied(tmp_path: Path) -> None:
    card = tmp_path / "card"
    photos = [_photo(card / f"IMG_000{n}.JPG", (n * 40, 90, 90)) for n in (1, 2, 3)]
    kept = _sidecar(card / "IMG_0003.xmp", 4)
    (card / "IMG_0002.xmp").symlink_to("/dev/zero")
    (card / "IMG_0001.xmp").write_bytes(b" " * (8 * 1024 * 1024 + 1))  # larger than any sidecar
    with small_disk(tmp_path / "disk", 4096) as disk:
        result = run_cli(["ingest", "--no-import", "--quiet", "--template", "{name}{ext}", str(card), str(disk / "lib")],
                         cli_env(), timeout=60)  # fmt: skip
        assert result.returncode == 1, result.stdout + result.stderr
        assert "3 photographs on the card: 3 copied and verified" in result.stdout
        assert "IMG_0002.xmp: a symbolic link" in result.stderr and "IMG_0001.xmp: larger than 8 MiB" in result.stderr
        assert _files(disk / "lib") == {p.name: digest(p) for p in [*photos, kept]} and temp_files(disk) == []


def test_same_name_size_time_and_first_64_kib_is_not_already_there_unless_every_byte_is(tmp_path: Path) -> None:
    cards = []
    for n, colour in enumerate(((200, 30, 30), (30, 30, 200))):
        image = Image.new("RGB", (800, 600), (90, 140, 60))  # the same ground, stored first in a BMP
        image.paste(colour, (0, 0, 800, 300))
        path = tmp_path / f"card{n}" / "DCIM" / "FRAME_0001.BMP"
        path.parent.mkdir(parents=True)
        image.save(path)
        os.utime(path, (1_718_186_400, 1_718_186_400))
        cards.append(path)
    first, second = (p.read_bytes() for p in cards)
    assert first[:65536] == second[:65536] and first != second and cards[0].stat().st_size == cards[1].stat().st_size
    dest = tmp_path / "library"
    env = cli_env()
    for path in cards:
        result = run_cli(["ingest", "--no-import", "--quiet", str(path.parents[1]), str(dest)], env)
        assert result.returncode == 0 and "1 copied and verified" in result.stdout, result.stdout + result.stderr
    copies = every_hash([dest])
    assert all(copies[digest(p)] == 1 for p in cards)


def test_the_card_scan_never_opens_a_fifo(tmp_path: Path) -> None:
    """Below the CLI: the scan reports the FIFO from its state alone (a blocking open would never return)."""
    from aesthete_gui.services.card_scan import scan_card

    _photo(tmp_path / "IMG_0001.JPG", (1, 2, 3))
    os.mkfifo(tmp_path / "IMG_0001.JPG.xmp")
    contents = scan_card(str(tmp_path))
    assert [f.name for u in contents.units for f in u.files] == ["IMG_0001.JPG"]
    assert contents.problems == [(str(tmp_path / "IMG_0001.JPG.xmp"), "a FIFO (named pipe), not a file that can be copied; skipped")]
    assert stat.S_ISFIFO(os.lstat(tmp_path / "IMG_0001.JPG.xmp").st_mode)
