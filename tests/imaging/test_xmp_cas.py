"""Sidecar writes are compare-and-swap: another program's write between our read and our rename is
found, merged under our fields, and never lost; undo puts back only files still exactly ours.

The other program's write is made at the one moment that matters, right after Aesthete read the
sidecar: the test wraps the packet editor the writer calls between its read and its swap.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aesthete_gui import atomic_write
from aesthete_gui.imaging import xmp
from aesthete_gui.imaging.xmp import (
    SidecarWriteError,
    XmpMarks,
    read_sidecar,
    restore_sidecar,
    write_marks,
)

HEAD = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"')  # fmt: skip


def sidecar_text(rating: int, *keywords: str) -> str:
    """A sidecar as another program writes it: a rating and keywords."""
    items = "".join(f"<rdf:li>{k}</rdf:li>" for k in keywords)
    return f'{HEAD} xmp:Rating="{rating}"><dc:subject><rdf:Bag>{items}</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>'


def write_by_rename(path: Path, text: str) -> None:
    """How exiftool and Lightroom write: a new file renamed over the old one."""
    temporary = path.with_name(path.name + ".other-program")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_in_place(path: Path, text: str) -> None:
    """How a careless program writes: the same file truncated and rewritten."""
    with open(path, "r+", encoding="utf-8") as stream:
        stream.truncate(0)
        stream.write(text)


@pytest.fixture(params=["exchange", "checked_rename"])
def swap_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both ways of swapping: renameat2 RENAME_EXCHANGE, and the check right before a rename."""
    if request.param == "checked_rename":
        monkeypatch.setattr(atomic_write, "_RENAMEAT2", None)
    else:
        assert atomic_write._RENAMEAT2 is not None, "this Linux has renameat2"
    yield request.param


def _meddle(monkeypatch: pytest.MonkeyPatch, times: int, action: Callable[[int], None]) -> list[int]:
    """Run `action(n)` right after Aesthete read the sidecar, on its first `times` reads."""
    calls: list[int] = []
    real_edit = xmp.edit

    def edit(packet, wanted):  # type: ignore[no-untyped-def]
        calls.append(len(calls))
        if len(calls) <= times:
            action(len(calls))
        return real_edit(packet, wanted)

    monkeypatch.setattr(xmp, "edit", edit)
    return calls


def _shoot(tmp_path: Path, keyword: str = "old") -> tuple[Path, Path]:
    """A RAW and its sidecar holding rating 1 and `keyword`."""
    image = tmp_path / "IMG_0001.CR2"
    image.write_bytes(b"raw")
    sidecar = tmp_path / "IMG_0001.xmp"
    sidecar.write_text(sidecar_text(1, keyword), encoding="utf-8")
    return image, sidecar


@pytest.mark.parametrize("other_write", [write_by_rename, write_in_place])
def test_an_edit_made_during_our_write_survives_and_our_field_goes_on_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_mode: str, other_write: Callable[[Path, str], None]
) -> None:
    image, sidecar = _shoot(tmp_path)
    calls = _meddle(monkeypatch, 1, lambda _: other_write(sidecar, sidecar_text(5, "wedding", "ceremony")))
    result = write_marks(image, 1, None, "Yellow", fields={"label"})
    assert len(calls) == 2  # read, found changed, read again
    text = sidecar.read_text(encoding="utf-8")
    assert "<rdf:li>wedding</rdf:li><rdf:li>ceremony</rdf:li>" in text and "old" not in text
    assert read_sidecar(image) == XmpMarks(stars=5, label="Yellow")  # their rating, our label
    assert result.found == XmpMarks(stars=5) and result.before is not None and b"wedding" in result.before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.CR2", "IMG_0001.xmp"]


