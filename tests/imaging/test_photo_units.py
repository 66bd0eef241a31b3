"""Photo units: a photograph with its same-stem partners and every sidecar, matched without regard to case."""

from __future__ import annotations

from aesthete_gui.imaging.photo_units import (
    describe_partners,
    exposures,
    group_units,
    joining,
    numbered_stems,
    stem_key,
    tail_of,
    target_name,
    unit_of,
)
from aesthete_gui.imaging.xmp import pairs_among


def test_a_raw_jpeg_pair_and_all_its_sidecars_are_one_unit() -> None:
    names = ["IMG_0001.CR2", "img_0001.jpg", "IMG_0001.xmp", "IMG_0001.CR2.xmp", "img_0001.JPG.XMP",
             "IMG_0002.JPG", "IMG_0003.xmp", "MVI_0001.MOV", "notes.txt"]  # fmt: skip
    units, orphans = group_units("/card", names)
    assert [(u.stem, u.photos, u.sidecars) for u in units] == [
        ("IMG_0001", ("IMG_0001.CR2", "img_0001.jpg"), ("IMG_0001.CR2.xmp", "IMG_0001.xmp", "img_0001.JPG.XMP")),
        ("IMG_0002", ("IMG_0002.JPG",), ()),
    ]
    assert orphans == ["IMG_0003.xmp"]
    assert units[0].lead == "img_0001.jpg"  # the JPEG's metadata names the pair
    assert describe_partners(units[0], "img_0001.jpg", "moved") == "IMG_0001.CR2 moved with img_0001.jpg"
    assert describe_partners(units[1], "IMG_0002.JPG", "moved") is None


def test_stems_tails_and_new_names_keep_what_follows_the_stem_as_written() -> None:
    assert [stem_key(n) for n in ("IMG_1.CR2.xmp", "IMG_1.XMP", "IMG_1.final.jpg", "IMG_1.final.xmp")] == [
        "img_1", "img_1", "img_1.final", "img_1.final"]  # fmt: skip
    assert [tail_of(n) for n in ("IMG_1.CR2", "IMG_1.JPG.xmp", "IMG_1.XMP", "IMG_1.final.xmp")] == [
        ".CR2", ".JPG.xmp", ".XMP", ".xmp"]  # fmt: skip
    assert target_name("IMG_1.CR2.xmp", "IMG_1 (2)") == "IMG_1 (2).CR2.xmp"
    stems = numbered_stems("IMG_1")
    assert [next(stems) for _ in range(3)] == ["IMG_1", "IMG_1 (2)", "IMG_1 (3)"]
    dashed = numbered_stems("x", "-{n}")
    assert [next(dashed), next(dashed)] == ["x", "x-2"]


def test_the_unit_of_one_photograph_is_found_in_its_folder_listing() -> None:
    unit = unit_of("/shoot/IMG_7.JPG", ["IMG_7.JPG", "IMG_7.ARW", "IMG_7.xmp", "IMG_70.JPG", "IMG_7 (2).JPG"])
    assert (unit.photos, unit.sidecars) == (("IMG_7.ARW", "IMG_7.JPG"), ("IMG_7.xmp",))
    assert unit.paths == ["/shoot/IMG_7.ARW", "/shoot/IMG_7.JPG", "/shoot/IMG_7.xmp"]


def test_two_non_raw_files_of_one_stem_are_two_photographs_with_their_own_sidecars() -> None:
    names = ["IMG_0009.JPG", "IMG_0009.png", "IMG_0009.JPG.xmp", "IMG_0009.png.xmp", "IMG_0010.JPG.xmp",
             "IMG_0011.CR2", "IMG_0011.DNG", "IMG_0011.CR2.xmp"]  # fmt: skip
    units, orphans = group_units("/f", names)
    assert [(u.photos, u.sidecars) for u in units] == [
        (("IMG_0009.JPG",), ("IMG_0009.JPG.xmp",)),
        (("IMG_0009.png",), ("IMG_0009.png.xmp",)),
        (("IMG_0011.CR2",), ("IMG_0011.CR2.xmp",)),  # two RAWs of one stem: two photographs as well
        (("IMG_0011.DNG",), ()),
    ]
    assert orphans == ["IMG_0010.JPG.xmp"]
    assert units[0].key != units[1].key and units[0].stem == units[1].stem
    png = unit_of("/f/IMG_0009.png", names)
    assert png.paths == ["/f/IMG_0009.png", "/f/IMG_0009.png.xmp"]


def test_a_shared_stem_sidecar_keeps_non_raw_files_together_so_it_never_changes_hands() -> None:
    units, orphans = group_units("/f", ["IMG_0009.JPG", "IMG_0009.png", "IMG_0009.xmp"])
    assert [(u.photos, u.sidecars) for u in units] == [(("IMG_0009.JPG", "IMG_0009.png"), ("IMG_0009.xmp",))]
    assert orphans == []


