"""A sidecar edit that lands between our read and our swap is merged before the swap: our bytes,
built from the older file, never stand under the sidecar's name (a program reacting to the change
could read them and build its next edit on them: an attack lost 37 keywords in 3,791 that way)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from aesthete_gui.imaging import xmp, xmp_write
from aesthete_gui.imaging.xmp import XmpMarks, read_sidecar, write_marks
from aesthete_gui.imaging.xmp_write import swap_file
from tests.imaging.test_xmp_cas import _shoot, sidecar_text


def test_an_edit_made_after_our_read_is_merged_before_anything_is_swapped_in(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "IMG_1.xmp"
    target.write_text("keywords: a\n", encoding="utf-8")
    seen_after_swaps: list[str] = []
    real_exchange = xmp_write.exchange

    def watching_exchange(a, b) -> bool:
        done = real_exchange(a, b)
        seen_after_swaps.append(Path(b).read_text(encoding="utf-8"))
        return done

    monkeypatch.setattr(xmp_write, "exchange", watching_exchange)
    builds: list[str] = []

    def build(current) -> bytes:
        text = current.data.decode("utf-8")
        builds.append(text)
        if len(builds) == 1:  # another program saves its edit while we build ours
            other = tmp_path / "other.tmp"
            other.write_text(text + "keywords: b\n", encoding="utf-8")
            other.replace(target)
        return (text + "rating: 4\n").encode("utf-8")

    result = swap_file(target, build, limit=1 << 20)
    final = target.read_text(encoding="utf-8")
    assert final == "keywords: a\nkeywords: b\nrating: 4\n"
    assert all("keywords: b" in seen for seen in seen_after_swaps)  # never the stale bytes
    assert result.attempts == 2 and builds[1].endswith("keywords: b\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_1.xmp"]


def _save_by_rename(target: Path, text: str) -> None:
    """How exiftool, Lightroom and the attack's editor save: a new file renamed over the name."""
    other = target.with_name(target.name + ".other-program")
    other.write_text(text, encoding="utf-8")
    os.replace(other, target)


def test_a_save_landing_between_our_check_and_our_swap_is_put_back_before_anyone_can_build_on_our_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An attack (F4, one keyword in 5,950): another program's save-by-rename landed after our last look
    and before our exchange. Our bytes, built from the older file, then stood under the sidecar's name
    while we read the displaced file, merged and fsynced the next round; the program, saving again,
    read them and built its next edit on them, and the parked file holding its first keyword was
    deleted as superseded. The displaced file must go back in place at once."""
    image, sidecar = _shoot(tmp_path, "k0")
    real_exchange = xmp_write.exchange
    landed: list[bool] = []

    def exchange_after_their_save(first: Path, second: Path) -> bool:
        if not landed:  # their rename lands between our final comparison and our exchange
            landed.append(True)
            _save_by_rename(sidecar, sidecar_text(2, "k0", "k1"))
        return real_exchange(first, second)

    monkeypatch.setattr(xmp_write, "exchange", exchange_after_their_save)
    real_edit = xmp.edit
    under_the_name: list[str] = []

    def edit(packet, wanted):  # type: ignore[no-untyped-def]
        # while we merge, the program saves again: read what stands under the name, add a keyword
        text = sidecar.read_text(encoding="utf-8")
        under_the_name.append(text)
        if landed and len(under_the_name) == 2:
            keywords = re.findall(r"<rdf:li>(k\d+)</rdf:li>", text)
            _save_by_rename(sidecar, sidecar_text(3, *keywords, "k2"))
        return real_edit(packet, wanted)

    monkeypatch.setattr(xmp, "edit", edit)
    write_marks(image, 1, None, "Red", fields={"label"})
    text = sidecar.read_text(encoding="utf-8")
    assert re.findall(r"<rdf:li>(k\d+)</rdf:li>", text) == ["k0", "k1", "k2"]  # no keyword lost
    assert read_sidecar(image) == XmpMarks(stars=3, label="Red")  # their latest rating, our label
    assert "<rdf:li>k1</rdf:li>" in under_the_name[1]  # their save, not our older bytes, stood there
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.CR2", "IMG_0001.xmp"]


def test_a_second_save_landing_while_the_first_is_put_back_stands_and_the_first_is_kept_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The moment between our exchange and the one that puts the displaced save back: a save landing
    there replaced our bytes. The newest save stands (our label merged on top of it) and the save it
    would have displaced is kept aside under a visible name, never deleted."""
    image, sidecar = _shoot(tmp_path, "k0")
    real_exchange = xmp_write.exchange
    calls: list[int] = []

    def racing_exchange(first: Path, second: Path) -> bool:
        calls.append(len(calls))
        if len(calls) == 1:  # lands between our last look and our exchange
            _save_by_rename(sidecar, sidecar_text(2, "k0", "k1"))
        if len(calls) == 2:  # and another save, before the first one is put back
            _save_by_rename(sidecar, sidecar_text(3, "k0", "k2"))
        return real_exchange(first, second)

    monkeypatch.setattr(xmp_write, "exchange", racing_exchange)
    write_marks(image, 1, None, "Red", fields={"label"})
    text = sidecar.read_text(encoding="utf-8")
    assert re.findall(r"<rdf:li>(k\d+)</rdf:li>", text) == ["k0", "k2"]
    assert read_sidecar(image) == XmpMarks(stars=3, label="Red")
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("aesthete-kept-")]
    assert len(kept) == 1 and re.findall(r"<rdf:li>(k\d+)</rdf:li>", kept[0].read_text()) == ["k0", "k1"]
    assert sorted(p.name for p in tmp_path.iterdir() if p not in kept) == ["IMG_0001.CR2", "IMG_0001.xmp"]