def test_a_field_we_set_goes_on_top_of_the_same_field_changed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_mode: str
) -> None:
    image, sidecar = _shoot(tmp_path)
    _meddle(monkeypatch, 1, lambda _: write_by_rename(sidecar, sidecar_text(5, "new")))
    result = write_marks(image, 3, None, None, fields={"stars"})
    assert read_sidecar(image) == XmpMarks(stars=3) and "<rdf:li>new</rdf:li>" in sidecar.read_text()
    assert result.found == XmpMarks(stars=5)  # what it replaced, for the mark history


def test_a_field_we_do_not_insist_on_yields_to_the_other_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_mode: str
) -> None:
    image, sidecar = _shoot(tmp_path)
    _meddle(monkeypatch, 1, lambda _: write_by_rename(sidecar, sidecar_text(5, "new")))
    write_marks(image, 3, None, "Red", insist={"label"})  # an export: the profile's 3 stars, if unchanged
    assert read_sidecar(image) == XmpMarks(stars=5, label="Red")


def test_a_sidecar_created_by_another_program_meanwhile_is_merged_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_mode: str
) -> None:
    image = tmp_path / "IMG_0002.CR2"
    image.write_bytes(b"raw")
    sidecar = tmp_path / "IMG_0002.xmp"
    real_new = xmp.new_packet
    done: list[bool] = []

    def new_packet(wanted):  # type: ignore[no-untyped-def]
        if not done:
            done.append(True)
            write_by_rename(sidecar, sidecar_text(2, "theirs"))
        return real_new(wanted)

    monkeypatch.setattr(xmp, "new_packet", new_packet)
    write_marks(image, 4, "pick", None, fields={"flag"})
    assert read_sidecar(image) == XmpMarks(stars=2, flag="pick")  # their rating, our pick
    assert "<rdf:li>theirs</rdf:li>" in sidecar.read_text()


def test_a_sidecar_changed_over_and_over_is_refused_and_the_newest_edit_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap_mode: str
) -> None:
    image, sidecar = _shoot(tmp_path)
    _meddle(monkeypatch, 99, lambda n: write_by_rename(sidecar, sidecar_text(n % 6, f"edit{n}")))
    with pytest.raises(SidecarWriteError, match="changed by another program 8 times"):
        write_marks(image, 0, None, "Red", fields={"label"})
    assert "<rdf:li>edit8</rdf:li>" in sidecar.read_text() and "Red" not in sidecar.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.CR2", "IMG_0001.xmp"]


def test_undo_restores_bytes_deletes_what_it_created_and_leaves_what_others_changed(tmp_path: Path) -> None:
    image, sidecar = _shoot(tmp_path)
    original = sidecar.read_bytes()
    first = write_marks(image, 4, None, "Red")
    assert first.before == original and first.written is not None
    assert restore_sidecar(sidecar, first.before, first.written)
    assert sidecar.read_bytes() == original

    new_image = tmp_path / "IMG_0003.NEF"
    new_image.write_bytes(b"raw")
    created = write_marks(new_image, 2, None, None)
    assert created.before is None and restore_sidecar(created.path, None, created.written)  # type: ignore[arg-type]
    assert not created.path.exists()

    again = write_marks(image, 5, None, None)
    write_by_rename(sidecar, sidecar_text(5, "edited later"))
    assert not restore_sidecar(sidecar, again.before, again.written)  # type: ignore[arg-type]
    assert "edited later" in sidecar.read_text()
    created = write_marks(new_image, 2, None, None)
    write_in_place(created.path, sidecar_text(3, "theirs now"))
    assert not restore_sidecar(created.path, None, created.written)  # type: ignore[arg-type]
    assert "theirs now" in created.path.read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def a_pid_no_process_has() -> int:
    """A process id that belongs to no running process (a killed writer's)."""
    pid = 2**22 + 12345  # above the usual pid_max
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid += 1


