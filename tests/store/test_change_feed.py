"""Changes other writers commit reach this profile's hub through `profile.changes.poll()`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from aesthete_gui.store import Profile, events, open_profile
from aesthete_gui.store.connection import CHANGE_LOG_KEEP

CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]


def _watching(profile: Profile) -> list[object]:
    seen: list[object] = []
    profile.events.subscribe(seen.append)
    profile.changes.start()
    return seen


def test_another_profile_on_the_file_is_heard_and_our_own_writes_are_not_repeated(profile: Profile) -> None:
    image_id = profile.catalog.ensure_image("/photos/a.jpg")
    seen = _watching(profile)
    assert profile.changes.poll() == 0
    profile.marks.set(image_id, stars=2)
    assert seen == [events.MarksChanged((image_id,))]  # published once, by the repository itself
    assert profile.changes.poll() == 0
    other = open_profile(profile.path)
    other.marks.set(image_id, flag="pick")
    other.choices.add(image_id, other.catalog.ensure_image("/photos/b.jpg"), "a")
    other.close()
    seen.clear()
    assert profile.changes.poll() == 3
    b = profile.catalog.image_by_path("/photos/b.jpg").id
    assert seen == [events.MarksChanged((image_id,)), events.ImagesChanged((b,)),
                    events.ChoicesChanged((image_id, b))]  # fmt: skip
    assert profile.marks.get(image_id).flag == "pick"


def test_a_command_line_mark_is_published_in_this_process(tmp_path: Path) -> None:
    path = tmp_path / "profile.db"
    window = open_profile(path, actor="window")
    image_id = window.catalog.ensure_image(str(tmp_path / "IMG_1.jpg"))
    seen = _watching(window)
    done = subprocess.run([*CLI, "--profile", str(path), "mark", str(image_id), "--stars", "5"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert window.changes.poll() == 2  # the mark, then its sidecar's state (`mark` writes XMP by default)
    assert seen == [events.MarksChanged((image_id,)), events.SidecarStatesChanged((image_id,))]
    mark = window.marks.get(image_id)
    assert (mark.stars, mark.source) == (5, "cli")
    window.close()


def test_a_program_writing_without_aesthete_is_noticed_as_a_change_elsewhere(profile: Profile) -> None:
    profile.catalog.ensure_image("/photos/a.jpg")
    seen = _watching(profile)
    conn = sqlite3.connect(profile.path)
    conn.execute("UPDATE images SET status = 'missing'")
    conn.commit()
    conn.close()
    assert profile.changes.poll() == 1
    assert seen == [events.ChangedElsewhere()]


def test_a_reader_that_fell_behind_the_log_refreshes_everything(profile: Profile) -> None:
    image_id = profile.catalog.ensure_image("/photos/a.jpg")
    seen = _watching(profile)
    other = open_profile(profile.path)
    for n in range(CHANGE_LOG_KEEP + 300):
        other.marks.set(image_id, stars=n % 6)
    other.close()
    assert profile.changes.poll() == 1
    assert seen == [events.ChangedElsewhere()]
    kept = profile.conn.execute("SELECT COUNT(*) FROM change_log").fetchone()[0]
    assert kept <= CHANGE_LOG_KEEP + 256  # the log is pruned as it grows


def test_an_unknown_event_from_a_newer_aesthete_is_a_change_elsewhere(profile: Profile) -> None:
    seen = _watching(profile)
    with profile.database.transaction() as tx:
        tx.execute("INSERT INTO change_log (writer, event, created_at) VALUES ('newer', ?, 0)",
                   ('{"type": "SomethingNew", "x": 1}',))  # fmt: skip
    assert profile.changes.poll() == 1
    assert seen == [events.ChangedElsewhere()]