def test_a_destination_stem_is_taken_only_by_files_that_would_join_the_unit() -> None:
    assert joining(["IMG_9.JPG", "IMG_9.JPG.xmp"], ["IMG_9.png", "IMG_9.png.xmp"]) == []
    assert joining(["IMG_9.JPG", "IMG_9.xmp"], ["IMG_9.png"]) == ["IMG_9.JPG", "IMG_9.xmp"]  # NAME.xmp: nobody's
    assert joining(["IMG_9.CR2"], ["IMG_9.png"]) == ["IMG_9.CR2"]  # would become the RAW's partner
    assert joining(["IMG_9.png"], ["IMG_9.png"]) == ["IMG_9.png"]  # the same name
    assert joining(["img_9.PNG"], ["IMG_9.png"]) == []  # another file where case counts (unit_placement asks the disk)
    assert joining(["IMG_9.JPG", "IMG_9.xmp"], ["img_9.jpg", "img_9.xmp"]) == []  # another spelling, its own unit
    assert joining(["IMG_9.JPG.xmp"], ["IMG_9.png"]) == ["IMG_9.JPG.xmp"]  # a lone photo takes every same-stem sidecar


def test_exposures_put_the_halves_of_a_raw_jpeg_pair_together_jpeg_first() -> None:
    paths = ["/a/X.DNG", "/a/Y.JPG", "/a/X.JPG", "/b/X.JPG", "/a/Z.png", "/a/Z.JPG"]
    assert exposures(paths) == [["/a/X.JPG", "/a/X.DNG"], ["/a/Y.JPG"], ["/b/X.JPG"], ["/a/Z.png"], ["/a/Z.JPG"]]


def test_names_that_differ_only_in_case_are_separate_photographs_with_their_own_sidecars() -> None:
    names = ["IMG_0001.JPG", "img_0001.jpg", "IMG_0001.xmp", "img_0001.xmp", "Img_0001.xmp"]
    units, orphans = group_units("/f", names)
    assert [(u.stem, u.photos, u.sidecars) for u in units] == [
        ("IMG_0001", ("IMG_0001.JPG",), ("IMG_0001.xmp",)),
        ("img_0001", ("img_0001.jpg",), ("img_0001.xmp",)),
    ]
    assert orphans == ["Img_0001.xmp"]  # a third spelling: nobody's, never handed to one of them
    assert units[0].key != units[1].key
    assert unit_of("/f/img_0001.jpg", names).paths == ["/f/img_0001.jpg", "/f/img_0001.xmp"]
    assert exposures(["/f/IMG_1.JPG", "/f/img_1.JPG"]) == [["/f/IMG_1.JPG"], ["/f/img_1.JPG"]]


def test_a_unit_never_holds_two_files_whose_extensions_differ_only_in_case() -> None:
    units, orphans = group_units("/f", ["IMG_7.JPG", "IMG_7.jpg", "IMG_7.xmp", "IMG_7.JPG.xmp", "IMG_7.jpg.xmp"])
    assert [(u.photos, u.sidecars) for u in units] == [
        (("IMG_7.JPG",), ("IMG_7.JPG.xmp",)),
        (("IMG_7.jpg",), ("IMG_7.jpg.xmp",)),
    ]
    assert orphans == ["IMG_7.xmp"]  # a shared NAME.xmp no rule gives to one of them
    units, orphans = group_units("/f", ["IMG_8.CR2", "IMG_8.JPG", "IMG_8.jpg", "IMG_8.xmp", "IMG_8.XMP"])
    assert [(u.photos, u.sidecars) for u in units] == [
        (("IMG_8.CR2",), ("IMG_8.xmp",)),  # the one RAW keeps NAME.xmp, the one imaging.xmp reads
        (("IMG_8.JPG",), ()),
        (("IMG_8.jpg",), ()),
    ]
    assert orphans == ["IMG_8.XMP"]
    assert exposures(["/f/IMG_8.CR2", "/f/IMG_8.JPG", "/f/IMG_8.jpg"]) == [["/f/IMG_8.CR2"], ["/f/IMG_8.JPG"], ["/f/IMG_8.jpg"]]
    for unit in group_units("/f", ["X.CR2", "X.JPG", "X.xmp", "X.XMP", "x.jpg"])[0]:
        tails = [tail_of(n).casefold() for n in unit.names]
        assert len(tails) == len(set(tails))


def test_marks_pair_partners_by_the_same_rule_as_exposures() -> None:
    for names in (["IMG_1.CR2", "IMG_1.JPG", "IMG_1.jpg"], ["IMG_2.CR2", "img_2.JPG", "notes.txt"]):
        groups = exposures(names)
        assert pairs_among(names) == {n: [o for o in g if o != n] for g in groups if len(g) > 1 for n in g}
    assert pairs_among(["IMG_1.CR2", "IMG_1.JPG", "IMG_1.jpg"]) == {}
    assert pairs_among(["IMG_2.CR2", "img_2.JPG"]) == {"IMG_2.CR2": ["img_2.JPG"], "img_2.JPG": ["IMG_2.CR2"]}
