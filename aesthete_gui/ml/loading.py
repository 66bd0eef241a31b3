"""The one place model weights are located and loaded: local folders or hub ids, safely and offline.

Rules (SPEC §8): a hub id is resolved from the standard Hugging Face cache without network access
unless the user asked for a download; safetensors only unless pickle files are explicitly allowed;
`trust_remote_code` only when allowed; CUDA > MPS > CPU with bf16 on CUDA and float32 elsewhere; a
clear message when the model needs more memory than the device has.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

SAFE_WEIGHT_SUFFIXES = (".safetensors",)
PICKLE_WEIGHT_SUFFIXES = (".bin", ".pth", ".pt", ".ckpt", ".pkl")
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
_BYTES_PER_DTYPE = {"float32": 4, "bfloat16": 2, "float16": 2}
_SAFETENSORS_DTYPE_BYTES = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
    "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1,
}  # fmt: skip
# Activations, KV cache and the allocator's slack on top of the weights.
MEMORY_OVERHEAD = 1.25


class ModelLoadError(Exception):
    """A model could not be found or loaded; the message says what the user can do about it."""


class PickleRefused(ModelLoadError):
    """The folder holds only pickle checkpoints and the user did not allow them."""


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


def looks_like_hub_id(name: str) -> bool:
    """True for 'owner/name' strings that are not existing local paths."""
    return bool(_HUB_ID_RE.match(name)) and not Path(name).expanduser().exists()


class _ProgressBar:
    """A tqdm-compatible class relaying download progress to a ProgressCallback."""

    callback: ProgressCallback | None = None
    cancel: CancelToken | None = None

    def __init__(self, *args: Any, total: float | None = None, desc: str = "", **kwargs: Any):
        self.total = int(total) if total else None
        self.n = 0
        self.desc = desc or "downloading"

    def update(self, amount: float = 1) -> None:
        self.n += int(amount)
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
        if self.callback is not None:
            self.callback(Progress(self.n, self.total, self.desc))

    def __enter__(self) -> _ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release."""

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or self.desc

    def refresh(self) -> None:
        """Nothing to redraw."""

    def __iter__(self):  # pragma: no cover - huggingface_hub does not iterate its bar
        return iter(())

    def __call__(self, *args: Any, **kwargs: Any) -> _ProgressBar:
        return self


def _progress_class(progress: ProgressCallback | None, cancel: CancelToken | None) -> type:
    return type("AesteteDownloadProgress", (_ProgressBar,), {"callback": progress, "cancel": cancel})


