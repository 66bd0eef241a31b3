"""A model's files, read without loading a tensor: local folder or hub id, weights, config, size.

Part of the one loader (ml/loading.py): hub ids resolve from the standard Hugging Face cache without
network access unless the user asked for a download; safetensors only unless pickle files are
explicitly allowed; custom code only when allowed. Every file a model is read from must be a plain
file (a FIFO would block the reader forever, a device would never end): anything else is refused
before it is opened, as is a safetensors header too large for any real model.
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
from pathlib import Path
from typing import Any

from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

SAFE_WEIGHT_SUFFIXES = (".safetensors",)
PICKLE_WEIGHT_SUFFIXES = (".bin", ".pth", ".pt", ".ckpt", ".pkl")
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


class ModelLoadError(AestheteError):
    """A model could not be found or loaded; the message says what the user can do about it."""


class PickleRefused(ModelLoadError):
    """The folder holds only pickle checkpoints and the user did not allow them."""


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
    return type(
        "AesteteDownloadProgress", (_ProgressBar,), {"callback": progress, "cancel": cancel}
    )


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
    hub_cache = None if cache_dir is None else Path(cache_dir)
    try:
        if not download:
            folder = snapshot_download(
                text, revision=revision, cache_dir=hub_cache, local_files_only=True
            )
        else:
            folder = snapshot_download(
                text,
                revision=revision,
                cache_dir=hub_cache,
                allow_patterns=patterns,
                tqdm_class=_progress_class(progress, cancel),
            )
    except LocalEntryNotFoundError as error:
        if download:
            raise hub_failure(text, error) from error
        raise ModelLoadError(
            f"model {text!r} is not in the local model cache; download it with --download "
            "(or pass a local folder)"
        ) from error
    except (HfHubHTTPError, OSError) as error:
        raise hub_failure(text, error) from error
    return Path(str(folder))


_NETWORK_ERRORS = ("ConnectError", "ConnectTimeout", "ConnectionError", "NetworkError", "TimeoutException",
                   "ProxyError", "gaierror")  # fmt: skip


def hub_failure(model_id: str, error: BaseException) -> ModelLoadError:
    """One line for a download that failed: no connection to the hub (and what to do), or the
    hub's own first line of explanation — never its multi-line text."""
    from huggingface_hub import constants

    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    network = [e for e in chain if isinstance(e, ConnectionError | TimeoutError)
               or any(name in type(e).__name__ for name in _NETWORK_ERRORS)]  # fmt: skip
    if network:
        reason = _first_line(network[-1]) or type(network[-1]).__name__
        return ModelLoadError(
            f"no connection to the model hub ({constants.ENDPOINT}): {reason}; connect to the "
            f"network (check HF_ENDPOINT and proxy settings) and download {model_id} again, or "
            "download it on another machine and give its folder"
        )
    return ModelLoadError(f"could not download {model_id!r}: {_first_line(error) or type(error).__name__}")


def _first_line(error: BaseException) -> str:
    """The error's first meaningful line, without the 'Got: …' prefixes some hub errors carry."""
    for line in str(error).splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("Got: ")
    return ""


MODEL_FILE_SUFFIXES = (".json", ".txt", ".model", ".jinja", ".tiktoken", *SAFE_WEIGHT_SUFFIXES, *PICKLE_WEIGHT_SUFFIXES)
"""Names transformers may open in a model folder (config, tokenizer, processor, template, weights)."""


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):  # fmt: skip
        if test(mode):
            return name
    return "special file"


def check_plain_file(path: Path) -> int:
    """The size of `path`, a plain file (links followed); ModelLoadError for a FIFO, a device, a
    folder, a socket or a broken link, before anything opens it."""
    try:
        info = os.stat(path)
    except FileNotFoundError as error:
        raise ModelLoadError(f"{path} is missing (a broken link?)") from error
    except OSError as error:
        raise ModelLoadError(f"{path} cannot be read: {error}") from error
    if not stat.S_ISREG(info.st_mode):
        raise ModelLoadError(f"{path} is a {_kind_of(info.st_mode)}, not a file; a model's files must be plain files")
    return info.st_size


def check_plain_files(folder: Path) -> None:
    """Every file of `folder` that transformers may open is a plain file (see check_plain_file)."""
    for path in sorted(folder.iterdir()):
        if path.suffix in MODEL_FILE_SUFFIXES:
            check_plain_file(path)