def test_leftover_temporary_files_of_a_killed_run_are_removed_and_nothing_else(tmp_path: Path) -> None:
    gone = a_pid_no_process_has()
    ours = tmp_path / f".aesthete-{gone}-abcd1234.xmp.tmp"
    older_style = tmp_path / ".aesthete-k3j2h1g0.xmp.tmp"
    alive = tmp_path / f".aesthete-{os.getpid()}-abcd1234.xmp.tmp"
    others = [tmp_path / "IMG_1.xmp", tmp_path / ".aesthete-x.tmp", tmp_path / "notes.xmp.tmp"]
    for path in [ours, older_style, alive, *others]:
        path.write_text("x")
    young = tmp_path / f".aesthete-{gone}-young123.xmp.tmp"
    young.write_text("x")
    os.utime(young, (2e9, 2e9))  # changed after the run started: not a leftover of an earlier run
    removed = atomic_write.remove_leftovers(tmp_path, older_than=1.9e9)
    assert sorted(removed) == sorted([ours, older_style])
    assert all(p.exists() for p in [alive, young, *others])


def known_start_and_namespace(monkeypatch: pytest.MonkeyPatch, pid: int) -> tuple[int, int]:
    """When `pid` started and our pid namespace, as atomic_write reads them: the system's own (Linux's
    /proc) where it says, else fixed values put in their place, so the rule is tested everywhere."""
    start, namespace = atomic_write.process_start(pid), atomic_write.pid_namespace()
    if start is not None and namespace is not None:
        return start, namespace
    real = atomic_write.process_start
    monkeypatch.setattr(atomic_write, "process_start", lambda p: 1000 if p == pid else real(p))
    monkeypatch.setattr(atomic_write, "pid_namespace", lambda: 7)
    return 1000, 7


