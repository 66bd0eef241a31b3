"""Local vision-language judge over transformers: batched greedy generation, the engine's Judge protocol.

`LocalVLMJudge` builds prompts per protocol from the domain preset, sends batches of chat requests
(left padding) through `model.generate` with a token limit per protocol, and hands replies to the
shared parsing and voting logic of `PromptJudge`. Weights are loaded by ml/loading.py on first
use, not in the constructor.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aesthete_gui.engine.prompts import DEFAULT_PRESET, PromptBook
from aesthete_gui.jobs import CancelToken, ProgressCallback
from aesthete_gui.ml.images import ImageUnreadable, load_rgb
from aesthete_gui.ml.loading import DEFAULT_LOAD_OPTIONS, LazyVLM, LoadedModel, LoadOptions
from aesthete_gui.ml.prompt_judge import ChatRequest, PromptJudge, Reply, StageCallback

DEFAULT_MAX_SIDE = 1024


def model_label(model_dir_or_id: str | os.PathLike[str]) -> str:
    """A short stable name for a model: the hub id, or the folder's name."""
    text = os.fspath(model_dir_or_id)
    path = Path(text)
    return path.name if path.is_dir() else text


def chat_text(processor: Any, image_count: int, text: str, answer_prefix: str = "") -> str:
    """The model's chat-template text for one user turn (images then text) plus the reply's start."""
    content: list[dict[str, str]] = [{"type": "image"} for _ in range(image_count)]
    content.append({"type": "text", "text": text})
    messages = [{"role": "user", "content": content}]
    rendered = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return rendered + answer_prefix


class LocalVLMJudge(PromptJudge):
    """A transformers vision-language model answering pointwise, pairwise and set protocols."""

    def __init__(
        self,
        model_dir_or_id: str | os.PathLike[str],
        preset: str = DEFAULT_PRESET,
        *,
        prompts: PromptBook | None = None,
        batch_size: int = 4,
        max_side: int = DEFAULT_MAX_SIDE,
        both_orders: bool = False,
        set_orderings: int = 1,
        seed: int = 0,
        on_stage: StageCallback | None = None,
        set_per_dimension: bool = False,
        load_options: LoadOptions = DEFAULT_LOAD_OPTIONS,
        loaded: LoadedModel | None = None,
        max_new_tokens: int | None = None,
        static_cache: bool = False,
    ) -> None:
        super().__init__(
            prompts or PromptBook.for_preset(preset),
            both_orders=both_orders,
            set_orderings=set_orderings,
            seed=seed,
            on_stage=on_stage,
            set_per_dimension=set_per_dimension,
        )
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._model = LazyVLM(model_dir_or_id, load_options, loaded)
        self.model_dir_or_id = model_dir_or_id
        self.batch_size = batch_size
        self.max_side = max_side
        self.max_new_tokens = max_new_tokens
        self.static_cache = static_cache
        self.judge_id = f"local:{model_label(model_dir_or_id)}"

    def load(
        self, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> LoadedModel:
        """Load the model now (otherwise it loads on first use); returns the loaded model."""
        return self._model.load(progress, cancel)

    def _complete(
        self,
        requests: Sequence[ChatRequest],
        advance: Callable[[int], None],
        cancel: CancelToken | None,
    ) -> list[Reply]:
        loaded = self.load(cancel=cancel)
        replies: list[Reply | None] = [None] * len(requests)
        pending = list(range(len(requests)))
        while pending:
            if cancel is not None:
                cancel.raise_if_cancelled()
            # Decode only one batch of images at a time: a long run must not hold them all.
            batch: list[tuple[int, list[Any]]] = []
            while pending and len(batch) < self.batch_size:
                index = pending.pop(0)
                try:
                    images = [load_rgb(path, self.max_side) for path in requests[index].images]
                except ImageUnreadable as error:
                    replies[index] = Reply(None, f"image unreadable: {error}")
                    advance(1)
                    continue
                batch.append((index, images))
            if not batch:
                continue
            try:
                texts, seconds = generate_batch(
                    loaded,
                    [(requests[i], images) for i, images in batch],
                    self.max_new_tokens,
                    **({"static_cache": True} if self.static_cache else {}),
                )
            except (RuntimeError, MemoryError) as error:  # torch.OutOfMemoryError is a RuntimeError
                if not _is_out_of_memory(error):
                    raise
                texts = None
                oom = error
            if texts is None:
                _free_device_memory()
                if len(batch) > 1:
                    # Halve the batch for the rest of the run and retry these requests.
                    self.batch_size = max(1, len(batch) // 2)
                    pending[:0] = [index for index, _ in batch]
                    continue
                index = batch[0][0]
                replies[index] = Reply(None, f"out of memory on {loaded.device.device}: {oom}")
                advance(1)
                continue
            for (index, _), text in zip(batch, texts, strict=True):
                replies[index] = Reply(text, "", seconds / len(batch))
            advance(len(batch))
        return [r if r is not None else Reply(None, "not run") for r in replies]


def _is_out_of_memory(error: BaseException) -> bool:
    """True for the device out-of-memory errors torch raises (CUDA, MPS, CPU allocator)."""
    if isinstance(error, MemoryError):
        return True
    return type(error).__name__ == "OutOfMemoryError" or "out of memory" in str(error).lower()


def _free_device_memory() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def generate_batch(
    loaded: LoadedModel,
    batch: Sequence[tuple[ChatRequest, list[Any]]],
    max_new_tokens: int | None = None,
    *,
    static_cache: bool = False,
) -> tuple[list[str], float]:
    """Greedy-generate replies for (request, images) pairs; `max_new_tokens` caps the protocol limit.

    `static_cache` preallocates the key/value cache; on CUDA transformers then compiles the decoding
    step with CUDA graphs, which removes the per-token Python and kernel-launch cost.
    """
    import torch

    processor = loaded.processor
    texts = [
        chat_text(processor, len(images), request.prompt.text, request.prompt.answer_prefix)
        for request, images in batch
    ]
    flat_images = [image for _, images in batch for image in images]
    max_new = max(request.prompt.max_new_tokens for request, _ in batch)
    if max_new_tokens is not None:
        max_new = min(max_new, max_new_tokens)
    started = time.perf_counter()
    inputs = processor(
        text=texts, images=flat_images or None, padding=True, return_tensors="pt"
    ).to(loaded.model.device)
    tokenizer = processor.tokenizer
    options = _static_options(loaded) if static_cache else {}
    with torch.inference_mode():
        output = loaded.model.generate(
            **inputs,
            max_new_tokens=max_new,
            do_sample=False,
            pad_token_id=tokenizer.pad_token_id,
            **options,
        )
    new_tokens = output[:, inputs["input_ids"].shape[1] :]
    decoded = tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
    return decoded, time.perf_counter() - started


def _static_options(loaded: LoadedModel) -> dict[str, Any]:
    """transformers' generation options for a static cache (compiled decoding on CUDA)."""
    from transformers import CompileConfig

    options: dict[str, Any] = {"cache_implementation": "static"}
    if loaded.model.device.type == "cuda":
        options["compile_config"] = CompileConfig(fullgraph=False, dynamic=False, mode="reduce-overhead")
    return options
