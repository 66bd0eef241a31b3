"""Rubric-first single-pass layout: one shared rubric cache, five dimension answers read in one forward.

The prompt puts the rubric and instructions before the image, so their key/value cache is computed
once (batch 1) and shared by every image and dimension. A batch row is then
`[image + chat tail][padding][dimension 1 opening]...[dimension 5 opening]`, run in one forward
pass over the shared rubric cache with a 4D attention mask: each dimension's opening sees the
rubric, the image and the tail and itself, never the other openings, and starts at the same
position — so each reads exactly what a plain forward of `rubric, image, tail, opening` reads.
The CPU part (`prepare_batch`) runs in a worker thread; `run_batch` does the device work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aesthete_gui.ml.loading import LoadedModel, ModelLoadError


def rubric_first_text(processor: Any, text: str, answer_prefix: str = "") -> str:
    """The chat-template text for one user turn with the text before the image, plus the reply's start."""
    content = [{"type": "text", "text": text}, {"type": "image"}]
    messages = [{"role": "user", "content": content}]
    rendered = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return rendered + answer_prefix


@dataclass
class PreparedBatch:
    """CPU tensors for one batch: the tokens after the rubric, pixels, positions, mask, read columns."""

    rubric_ids: tuple[int, ...]
    input_ids: Any
    pixel_values: Any
    image_grid_thw: Any
    position_ids: Any
    allowed: Any  # (batch, query, rubric + query) bool: which keys each query may attend to
    read_columns: Any
    count: int


def _rope_index(model: Any, inputs: Any) -> tuple[Any, Any]:
    """The model's own multimodal (3, batch, length) positions for the processor's output."""
    inner = model.model
    extra = {k: inputs[k] for k in ("mm_token_type_ids", "second_per_grid_ts") if k in inputs}
    return inner.get_rope_index(
        input_ids=inputs["input_ids"],
        image_grid_thw=inputs["image_grid_thw"],
        attention_mask=inputs["attention_mask"],
        **extra,
    )


def prepare_batch(
    loaded: LoadedModel, images: Sequence[Any], base: str, suffixes: Sequence[Sequence[int]]
) -> PreparedBatch:
    """Tokenise and lay out one batch on the CPU (safe to run in a worker thread)."""
    import torch

    processor = loaded.processor
    vision_start = loaded.model.config.vision_start_token_id
    inputs = processor(
        text=[base] * len(images), images=list(images), padding=True, padding_side="right", return_tensors="pt"
    )
    ids, mask = inputs["input_ids"], inputs["attention_mask"]
    starts = (ids[0] == vision_start).nonzero()
    if len(starts) == 0:
        raise ModelLoadError("the chat template dropped the image; single-pass scoring needs it")
    rubric = int(starts[0])
    positions, _ = _rope_index(loaded.model, inputs)
    count, body_width = ids.shape[0], ids.shape[1] - rubric
    body_mask = mask[:, rubric:].bool()
    lengths = [len(s) for s in suffixes]
    width = body_width + sum(lengths)
    pad = processor.tokenizer.pad_token_id or 0
    new_ids = torch.full((count, width), pad, dtype=torch.long)
    new_ids[:, :body_width] = torch.where(body_mask, ids[:, rubric:], pad)
    pos = torch.zeros((3, count, width), dtype=torch.long)
    pos[:, :, :body_width] = positions[:, :, rubric:]
    key_ok = torch.zeros((count, width, rubric + width), dtype=torch.bool)
    key_ok[:, :, :rubric] = True
    causal = torch.ones((body_width, body_width), dtype=torch.bool).tril()
    key_ok[:, :body_width, rubric : rubric + body_width] = causal[None] & body_mask[:, None, :]
    next_position = (positions * mask[None]).amax(dim=(0, 2)) + 1  # per row, after its last real token
    reads = []
    offset = body_width
    for suffix in suffixes:
        span = slice(offset, offset + len(suffix))
        new_ids[:, span] = torch.tensor(suffix)
        pos[:, :, span] = (next_position[:, None] + torch.arange(len(suffix))[None])[None]
        key_ok[:, span, rubric : rubric + body_width] = body_mask[:, None, :]
        block = torch.ones((len(suffix), len(suffix)), dtype=torch.bool).tril()
        key_ok[:, span, rubric + span.start : rubric + span.stop] = block[None]
        offset += len(suffix)
        reads.append(offset - 1)
    text_positions = (rubric + torch.arange(width))[None, None].expand(1, count, width)
    return PreparedBatch(
        rubric_ids=tuple(int(t) for t in ids[0, :rubric]),
        input_ids=new_ids,
        pixel_values=inputs["pixel_values"],
        image_grid_thw=inputs["image_grid_thw"],
        position_ids=torch.cat([text_positions, pos], dim=0),
        allowed=key_ok,
        read_columns=torch.tensor(reads),
        count=count,
    )


class RubricCache:
    """The rubric's key/value tensors (batch 1), computed once per model and rubric."""

    def __init__(self) -> None:
        self._key: tuple[int, tuple[int, ...]] | None = None
        self._layers: list[tuple[Any, Any]] = []

    def layers(self, loaded: LoadedModel, rubric_ids: tuple[int, ...]) -> list[tuple[Any, Any]]:
        """Per layer (keys, values) of the rubric, computing them on first use."""
        import torch

        key = (id(loaded.model), rubric_ids)
        if key != self._key:
            model = loaded.model
            ids = torch.tensor([rubric_ids], device=model.device)
            positions = torch.arange(len(rubric_ids), device=model.device)[None, None].expand(4, 1, -1)
            with torch.inference_mode():
                out = model(input_ids=ids, position_ids=positions, use_cache=True, logits_to_keep=1)
            self._layers = [(layer.keys, layer.values) for layer in out.past_key_values.layers]
            self._key = key
        return self._layers


def run_batch(loaded: LoadedModel, batch: PreparedBatch, rubric: RubricCache) -> Any:
    """(count, dimensions, vocab) logits at each dimension's read position, on the model's device."""
    import torch
    from transformers import DynamicCache

    model = loaded.model
    device = model.device
    dtype = model.dtype
    cache = DynamicCache()
    for index, (keys, values) in enumerate(rubric.layers(loaded, batch.rubric_ids)):
        # expand is a view: the cache's first concatenation writes the rows, no separate copy first.
        cache.update(keys.expand(batch.count, -1, -1, -1), values.expand(batch.count, -1, -1, -1), index)
    allowed = batch.allowed.to(device, non_blocking=True)
    mask = torch.zeros(allowed.shape, dtype=dtype, device=device)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    inner = getattr(model, "model", None)
    if inner is not None and hasattr(inner, "rope_deltas"):
        inner.rope_deltas = None
    with torch.inference_mode():
        out = model(
            input_ids=batch.input_ids.to(device, non_blocking=True),
            pixel_values=batch.pixel_values.to(device, dtype=dtype, non_blocking=True),
            image_grid_thw=batch.image_grid_thw.to(device),
            position_ids=batch.position_ids.to(device, non_blocking=True),
            attention_mask=mask[:, None],
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=batch.read_columns.to(device),
        )
    return out.logits
