"""Single-pass VLM scoring (SPEC §6): expected scores from the probabilities of "1".."5", no generation.

For each image the pointwise prompt is run once (the image prefix); its key/value cache is then
repeated five times and each copy is continued with one dimension's answer opening
(`<answer>{"technique": `). The next-token probabilities of the digits 1..5, renormalised over
those five tokens, give the expected score 1..5 of that dimension (as Q-Align does). Batches of
images share one prefix pass and one five-way continuation pass.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.prompts import DEFAULT_PRESET, PromptBook
from aesthete_gui.engine.scorers import ScorerKind, scorer_id
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.ml.images import ImageUnreadable, load_rgb
from aesthete_gui.ml.loading import (
    DEFAULT_LOAD_OPTIONS,
    LazyVLM,
    LoadedModel,
    LoadOptions,
    ModelLoadError,
)
from aesthete_gui.ml.vlm import chat_text, model_label

SCORE_TOKENS = ("1", "2", "3", "4", "5")


def score_token_ids(tokenizer: Any) -> list[int]:
    """Token ids of "1".."5"; a model whose tokenizer splits them cannot score in one pass."""
    ids = []
    for digit in SCORE_TOKENS:
        encoded = tokenizer.encode(digit, add_special_tokens=False)
        if len(encoded) != 1:
            raise ModelLoadError(f"the tokenizer splits the score digit {digit!r}; single-pass needs single tokens")
        ids.append(encoded[0])
    return ids


def suffix_token_ids(tokenizer: Any, base: str, answer_prefixes: Sequence[str]) -> list[list[int]]:
    """Per dimension, the tokens that follow the shared prefix `base` (checked to split cleanly)."""
    base_ids = tokenizer(base, add_special_tokens=False)["input_ids"]
    suffixes = []
    for prefix in answer_prefixes:
        full = tokenizer(base + prefix, add_special_tokens=False)["input_ids"]
        if full[: len(base_ids)] != base_ids or len(full) == len(base_ids):
            raise ModelLoadError("the tokenizer merges the prompt with the answer opening; cannot share the prefix")
        suffixes.append(full[len(base_ids) :])
    return suffixes


def expected_scores(logits_rows: Any, digit_ids: Sequence[int]) -> np.ndarray:
    """Expected value 1..5 from logits rows (n, vocab), renormalised over the five digit tokens."""
    import torch

    picked = logits_rows[:, list(digit_ids)].float()
    probs = torch.softmax(picked, dim=-1)
    levels = torch.arange(1, 6, dtype=probs.dtype, device=probs.device)
    return (probs * levels).sum(dim=-1).cpu().numpy().astype(np.float64)


def score_batch(
    loaded: LoadedModel, images: Sequence[Any], prompt_text: str, answer_prefixes: Sequence[str]
) -> np.ndarray:
    """(len(images), len(answer_prefixes)) expected scores, sharing each image's prefix cache."""
    import torch

    processor = loaded.processor
    tokenizer = processor.tokenizer
    model = loaded.model
    digit_ids = score_token_ids(tokenizer)
    base = chat_text(processor, 1, prompt_text)
    suffixes = suffix_token_ids(tokenizer, base, answer_prefixes)
    count, repeats = len(images), len(suffixes)
    inputs = processor(text=[base] * count, images=list(images), padding=True, return_tensors="pt")
    inputs = inputs.to(model.device)
    inner = getattr(model, "model", None)
    if inner is not None and hasattr(inner, "rope_deltas"):
        inner.rope_deltas = None  # a stale value from an earlier call must not leak in
    with torch.inference_mode():
        prefix = model(**inputs, use_cache=True, logits_to_keep=1)
        cache = prefix.past_key_values
        cache.batch_repeat_interleave(repeats)
        prefix_mask = inputs["attention_mask"].repeat_interleave(repeats, dim=0)
        width = max(len(s) for s in suffixes)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        ids = torch.full((count * repeats, width), pad, dtype=torch.long)
        lengths = torch.tensor([len(s) for s in suffixes] * count)
        for row in range(count * repeats):
            suffix = suffixes[row % repeats]
            ids[row, : len(suffix)] = torch.tensor(suffix)
        ids = ids.to(model.device)
        suffix_mask = (torch.arange(width)[None, :] < lengths[:, None]).to(prefix_mask.dtype)
        attention = torch.cat([prefix_mask, suffix_mask.to(model.device)], dim=1)
        text_positions = prefix_mask.sum(dim=1, keepdim=True) + torch.arange(width, device=model.device)
        position_ids = text_positions
        deltas = getattr(inner, "rope_deltas", None) if inner is not None else None
        if deltas is not None:
            deltas = deltas.repeat_interleave(repeats, dim=0).to(model.device)
            rope = (text_positions + deltas)[None].expand(3, -1, -1)
            position_ids = torch.cat([text_positions[None], rope], dim=0)
        output = model(
            input_ids=ids,
            attention_mask=attention,
            past_key_values=cache,
            position_ids=position_ids,
            use_cache=True,
        )
        last = (lengths - 1).to(model.device)
        rows = output.logits[torch.arange(count * repeats, device=model.device), last]
    return expected_scores(rows, digit_ids).reshape(count, repeats)


