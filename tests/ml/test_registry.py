"""Model cards: every shipped card reads, required fields are checked, installs are found offline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aesthete_gui.ml.registry import (
    ModelCardError,
    card_for,
    installed_path,
    list_cards,
    models_dir,
    read_card,
)


def test_shipped_cards() -> None:
    cards = list_cards()
    judges = {c.id for c in cards if c.role == "judge"}
    assert judges == {
        "Qwen/Qwen3-VL-2B-Instruct", "Qwen/Qwen3-VL-4B-Instruct", "Qwen/Qwen3-VL-8B-Instruct",
        "Qwen/Qwen2.5-VL-3B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct",
    }  # fmt: skip
    families = {c.family for c in cards if c.role == "encoder"}
    assert {"siglip", "clip", "efficientnet_lite0"} <= families
    assert cards[0].role == "judge"
    card = card_for("qwen/qwen3-vl-4b-instruct")
    assert card is not None and card.licence == "Apache-2.0"
    assert card.memory_gib_float32 == pytest.approx(2 * card.memory_gib_bf16)
    assert card_for("nobody/nothing") is None


def test_bad_cards_are_reported(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('id = "x"\nrole = "judge"\n', encoding="utf-8")
    with pytest.raises(ModelCardError, match="missing family"):
        read_card(tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text("id = [", encoding="utf-8")
    with pytest.raises(ModelCardError, match="cannot read"):
        read_card(tmp_path / "b.toml")
    shutil.copy(models_dir() / "qwen3-vl-2b-instruct.toml", tmp_path / "c.toml")
    text = (tmp_path / "c.toml").read_text(encoding="utf-8").replace('role = "judge"', 'role = "oracle"')
    (tmp_path / "c.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ModelCardError, match="role must be"):
        read_card(tmp_path / "c.toml")


def test_installed_path_is_offline(tmp_path: Path, tiny_siglip_dir: Path) -> None:
    assert installed_path("google/siglip-base-patch16-224", cache_dir=tmp_path) is None
    repo = tmp_path / "models--google--siglip-base-patch16-224"
    commit = "a" * 40
    shutil.copytree(tiny_siglip_dir, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    found = installed_path("google/siglip-base-patch16-224", cache_dir=tmp_path)
    assert found is not None and (found / "config.json").is_file()
