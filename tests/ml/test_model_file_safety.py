"""Model files never exhaust or hang the machine: size from the config, plain files only, a bounded
header, and strict loading that names missing or extra tensors. Crafted folders from tiny models."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from safetensors.numpy import load_file, save_file

from aesthete_gui.cli import main
from aesthete_gui.ml import loading
from aesthete_gui.ml.loading import DeviceChoice, ModelTooLarge, check_fits, load_vlm
from aesthete_gui.ml.model_files import (
    DamagedWeights,
    ModelLoadError,
    count_parameters,
    model_parameters,
    read_safetensors_header,
)
from aesthete_gui.ml.model_size import config_parameters

QWEN25_VL_7B = {
    "model_type": "qwen2_5_vl", "tie_word_embeddings": False,
    "text_config": {"hidden_size": 3584, "num_hidden_layers": 28, "intermediate_size": 18944, "num_attention_heads": 28,
                    "num_key_value_heads": 4, "vocab_size": 152064, "hidden_act": "silu"},
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "out_hidden_size": 3584,
                      "patch_size": 14, "temporal_patch_size": 2, "spatial_merge_size": 2, "hidden_act": "silu", "in_chans": 3},
}  # fmt: skip


def _copy(model: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(model, folder)
    return folder


def _finishes(function: Callable[[], object], seconds: float = 60.0) -> BaseException | None:
    """Run `function` in a daemon thread; the exception it raised (None: it returned). Fails the test
    if it is still running after `seconds` (a FIFO would block forever)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            function()
            outcome.append(None)
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "it hung"
    return outcome[0]


