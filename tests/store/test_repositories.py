"""The repositories announce their own changes: after the commit, on the hub of the profile instance."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import pytest

from aesthete_gui.store import (
    ImageUpdate,
    Profile,
    SidecarState,
    events,
    open_profile,
)
from aesthete_gui.store.repository import Repository, is_writer


def test_each_write_announces_after_its_commit(profile: Profile, tmp_path: Path) -> None:
    """A subscriber reading the profile from inside its callback already sees the change."""
    seen: list[tuple[object, object]] = []

    def look(event: object) -> None:
        if isinstance(event, events.MarksChanged):
            seen.append((event, profile.marks.get(event.image_ids[0]).stars))
        else:
            seen.append((event, None))

    profile.events.subscribe(look)
    folder = profile.catalog.add_folder(str(tmp_path))
    [a, b] = profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=folder, status="ok") for n in range(2)]
    )
    profile.marks.set(a, stars=4)
    profile.catalog.set_burst([a, b])
    profile.catalog.move_image(b, str(tmp_path / "moved.jpg"), folder, 10, 1)
    profile.sidecars.record(SidecarState(a, str(tmp_path / "0.xmp"), 1, 1, "h", 0.0))
    profile.runs.update(profile.runs.create("import"), status="done")
    assert seen == [
        (events.FoldersChanged((folder,)), None),
        (events.ImagesChanged((a, b)), None),
        (events.MarksChanged((a,)), 4),
        (events.BurstsChanged((a, b)), None),
        (events.ImagesChanged((b,)), None),
        (events.SidecarStatesChanged((a,)), None),
        (events.RunChanged(1, "import", "running"), None),
        (events.RunChanged(1, "import", "done"), None),
    ]


def test_a_failed_write_announces_nothing(profile: Profile) -> None:
    image_id = profile.catalog.ensure_image("/a.jpg")
    seen: list[object] = []
    profile.events.subscribe(seen.append)
    with pytest.raises(ValueError):
        profile.marks.set(image_id, stars=9)
    with pytest.raises(ValueError), profile.database.transaction() as tx:
        tx.execute("UPDATE marks SET stars = 1")
        tx.announce(events.MarksChanged((image_id,)))
        raise ValueError("the block failed: rolled back, not announced")
    assert seen == []


def test_each_open_profile_has_its_own_hub(tmp_path: Path) -> None:
    first, second = open_profile(tmp_path / "p.db"), open_profile(tmp_path / "p.db")
    heard: list[object] = []
    second.events.subscribe(heard.append)
    first.catalog.ensure_image("/a.jpg")
    assert heard == []  # the other instance learns of it through its change feed, like another process
    second.changes.start()
    first.marks.set(1, stars=2)
    assert second.changes.poll() == 1 and heard == [events.MarksChanged((1,))]
    first.close()
    second.close()


def test_checks_need_no_version_from_the_caller(profile: Profile) -> None:
    [image_id] = profile.catalog.write_images([ImageUpdate(path="/a.jpg", folder_id=None, status="ok")])
    checks = [{"name": "focus", "verdict": "reject"}]
    profile.checks.put_many([(image_id, profile.checks.version, checks, [], "reject")])
    assert profile.checks.get(image_id) == (checks, [])
    assert profile.checks.suggested_rejects() == {image_id}


def test_the_mark_history_keeps_every_earlier_value_with_who_set_it(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    window = open_profile(path, actor="window")
    image_id = window.catalog.ensure_image("/a.jpg")
    window.marks.set(image_id, stars=2)
    command_line = open_profile(path, actor="cli")
    command_line.marks.set(image_id, flag="pick")
    command_line.close()
    window.marks.set(image_id, stars=2, flag="pick")  # the same value again: nothing earlier to keep
    window.marks.set(image_id, flag=None, source="undo")
    history = window.marks.history(image_id)
    assert [(h.source, h.stars, h.flag) for h in history] == [("window", 2, None), ("window", 2, "pick")]
    assert [h.reason for h in history] == ["replaced by the command line", "replaced by an undo in the window"]
    assert window.marks.get(image_id).source == "undo"
    window.close()


def _opens_a_transaction(method: object) -> bool:
    source = textwrap.dedent(inspect.getsource(method))  # type: ignore[arg-type]
    calls = (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
    return any(c.func.attr == "transaction" for c in calls)


def test_the_writer_marker_matches_the_code(profile: Profile) -> None:
    """A repository method is marked @writes exactly when it opens a transaction or calls another
    marked method of its repository (the layering test relies on the marker)."""
    for repository in vars(profile).values():
        if not isinstance(repository, Repository):
            continue
        kind = type(repository)
        writers = {name for name, _ in inspect.getmembers(kind, is_writer)}
        for name, method in inspect.getmembers(kind, inspect.isfunction):
            if name.startswith("_") or method.__module__ != kind.__module__:
                continue
            source = inspect.getsource(method)
            writes = _opens_a_transaction(method) or any(f"self.{w}(" in source for w in writers - {name})
            assert is_writer(method) == writes, f"{kind.__name__}.{name}: marked {is_writer(method)}, writes {writes}"


def test_a_killed_runs_pid_given_to_a_later_process_does_not_keep_it_running(profile: Profile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run records its process's pid and start time: a killed import whose pid the system handed to a
    later process (a sleeping child here) stayed 'running' as long as that process ran."""
    import subprocess
    import sys

    from tests.imaging.test_xmp_cas import known_start_and_namespace

    later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start, ns = known_start_and_namespace(monkeypatch, later.pid)
        killed = profile.runs.create("import", {"pid": later.pid, "pid_start": start + 1, "pid_ns": ns})
        running = profile.runs.create("import", {"pid": later.pid, "pid_start": start, "pid_ns": ns})
        assert profile.runs.close_interrupted("import") == 1
        assert profile.runs.get(killed).status == "interrupted"
        assert profile.runs.get(running).status == "running"
    finally:
        later.kill()
        later.wait()