def test_a_pid_a_later_process_was_given_does_not_keep_a_killed_runs_files_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A leftover's name records its writer's pid, start time and pid namespace: a killed run's pid
    handed to a later process (here a sleeping child) used to keep its temporary and swap files hidden
    as long as that process ran (a daemon: for days, the other program's displaced edit with them). A
    file of the process that really runs is still left alone, as is one without a start time, and one
    of another pid namespace (a container's writer is pid 1 or 2 there: an attack saw a live one's swap
    file settled under it)."""
    import subprocess
    import sys

    later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start, ns = known_start_and_namespace(monkeypatch, later.pid)
        reused = tmp_path / f".aesthete-{later.pid}s{start + 1}n{ns}-killed01.xmp.tmp"
        running = tmp_path / f".aesthete-{later.pid}s{start}n{ns}-running1.xmp.tmp"
        legacy = tmp_path / f".aesthete-{later.pid}-legacy01.xmp.tmp"
        container = tmp_path / f".aesthete-{later.pid}s{start + 1}n{ns + 1}-inabox01.xmp.tmp"
        for path in (reused, running, legacy, container):
            path.write_text("x")
            os.utime(path, (1e9, 1e9))
        sidecar = tmp_path / "IMG_0009.xmp"
        sidecar.write_bytes(b"ours")
        keys = f"{atomic_write.name_key(sidecar.name)}-{atomic_write.content_key(b'expected')}-{atomic_write.content_key(b'ours')}"
        swap = tmp_path / f".aesthete-swap-{later.pid}s{start + 1}n{ns}-{keys}-abcd1234.xmp.tmp"
        swap.write_bytes(b"theirs, raced")  # another program's save, displaced by the killed swap
        os.utime(swap, (1e9, 1e9))
        removed = atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined)
        assert sorted(removed) == sorted([reused, swap])
        assert sidecar.read_bytes() == b"theirs, raced + ours"  # its edit is back, the write's marks on top
        assert running.exists() and legacy.exists() and container.exists()
    finally:
        later.kill()
        later.wait()


@pytest.mark.parametrize("pid", ["0", "4294967296", "99999999999999999999"])
def test_a_pid_no_system_can_have_in_a_leftovers_name_stops_nothing(tmp_path: Path, pid: str) -> None:
    """An attack: a leftover named with pid 4294967296 raised OverflowError in the cleanup, and every
    mark in its folder failed; pid 0 (a process group to kill()) was judged alive for good."""
    for name in (f".aesthete-{pid}-abc.xmp.tmp", f".aesthete-{pid}s1n1-abd.xmp.tmp"):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, (1e9, 1e9))
    assert len(atomic_write.remove_leftovers(tmp_path, older_than=1.5e9)) == 2
    assert not [p for p in tmp_path.iterdir()]


def test_temporary_names_record_the_writers_pid_and_start_time(tmp_path: Path) -> None:
    """Linux says when a process started: names carry it (`<pid>s<ticks>`); the writer itself is alive."""
    temporary = atomic_write.write_temporary(tmp_path, b"x", 0o644)
    match = atomic_write._LEFTOVER.fullmatch(temporary.name)
    assert match is not None and int(match.group("pid")) == os.getpid()
    start, ns = atomic_write.process_start(os.getpid()), atomic_write.pid_namespace()
    assert match.group("start") == (None if start is None else str(start))
    assert match.group("ns") == (None if ns is None else str(ns))
    assert atomic_write.process_alive(os.getpid(), start, ns)
    assert not atomic_write.process_alive(a_pid_no_process_has(), start, ns)
    assert atomic_write.remove_leftovers(tmp_path, older_than=2e9) == [] and temporary.exists()


def _killed_at_the_swap(tmp_path: Path, their_text: str, write: Callable[[Path], object]) -> tuple[Path, Path, Path]:
    """Run `write(image)` in a child that another program races (its save lands right before our swap)
    and that is killed (kill -9) right after the swap; (image, sidecar, the swap file left)."""
    from aesthete_gui.imaging import xmp_write

    image, sidecar = _shoot(tmp_path)
    child = os.fork()
    if child == 0:  # the killed writer: the other program writes, we swap, then kill -9
        real = xmp_write.exchange

        def racing_exchange(first: Path, second: Path) -> bool:
            write_by_rename(second, their_text)
            swapped = real(first, second)
            os.kill(os.getpid(), 9)
            return swapped

        xmp_write.exchange = racing_exchange  # type: ignore[assignment]
        try:
            write(image)
        finally:
            os._exit(3)  # never reached when the swap happened
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status), "the writer was not killed after its swap (no swap on this file system?)"
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".aesthete-swap-")]
    return image, sidecar, left


@pytest.mark.parametrize(("their_rating", "future"), [(1, False), (5, False), (5, True)])
def test_another_programs_edit_displaced_by_a_swap_that_was_killed_is_put_back(tmp_path: Path, their_rating: int, future: bool) -> None:
    """An attack: another program saved the sidecar in the instant before our swap, and our process
    was killed (kill -9) right after it. The other program's file sat at our temporary name, and the
    next run deleted it as a leftover: its edit was lost. Now the next run puts it back, with only the
    field the killed write set on top: a later attack saw the other program's new rating (5) lost
    under our stale one (1) when all three fields went on top, and its file stay hidden when its time
    lay ahead of ours (synced from a device whose clock runs fast)."""
    image, sidecar, left = _killed_at_the_swap(tmp_path, sidecar_text(their_rating, "old", "darktable-edit"),
                                               lambda image: write_marks(image, 1, None, "Red", fields={"label"}))  # fmt: skip
    assert "darktable-edit" not in sidecar.read_text(encoding="utf-8")  # our stale-built bytes stand there
    assert "darktable-edit" in left.read_text(encoding="utf-8")
    assert "-l-" in left.name  # the swap file's name says the write set the label alone
    os.utime(left, (2.5e9, 2.5e9) if future else (1e9, 1e9))
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=xmp.our_marks_on_top) == [left]
    # their edit is back, with the killed write's label on top of it, as the write would have made it
    # (put back as it was, their older marks won the next sync over the user's: a later attack)
    assert "<rdf:li>darktable-edit</rdf:li>" in sidecar.read_text(encoding="utf-8")
    assert read_sidecar(image) == XmpMarks(stars=their_rating, label="Red")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IMG_0001.CR2", "IMG_0001.xmp"]


@pytest.mark.parametrize(("their_rating", "expected_stars"), [(1, 4), (5, 5)])
def test_a_killed_export_sets_the_fields_the_other_program_left_alone(tmp_path: Path, their_rating: int, expected_stars: int) -> None:
    """An attack on the first fix: `export --format xmp` (every field, none insisted) killed after its
    swap, while another program only added a keyword: the rerun put back Rating 1 and the profile's 4
    stars were lost. A field the other program left as first read is set as the write would have set
    it; one it changed (to 5) stays its own."""
    image, sidecar, left = _killed_at_the_swap(tmp_path, sidecar_text(their_rating, "old", "keyword-added"),
                                               lambda image: write_marks(image, 4, None, None, insist=()))  # fmt: skip
    os.utime(left, (1e9, 1e9))
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=xmp.our_marks_on_top) == [left]
    assert "<rdf:li>keyword-added</rdf:li>" in sidecar.read_text(encoding="utf-8")
    assert read_sidecar(image).stars == expected_stars


def test_a_swap_file_of_an_older_version_without_a_tag_is_kept_aside(tmp_path: Path) -> None:
    """An attack: an untagged swap file (an older version's) got all three of our fields on top, the
    other program's newer rating lost; its fields cannot be told apart, so it is kept aside."""
    sidecar = tmp_path / "IMG_0005.xmp"
    ours = sidecar_text(1, "old").encode()
    sidecar.write_bytes(ours)
    left = _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", ours, sidecar_text(5, "new").encode(), "abcd1234")
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=xmp.our_marks_on_top) == []
    assert sidecar.read_bytes() == ours and not left.exists()
    (kept,) = tmp_path.glob("aesthete-kept-*-IMG_0005.xmp")
    assert b'xmp:Rating="5"' in kept.read_bytes()


def _left_by_a_killed_swap(folder: Path, sidecar: str, expected: bytes, ours: bytes, holds: bytes, tail: str) -> Path:
    """A swap file as a run killed at its swap leaves it (see atomic_write.swap_name), holding `holds`."""
    keys = f"{atomic_write.name_key(sidecar)}-{atomic_write.content_key(expected)}-{atomic_write.content_key(ours)}"
    left = folder / f".aesthete-swap-{a_pid_no_process_has()}-{keys}-{tail}.xmp.tmp"
    left.write_bytes(holds)
    os.utime(left, (1e9, 1e9))
    return left


def _joined(theirs: bytes, ours: bytes, _tag: str | None = None) -> bytes:
    """A stand-in merge for the settling rules: theirs with ours on top, plainly."""
    return ours if ours.startswith(theirs + b" + ") else theirs + b" + " + ours


@pytest.mark.parametrize(
    ("case", "sidecar_now", "left_holds", "cleared", "sidecar_after"),
    [
        # killed before the swap: the leftover is our write that never happened; the sidecar, even one
        # written since, stays (an attack saw it put back days later over a newer edit)
        ("before the swap", b"theirs, newer", b"ours", True, b"theirs, newer"),
        # killed after the swap, nothing else happened: what we displaced is what we expected
        ("after the swap, no race", b"ours", b"expected", True, b"ours"),
        # killed after the swap, another program's save had landed just before it: ours on top of it
        ("after the swap, a race", b"ours", b"theirs, raced", True, b"theirs, raced + ours"),
        # killed after the swap, and the sidecar written again since: neither undone nor deleted
        ("after the swap, edited since", b"a later edit", b"theirs, raced", False, b"a later edit"),
        # written since by a second round of the same write, which holds theirs with ours on top: nothing
        # of theirs is lost, so nothing is kept aside (an attack saw a needless kept file)
        ("after the swap, a second round", b"theirs, raced + ours", b"theirs, raced", True, b"theirs, raced + ours"),
    ],
)
def test_a_killed_swap_is_settled_by_the_keys_in_its_name(tmp_path: Path, case: str, sidecar_now: bytes, left_holds: bytes,
                                                          cleared: bool, sidecar_after: bytes) -> None:  # fmt: skip
    sidecar = tmp_path / "IMG_0004.xmp"
    sidecar.write_bytes(sidecar_now)
    left = _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", b"ours", left_holds, "abcd1234")
    removed = atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined)
    assert (removed == [left]) == cleared and not left.exists(), case
    assert sidecar.read_bytes() == sidecar_after, case
    kept = sorted(tmp_path.glob("aesthete-kept-*.xmp"))
    assert [k.read_bytes() for k in kept] == ([] if cleared else [left_holds]), case
    assert all(k.name.endswith("-IMG_0004.xmp") for k in kept), kept  # whose it was, in its name


