"""The student's inference path: decoding in a process pool gives the same inputs as in-process decoding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from aesthete_gui.jobs import Progress
from aesthete_gui.ml.encoder import load_encoder
from aesthete_gui.training.distill import POOL_MIN_PATHS, _path_inputs


def _files(folder: Path, count: int) -> list[str]:
    rng = np.random.default_rng(3)
    paths = []
    for index in range(count):
        pixels = rng.integers(0, 255, size=(40 + index % 7, 56 + index % 5, 3), dtype=np.uint8)
        path = folder / f"frame{index:03d}.jpg"
        Image.fromarray(pixels).save(path, quality=85)
        paths.append(str(path))
    broken = folder / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    paths.insert(5, str(broken))
    return paths


def test_process_pool_matches_in_process_decoding(tmp_path: Path) -> None:
    paths = _files(tmp_path, POOL_MIN_PATHS + 6)
    encoder = load_encoder()
    seen: list[Progress] = []
    pooled = _path_inputs(paths, encoder, seen.append, None, workers=2)
    alone = _path_inputs(paths, encoder, None, None, workers=1)
    assert pooled[0] == alone[0] and 5 not in pooled[0]
    assert len(pooled[0]) == len(paths) - 1
    np.testing.assert_array_equal(pooled[2], alone[2])
    # Batches of different sizes (256 pooled, 16 alone) may take other kernels on a GPU.
    tolerance = 1e-5 if str(encoder.dtype) == "torch.float32" else 3e-2
    np.testing.assert_allclose(pooled[3], alone[3], rtol=tolerance, atol=tolerance)
    assert seen[-1].done == len(paths)
