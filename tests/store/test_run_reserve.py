"""The run reserve beside a profile: laid, reused and removed only when it is our own file; whatever
else stands at its name (another profile, a link, a FIFO, a directory) is never touched."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from aesthete_gui.store import open_profile
from aesthete_gui.store.runs import (
    RESERVE_BYTES,
    RESERVE_MAGIC,
    lay_reserve,
    release_reserve,
    reserve_path,
)


def test_our_reserve_is_laid_reused_and_released(tmp_path: Path) -> None:
    profile = tmp_path / "p.db"
    assert lay_reserve(profile) and lay_reserve(profile)
    reserve = reserve_path(profile)
    assert reserve.stat().st_size == RESERVE_BYTES and reserve.read_bytes().startswith(RESERVE_MAGIC)
    assert release_reserve(profile) and not reserve.exists()
    assert not release_reserve(profile)  # none left


def test_a_reserve_of_ours_cut_short_is_laid_again(tmp_path: Path) -> None:
    profile = tmp_path / "p.db"
    reserve_path(profile).write_bytes(RESERVE_MAGIC + b"cut short by a kill")
    assert lay_reserve(profile) and reserve_path(profile).stat().st_size == RESERVE_BYTES


def test_another_profile_at_the_reserve_name_is_never_overwritten_or_removed(tmp_path: Path) -> None:
    # an attack: a profile named wedding.reserve was overwritten by `aesthete --profile wedding import`
    wedding = open_profile(tmp_path / "wedding.reserve")
    wedding.close()
    before = (tmp_path / "wedding.reserve").read_bytes()
    assert not lay_reserve(tmp_path / "wedding")
    assert not release_reserve(tmp_path / "wedding")
    assert (tmp_path / "wedding.reserve").read_bytes() == before
    same_size = tmp_path / "other.reserve"
    same_size.write_bytes(os.urandom(RESERVE_BYTES))  # a foreign file of exactly the reserve's size
    assert not lay_reserve(tmp_path / "other") and not release_reserve(tmp_path / "other") and same_size.exists()


def test_a_link_at_the_reserve_name_leaves_its_target_alone(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("the only copy")
    os.symlink(precious, reserve_path(tmp_path / "p.db"))
    assert not lay_reserve(tmp_path / "p.db") and not release_reserve(tmp_path / "p.db")
    assert precious.read_text() == "the only copy" and reserve_path(tmp_path / "p.db").is_symlink()


def test_a_fifo_or_a_directory_at_the_reserve_name_neither_hangs_nor_is_touched(tmp_path: Path) -> None:
    os.mkfifo(reserve_path(tmp_path / "a.db"))
    outcome: list[bool] = []
    worker = threading.Thread(target=lambda: outcome.append(lay_reserve(tmp_path / "a.db")), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert outcome == [False]  # answered at once: an open of the FIFO hung the import
    assert not release_reserve(tmp_path / "a.db") and reserve_path(tmp_path / "a.db").exists()
    reserve_path(tmp_path / "b.db").mkdir()
    assert not lay_reserve(tmp_path / "b.db") and reserve_path(tmp_path / "b.db").is_dir()


def test_the_reserve_of_a_linked_profile_lies_beside_the_profile_itself(tmp_path: Path) -> None:
    (tmp_path / "disk").mkdir()
    real = tmp_path / "disk" / "p.db"
    real.write_bytes(b"")
    link = tmp_path / "p.db"
    os.symlink(real, link)
    assert lay_reserve(link)
    assert (tmp_path / "disk" / "p.db.reserve").is_file() and not (tmp_path / "p.db.reserve").exists()


def test_a_draft_a_killed_process_left_is_removed_and_the_name_only_ever_holds_a_whole_reserve(tmp_path: Path) -> None:
    # an attack: a kill between creating the reserve and writing it left an empty file at its name,
    # and no later run would lay the reserve again; it is now written under a draft name and linked
    from tests.imaging.test_xmp_cas import a_pid_no_process_has

    profile = tmp_path / "p.db"
    draft = reserve_path(profile).with_name(f"{reserve_path(profile).name}.{a_pid_no_process_has()}.tmp")
    draft.write_bytes(RESERVE_MAGIC + b"cut short")
    assert lay_reserve(profile)
    assert not draft.exists() and reserve_path(profile).stat().st_size == RESERVE_BYTES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.db.reserve"]


def test_a_draft_under_our_own_process_id_is_a_dead_runs_and_is_removed(tmp_path: Path) -> None:
    # a third attack: in a container every run has the same process id, and a draft a killed run left
    # under it blocked the reserve for good
    profile = tmp_path / "p.db"
    draft = reserve_path(profile).with_name(f"{reserve_path(profile).name}.{os.getpid()}.tmp")
    draft.write_bytes(RESERVE_MAGIC + b"cut short")
    assert lay_reserve(profile) and not draft.exists()


def test_a_draft_of_a_killed_run_whose_pid_this_process_now_has_is_removed(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # drafts are named with the writer's pid, start time and pid namespace, as leftover sidecar files are
    from tests.imaging.test_xmp_cas import known_start_and_namespace

    start, namespace = known_start_and_namespace(monkeypatch, os.getpid())
    profile = tmp_path / "p.db"
    draft = reserve_path(profile).with_name(f"{reserve_path(profile).name}.{os.getpid()}s{start + 1}n{namespace}.tmp")
    draft.write_bytes(RESERVE_MAGIC + b"cut short")
    assert lay_reserve(profile) and not draft.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.db.reserve"]