def test_a_killed_swaps_file_is_kept_aside_visibly_and_never_put_back_later(tmp_path: Path) -> None:
    """An attack: a swap file kept because its sidecar was gone came back days later, once the sidecar
    held our bytes again, and its stale marks won the next sync. A kept file is now renamed aside,
    visibly, and never looked at again."""
    orphan = _left_by_a_killed_swap(tmp_path, "IMG_0003.xmp", b"expected", b"ours", b"another program's only copy", "efgh5678")
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    (kept,) = tmp_path.glob("aesthete-kept-*.xmp")
    assert kept.read_bytes() == b"another program's only copy" and not orphan.exists()
    (tmp_path / "IMG_0003.xmp").write_bytes(b"ours")  # the sidecar holds our bytes again
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    assert (tmp_path / "IMG_0003.xmp").read_bytes() == b"ours" and kept.exists()


def test_a_kept_file_of_a_long_unicode_sidecar_name_fits_and_never_stops_the_run(tmp_path: Path) -> None:
    """An attack: a sidecar named with 80 CJK characters (244 bytes) made a kept name of 274 bytes; the
    error escaped the cleanup and every later mark in the folder failed."""
    name = "漢" * 80 + ".xmp"
    (tmp_path / name).write_bytes(b"a later edit")
    left = _left_by_a_killed_swap(tmp_path, name, b"expected", b"ours", b"their only copy", "abcd1234")
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    (kept,) = tmp_path.glob("aesthete-kept-*.xmp")
    assert kept.read_bytes() == b"their only copy" and not left.exists()
    assert len(os.fsencode(kept.name)) <= 255 and "漢" in kept.name


