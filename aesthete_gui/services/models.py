"""Model manager jobs, run off the UI thread: device detection, folder check, download, server test."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0


SCORING_TOKENS = 1100
"""Tokens a model reads per photograph when scoring: a 1024 px image (about 800–1,000 image tokens)
and the five answer openings; the rubric comes from the cache."""
FORWARD_EFFICIENCY = 0.3
"""Share of the measured matrix-multiply speed a vision-language forward pass reaches. Calibrated on
the one GPU figure measured (Qwen3-VL-4B single pass, 1024 px: 23.1 photographs/s on an H100, whose
bf16 matrix multiply runs at about 700 TFLOP/s); used for the CPU too, where it is optimistic."""


@dataclass(frozen=True)
class DeviceInfo:
    """Where models would run: the device kind, its dtype, free memory and measured matmul speed."""

    kind: str  # "cuda", "mps" or "cpu"
    dtype: str
    free_bytes: int | None
    flops: float  # measured matrix-multiply FLOP/s at `dtype`

    def __str__(self) -> str:
        name = {"cuda": "CUDA GPU", "mps": "Apple GPU (MPS)", "cpu": "CPU"}.get(self.kind, self.kind)
        memory = f", {self.free_bytes / 2**30:.1f} GiB free" if self.free_bytes else ""
        return f"{name} ({self.dtype}{memory})"


def detect_device(
    progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> DeviceInfo:
    """Where models would run, with free memory and a short speed measurement (imports torch, so
    run it as a job); str() of it is a one-line description."""
    from aesthete_gui.ml.loading import available_memory_bytes, choose_device, matmul_flops

    choice = choose_device()
    free = available_memory_bytes(choice.device)
    return DeviceInfo(choice.device.split(":")[0], choice.dtype, free, matmul_flops(choice.device, choice.dtype))


def expected_speed(card: ModelCard, device: DeviceInfo) -> str:
    """How fast the card's model would score photographs here, or why it would not run well."""
    from aesthete_gui.ml.loading import MEMORY_OVERHEAD

    weights = card.memory_gib_bf16 if device.dtype == "bfloat16" else card.memory_gib_float32
    needed = weights * MEMORY_OVERHEAD * 2**30
    seconds = 2 * card.parameters_billion * 1e9 * SCORING_TOKENS / max(device.flops * FORWARD_EFFICIENCY, 1.0)
    if device.free_bytes is not None and needed > device.free_bytes:
        return f"does not fit here (needs about {needed / 2**30:.0f} GiB, {device.free_bytes / 2**30:.0f} GiB free)"
    if device.kind == "cpu":
        pace = f"about {seconds / 60:.0f} min" if seconds >= 90 else f"about {seconds:.0f} s"
        return f"impractically slow on this CPU ({pace} per photograph); use a GPU or a server"
    if seconds < 1:
        return f"about {1 / seconds:.0f} photographs/s (estimate)"
    return f"about {seconds:.0f} s per photograph (estimate)"


def inspect_folder(
    folder: str, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> str:
    """Parameters, disk size and memory estimate of a local model folder (reads headers only)."""
    from aesthete_gui.ml.loading import (
        estimate_memory_bytes,
        model_parameters,
        read_config,
        weight_files,
    )

    path = Path(folder).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a folder")
    config = read_config(path)
    weight_files(path)
    parameters = model_parameters(path)
    disk = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    model_type = config.get("model_type", "unknown type")
    return (
        f"{model_type}: {_format_count(parameters)} parameters, {disk / 2**20:.1f} MiB on disk, "
        f"needs about {estimate_memory_bytes(parameters, 'bfloat16') / 2**30:.2f} GiB on a GPU "
        f"(bf16) or {estimate_memory_bytes(parameters, 'float32') / 2**30:.2f} GiB on the CPU"
    )


def download_model(
    model_id: str,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    *,
    revision: str | None = None,
    allow_pickle: bool = False,
) -> str:
    """Download a hub model into the standard cache (only when the user asked); returns its folder."""
    from aesthete_gui.ml.loading import resolve_model_path

    folder = resolve_model_path(model_id, download=True, revision=revision, allow_pickle=allow_pickle,
                                progress=progress, cancel=cancel)  # fmt: skip
    return str(folder)


def test_connection(
    base_url: str, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> list[str]:
    """Ask an OpenAI-compatible server for its models; returns their ids or raises with a reason."""
    if not base_url.startswith(("http://", "https://")):
        raise ConnectionError(f"a server URL starts with http:// or https://, not {base_url!r}")
    url = base_url.rstrip("/") + "/models"
    if progress:
        progress(Progress(0, 1, f"GET {url}"))
    try:
        with urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_S) as response:
            payload = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise ConnectionError(
            f"the server answered {error.code} {error.reason} for {url}"
        ) from error
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ConnectionError(f"cannot reach {url}: {reason}") from error
    except ValueError as error:
        raise ConnectionError(f"{url} did not answer with JSON: {error}") from error
    models = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        raise ConnectionError(f"{url} answered, but not with an OpenAI-style model list")
    if progress:
        progress(Progress(1, 1, "connected"))
    return [str(m.get("id")) for m in models if isinstance(m, dict) and m.get("id")]


def _format_count(count: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return str(count)


def default_judge(cards: list[ModelCard]) -> ModelCard | None:
    """The judge the model manager preselects: permissively licensed (models/*.toml default_judge)."""
    from aesthete_gui.ml.registry import default_judge as marked

    return marked(cards)


def read_cards() -> list[ModelCard]:
    """The model cards shipped with the app, or none when they cannot be read."""
    from aesthete_gui.ml.registry import ModelCardError, list_cards

    try:
        return list_cards()
    except (FileNotFoundError, ModelCardError) as error:
        log.warning("model cards unavailable: %s", error)
        return []


def installed_path(model_id: str) -> Path | None:
    """Where a hub model lies in the local model cache (offline check), or None."""
    from aesthete_gui.ml.registry import installed_path as cached

    return cached(model_id)


def is_installed(model_id: str) -> bool:
    """Whether the model is already in the local model cache (offline check)."""
    from aesthete_gui.ml.registry import installed_path

    return installed_path(model_id) is not None


def looks_like_hub_id(value: str) -> bool:
    """Whether a judge setting names a hub model ("org/name") rather than a local folder."""
    from aesthete_gui.ml.loading import looks_like_hub_id as hub_id

    return hub_id(value)
