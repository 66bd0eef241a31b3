"""VLM student recipe (docs/method.md §6): TRL's GRPOTrainer on the ranking-fidelity reward, LoRA by default.

The reward of one sampled answer is R_rank (seed 000, eq. 8, against the other images of the batch)
plus `format_weight` for a well-formed <think>/<answer> reply and `range_weight` times the share of
the five dimensions answered inside 1..5 (the paper's "auxiliary format and range terms").

Launch on one device with `aesthete distill-vlm ...`, or on several GPUs with
`accelerate launch -m aesthete_gui.training.grpo_recipe --profile P --model M --output O
[--deepspeed resources/grpo/zero3.json]`. trl, peft and accelerate are imported only when training.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.parsing import parse_pointwise, split_reply
from aesthete_gui.training.reward import DEFAULT_TAU_W, group_rank_rewards


@dataclass
class RecipeConfig:
    """The recipe's settings (resources/grpo/default.toml); `grpo` goes to GRPOConfig as is."""

    preset: str = "photography"
    scorer_id: str = ""
    tau_w: float = DEFAULT_TAU_W
    format_weight: float = 0.25
    range_weight: float = 0.25
    max_image_side: int = 768
    grpo: dict[str, Any] = field(default_factory=dict)
    lora: dict[str, Any] = field(default_factory=lambda: {"enabled": True, "r": 16, "alpha": 32, "dropout": 0.05})
    deepspeed: str = ""


def default_config_path() -> Path:
    """resources/grpo/default.toml."""
    from aesthete_gui.resources import resource_file

    return resource_file("grpo", "default.toml")


def load_config(path: str | Path | None = None, **overrides: Any) -> RecipeConfig:
    """Read a recipe TOML (default: the shipped one); `overrides` replace [grpo] keys."""
    source = Path(path) if path else default_config_path()
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"cannot read GRPO recipe config {source}: {error}") from error
    recipe = data.get("recipe", {})
    unknown = set(recipe) - set(RecipeConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"{source}: unknown [recipe] keys {sorted(unknown)}")
    grpo = {**data.get("grpo", {}), **overrides}
    return RecipeConfig(
        **recipe,
        grpo=grpo,
        lora=data.get("lora", {"enabled": False}),
        deepspeed=str(data.get("deepspeed", {}).get("config", "")),
    )


