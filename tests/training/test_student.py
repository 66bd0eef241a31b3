"""Fast student and built-in scorer: learns pseudo-score order, saves/loads by name, rules behave."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter

from aesthete_gui.engine.metrics import srcc
from aesthete_gui.imaging.features import FEATURE_NAMES
from aesthete_gui.training.distill import (
    BuiltinScorer,
    StudentConfig,
    list_students,
    load_student,
    train_student,
)


def _data(n: int = 160, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    embeddings = rng.normal(size=(n, 32))
    features = rng.normal(size=(n, len(FEATURE_NAMES)))
    truth = np.stack([embeddings[:, i] + 0.5 * features[:, i] for i in range(5)], axis=1)
    pseudo = 1 + 4 / (1 + np.exp(-truth))
    return embeddings, features, pseudo


def test_student_learns_pseudo_order_and_round_trips(tmp_path: Path) -> None:
    embeddings, features, pseudo = _data()
    config = StudentConfig(epochs=120)
    student = train_student("mine", embeddings, FEATURE_NAMES, features, pseudo, tmp_path, {"encoder": "test"}, config)
    assert student.scorer_id == "student:mine"
    validation = student.card["metrics"]["validation"]
    assert min(validation["srcc"].values()) > 0.6
    test_e, test_f, test_p = _data(80, seed=1)
    predicted = student.score_arrays(test_e, FEATURE_NAMES, test_f)
    assert srcc(predicted[:, 4], test_p[:, 4]) > 0.6
    assert predicted.min() >= 1.0 and predicted.max() <= 5.0
    assert list_students(tmp_path) == ["mine"]
    again = load_student(tmp_path, "mine")
    assert np.allclose(again.score_arrays(test_e, FEATURE_NAMES, test_f), predicted, atol=1e-5)
    card = json.loads((tmp_path / "mine.json").read_text())
    assert card["encoder"] == "test" and card["data"]["images"] == 160
    assert (tmp_path / "mine.safetensors").is_file()


def test_student_errors_are_clear(tmp_path: Path) -> None:
    embeddings, features, pseudo = _data(10)
    with pytest.raises(ValueError, match="five pseudo-scores"):
        train_student("x", embeddings, FEATURE_NAMES, features, pseudo[:, :3], tmp_path)
    with pytest.raises(ValueError, match="at least 4"):
        train_student("x", embeddings[:3], FEATURE_NAMES, features[:3], pseudo[:3], tmp_path)
    with pytest.raises(FileNotFoundError):
        load_student(tmp_path, "nobody")
    (tmp_path / "fake.json").write_text('{"format": "other"}')
    (tmp_path / "fake.safetensors").write_bytes(b"")
    with pytest.raises(ValueError, match="not an Aesthete student"):
        load_student(tmp_path, "fake")
    student = train_student("ok", embeddings, FEATURE_NAMES, features, pseudo, tmp_path, config=StudentConfig(epochs=2))
    with pytest.raises(ValueError, match="differ"):
        student.score_arrays(embeddings, ["other"], features[:, :1])


def _photo(path: Path, blur: float = 0.0) -> Path:
    rng = np.random.default_rng(3)
    base = np.kron(rng.integers(0, 255, (24, 32, 3)), np.ones((16, 16, 1))).astype(np.uint8)
    image = Image.fromarray(base).filter(ImageFilter.GaussianBlur(0.5))  # crisp edges (spread about 2 px)
    if blur:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    image.save(path)
    return path


def test_builtin_scorer_needs_no_weights_and_prefers_sharp_images(tmp_path: Path) -> None:
    sharp = _photo(tmp_path / "sharp.png")
    blurred = _photo(tmp_path / "blurred.png", blur=6)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 truncated")
    scores = BuiltinScorer().score_paths([str(sharp), str(blurred), str(broken)])
    assert scores[2] == {}
    assert scores[0]["technique"] > scores[1]["technique"]
    assert all(1.0 <= v <= 5.0 for v in scores[0].values())
    with pytest.raises(ValueError, match="needs image properties"):
        BuiltinScorer().score_arrays(None, ["rms_contrast"], np.zeros((1, 1)))