def resolve_model_path(
    name_or_path: str | os.PathLike[str],
    *,
    download: bool = False,
    revision: str | None = None,
    allow_pickle: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Path:
    """A local folder for `name_or_path`: the folder itself, or a hub id from the cache (or downloaded)."""
    text = os.fspath(name_or_path)
    local = Path(text).expanduser()
    if local.is_dir():
        return local.resolve()
    if local.exists():
        raise ModelLoadError(f"{local} is a file; give the folder that holds the model")
    if not looks_like_hub_id(text):
        raise ModelLoadError(
            f"model {text!r} is neither a folder nor a hub id like 'Qwen/Qwen3-VL-4B-Instruct'"
        )
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    patterns = ["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja", "*.tiktoken", "*.md"]
    if allow_pickle:
        patterns += [f"*{suffix}" for suffix in PICKLE_WEIGHT_SUFFIXES]
    try:
        if not download:
            folder = snapshot_download(
                text, revision=revision, cache_dir=cache_dir, local_files_only=True
            )
        else:
            folder = snapshot_download(
                text,
                revision=revision,
                cache_dir=cache_dir,
                allow_patterns=patterns,
                tqdm_class=_progress_class(progress, cancel),
            )
    except LocalEntryNotFoundError as error:
        if download:
            raise ModelLoadError(f"could not download {text!r}: {error}") from error
        raise ModelLoadError(
            f"model {text!r} is not in the local model cache; download it with --download "
            "(or pass a local folder)"
        ) from error
    except (HfHubHTTPError, OSError) as error:
        raise ModelLoadError(f"could not download {text!r}: {error}") from error
    return Path(str(folder))


def weight_files(folder: Path, allow_pickle: bool = False) -> list[Path]:
    """The weight files to load; refuses pickle-only folders unless `allow_pickle`."""
    safe = sorted(p for p in folder.iterdir() if p.suffix in SAFE_WEIGHT_SUFFIXES)
    if safe:
        return safe
    pickled = sorted(p for p in folder.iterdir() if p.suffix in PICKLE_WEIGHT_SUFFIXES)
    if pickled and not allow_pickle:
        names = ", ".join(p.name for p in pickled[:3])
        raise PickleRefused(
            f"{folder} holds only pickle checkpoints ({names}), which can run arbitrary code when "
            "loaded. Convert them to safetensors, or allow them explicitly with --allow-pickle "
            "(allow_pickle=True) if you trust their source."
        )
    if not pickled:
        raise ModelLoadError(f"{folder} contains no model weights (*.safetensors)")
    return pickled


def check_remote_code(folder: Path, trust_remote_code: bool) -> None:
    """Refuse a model whose config asks for custom code unless the user allowed it."""
    config = read_config(folder)
    if config.get("auto_map") and not trust_remote_code:
        raise ModelLoadError(
            f"{folder} needs custom code from its authors (auto_map in config.json); it is not run "
            "unless you allow it with --trust-remote-code"
        )


def read_config(folder: Path) -> dict[str, Any]:
    """config.json of a model folder, or an error naming the folder."""
    path = folder / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ModelLoadError(f"{folder} has no config.json; is it a transformers model?") from error
    except (OSError, ValueError) as error:
        raise ModelLoadError(f"{path} is unreadable: {error}") from error


def count_parameters(folder: Path) -> int:
    """Number of parameters, read from the safetensors headers without loading any tensor."""
    total = 0
    for path in folder.glob("*.safetensors"):
        try:
            with path.open("rb") as handle:
                (length,) = struct.unpack("<Q", handle.read(8))
                header = json.loads(handle.read(length))
        except (OSError, ValueError, struct.error) as error:
            raise ModelLoadError(f"{path} is not a readable safetensors file: {error}") from error
        for name, info in header.items():
            if name == "__metadata__" or not isinstance(info, dict):
                continue
            count = 1
            for dim in info.get("shape", []):
                count *= int(dim)
            total += count
    if total == 0:
        total = sum(p.stat().st_size for p in folder.iterdir() if p.suffix in PICKLE_WEIGHT_SUFFIXES) // 2
    return total


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


def check_fits(folder: Path, choice: DeviceChoice, available: int | None = None) -> int:
    """Raise ModelTooLarge when the model will not fit on the device; return the estimate in bytes."""
    needed = estimate_memory_bytes(count_parameters(folder), choice.dtype)
    _compare(folder.name, needed, choice, available)
    return needed


def check_card_fits(model_id: str, choice: DeviceChoice, available: int | None = None) -> int | None:
    """Before a download: refuse a hub id whose model card says it cannot fit (None: no card)."""
    from aesthete_gui.ml.registry import card_for

    card = card_for(model_id)
    if card is None:
        return None
    needed = estimate_memory_bytes(int(card.parameters_billion * 1e9), choice.dtype)
    _compare(model_id, needed, choice, available)
    return needed


def _compare(name: str, needed: int, choice: DeviceChoice, available: int | None) -> None:
    free = available if available is not None else available_memory_bytes(choice.device)
    if free is not None and needed > free:
        raise ModelTooLarge(
            f"{name} needs about {needed / 2**30:.1f} GiB on {choice.device} "
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
    folder: Path, choice: DeviceChoice, safe: bool, options: LoadOptions, model_class: Any, processor_class: Any
) -> tuple[Any, Any]:
    """Model (on its device, in eval mode) and processor from a prepared folder; errors made clear."""
    try:
        model = model_class.from_pretrained(
            folder,
            dtype=_torch_dtype(choice.dtype),
            trust_remote_code=options.trust_remote_code,
            use_safetensors=safe,
        )
        processor = processor_class.from_pretrained(folder, trust_remote_code=options.trust_remote_code)
    except (OSError, ValueError, KeyError, RuntimeError, TypeError) as error:
        raise ModelLoadError(
            f"could not load the model in {folder}: {type(error).__name__}: {error}"
        ) from error
    return model.to(choice.device).eval(), processor


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
            self._loaded = load_vlm(self.model_dir_or_id, self.load_options, progress=progress, cancel=cancel)
        return self._loaded