def test_a_merge_the_disk_cannot_take_leaves_the_swap_file_for_the_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attack: a full disk while writing the merge turned a mergeable swap file into a kept file
    for good; it now stays where it is, and the next run with room merges it."""
    sidecar = tmp_path / "IMG_0006.xmp"
    sidecar.write_bytes(b"ours")
    left = _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", b"ours", b"theirs, raced", "abcd1234")
    real = atomic_write.write_temporary

    def full(*_args: object, **_kwargs: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_write, "write_temporary", full)
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    assert left.exists() and sidecar.read_bytes() == b"ours" and not list(tmp_path.glob("aesthete-kept-*"))
    monkeypatch.setattr(atomic_write, "write_temporary", real)
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == [left]
    assert sidecar.read_bytes() == b"theirs, raced + ours"


def test_a_displaced_file_settled_by_another_aesthete_mid_write_never_leaves_a_bare_packet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attack: another Aesthete that could not see our process (another pid namespace) settled our
    swap file while we paused after the swap; we then built a new packet from "no sidecar" and swapped
    it over, and the other program's keyword and headline were gone."""
    from aesthete_gui.imaging import xmp_write

    image, sidecar = _shoot(tmp_path)
    real = xmp_write.exchange

    def settled_meanwhile(first: Path, second: Path) -> bool:
        swapped = real(first, second)
        first.unlink()  # what the other Aesthete's cleanup did with the expected bytes it found there
        return swapped

    monkeypatch.setattr(xmp_write, "exchange", settled_meanwhile)
    write_marks(image, 1, None, "Blue", fields={"label"})
    text = sidecar.read_text(encoding="utf-8")
    assert "<rdf:li>old</rdf:li>" in text and read_sidecar(image) == XmpMarks(stars=1, label="Blue")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".aesthete")] == []


