"""Finding and loading weights: local folders, the offline hub cache, pickle and remote-code refusal, memory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.ml.loading import (
    LoadOptions,
    ModelLoadError,
    ModelTooLarge,
    PickleRefused,
    _progress_class,
    check_fits,
    choose_device,
    count_parameters,
    estimate_memory_bytes,
    load_vision_model,
    load_vlm,
    looks_like_hub_id,
    model_parameters,
    resolve_model_path,
)


def test_loads_tiny_vlm_from_folder_on_cpu_in_float32(tiny_vlm_dir: Path) -> None:
    loaded = load_vlm(tiny_vlm_dir, LoadOptions(device="cpu"))
    assert loaded.device.device == "cpu"
    assert loaded.device.dtype == "float32"
    assert next(loaded.model.parameters()).dtype == torch.float32
    assert loaded.processor.tokenizer.padding_side == "left"
    assert not loaded.model.training
    assert count_parameters(tiny_vlm_dir) == sum(p.numel() for p in loaded.model.parameters())


def test_choose_device_prefers_cuda_then_cpu() -> None:
    choice = choose_device()
    assert choice.device == ("cuda" if torch.cuda.is_available() else "cpu")
    assert choose_device("cuda:1").dtype == "bfloat16"
    assert choose_device("cpu").dtype == "float32"


def _fake_cache(cache: Path, repo_id: str, model_dir: Path) -> None:
    owner, name = repo_id.split("/")
    repo = cache / f"models--{owner}--{name}"
    commit = "0123456789abcdef0123456789abcdef01234567"
    shutil.copytree(model_dir, repo / "snapshots" / commit)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")


def test_hub_id_resolves_from_the_cache_offline(
    tiny_qwen3_vl_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _fake_cache(tmp_path, "tiny-org/tiny-vl", tiny_qwen3_vl_dir)
    folder = resolve_model_path("tiny-org/tiny-vl", cache_dir=tmp_path)
    assert (folder / "config.json").is_file()
    assert looks_like_hub_id("tiny-org/tiny-vl")
    assert not looks_like_hub_id(str(tiny_qwen3_vl_dir))


def test_hub_id_missing_from_cache_says_how_to_download(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="--download"):
        resolve_model_path("someone/not-cached-model", cache_dir=tmp_path)


def test_nonsense_names_and_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="neither a folder nor a hub id"):
        resolve_model_path("no such model here")
    file = tmp_path / "weights.safetensors"
    file.write_bytes(b"x")
    with pytest.raises(ModelLoadError, match="give the folder"):
        resolve_model_path(file)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="no model weights"):
        load_vlm(empty)


def _pickle_copy(model_dir: Path, target: Path) -> Path:
    shutil.copytree(model_dir, target)
    from safetensors.torch import load_file

    state = load_file(target / "model.safetensors")
    (target / "model.safetensors").unlink()
    torch.save(state, target / "pytorch_model.bin")
    return target


def test_pickle_only_folder_is_refused_unless_allowed(
    tiny_qwen25_vl_dir: Path, tmp_path: Path
) -> None:
    folder = _pickle_copy(tiny_qwen25_vl_dir, tmp_path / "pickled")
    with pytest.raises(PickleRefused, match="--allow-pickle") as refused:
        load_vlm(folder)
    assert "pytorch_model.bin" in str(refused.value)
    loaded = load_vlm(folder, LoadOptions(allow_pickle=True))
    assert count_parameters(tiny_qwen25_vl_dir) == sum(
        p.numel() for p in loaded.model.parameters()
    )


def test_remote_code_is_refused_unless_allowed(tiny_qwen3_vl_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "custom"
    shutil.copytree(tiny_qwen3_vl_dir, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelLoadError, match="--trust-remote-code"):
        load_vlm(folder)


def test_memory_check_names_need_and_free(tiny_qwen3_vl_dir: Path) -> None:
    choice = choose_device("cpu")
    needed = check_fits(tiny_qwen3_vl_dir, choice, available=10**12)
    assert needed == estimate_memory_bytes(model_parameters(tiny_qwen3_vl_dir), "float32")
    with pytest.raises(ModelTooLarge, match=r"needs about .* GiB on cpu .* free"):
        check_fits(tiny_qwen3_vl_dir, choice, available=1000)
    assert estimate_memory_bytes(4_000_000_000, "bfloat16") > 8 * 10**9


def test_broken_config_and_weights_give_clear_errors(tiny_qwen3_vl_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(tiny_qwen3_vl_dir, folder)
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelLoadError, match=r"config\.json is unreadable"):
        load_vlm(folder)
    (folder / "config.json").unlink()
    with pytest.raises(ModelLoadError, match=r"no config\.json"):
        load_vlm(folder)
    bad = tmp_path / "bad-weights"
    shutil.copytree(tiny_qwen3_vl_dir, bad)
    (bad / "model.safetensors").write_bytes(b"\x00" * 4)
    with pytest.raises(ModelLoadError, match="damaged safetensors file: only 4 bytes"):
        load_vlm(bad)


def test_download_progress_is_relayed_and_cancellable() -> None:
    seen: list[Progress] = []
    bar_class = _progress_class(seen.append, None)
    with bar_class(total=3, desc="Fetching 3 files") as bar:
        bar.update(1)
        bar.update(2)
    assert [(p.done, p.total) for p in seen] == [(1, 3), (3, 3)]
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        _progress_class(None, token)(total=1).update(1)


def test_loads_siglip_and_clip_vision_towers(tiny_siglip_dir: Path, tiny_clip_dir: Path) -> None:
    siglip = load_vision_model(tiny_siglip_dir)
    clip = load_vision_model(tiny_clip_dir)
    assert type(siglip.model).__name__ == "SiglipVisionModel"
    assert type(clip.model).__name__ == "CLIPVisionModelWithProjection"


def test_download_failure_is_a_clear_error_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelLoadError, match=r"^no connection to the model hub \(https://") as caught:
        resolve_model_path("someone/absent-model", download=True, cache_dir=tmp_path)
    assert "offline mode is enabled" in str(caught.value) and "\n" not in str(caught.value)


def test_too_large_hub_model_is_refused_before_downloading(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    from aesthete_gui.ml import loading

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(loading, "available_memory_bytes", lambda device: 4 * 2**30)
    with pytest.raises(ModelTooLarge, match=r"Qwen/Qwen3-VL-8B-Instruct needs about 41\.\d GiB on cpu"):
        load_vlm("Qwen/Qwen3-VL-8B-Instruct", LoadOptions(download=True, device="cpu"))
    if torch.cuda.is_available():  # a card holds the weights in bfloat16: half the bytes
        with pytest.raises(ModelTooLarge, match=r"needs about 20\.\d GiB on cuda \(bfloat16\)"):
            load_vlm("Qwen/Qwen3-VL-8B-Instruct", LoadOptions(download=True, device="cuda"))
    choice = choose_device("cpu")
    assert loading.check_card_fits("unknown/model", choice) is None
