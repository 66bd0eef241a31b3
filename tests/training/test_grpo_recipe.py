"""VLM student recipe: reward terms, config, dataset rows, and two real GRPO steps on a tiny VLM."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.store import open_profile
from aesthete_gui.training import grpo_recipe
from aesthete_gui.training.datasets import NoPseudoScoresError, grpo_rows, pseudo_scored_images
from aesthete_gui.training.reward import group_rank_rewards


def _answer(value: float, think: bool = True) -> str:
    scores = json.dumps(dict.fromkeys(DIMENSIONS, value))
    return ("<think>looked at it</think>" if think else "") + f"<answer>{scores}</answer>"


def test_reward_ranks_answers_by_pseudo_order_format_and_range() -> None:
    reward = grpo_recipe.make_reward_function(grpo_recipe.load_config())
    keys = ["low", "low", "high", "high"]
    pseudo = [[1.5] * 5, [1.5] * 5, [4.5] * 5, [4.5] * 5]
    completions = [_answer(1.5), _answer(4.9), _answer(4.5), _answer(1.2)]
    values = reward(prompts=[""] * 4, completions=completions, image_key=keys, pseudo=pseudo)
    assert values[0] > values[1]  # the low image's answer that keeps it low wins
    assert values[2] > values[3]
    plain = reward(prompts=[""] * 2, completions=[_answer(4.5), _answer(4.5, think=False)], image_key=["high", "low"], pseudo=pseudo[2:0:-1])
    assert plain[0] > plain[1]  # same rank reward, but the reply without reasoning loses the format term
    garbage = reward(prompts=[""], completions=["no idea"], image_key=["x"], pseudo=[[3.0] * 5])
    assert garbage == [0.0]
    chat = reward(prompts=[""], completions=[[{"role": "assistant", "content": _answer(3.0)}]], image_key=["x"], pseudo=[[3.0] * 5])
    assert chat[0] == pytest.approx(0.5)  # no partner: format 0.25 + range 0.25


def test_group_rank_rewards_out_of_range_dimension_earns_nothing() -> None:
    answers = [dict.fromkeys(DIMENSIONS, 4.0), {**dict.fromkeys(DIMENSIONS, 4.0), "mood": None}, dict.fromkeys(DIMENSIONS, 2.0)]
    pseudo = [dict.fromkeys(DIMENSIONS, 4.0)] * 2 + [dict.fromkeys(DIMENSIONS, 2.0)]
    rewards = group_rank_rewards(answers, ["a", "a", "b"], pseudo, DIMENSIONS)
    assert rewards[0] > rewards[1] > 0


def test_config_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[recipe]\nunknown_key = 1\n")
    with pytest.raises(ValueError, match="unknown"):
        grpo_recipe.load_config(bad)
    broken = tmp_path / "broken.toml"
    broken.write_text("[recipe\n")
    with pytest.raises(ValueError, match="cannot read"):
        grpo_recipe.load_config(broken)
    assert grpo_recipe.load_config().lora["enabled"] is True


def _pseudo_profile(root: Path, count: int = 4) -> Path:
    profile = open_profile(root / "p.db")
    rng = np.random.default_rng(0)
    for i in range(count):
        path = root / f"img{i}.png"
        Image.fromarray(rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(path)
        image_id = profile.catalog.ensure_image(str(path))
        profile.scores.put(image_id, "bridge:sim", dict.fromkeys(DIMENSIONS, 1.5 + i))
    broken = root / "broken.png"
    broken.write_bytes(b"not an image")
    profile.scores.put(profile.catalog.ensure_image(str(broken)), "bridge:sim", dict.fromkeys(DIMENSIONS, 3.0))
    profile.close()
    return root / "p.db"


def test_dataset_rows_skip_undecodable_images_and_need_pseudo_scores(tmp_path: Path) -> None:
    profile = open_profile(_pseudo_profile(tmp_path))
    data = pseudo_scored_images(profile)
    assert data.scorer_id == "bridge:sim"
    rows = grpo_rows(data, "score it", 256)
    assert len(rows) == 4
    assert rows[0]["prompt"] == [{"role": "user", "content": "score it"}]
    assert rows[3]["pseudo"] == [4.5] * 5
    empty = open_profile(tmp_path / "empty.db")
    with pytest.raises(NoPseudoScoresError, match="aesthete distill"):
        pseudo_scored_images(empty)


def test_two_grpo_steps_on_the_tiny_vlm_save_a_lora_adapter(tmp_path: Path, tiny_qwen25_vl: Path) -> None:
    profile_path = _pseudo_profile(tmp_path)
    config = grpo_recipe.load_config(
        None, max_steps=2, use_cpu=True, bf16=False, num_generations=2,
        per_device_train_batch_size=4, gradient_accumulation_steps=1, max_completion_length=16,
        save_strategy="no",
    )  # fmt: skip
    summary = grpo_recipe.train_vlm_student(profile_path, tiny_qwen25_vl, tmp_path / "out", config)
    assert summary["steps"] == 2
    assert summary["images"] == 4
    assert (tmp_path / "out" / "adapter_model.safetensors").is_file()