def test_a_killed_pick_sets_the_stars_the_other_program_left_alone(tmp_path: Path) -> None:
    """A third attack: the profile held 4 stars the sidecar did not (set with sidecars off); `mark
    --pick` writes them where the other program left the rating alone, but killed after its swap the
    rerun put back Rating 1: the pick's rating had no first-read hash in the swap file's name."""
    from aesthete_gui.imaging.xmp import ALL_FIELDS

    image, sidecar, left = _killed_at_the_swap(tmp_path, sidecar_text(1, "old", "keyword-added"),
                                               lambda image: write_marks(image, 4, "pick", None, ALL_FIELDS, insist={"flag"}))  # fmt: skip
    assert "r" in left.name.split("-")[-2]  # the rating's first-read hash is in the tag
    os.utime(left, (1e9, 1e9))
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=xmp.our_marks_on_top) == [left]
    assert "<rdf:li>keyword-added</rdf:li>" in sidecar.read_text(encoding="utf-8")
    assert read_sidecar(image) == XmpMarks(stars=4, flag="pick")


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_fifo_or_folder_at_the_sidecars_name_neither_hangs_nor_hides_a_swap_file(tmp_path: Path, kind: str) -> None:
    """A third attack: a FIFO at the sidecar's name, with a swap file waiting, hung every later run in
    the folder (a link to /dev/zero ate the memory; with a folder there the swap file stayed hidden):
    only a regular file of a sidecar's size is read, and the swap file is kept aside visibly."""
    import threading

    (os.mkfifo if kind == "fifo" else os.mkdir)(tmp_path / "IMG_0007.xmp")
    left = _left_by_a_killed_swap(tmp_path, "IMG_0007.xmp", b"expected", b"ours", b"their only copy", "abcd1234")
    outcome: list[list[Path]] = []
    worker = threading.Thread(target=lambda: outcome.append(atomic_write.remove_leftovers(tmp_path, 1.5e9, merge=_joined)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert outcome == [[]] and not left.exists()
    (kept,) = tmp_path.glob("aesthete-kept-*-IMG_0007.xmp")
    assert kept.read_bytes() == b"their only copy"


@pytest.mark.parametrize("another_in_between", [False, True])
def test_a_save_landing_while_a_swap_is_settled_is_never_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              another_in_between: bool) -> None:  # fmt: skip
    """Settling checked the sidecar and then replaced it: a save landing in those microseconds was lost.
    The merge now goes in by an exchange; a save it displaced goes back, and the swap file is kept aside."""
    sidecar = tmp_path / "IMG_0007.xmp"
    sidecar.write_bytes(b"ours")
    left = _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", b"ours", b"theirs, raced", "abcd1234")
    real = atomic_write.exchange
    saves = [b"a save in between", b"and another"] if another_in_between else [b"a save in between"]

    def racing(first: Path, second: Path) -> bool:
        if saves:
            write_by_rename(second, saves.pop(0).decode())
        return real(first, second)

    monkeypatch.setattr(atomic_write, "exchange", racing)
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    kept = sorted(k.read_bytes() for k in tmp_path.glob("aesthete-kept-*.xmp"))
    if another_in_between:  # the newest save stands; the one before it and the swap file are both kept
        assert sidecar.read_bytes() == b"and another"
        assert kept == sorted([b"theirs, raced", b"a save in between"])
    else:
        assert sidecar.read_bytes() == b"a save in between"
        assert kept == [b"theirs, raced"]
    assert not left.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".aesthete-")]