def weight_files(folder: Path, allow_pickle: bool = False) -> list[Path]:
    """The weight files to load; refuses pickle-only folders unless `allow_pickle`."""
    check_plain_files(folder)
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
    if not os.path.lexists(path):
        raise ModelLoadError(f"{folder} has no config.json; is it a transformers model?")
    try:
        if check_plain_file(path) > MAX_CONFIG_BYTES:
            raise ModelLoadError(f"{path} is {path.stat().st_size:,} bytes; a model's config.json is a few kilobytes")
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ModelLoadError(f"{folder} has no config.json; is it a transformers model?") from error
    except (OSError, ValueError, RecursionError) as error:
        raise ModelLoadError(f"{path} is unreadable: {error}") from error


MAX_SAFETENSORS_HEADER_BYTES = 16 * 1024 * 1024
"""Largest safetensors header read: about 150,000 tensors' worth. A real checkpoint file lists a few
thousand at most (the format itself allows 100 MB, enough to exhaust memory while parsing)."""
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""Largest config.json read (a real one is a few kilobytes)."""

_DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
    "I64": 64, "U64": 64, "F64": 64, "C64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}  # fmt: skip


class DamagedWeights(ModelLoadError, ValueError):
    """A weights file that is not a well-formed safetensors file; the message names it and the fault."""


def read_safetensors_header(path: Path) -> dict[str, dict[str, Any]]:
    """The tensors a safetensors file declares ({name: {dtype, shape, data_offsets}}), checked
    against the file without loading any tensor; DamagedWeights says what is wrong."""

    def damaged(problem: str) -> DamagedWeights:
        return DamagedWeights(f"{path} is a damaged safetensors file: {problem}")

    size = check_plain_file(path)
    try:
        with path.open("rb") as handle:
            prefix = handle.read(8)
            if len(prefix) < 8:
                raise damaged(f"only {size} bytes long, too short for its header")
            (length,) = struct.unpack("<Q", prefix)
            if length > size - 8:
                raise damaged(f"its header claims {length:,} bytes but the file has {size - 8:,} after the length field")
            if length > MAX_SAFETENSORS_HEADER_BYTES:
                raise damaged(
                    f"its header is {length / 2**20:,.0f} MB; real models' headers are far below "
                    f"{MAX_SAFETENSORS_HEADER_BYTES // 2**20} MB (not read)"
                )
            text = handle.read(length)
    except OSError as error:
        raise ModelLoadError(f"{path} cannot be read: {error}") from error
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise damaged(f"its header is not JSON ({error})") from error
    except MemoryError as error:
        raise damaged("its header is too large to read in this machine's memory") from error
    if not isinstance(header, dict):
        raise damaged(f"its header is a JSON {type(header).__name__}, not an object")
    data_size = size - 8 - length
    tensors: dict[str, dict[str, Any]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise damaged("its __metadata__ is not a map of strings")
            continue
        tensors[name] = _checked_tensor(name, info, data_size, damaged)
    return tensors


def _checked_tensor(name: str, info: Any, data_size: int, damaged: Any) -> dict[str, Any]:
    """One header entry with a known dtype, a shape of sizes and a data span that fits both."""
    if not isinstance(info, dict):
        raise damaged(f"tensor {name!r} is described by a {type(info).__name__}, not an object")
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if dtype not in _DTYPE_BITS:
        raise damaged(f"tensor {name!r} has unknown dtype {dtype!r:.40}")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise damaged(f"tensor {name!r} has shape {shape!r:.60}, not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
        raise damaged(f"tensor {name!r} has data_offsets {offsets!r:.60}, not [start, end]")
    start, end = offsets
    count = 1
    for dim in shape:
        count *= dim
    needed_bits = count * _DTYPE_BITS[dtype]
    if not 0 <= start <= end:
        raise damaged(f"tensor {name!r} has data_offsets [{start}, {end}]")
    if end > data_size:
        raise damaged(f"truncated: tensor {name!r} ends at byte {end:,} of the data but the file holds {data_size:,}")
    if needed_bits != 8 * (end - start):
        raise damaged(f"tensor {name!r} of shape {shape} and dtype {dtype} needs {needed_bits / 8:,g} bytes but spans {end - start:,}")
    return {"dtype": dtype, "shape": shape, "data_offsets": offsets, "count": count}


def count_parameters(folder: Path) -> int:
    """Number of parameters, read from the checked safetensors headers without loading any tensor."""
    check_plain_files(folder)
    total = 0
    for path in folder.glob("*.safetensors"):
        total += sum(info["count"] for info in read_safetensors_header(path).values())
    if total == 0:
        total = (
            sum(p.stat().st_size for p in folder.iterdir() if p.suffix in PICKLE_WEIGHT_SUFFIXES)
            // 2
        )
    return total


def model_parameters(folder: Path) -> int:
    """The parameters loading `folder` allocates: the larger of what its config.json describes (see
    ml/model_size.py) and what its weights' headers hold."""
    from aesthete_gui.ml.model_size import config_parameters

    return max(config_parameters(read_config(folder)), count_parameters(folder))
