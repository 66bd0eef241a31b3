"""Damaged safetensors files written by the test: one clear error naming the file and the fault, never a traceback."""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from aesthete_gui.cli import main
from aesthete_gui.ml.loading import load_vlm
from aesthete_gui.ml.model_files import DamagedWeights, ModelLoadError, read_safetensors_header


def _raw(header: object, data: bytes = b"", length: int | None = None) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def _good(path: Path) -> bytes:
    save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3)}, str(path))
    return path.read_bytes()


def _entry(**changes: object) -> dict:
    entry = {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
    entry.update(changes)
    return {"w": entry}


DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda good: good[:-10], "truncated: tensor 'w' ends at byte 24 of the data but the file holds 14"),
    "too short": (lambda good: good[:5], "only 5 bytes long"),
    "absurd header length": (lambda good: struct.pack("<Q", 2**63 + 5) + good[8:], "its header claims 9,223,372,036,854,775,813 bytes"),
    "header length past the end": (lambda good: struct.pack("<Q", len(good)) + good[8:], "bytes but the file has"),
    "header a list": (lambda good: _raw([1, 2, 3], b"\0" * 24), "its header is a JSON list, not an object"),
    "header not JSON": (lambda good: struct.pack("<Q", 4) + b"\xff\xfe{]" + b"\0" * 24, "its header is not JSON"),
    "tensor entry a string": (lambda good: _raw({"w": "F32"}, b"\0" * 24), "tensor 'w' is described by a str"),
    "unknown dtype": (lambda good: _raw(_entry(dtype="F99"), b"\0" * 24), "tensor 'w' has unknown dtype 'F99'"),
    "negative shape": (lambda good: _raw(_entry(shape=[2, -3]), b"\0" * 24), "tensor 'w' has shape [2, -3]"),
    "shape of strings": (lambda good: _raw(_entry(shape=["2", "3"]), b"\0" * 24), "not a list of sizes"),
    "shape larger than its data": (lambda good: _raw(_entry(shape=[4, 3]), b"\0" * 24), "needs 48 bytes but spans 24"),
    "huge shape": (lambda good: _raw(_entry(shape=[10**30, 10**30]), b"\0" * 24), "but spans 24"),
    "bad offsets": (lambda good: _raw(_entry(data_offsets=[24, 0]), b"\0" * 24), "data_offsets [24, 0]"),
    "metadata not strings": (lambda good: _raw({"__metadata__": {"a": 1}, **_entry()}, b"\0" * 24), "__metadata__ is not a map of strings"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_each_damage_is_named_with_the_file(tmp_path: Path, case: str) -> None:
    damage, expected = DAMAGE[case]
    path = tmp_path / "model.safetensors"
    path.write_bytes(damage(_good(path)))
    with pytest.raises(DamagedWeights) as caught:
        read_safetensors_header(path)
    assert str(caught.value).startswith(f"{path} is a damaged safetensors file: ")
    assert expected in str(caught.value)


def test_an_intact_file_reads_its_tensors(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    _good(path)
    assert read_safetensors_header(path)["w"]["count"] == 6


@pytest.mark.parametrize("case", ["truncated", "absurd header length", "header a list", "unknown dtype", "shape larger than its data"])
def test_a_damaged_model_folder_is_refused_before_transformers_reads_it(tiny_qwen3_vl_dir: Path, tmp_path: Path, case: str) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_qwen3_vl_dir, folder)
    weights = folder / "model.safetensors"
    damage, expected = DAMAGE[case]
    if case == "truncated":
        weights.write_bytes(weights.read_bytes()[:-100])
        expected = "truncated: tensor"
    else:
        weights.write_bytes(damage(_good(tmp_path / "small.safetensors")))
    with pytest.raises(ModelLoadError, match="damaged safetensors file") as caught:
        load_vlm(folder)
    assert str(weights) in str(caught.value) and expected in str(caught.value)


def test_weights_with_shapes_other_than_the_config_are_a_clear_error(tiny_qwen3_vl_dir: Path, tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    folder = tmp_path / "model"
    shutil.copytree(tiny_qwen3_vl_dir, folder)
    tensors = load_file(str(folder / "model.safetensors"))
    name = next(k for k, v in tensors.items() if v.ndim == 2 and v.shape[0] != v.shape[1])
    tensors[name] = tensors[name].reshape(tensors[name].shape[::-1]).copy()
    save_file(tensors, str(folder / "model.safetensors"))
    with pytest.raises(DamagedWeights, match=r"model\.safetensors have other shapes than its config\.json describes"):
        load_vlm(folder)


def test_the_judge_command_says_what_is_wrong_in_one_line(tiny_qwen3_vl_dir: Path, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_qwen3_vl_dir, folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(struct.pack("<Q", 2**40) + weights.read_bytes()[8:])
    code = main(["judge", "pair", photo_paths[0], photo_paths[1], "--model", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [f"aesthete: error: {weights} is a damaged safetensors file: its header claims 1,099,511,627,776 bytes but the file has {weights.stat().st_size - 8:,} after the length field"]


def _student(tmp_path: Path) -> Path:
    from aesthete_gui.training.distill import train_student

    rng = np.random.default_rng(0)
    features = rng.normal(size=(12, 3))
    pseudo = 1 + 4 * rng.random((12, 5))
    models = tmp_path / "models"
    train_student("s", None, ["a", "b", "c"], features, pseudo, models, config=_quick())
    return models


def _quick():
    from aesthete_gui.training.distill import StudentConfig

    return StudentConfig(hidden=4, epochs=2)


@pytest.mark.parametrize(
    ("tensors", "expected"),
    [
        ({"mean": np.zeros(3, np.float32)}, "tensor 'scale' is missing"),
        ({"w1": np.zeros((3, 4), np.float32)}, "tensor 'w1' is F32 [3, 4], expected floats of shape [4, 3]"),
        ({"b2": np.zeros(5, np.int64)}, "tensor 'b2' is I64 [5], expected floats of shape [5]"),
    ],
)
def test_a_damaged_student_is_named_not_a_numpy_error(tmp_path: Path, tensors: dict, expected: str) -> None:
    from safetensors.numpy import load_file

    from aesthete_gui.training.distill import load_student

    models = _student(tmp_path)
    weights = models / "s.safetensors"
    stored = load_file(str(weights))
    if "mean" in tensors:
        del stored["scale"]
    stored.update(tensors)
    save_file(stored, str(weights))
    with pytest.raises(DamagedWeights, match="damaged student") as caught:
        load_student(models, "s")
    assert str(weights) in str(caught.value) and expected in str(caught.value)
    weights.write_bytes(weights.read_bytes()[:-7])
    with pytest.raises(ValueError, match="truncated"):  # DamagedWeights is a ValueError for older callers
        load_student(models, "s")
