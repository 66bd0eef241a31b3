"""The one place model weights are located and loaded: local folders or hub ids, safely and offline.

Rules (docs/method.md §8): a hub id is resolved from the standard Hugging Face cache without network access
unless the user asked for a download; safetensors only unless pickle files are explicitly allowed;
`trust_remote_code` only when allowed; CUDA > MPS > CPU with bf16 on CUDA and float32 elsewhere.
Before anything is allocated, the model's size — the larger of what its config describes and what
its weights hold — is checked against the free memory (and, on a GPU, the GPU's free memory too,
since the weights pass through RAM on their way there); a model that does not fit is refused with
one line. Loading is strict: weights that lack tensors the model has, or hold tensors it does not
have, are refused with their names instead of running with random weights. Finding and checking a
model's files (without loading a tensor) lives in ml/model_files.py; its names are importable here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aesthete_gui.jobs import CancelToken, ProgressCallback
from aesthete_gui.ml.model_files import (
    PICKLE_WEIGHT_SUFFIXES,
    SAFE_WEIGHT_SUFFIXES,
    DamagedWeights,
    ModelLoadError,
    PickleRefused,
    check_remote_code,
    count_parameters,
    looks_like_hub_id,
    model_parameters,
    read_config,
    resolve_model_path,
    weight_files,
)
from aesthete_gui.ml.model_files import _progress_class as _progress_class

__all__ = [
    "DEFAULT_LOAD_OPTIONS",
    "MEMORY_OVERHEAD",
    "PICKLE_WEIGHT_SUFFIXES",
    "SAFE_WEIGHT_SUFFIXES",
    "DamagedWeights",
    "DeviceChoice",
    "LazyVLM",
    "LoadOptions",
    "LoadedModel",
    "ModelLoadError",
    "ModelTooLarge",
    "PickleRefused",
    "available_memory_bytes",
    "check_card_fits",
    "check_fits",
    "check_remote_code",
    "choose_device",
    "count_parameters",
    "estimate_memory_bytes",
    "load_vision_model",
    "load_vlm",
    "looks_like_hub_id",
    "matmul_flops",
    "model_parameters",
    "read_config",
    "resolve_model_path",
    "weight_files",
]

_BYTES_PER_DTYPE = {"float32": 4, "bfloat16": 2, "float16": 2}
# Activations, KV cache and the allocator's slack on top of the weights.
MEMORY_OVERHEAD = 1.25


class ModelTooLarge(ModelLoadError):
    """The model needs more memory than the chosen device has."""


@dataclass(frozen=True)
class DeviceChoice:
    """Where a model runs: torch device name and dtype name ('bfloat16' or 'float32')."""

    device: str
    dtype: str


@dataclass(frozen=True)
class LoadOptions:
    """What the user allowed and asked for when loading weights (all off / automatic by default)."""

    allow_pickle: bool = False
    trust_remote_code: bool = False
    download: bool = False
    revision: str | None = None
    device: str | None = None


DEFAULT_LOAD_OPTIONS = LoadOptions()


@dataclass
class LoadedModel:
    """A loaded model with its processor, the folder it came from and where it runs."""

    model: Any
    processor: Any
    path: Path
    model_id: str
    device: DeviceChoice


def estimate_memory_bytes(parameters: int, dtype: str) -> int:
    """Memory a model of `parameters` needs at `dtype`, with room for activations."""
    return int(parameters * _BYTES_PER_DTYPE.get(dtype, 4) * MEMORY_OVERHEAD)


def choose_device(preferred: str | None = None) -> DeviceChoice:
    """CUDA > MPS > CPU (or `preferred`); bf16 on CUDA, float32 elsewhere."""
    import torch

    if preferred:
        device = preferred
    elif torch.cuda.is_available():
        device = "cuda"
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        device = "mps"
    else:
        device = "cpu"
    dtype = "bfloat16" if device.startswith("cuda") else "float32"
    return DeviceChoice(device, dtype)


def available_memory_bytes(device: str) -> int | None:
    """Free memory on `device` (GPU free memory, or the system's available RAM); None if unknown."""
    if device.startswith("cuda"):
        import torch

        free, _total = torch.cuda.mem_get_info(torch.device(device))
        return int(free)
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def matmul_flops(device: str, dtype_name: str, seconds: float = 0.3) -> float:
    """FLOP/s of square matrix multiplies on `device` at `dtype_name` (a measurement of `seconds`)."""
    import time

    import torch

    size = 2048 if device != "cpu" else 512
    a = torch.randn(size, size, device=device, dtype=_torch_dtype(dtype_name))
    b = torch.randn(size, size, device=device, dtype=_torch_dtype(dtype_name))
    done, started = 0, time.perf_counter()
    while True:
        (a @ b).sum().item()  # .item() waits for a GPU to finish
        done += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds or done >= 2000:
            return 2 * size**3 * done / elapsed


def check_fits(folder: Path, choice: DeviceChoice, available: int | None = None) -> int:
    """Raise ModelTooLarge when the model will not fit on the device (and, for a GPU, in RAM on its
    way there); return the device estimate in bytes. `available` overrides the device's free memory."""
    parameters = model_parameters(folder)
    needed = estimate_memory_bytes(parameters, choice.dtype)
    _compare(folder.name, needed, choice, available)
    if not choice.device.startswith("cpu") and available is None:
        staged = parameters * _BYTES_PER_DTYPE.get(choice.dtype, 4)
        _compare(folder.name, staged, DeviceChoice("cpu", choice.dtype), None, "in RAM on its way to the GPU")
    return needed


def check_card_fits(
    model_id: str, choice: DeviceChoice, available: int | None = None
) -> int | None:
    """Before a download: refuse a hub id whose model card says it cannot fit (None: no card)."""
    from aesthete_gui.ml.registry import card_for

    card = card_for(model_id)
    if card is None:
        return None
    needed = estimate_memory_bytes(int(card.parameters_billion * 1e9), choice.dtype)
    _compare(model_id, needed, choice, available)
    return needed


def _compare(name: str, needed: int, choice: DeviceChoice, available: int | None, where: str = "") -> None:
    free = available if available is not None else available_memory_bytes(choice.device)
    if free is not None and needed > free:
        place = where or f"on {choice.device}"
        raise ModelTooLarge(
            f"{name} needs about {needed / 2**30:.1f} GiB {place} "
            f"({choice.dtype}) but only {free / 2**30:.1f} GiB is free. Pick a smaller model "
            "(see `aesthete models`), free memory, or use a server with --endpoint."
        )


def _torch_dtype(name: str):
    import torch

    return getattr(torch, name)


def _prepare(
    name_or_path: str | os.PathLike[str],
    options: LoadOptions,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> tuple[Path, DeviceChoice, bool]:
    choice = choose_device(options.device)
    if options.download and looks_like_hub_id(os.fspath(name_or_path)):
        check_card_fits(os.fspath(name_or_path), choice)
    folder = resolve_model_path(
        name_or_path,
        download=options.download,
        revision=options.revision,
        allow_pickle=options.allow_pickle,
        progress=progress,
        cancel=cancel,
    )
    files = weight_files(folder, options.allow_pickle)
    check_remote_code(folder, options.trust_remote_code)
    check_fits(folder, choice)
    return folder, choice, files[0].suffix in SAFE_WEIGHT_SUFFIXES


def _from_pretrained(
    folder: Path,
    choice: DeviceChoice,
    safe: bool,
    options: LoadOptions,
    model_class: Any,
    processor_class: Any,
) -> tuple[Any, Any]:
    """Model (on its device, in eval mode) and processor from a prepared folder; errors made clear."""
    from safetensors import SafetensorError

    try:
        with _quiet_loading_report():
            model, info = model_class.from_pretrained(
                folder,
                dtype=_torch_dtype(choice.dtype),
                trust_remote_code=options.trust_remote_code,
                use_safetensors=safe,
                output_loading_info=True,
            )
        processor = processor_class.from_pretrained(
            folder, trust_remote_code=options.trust_remote_code
        )
    except (OSError, ValueError, KeyError, RuntimeError, TypeError) as error:
        if "mismatched_sizes" in str(error):
            names = ", ".join(p.name for p in weight_files(folder, options.allow_pickle))
            raise DamagedWeights(
                f"could not load the model in {folder}: tensors in {names} have other shapes than "
                "its config.json describes (damaged or mismatched weights)"
            ) from error
        raise ModelLoadError(
            f"could not load the model in {folder}: {type(error).__name__}: {error}"
        ) from error
    except SafetensorError as error:
        raise DamagedWeights(f"could not load the weights in {folder}: {error}") from error
    _check_complete(folder, model, info)
    return model.to(choice.device).eval(), processor


@contextmanager
def _quiet_loading_report() -> Iterator[None]:
    """Keep transformers' table of missing / unexpected tensors and its "Loading weights" bar off the
    terminal: _check_complete refuses such weights in one line of its own, and the app shows its
    own progress."""
    import logging

    from transformers.utils import logging as transformers_logging

    # The table is logged through whichever logger the loading code passes (modeling_utils' in
    # transformers 5.x), so the library's root logger is quietened for the load as well.
    loggers = [logging.getLogger(name) for name in ("transformers", "transformers.utils.loading_report")]
    previous = [logger.level for logger in loggers]
    bars = transformers_logging.is_progress_bar_enabled()
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        for logger, level in zip(loggers, previous, strict=True):
            logger.setLevel(level)
        if bars:
            transformers_logging.enable_progress_bar()


def _check_complete(folder: Path, model: Any, info: dict[str, Any]) -> None:
    """DamagedWeights naming the tensors the weights lack or hold beyond the model (strict loading)."""
    missing = sorted(info.get("missing_keys") or ())
    unexpected = sorted(info.get("unexpected_keys") or ())
    if not (missing or unexpected):
        return
    total = len(model.state_dict())
    if missing:
        raise DamagedWeights(
            f"{folder}: the weights lack {len(missing)} of the model's {total} tensors: {_names(missing)}; "
            "it would run with random weights (incomplete or mismatched download?)"
        )
    raise DamagedWeights(
        f"{folder}: the weights hold {len(unexpected)} tensors the model does not have: {_names(unexpected)} "
        "(weights of another architecture than its config.json?)"
    )


def _names(names: list[str], shown: int = 3) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def load_vlm(
    name_or_path: str | os.PathLike[str],
    options: LoadOptions = DEFAULT_LOAD_OPTIONS,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> LoadedModel:
    """Load a vision-language model and its processor (left padding set for batched generation)."""
    folder, choice, safe = _prepare(name_or_path, options, progress, cancel)
    from transformers import AutoModelForImageTextToText, AutoProcessor

    model, processor = _from_pretrained(
        folder, choice, safe, options, AutoModelForImageTextToText, AutoProcessor
    )
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is None:
        raise ModelLoadError(f"{folder} has no tokenizer; it is not a chat vision-language model")
    tokenizer.padding_side = "left"
    return LoadedModel(model, processor, folder, os.fspath(name_or_path), choice)


def load_vision_model(
    name_or_path: str | os.PathLike[str],
    options: LoadOptions = DEFAULT_LOAD_OPTIONS,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> LoadedModel:
    """Load a SigLIP/CLIP-family vision tower (CLIP explicitly with its projection) and image processor."""
    folder, choice, safe = _prepare(name_or_path, options, progress, cancel)
    from transformers import AutoImageProcessor

    config = read_config(folder)
    model_type = str(config.get("model_type", ""))
    model, processor = _from_pretrained(
        folder, choice, safe, options, _vision_class(model_type), AutoImageProcessor
    )
    return LoadedModel(model, processor, folder, os.fspath(name_or_path), choice)


def _vision_class(model_type: str) -> Callable[..., Any] | Any:
    import transformers

    classes = {
        "clip": "CLIPVisionModelWithProjection",
        "clip_vision_model": "CLIPVisionModelWithProjection",
        "siglip": "SiglipVisionModel",
        "siglip_vision_model": "SiglipVisionModel",
        "siglip2": "Siglip2VisionModel",
        "siglip2_vision_model": "Siglip2VisionModel",
    }
    name = classes.get(model_type)
    if name is None:
        return transformers.AutoModel
    return getattr(transformers, name)


class LazyVLM:
    """A vision-language model named by folder or hub id, loaded on first use (or by load())."""

    def __init__(
        self,
        model_dir_or_id: str | os.PathLike[str],
        load_options: LoadOptions = DEFAULT_LOAD_OPTIONS,
        loaded: LoadedModel | None = None,
    ) -> None:
        self.model_dir_or_id = model_dir_or_id
        self.load_options = load_options
        self._loaded = loaded

    def load(
        self, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> LoadedModel:
        """Load the model now (otherwise it loads on first use); returns the loaded model."""
        if self._loaded is None:
            self._loaded = load_vlm(
                self.model_dir_or_id, self.load_options, progress=progress, cancel=cancel
            )
        return self._loaded
