"""Model manager jobs, run off the UI thread: device detection, folder check, download, server test."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0


def detect_device(
    progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> str:
    """A one-line description of where models would run (imports torch, so run it as a job)."""
    from aesthete_gui.ml.loading import available_memory_bytes, choose_device

    choice = choose_device()
    free = available_memory_bytes(choice.device)
    name = {"cuda": "CUDA GPU", "mps": "Apple GPU (MPS)", "cpu": "CPU"}.get(
        choice.device.split(":")[0], choice.device
    )
    memory = f", {free / 2**30:.1f} GiB free" if free else ""
    return f"{name} ({choice.dtype}{memory})"


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


def read_cards() -> list[ModelCard]:
    """The model cards shipped with the app, or none when they cannot be read."""
    from aesthete_gui.ml.registry import ModelCardError, list_cards

    try:
        return list_cards()
    except (FileNotFoundError, ModelCardError) as error:
        log.warning("model cards unavailable: %s", error)
        return []


def is_installed(model_id: str) -> bool:
    """Whether the model is already in the local model cache (offline check)."""
    from aesthete_gui.ml.registry import installed_path

    return installed_path(model_id) is not None


def looks_like_hub_id(value: str) -> bool:
    """Whether a judge setting names a hub model ("org/name") rather than a local folder."""
    from aesthete_gui.ml.loading import looks_like_hub_id as hub_id

    return hub_id(value)