def test_a_swap_file_another_run_is_settling_is_left_to_that_run(tmp_path: Path) -> None:
    """Two runs settling one swap file at once could leave a needless kept file (1 in 15 tries in an
    attack): the one settling holds a lock on it, and the other leaves it alone."""
    import fcntl

    sidecar = tmp_path / "IMG_0008.xmp"
    sidecar.write_bytes(b"ours")
    left = _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", b"ours", b"theirs, raced", "abcd1234")
    other_run = os.open(left, os.O_RDONLY)
    try:
        fcntl.flock(other_run, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
        assert left.read_bytes() == b"theirs, raced" and sidecar.read_bytes() == b"ours"
        assert not list(tmp_path.glob("aesthete-kept-*"))
    finally:
        os.close(other_run)  # that run is gone: the next one settles it
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == [left]
    assert sidecar.read_bytes() == b"theirs, raced + ours"


class _Killed(BaseException):
    """Stands for kill -9: nothing after it runs, no cleanup of ours (only what the system does)."""


def test_a_settler_killed_after_its_exchange_leaves_the_save_it_displaced_to_be_settled(tmp_path: Path,
                                                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """An attack: a run settling a swap file was killed right after its exchange, which had displaced a
    save another program landed after the check; that save sat under a plain temporary name, and the
    next run deleted it as a leftover. It now sits under a swap file's name and is settled like one."""
    sidecar = tmp_path / "IMG_0010.xmp"
    sidecar.write_bytes(b"ours")
    _left_by_a_killed_swap(tmp_path, sidecar.name, b"expected", b"ours", b"theirs, raced", "abcd1234")
    real = atomic_write.exchange

    def killed_after(first: Path, second: Path) -> bool:
        write_by_rename(second, "a later save")  # lands after the settler's check
        real(first, second)
        raise _Killed

    monkeypatch.setattr(atomic_write, "exchange", killed_after)
    with pytest.raises(_Killed):
        atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined)
    assert sidecar.read_bytes() == b"theirs, raced + ours"
    monkeypatch.setattr(atomic_write, "exchange", real)
    monkeypatch.setattr(atomic_write, "process_alive", lambda *_args: False)  # the next run: that process is gone
    atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined)
    # the later save is back under the sidecar's name, with the killed write's marks on top; nothing lost
    assert sidecar.read_bytes() == b"a later save + theirs, raced + ours"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".aesthete-")]
    # the first swap file, superseded by the later save, may be kept aside (its edit is older, not lost)
    assert [k.read_bytes() for k in tmp_path.glob("aesthete-kept-*")] in ([], [b"theirs, raced"])


def test_a_hard_link_named_like_a_swap_file_is_never_settled(tmp_path: Path) -> None:
    """An attack: a swap-named hard link to another sidecar was read as what a killed swap displaced;
    that sidecar's bytes went in place of this one's, and this one's were deleted. A swap file of ours
    has one name: such a file is left alone, and both sidecars stay as they are."""
    other, sidecar = tmp_path / "IMG_0002.xmp", tmp_path / "IMG_0003.xmp"
    other.write_bytes(b"only in 0002")
    sidecar.write_bytes(b"ours")
    keys = f"{atomic_write.name_key(sidecar.name)}-{atomic_write.content_key(b'expected')}-{atomic_write.content_key(b'ours')}"
    link = tmp_path / f".aesthete-swap-{a_pid_no_process_has()}-{keys}-eeee1234.xmp.tmp"
    os.link(other, link)
    os.utime(link, (1e9, 1e9))
    assert atomic_write.remove_leftovers(tmp_path, older_than=1.5e9, merge=_joined) == []
    assert sidecar.read_bytes() == b"ours" and other.read_bytes() == b"only in 0002" and link.exists()
    assert not list(tmp_path.glob("aesthete-kept-*"))
