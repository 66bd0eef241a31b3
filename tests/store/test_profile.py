"""The profile file: creation, migrations, WAL, and the library tables (images, marks, bursts, features)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.store import ImageUpdate, Profile, open_profile
from aesthete_gui.store.errors import ProfileTooNewError
from aesthete_gui.store.migrations import latest_version


def _update(path: str, **kw) -> ImageUpdate:
    values = {"folder_id": None, "status": "ok", "size": 10, "mtime_ns": 5, "content_hash": "h-" + path}
    values.update(kw)
    return ImageUpdate(path=path, **values)


def test_open_creates_folder_and_latest_schema_in_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "p.db"
    profile = open_profile(path)
    assert path.is_file()
    assert profile.schema_version == latest_version()
    assert profile.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert profile.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    tables = set(profile.db.table_names())
    assert {"folders", "images", "features", "bursts", "judgments", "choices", "scores",
            "runs", "adapters", "marks", "schema_version"} <= tables  # fmt: skip
    profile.close()


def test_reopen_keeps_data_and_does_not_rerun_migrations(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    first = open_profile(path)
    image_id = first.catalog.ensure_image("/photos/a.jpg")
    first.close()
    second = open_profile(path)
    assert second.catalog.image_by_id(image_id).path == "/photos/a.jpg"
    versions = second.conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]
    assert versions == latest_version()
    second.close()


def test_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    open_profile(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (999, 0)")
    conn.commit()
    conn.close()
    with pytest.raises(ProfileTooNewError, match="newer"):
        open_profile(path)


def test_closed_profile_refuses_use(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    profile.close()
    with pytest.raises(sqlite3.ProgrammingError):
        profile.catalog.images()


def test_write_images_upserts_by_path(profile: Profile) -> None:
    folder = profile.catalog.add_folder("/photos")
    assert profile.catalog.add_folder("/photos") == folder
    ids = profile.catalog.write_images(
        [
            _update("/photos/a.jpg", folder_id=folder, phash=2**64 - 1, width=4000, height=3000,
                    exif={"camera": "Canon EOS R5", "lens": "RF 50mm"}),
            _update("/photos/b.jpg", folder_id=folder, status="error", error="truncated file"),
        ]
    )  # fmt: skip
    a = profile.catalog.image_by_id(ids[0])
    assert a.phash == 2**64 - 1 and a.camera == "Canon EOS R5" and a.lens == "RF 50mm"
    assert profile.catalog.image_by_path("/photos/b.jpg").error == "truncated file"
    again = profile.catalog.write_images([_update("/photos/b.jpg", folder_id=folder, width=10)])
    assert again == [ids[1]]
    b = profile.catalog.image_by_id(ids[1])
    assert b.status == "ok" and b.error is None and b.width == 10
    assert [i.path for i in profile.catalog.images(status="ok")] == ["/photos/a.jpg", "/photos/b.jpg"]
    assert profile.catalog.image_count() == 2
    assert [i.id for i in profile.catalog.images_by_hash("h-/photos/a.jpg")] == [ids[0]]


def test_move_and_missing(profile: Profile) -> None:
    [image_id] = profile.catalog.write_images([_update("/old/a.jpg")])
    profile.catalog.record_missing([image_id])
    assert profile.catalog.image_by_id(image_id).status == "missing"
    profile.catalog.move_image(image_id, "/new/a.jpg", None, 10, 6)
    moved = profile.catalog.image_by_id(image_id)
    assert (moved.path, moved.status, moved.mtime_ns) == ("/new/a.jpg", "ok", 6)
    assert profile.catalog.image_by_path("/old/a.jpg") is None


def test_marks_change_only_what_is_given(profile: Profile) -> None:
    image_id = profile.catalog.ensure_image("/a.jpg")
    assert profile.marks.get(image_id).stars == 0
    profile.marks.set(image_id, stars=4)
    profile.marks.set(image_id, flag="pick", label="purple")
    mark = profile.marks.get(image_id)
    assert (mark.stars, mark.flag, mark.label) == (4, "pick", "Purple")
    profile.marks.set(image_id, flag=None)
    assert profile.marks.get(image_id).flag is None and profile.marks.get(image_id).stars == 4
    for bad in ({"stars": 6}, {"flag": "maybe"}, {"label": "orange"}):
        with pytest.raises(ValueError):
            profile.marks.set(image_id, **bad)
    with pytest.raises(KeyError):
        profile.marks.set(999, stars=1)
    assert set(profile.marks.all()) == {image_id}


def test_bursts_editable_and_automatic_regrouping_respects_edits(profile: Profile) -> None:
    ids = [profile.catalog.ensure_image(f"/b/{n}.jpg") for n in range(6)]
    created = profile.catalog.replace_automatic_bursts([ids[:3], ids[3:5], ids[5:]])
    assert len(created) == 2
    assert [b.image_ids for b in profile.catalog.bursts()] == [tuple(ids[:3]), tuple(ids[3:5])]
    edited = profile.catalog.set_burst([ids[2], ids[5]])
    assert {b.id: b.edited for b in profile.catalog.bursts()}[edited] is True
    # Regrouping leaves the user's burst alone and drops groups that fall below two images.
    profile.catalog.replace_automatic_bursts([ids[:3], ids[3:]])
    groups = sorted(b.image_ids for b in profile.catalog.bursts())
    assert groups == sorted([tuple(ids[:2]), (ids[2], ids[5]), (ids[3], ids[4])])
    # Taking one of two images out dissolves the burst.
    profile.catalog.set_burst([ids[5]], burst_id=None)
    assert all(ids[5] not in b.image_ids for b in profile.catalog.bursts())
    assert edited not in {b.id for b in profile.catalog.bursts()}
    with pytest.raises(KeyError):
        profile.catalog.set_burst(ids[:2], burst_id=12345)


def test_features_round_trip_float32_and_versions(profile: Profile) -> None:
    a, b = profile.catalog.ensure_image("/a.jpg"), profile.catalog.ensure_image("/b.jpg")
    profile.catalog.put_features(a, ["x", "y"], [1.5, -2.0], "1")
    profile.catalog.put_features(b, ["x", "y"], np.array([0.25, 3.0]), "1")
    ids, names, matrix = profile.catalog.features()
    assert ids == [a, b] and names == ["x", "y"]
    assert matrix.dtype == np.float32
    np.testing.assert_array_equal(matrix, np.array([[1.5, -2.0], [0.25, 3.0]], dtype=np.float32))
    profile.catalog.put_features(a, ["x", "y", "z"], [1, 2, 3], "2")
    ids, names, matrix = profile.catalog.features()
    assert ids == [a] and names == ["x", "y", "z"] and matrix.shape == (1, 3)
    assert profile.catalog.features("1")[0] == [b]
    with pytest.raises(ValueError):
        profile.catalog.put_features(a, ["x"], [1, 2], "1")


def test_empty_features(profile: Profile) -> None:
    ids, names, matrix = profile.catalog.features()
    assert ids == [] and names == [] and matrix.shape == (0, 0)


def test_initial_marks_are_stored_with_the_image_only_when_it_has_none(profile: Profile) -> None:
    ids, added = profile.catalog.write_import_batch([_update("/a.jpg", initial_marks=(3, "pick", "green"))])
    assert added == 1
    mark = profile.marks.get(ids[0])
    assert (mark.stars, mark.flag, mark.label) == (3, "pick", "Green")
    profile.marks.set(ids[0], stars=5)
    _, added = profile.catalog.write_import_batch([_update("/a.jpg", initial_marks=(1, None, None))])
    assert added == 0 and profile.marks.get(ids[0]).stars == 5
