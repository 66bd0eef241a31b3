"""Single-pass VLM scoring: expected scores from the probabilities of "1".."5", no generation.

The rubric and instructions come before the image, so their key/value cache is computed once and
shared by every image and dimension (ml/scoring_layout.py). Each batch of images then runs in one
forward pass in which each dimension's answer opening (`<answer>{"technique": `) reads the image
under an attention mask that hides the other openings. The next-token probabilities of the digits
1..5, renormalised over those five tokens, give the expected score 1..5 of that dimension (as
Q-Align does). Decoding and tokenising run in a worker thread one batch ahead of the device.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
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
from aesthete_gui.ml.scoring_layout import (
    PreparedBatch,
    RubricCache,
    prepare_batch,
    rubric_first_text,
    run_batch,
)
from aesthete_gui.ml.vlm import _free_device_memory, _is_out_of_memory, model_label

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
    loaded: LoadedModel,
    images: Sequence[Any],
    prompt_text: str,
    answer_prefixes: Sequence[str],
    rubric: RubricCache | None = None,
) -> np.ndarray:
    """(len(images), len(answer_prefixes)) expected scores: shared rubric cache, one forward per batch."""
    prepared = prepare_scoring(loaded, images, prompt_text, answer_prefixes)
    return read_scores(loaded, prepared, rubric or RubricCache())


def prepare_scoring(
    loaded: LoadedModel, images: Sequence[Any], prompt_text: str, answer_prefixes: Sequence[str]
) -> PreparedBatch:
    """The CPU half of `score_batch` (tokens, pixels, positions, mask); runs in a worker thread."""
    base = rubric_first_text(loaded.processor, prompt_text)
    suffixes = suffix_token_ids(loaded.processor.tokenizer, base, answer_prefixes)
    return prepare_batch(loaded, images, base, suffixes)


def read_scores(loaded: LoadedModel, prepared: PreparedBatch, rubric: RubricCache) -> np.ndarray:
    """The device half of `score_batch`: expected scores (count, dimensions)."""
    digit_ids = score_token_ids(loaded.processor.tokenizer)
    logits = run_batch(loaded, prepared, rubric)
    count, repeats = logits.shape[0], logits.shape[1]
    return expected_scores(logits.reshape(count * repeats, -1), digit_ids).reshape(count, repeats)


def score_batch_uncached(
    loaded: LoadedModel, image: Any, prompt_text: str, answer_prefix: str
) -> float:
    """One image and one dimension in a plain forward pass of the rubric-first prompt (the reference)."""
    import torch

    processor = loaded.processor
    text = rubric_first_text(processor, prompt_text, answer_prefix)
    inputs = processor(text=[text], images=[image], return_tensors="pt").to(loaded.model.device)
    if "pixel_values" in inputs:
        inputs["pixel_values"] = inputs["pixel_values"].to(loaded.model.dtype)
    inner = getattr(loaded.model, "model", None)
    if inner is not None and hasattr(inner, "rope_deltas"):
        inner.rope_deltas = None
    with torch.inference_mode():
        logits = loaded.model(**inputs).logits[:, -1]
    return float(expected_scores(logits, score_token_ids(processor.tokenizer))[0])


def auto_batch_size(loaded: LoadedModel, tokens_per_image: int = 1100, cap: int = 64) -> int:
    """A batch size that fits the device's free memory (CUDA), or 8 elsewhere."""
    import torch

    device = loaded.model.device
    if device.type != "cuda":
        return 8
    free, _ = torch.cuda.mem_get_info(device)
    text = getattr(loaded.model.config, "text_config", loaded.model.config)
    heads = getattr(text, "num_key_value_heads", text.num_attention_heads)
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    kv_per_token = text.num_hidden_layers * 2 * heads * head_dim * 2
    # The cache is written twice (rubric rows, then the concatenation); MLP activations dominate the rest.
    per_token = 2 * kv_per_token + 6 * (text.intermediate_size + text.hidden_size) * 2
    per_image = 2 * tokens_per_image * per_token
    return max(1, min(cap, int(free * 0.6 // per_image)))


class VLMSinglePassScorer:
    """A VLM (typically a distilled checkpoint) scoring libraries in one pass per image: a `Scorer`."""

    def __init__(
        self,
        model_dir_or_id: str | os.PathLike[str],
        preset: str = DEFAULT_PRESET,
        *,
        prompts: PromptBook | None = None,
        batch_size: int | None = None,
        max_side: int = 1024,
        loaded: LoadedModel | None = None,
        load_options: LoadOptions = DEFAULT_LOAD_OPTIONS,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ValueError("batch_size must be at least 1 (or None: chosen from free memory)")
        self.model_dir_or_id = model_dir_or_id
        self.prompts = prompts or PromptBook.for_preset(preset)
        self.batch_size = batch_size
        self.max_side = max_side
        self._model = LazyVLM(model_dir_or_id, load_options, loaded)
        self._rubric = RubricCache()
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

    def _batch_size(self, loaded: LoadedModel) -> int:
        if self.batch_size is None:
            self.batch_size = auto_batch_size(loaded)
        return self.batch_size

    def _score_prepared(self, loaded: LoadedModel, images: Sequence[Any], prepared: PreparedBatch) -> np.ndarray:
        """Scores of a prepared batch; on out-of-memory, halves the batch size and retries in parts."""
        try:
            return read_scores(loaded, prepared, self._rubric)
        except (RuntimeError, MemoryError) as error:
            if not _is_out_of_memory(error) or len(images) == 1:
                raise
        del prepared
        _free_device_memory()
        self.batch_size = max(1, len(images) // 2)
        return self.score_images(images)

    def score_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, 5) expected scores for decoded PIL images, in DIMENSIONS order."""
        loaded = self.load()
        prompt, prefixes = self.prompts.single_pass()
        ordered = [prefixes[d] for d in DIMENSIONS]
        size = self._batch_size(loaded)
        chunks = [images[i : i + size] for i in range(0, len(images), size)]
        if not chunks:
            return np.zeros((0, len(DIMENSIONS)))
        rows = []
        # The worker tokenises and lays out the next batch while the device runs this one.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="single-pass-prep") as worker:
            pending = worker.submit(prepare_scoring, loaded, chunks[0], prompt.text, ordered)
            for index, chunk in enumerate(chunks):
                prepared = pending.result()
                if index + 1 < len(chunks):
                    pending = worker.submit(prepare_scoring, loaded, chunks[index + 1], prompt.text, ordered)
                rows.append(self._score_prepared(loaded, chunk, prepared))
        return np.concatenate(rows)

    def score_paths(
        self,
        paths: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[dict[str, float]]:
        """Scores per path in order; an unreadable image gets an empty mapping."""
        loaded = self.load()
        size = self._batch_size(loaded)
        results: list[dict[str, float]] = [{} for _ in paths]
        chunks = [range(s, min(s + size, len(paths))) for s in range(0, len(paths), size)]
        # Decoding runs in a worker one batch ahead of the device.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="single-pass-decode") as worker:
            pending = worker.submit(self._decode, paths, chunks[0]) if chunks else None
            for index, chunk in enumerate(chunks):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                readable = pending.result() if pending is not None else []
                pending = worker.submit(self._decode, paths, chunks[index + 1]) if index + 1 < len(chunks) else None
                if readable:
                    scores = self.score_images([image for _, image in readable])
                    for (path_index, _), row in zip(readable, scores, strict=True):
                        results[path_index] = {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
                if progress is not None:
                    progress(Progress(chunk.stop, len(paths), "single-pass scores"))
        return results

    def _decode(self, paths: Sequence[str], chunk: range) -> list[tuple[int, Any]]:
        readable = []
        for index in chunk:
            try:
                readable.append((index, load_rgb(paths[index], self.max_side)))
            except ImageUnreadable:
                continue
        return readable
