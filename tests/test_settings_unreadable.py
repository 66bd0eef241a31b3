"""A settings file that cannot be read is kept beside the new one before it is replaced: bad input
loses nothing."""

from __future__ import annotations

import json
from pathlib import Path

from aesthete_gui.settings import update_settings_file


def test_a_settings_file_with_a_typo_is_kept_before_a_change_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "profile.db.settings.json"
    typo = '{"server_url": "http://gpu:8000/v1", "thumbnail_cache_mb": 2048, "shoot_type": "wedding",}'
    path.write_text(typo, encoding="utf-8")
    assert update_settings_file(path, {"sort": "score"}) == {"sort": "score"}
    assert json.loads(path.read_text(encoding="utf-8")) == {"sort": "score"}
    assert (tmp_path / "profile.db.settings.json.unreadable").read_text(encoding="utf-8") == typo
    update_settings_file(path, {"theme": "light"})  # a readable file is never copied aside again
    assert (tmp_path / "profile.db.settings.json.unreadable").read_text(encoding="utf-8") == typo
