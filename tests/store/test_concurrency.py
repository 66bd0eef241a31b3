"""Two threads (and two processes' worth of connections) writing and reading one profile file."""

from __future__ import annotations

import threading
from pathlib import Path

from aesthete_gui.store import open_profile


def test_two_threads_write_and_read_concurrently(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    images = [profile.catalog.ensure_image(f"/img/{n}.jpg") for n in range(20)]
    errors: list[BaseException] = []
    seen_counts: list[int] = []
    per_thread = 150

    def writer(tag: str) -> None:
        try:
            for n in range(per_thread):
                a, b = images[n % 20], images[(n + 1) % 20]
                profile.choices.add(a, b, "a", session=tag)
                if n % 10 == 0:
                    seen_counts.append(len(profile.choices.all()))
        except BaseException as error:
            errors.append(error)

    def reader() -> None:
        try:
            for _ in range(100):
                choices = profile.choices.all()
                # Never a partial row: every choice read is complete.
                assert all(c.session in ("t1", "t2") and c.path_a for c in choices)
                seen_counts.append(len(choices))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=("t1",)), threading.Thread(target=writer, args=("t2",)),
               threading.Thread(target=reader)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(profile.choices.all()) == 2 * per_thread
    assert max(seen_counts) <= 2 * per_thread
    profile.close()
    # Everything was committed: a fresh open sees all rows and the file is sound.
    reopened = open_profile(tmp_path / "p.db")
    assert len(reopened.choices.all()) == 2 * per_thread
    assert reopened.integrity_check() == "ok"
    reopened.close()


def test_two_profiles_on_one_file_see_each_others_commits(tmp_path: Path) -> None:
    first = open_profile(tmp_path / "p.db")
    second = open_profile(tmp_path / "p.db")
    image_id = first.catalog.ensure_image("/a.jpg")
    first.marks.set(image_id, stars=5)
    assert second.marks.get(image_id).stars == 5
    first.close()
    second.close()


def test_set_mark_reads_the_current_marks_inside_its_write_transaction(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    image_id = profile.catalog.ensure_image("/a.jpg")
    statements: list[str] = []
    profile.conn.set_trace_callback(statements.append)
    try:
        profile.marks.set(image_id, stars=3)
    finally:
        profile.conn.set_trace_callback(None)
    begin, commit = statements.index("BEGIN IMMEDIATE"), statements.index("COMMIT")
    marks_read = [i for i, s in enumerate(statements) if s.startswith("SELECT stars, flag, label") and "FROM marks" in s]
    assert begin < marks_read[0] < commit
    profile.close()


def test_threads_changing_different_marks_of_one_image_lose_no_update(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    image_id = profile.catalog.ensure_image("/a.jpg")
    errors: list[BaseException] = []

    def change(**marks: object) -> None:
        try:
            for _ in range(100):
                profile.marks.set(image_id, **marks)  # type: ignore[arg-type]
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=change, kwargs={"stars": 4}),
               threading.Thread(target=change, kwargs={"flag": "pick"})]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    mark = profile.marks.get(image_id)
    assert (mark.stars, mark.flag) == (4, "pick")
    profile.close()
