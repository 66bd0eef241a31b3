"""The inspector's technical-check rows come from the imaging layer and warn on soft images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from aesthete_gui.qt.widgets.inspector import technical_checks


def _scene(path: Path, blur: float = 0.0) -> str:
    rng = np.random.default_rng(3)
    base = np.zeros((400, 600, 3), np.uint8)
    base[::20, :, :] = 255
    base[:, ::25, 1] = 200
    base = np.clip(base + rng.normal(0, 4, base.shape), 0, 255).astype(np.uint8)
    img = Image.fromarray(base)
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    img.save(path, quality=92)
    return str(path)


def test_rows_name_each_check_and_flag_a_soft_preview(tmp_path: Path) -> None:
    sharp = dict(technical_checks(_scene(tmp_path / "sharp.jpg")))
    soft = dict(technical_checks(_scene(tmp_path / "soft.jpg", blur=4)))
    assert list(sharp) == [
        "Blown highlights", "Crushed shadows", "Sharpest region", "Motion blur hint", "Noise (σ)",
    ]  # fmt: skip
    assert "soft" not in sharp["Sharpest region"]
    assert "soft" in soft["Sharpest region"]


def test_no_preview_gives_no_rows(tmp_path: Path) -> None:
    assert technical_checks(None) == []
    assert technical_checks(str(tmp_path / "gone.jpg")) == []