def _unblock(fifo: Path) -> None:
    """Open a FIFO for writing without blocking, so that a reader stuck on it (if any) is released."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_the_config_gives_the_size_of_real_models_and_of_the_tiny_ones(tiny_qwen25_vl_dir: Path, tiny_qwen3_vl_dir: Path) -> None:
    assert abs(config_parameters(QWEN25_VL_7B) / 1e9 - 8.29) < 0.01  # published: 8.29 B
    three_b = json.loads(json.dumps(QWEN25_VL_7B))
    three_b["tie_word_embeddings"] = True
    three_b["text_config"].update(hidden_size=2048, num_hidden_layers=36, intermediate_size=11008, num_attention_heads=16,
                                  num_key_value_heads=2, vocab_size=151936)  # fmt: skip
    three_b["vision_config"]["out_hidden_size"] = 2048
    assert abs(config_parameters(three_b) / 1e9 - 3.75) < 0.01  # published: 3.75 B
    for folder in (tiny_qwen25_vl_dir, tiny_qwen3_vl_dir):
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        assert config_parameters(config) == pytest.approx(count_parameters(folder), rel=0.01)


def test_a_big_config_behind_a_tiny_header_is_refused_before_anything_is_allocated(
    tiny_qwen25_vl_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy(tiny_qwen25_vl_dir, tmp_path)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config["text_config"].update(QWEN25_VL_7B["text_config"], vocab_size=config["text_config"]["vocab_size"])
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert count_parameters(folder) < 10**6 < 6 * 10**9 < model_parameters(folder)
    monkeypatch.setattr(loading, "available_memory_bytes", lambda device: 16 * 2**30)
    with pytest.raises(ModelTooLarge, match=r"needs about 3\d\.\d GiB on cpu \(float32\) but only 16\.0 GiB is free"):
        load_vlm(folder, loading.LoadOptions(device="cpu"))


def test_on_a_gpu_the_ram_the_weights_pass_through_is_checked_too(tiny_qwen25_vl_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    free = {"cuda": 80 * 2**30, "cpu": 1000}
    monkeypatch.setattr(loading, "available_memory_bytes", lambda device: free[device.split(":")[0]])
    with pytest.raises(ModelTooLarge, match="in RAM on its way to the GPU"):
        check_fits(tiny_qwen25_vl_dir, DeviceChoice("cuda", "bfloat16"))
    free["cpu"] = 2**40
    assert check_fits(tiny_qwen25_vl_dir, DeviceChoice("cuda", "bfloat16")) > 0
    free["cuda"] = 1000
    with pytest.raises(ModelTooLarge, match="on cuda"):
        check_fits(tiny_qwen25_vl_dir, DeviceChoice("cuda", "bfloat16"))


@pytest.mark.parametrize("name", ["config.json", "model.safetensors", "tokenizer.json"])
def test_a_fifo_in_a_model_folder_is_refused_without_hanging(tiny_qwen3_vl_dir: Path, tmp_path: Path, name: str) -> None:
    folder = _copy(tiny_qwen3_vl_dir, tmp_path)
    (folder / name).unlink()
    os.mkfifo(folder / name)
    try:
        error = _finishes(lambda: load_vlm(folder))
    finally:
        _unblock(folder / name)
    assert isinstance(error, ModelLoadError)
    assert str(error) == f"{folder / name} is a named pipe (FIFO), not a file; a model's files must be plain files"


def test_a_device_a_folder_and_a_broken_link_as_weights_are_refused(tiny_qwen3_vl_dir: Path, tmp_path: Path) -> None:
    folder = _copy(tiny_qwen3_vl_dir, tmp_path)
    weights = folder / "model.safetensors"
    weights.unlink()
    weights.symlink_to("/dev/zero")
    assert "is a character device, not a file" in str(_finishes(lambda: load_vlm(folder)))
    weights.unlink()
    weights.mkdir()
    assert "is a folder, not a file" in str(_finishes(lambda: load_vlm(folder)))
    weights.rmdir()
    weights.symlink_to(tmp_path / "gone.safetensors")
    assert "is missing (a broken link?)" in str(_finishes(lambda: load_vlm(folder)))


def test_a_huge_header_is_refused_in_one_line_before_it_is_read(
    tiny_qwen3_vl_dir: Path, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tiny_qwen3_vl_dir, tmp_path)
    weights = folder / "model.safetensors"
    length = 94 * 2**20
    with weights.open("wb") as handle:  # a sparse file: the 94 MB header is never written, only claimed
        handle.write(struct.pack("<Q", length) + b"{")
        handle.truncate(8 + length + 16)
    with pytest.raises(DamagedWeights, match="its header is 94 MB; real models' headers are far below 16 MB"):
        read_safetensors_header(weights)
    code = main(["judge", "pair", photo_paths[0], photo_paths[1], "--model", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "its header is 94 MB" in err


def test_weights_lacking_tensors_are_refused_with_their_names(
    tiny_qwen25_vl_dir: Path, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tiny_qwen25_vl_dir, tmp_path)
    tensors = load_file(str(folder / "model.safetensors"))
    kept = dict(list(sorted(tensors.items()))[:3])
    save_file(kept, str(folder / "model.safetensors"), metadata={"format": "pt"})
    removed = sorted(set(tensors) - set(kept))
    with pytest.raises(DamagedWeights) as caught:
        load_vlm(folder)
    message = str(caught.value)
    assert re.search(rf"the weights lack {len(removed)} of the model's {len(tensors)} tensors: "
                     rf"model\.\S+, model\.\S+, model\.\S+ and {len(removed) - 3} more; it would run with random weights", message)  # fmt: skip
    code = main(["score", photo_paths[0], "--model", str(folder), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"lack {len(removed)} of" in err


def test_weights_with_extra_tensors_are_refused_with_their_names(tiny_qwen3_vl_dir: Path, tmp_path: Path) -> None:
    import numpy as np

    folder = _copy(tiny_qwen3_vl_dir, tmp_path)
    tensors = load_file(str(folder / "model.safetensors"))
    tensors["model.language_model.layers.7.mlp.extra.weight"] = np.zeros((2, 2), np.float32)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(DamagedWeights, match=r"hold 1 tensors the model does not have: model\.language_model\.layers\.7\.mlp\.extra\.weight"):
        load_vlm(folder)