def completion_text(completion: Any) -> str:
    """The text of one completion, whether TRL hands a string or a list of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        content = completion[-1].get("content", "") if isinstance(completion[-1], dict) else ""
        if isinstance(content, list):
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return str(content)
    return ""


def format_score(text: str) -> float:
    """1 for reasoning in <think> and a JSON answer in <answer> tags, 0.5 for the answer tags only, else 0."""
    parts = split_reply(text)
    if not parts.had_answer_tag or "{" not in parts.answer:
        return 0.0
    return 1.0 if "</think>" in text.lower() and parts.reasoning else 0.5


def make_reward_function(config: RecipeConfig) -> Callable[..., list[float | None]]:
    """The reward TRL calls with the batch's completions and the dataset columns image_key, pseudo
    (TRL's reward type allows None for "no reward"; this one always gives a number)."""

    def aesthete_reward(
        prompts: Sequence[Any], completions: Sequence[Any], image_key: Sequence[str], pseudo: Sequence[Sequence[float]], **_: Any
    ) -> list[float | None]:
        texts = [completion_text(c) for c in completions]
        parsed = [parse_pointwise(t) for t in texts]
        answers = [p.scores if p.parsed else None for p in parsed]
        targets = [dict(zip(DIMENSIONS, values, strict=True)) for values in pseudo]
        rank = group_rank_rewards(answers, list(image_key), targets, DIMENSIONS, config.tau_w)
        rewards: list[float | None] = []
        for text, result, rank_reward in zip(texts, parsed, rank, strict=True):
            in_range = sum(v is not None for v in result.scores.values()) / len(DIMENSIONS)
            rewards.append(rank_reward + config.format_weight * format_score(text) + config.range_weight * in_range)
        return rewards

    return aesthete_reward


def build_trainer(model_dir: str | Path, rows: list[dict[str, Any]], config: RecipeConfig, output_dir: str | Path) -> Any:
    """A ready GRPOTrainer for the model in `model_dir` (local folder, safetensors) on `rows`."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from aesthete_gui.ml.loading import LoadOptions, load_vlm

    loaded = load_vlm(model_dir, LoadOptions(device="cpu" if config.grpo.get("use_cpu") else None))
    model, processor = loaded.model, loaded.processor
    model.train()
    settings = {"report_to": "none", "remove_unused_columns": False, **config.grpo}
    if config.deepspeed:
        settings["deepspeed"] = config.deepspeed
    args = GRPOConfig(output_dir=str(output_dir), **settings)
    peft_config = None
    if config.lora.get("enabled", True):
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=int(config.lora.get("r", 16)),
            lora_alpha=int(config.lora.get("alpha", 32)),
            lora_dropout=float(config.lora.get("dropout", 0.05)),
            target_modules=list(config.lora.get("target_modules", ["q_proj", "k_proj", "v_proj", "o_proj"])),
            task_type="CAUSAL_LM",
        )
    return GRPOTrainer(
        model=model,
        reward_funcs=[make_reward_function(config)],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=processor,
        peft_config=peft_config,
    )


def train_vlm_student(
    profile_path: str | Path, model_dir: str | Path, output_dir: str | Path, config: RecipeConfig
) -> dict[str, Any]:
    """Build the dataset from the profile's pseudo-scores, run GRPO, save the (LoRA) model; return a summary."""
    from aesthete_gui.engine.prompts import PromptBook
    from aesthete_gui.store import open_profile
    from aesthete_gui.training.datasets import grpo_rows, pseudo_scored_images

    profile = open_profile(profile_path)
    try:
        data = pseudo_scored_images(profile, config.scorer_id or None)
    finally:
        profile.close()
    prompt = PromptBook.for_preset(config.preset).pointwise()
    rows = grpo_rows(data, prompt.text, config.max_image_side)
    trainer = build_trainer(model_dir, rows, config, output_dir)
    result = trainer.train()
    trainer.save_model(str(output_dir))
    return {
        "images": len(rows),
        "pseudo_scores": data.scorer_id,
        "steps": int(result.global_step),
        "train_loss": float(result.training_loss),
        "output": str(output_dir),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The recipe's command-line options (shared by `aesthete distill-vlm` and `-m` launching)."""
    parser.add_argument("--model", required=True, help="local model folder (safetensors) to train")
    parser.add_argument("--output", required=True, help="folder for checkpoints and the trained adapter")
    parser.add_argument("--config", default=None, help="recipe TOML (default: resources/grpo/default.toml)")
    parser.add_argument("--deepspeed", default=None, help="DeepSpeed JSON config (overrides the TOML)")
    parser.add_argument("--max-steps", type=int, default=None, help="stop after this many optimizer steps")
    parser.add_argument("--cpu", action="store_true", help="train on the CPU (smoke tests; slow)")


def config_from_args(args: argparse.Namespace) -> RecipeConfig:
    """The RecipeConfig that command-line arguments ask for."""
    overrides: dict[str, Any] = {}
    if args.max_steps is not None:
        overrides["max_steps"] = args.max_steps
    if args.cpu:
        overrides.update(use_cpu=True, bf16=False)
    config = load_config(args.config, **overrides)
    if args.deepspeed:
        config.deepspeed = args.deepspeed
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """`accelerate launch -m aesthete_gui.training.grpo_recipe --profile P --model M --output O`."""
    parser = argparse.ArgumentParser(prog="aesthete_gui.training.grpo_recipe", description=__doc__)
    parser.add_argument("--profile", required=True, help="profile database holding the pseudo-scores")
    add_arguments(parser)
    args = parser.parse_args(argv)
    summary = train_vlm_student(args.profile, args.model, args.output, config_from_args(args))
    print(summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