def score_batch_uncached(
    loaded: LoadedModel, image: Any, prompt_text: str, answer_prefix: str
) -> float:
    """One image and one dimension in a plain forward pass (the reference the cached path must match)."""
    import torch

    processor = loaded.processor
    text = chat_text(processor, 1, prompt_text, answer_prefix)
    inputs = processor(text=[text], images=[image], return_tensors="pt").to(loaded.model.device)
    inner = getattr(loaded.model, "model", None)
    if inner is not None and hasattr(inner, "rope_deltas"):
        inner.rope_deltas = None
    with torch.inference_mode():
        logits = loaded.model(**inputs).logits[:, -1]
    return float(expected_scores(logits, score_token_ids(processor.tokenizer))[0])


class VLMSinglePassScorer:
    """A VLM (typically a distilled checkpoint) scoring libraries in one pass per image: a `Scorer`."""

    def __init__(
        self,
        model_dir_or_id: str | os.PathLike[str],
        preset: str = DEFAULT_PRESET,
        *,
        prompts: PromptBook | None = None,
        batch_size: int = 8,
        max_side: int = 1024,
        loaded: LoadedModel | None = None,
        load_options: LoadOptions = DEFAULT_LOAD_OPTIONS,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_dir_or_id = model_dir_or_id
        self.prompts = prompts or PromptBook.for_preset(preset)
        self.batch_size = batch_size
        self.max_side = max_side
        self._model = LazyVLM(model_dir_or_id, load_options, loaded)
        self.scorer_id = scorer_id(ScorerKind.VLM, model_label(model_dir_or_id))

    @property
    def version(self) -> str:
        """The prompt and preset versions behind the scores."""
        return self.prompts.version

    def load(
        self, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> LoadedModel:
        """Load the model now (otherwise it loads on first use); returns the loaded model."""
        return self._model.load(progress, cancel)

    def score_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, 5) expected scores for decoded PIL images, in DIMENSIONS order."""
        prompt, prefixes = self.prompts.single_pass()
        loaded = self.load()
        rows = [
            score_batch(loaded, images[i : i + self.batch_size], prompt.text, [prefixes[d] for d in DIMENSIONS])
            for i in range(0, len(images), self.batch_size)
        ]
        return np.concatenate(rows) if rows else np.zeros((0, len(DIMENSIONS)))

    def score_paths(
        self,
        paths: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[dict[str, float]]:
        """Scores per path in order; an unreadable image gets an empty mapping."""
        results: list[dict[str, float]] = [{} for _ in paths]
        for start in range(0, len(paths), self.batch_size):
            if cancel is not None:
                cancel.raise_if_cancelled()
            chunk = range(start, min(start + self.batch_size, len(paths)))
            readable: list[tuple[int, Any]] = []
            for index in chunk:
                try:
                    readable.append((index, load_rgb(paths[index], self.max_side)))
                except ImageUnreadable:
                    continue
            if readable:
                scores = self.score_images([image for _, image in readable])
                for (index, _), row in zip(readable, scores, strict=True):
                    results[index] = {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
            if progress is not None:
                progress(Progress(chunk.stop, len(paths), "single-pass scores"))
        return results
