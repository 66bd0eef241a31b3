"""`aesthete judge pair|set`, `score`, `models` end to end: tiny local models and a server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
import torch

from aesthete_gui.cli import main
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.store import open_profile
from tests.ml.chat_server import Action, ChatServer


def test_judge_pair_json_contract_with_tiny_local_model(
    tiny_qwen3_vl_dir: Path, photo_paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["judge", "pair", photo_paths[0], photo_paths[1], "--model", str(tiny_qwen3_vl_dir),
         "--max-new-tokens", "8", "--json"]
    )  # fmt: skip
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"parsed", "outcome", "raw"}
    assert payload["parsed"] is False  # random weights: nonsense, recorded as unparsed
    assert payload["outcome"] == dict.fromkeys(DIMENSIONS)
    assert isinstance(payload["raw"], str) and payload["raw"]


def test_judge_pair_via_endpoint_parsed_and_saved(
    photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile_path = tmp_path / "p.db"
    with ChatServer() as server:
        code = main(
            ["--profile", str(profile_path), "judge", "pair", photo_paths[0], photo_paths[1],
             "--endpoint", server.base_url, "--model", "scripted", "--json", "--save"]
        )  # fmt: skip
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parsed"] is True
    assert payload["outcome"] == {
        "technique": "A", "coloration": "B", "composition": "TIE", "mood": "A", "overall": "A",
    }  # fmt: skip
    [stored] = open_profile(profile_path).judgments.records()
    assert stored.outcome["coloration"] == "B"
    assert stored.raw == payload["raw"]


def test_judge_pair_text_output_both_orders(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        code = main(
            ["judge", "pair", photo_paths[0], photo_paths[1], "--endpoint", server.base_url,
             "--model", "scripted", "--both-orders"]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "technique    TIE" in out
    assert "consistent across both orders on 20%" in out


def test_unreachable_endpoint_is_a_clear_error(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(
        ["judge", "pair", photo_paths[0], photo_paths[1], "--endpoint", f"http://127.0.0.1:{port}/v1",
         "--model", "m", "--json"]
    )  # fmt: skip
    assert code == 2
    assert "cannot reach" in capsys.readouterr().err


def test_server_error_is_a_clear_error(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer(lambda body, call: Action(status=401, body={"error": {"message": "bad key"}})) as server:
        code = main(
            ["judge", "pair", photo_paths[0], photo_paths[1], "--endpoint", server.base_url,
             "--model", "m"]
        )  # fmt: skip
    assert code == 2
    assert "rejected the API key" in capsys.readouterr().err


def test_pickle_model_refused_with_hint(
    tiny_qwen25_vl_dir: Path, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "pickled"
    shutil.copytree(tiny_qwen25_vl_dir, folder)
    from safetensors.torch import load_file

    torch.save(load_file(folder / "model.safetensors"), folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    code = main(["judge", "pair", photo_paths[0], photo_paths[1], "--model", str(folder)])
    assert code == 2
    assert "--allow-pickle" in capsys.readouterr().err


def test_missing_image_and_missing_model(photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", "pair", "nope.jpg", photo_paths[0], "--model", "x/y"]) == 2
    assert "no such image file: nope.jpg" in capsys.readouterr().err
    assert main(["judge", "pair", photo_paths[0], photo_paths[1], "--model", "someone/not-cached"]) == 2
    assert "--download" in capsys.readouterr().err


def test_judge_set_explain_streams_stages(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        code = main(
            ["judge", "set", *photo_paths[:3], "--endpoint", server.base_url, "--model", "scripted",
             "--explain"]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.index("--- Analysis") < out.index("--- Critique") < out.index("--- Decision")
    assert f"best:  {photo_paths[0]}" in out
    assert f"worst: {photo_paths[1]}" in out
    assert "subjective words in the explanation: 0.0%" in out


def test_judge_set_json_with_orderings_and_size_check(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        code = main(
            ["judge", "set", *photo_paths[:4], "--endpoint", server.base_url, "--model", "scripted",
             "--orderings", "3", "--json"]
        )  # fmt: skip
        assert len(server.requests) == 3
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["parsed"] is True
    assert payload["best"] in photo_paths[:4]
    assert main(["judge", "set", photo_paths[0], "--model", "m"]) == 2
    assert "2 to 8 images" in capsys.readouterr().err


def test_score_single_pass_with_tiny_model(
    tiny_qwen25_vl_dir: Path, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    code = main(["score", photo_paths[0], str(empty), "--model", str(tiny_qwen25_vl_dir), "--json"])
    assert code == 0
    first, second = json.loads(capsys.readouterr().out)
    assert set(first["scores"]) == set(DIMENSIONS)
    assert all(1.0 <= v <= 5.0 for v in first["scores"].values())
    assert second["scores"] is None


def test_models_lists_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    ids = {row["id"] for row in rows}
    assert {"Qwen/Qwen3-VL-4B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct", "builtin"} <= ids
    builtin = next(row for row in rows if row["id"] == "builtin")
    assert builtin["installed"] == "built in"
    assert main(["models"]) == 0
    assert "Qwen/Qwen3-VL-2B-Instruct" in capsys.readouterr().out


def test_judge_set_per_dimension(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        code = main(
            ["judge", "set", *photo_paths[:3], "--endpoint", server.base_url, "--model", "scripted",
             "--per-dimension", "--json"]
        )  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["per_dimension"]["technique"] == {"best": photo_paths[1], "worst": photo_paths[0]}
