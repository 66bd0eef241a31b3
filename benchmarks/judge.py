"""Model-layer benchmark (issue 4): our judge's per-call overhead and single-pass scoring speed.

CPU section (always): a tiny random Qwen2.5-VL (tests/fixtures/tiny_models.py) judges a pair of
real photographs (scikit-image's astronaut and coffee, saved as 640 px JPEGs).
- bare: what a minimal script does per call: open the two files with PIL, processor(...),
  model.generate (greedy, 16 new tokens), batch_decode;
- ours: LocalVLMJudge.judge_pairs on the same files (safe decoding, prompt building from the
  preset, batching, parsing, record building), same model object, same 16 tokens.
Overhead = ours − bare (median of repeated calls), at 1 pair per call and 4 pairs per call.
- single-pass: five expected scores per image with the shared image-prefix cache against the
  plain way (five full forward passes per image), images/s on the tiny model.

GPU section (only when CUDA is present): real-size Qwen2.5-VL-3B and Qwen3-VL-4B architectures with
random weights in bf16 (speed does not depend on the weights), pairwise judgments/s with the full
pairwise token limit and single-pass images/s at batch sizes 1, 8, 32. Random weights rarely emit
an end token, so every call generates the full limit: an upper bound on a real model's time.

    python benchmarks/judge.py [--json] [--no-write] [--repeats 15]
    python benchmarks/judge.py --gpu-baseline DIR [--keep OUT]   # issue 14's rows, before/after
    python benchmarks/judge.py --smoke                            # the GPU code on the CPU, tiny

`--gpu-baseline DIR` runs benchmarks/judge_gpu.py for the checkout in DIR (the baseline) and for
this one in the same command and writes the before/after table with ratios and peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DOC = REPO / "docs" / "benchmarks" / "judge.md"
NEW_TOKENS = 16
GPU_BATCHES = (1, 8, 32)


def _photos(folder: Path, count: int = 4) -> list[str]:
    import skimage.data
    from PIL import Image

    names = ("astronaut", "coffee", "chelsea", "rocket")
    paths = []
    for name in names[:count]:
        image = Image.fromarray(getattr(skimage.data, name)()).convert("RGB")
        image.thumbnail((640, 640))
        path = folder / f"{name}.jpg"
        image.save(path, quality=90)
        paths.append(str(path))
    return paths


def _median_ms(function, repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _timed(function, generate_times: list[float]) -> tuple[float, float]:
    """(whole call ms, ms spent inside model.generate) for one call."""
    generate_times.clear()
    started = time.perf_counter()
    function()
    return (time.perf_counter() - started) * 1000, sum(generate_times)


def bare_generate(loaded: Any, pairs: list[tuple[str, str]], text: str) -> list[str]:
    """A minimal transformers call for `pairs`: PIL open, processor, greedy generate, decode."""
    import torch
    from PIL import Image

    images = [Image.open(p).convert("RGB") for pair in pairs for p in pair]
    inputs = loaded.processor(
        text=[text] * len(pairs), images=images, padding=True, return_tensors="pt"
    ).to(loaded.model.device)
    with torch.inference_mode():
        out = loaded.model.generate(
            **inputs,
            max_new_tokens=NEW_TOKENS,
            do_sample=False,
            pad_token_id=loaded.processor.tokenizer.pad_token_id,
        )
    return loaded.processor.tokenizer.batch_decode(
        out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
    )


def cpu_section(repeats: int) -> dict[str, Any]:
    """Overhead of LocalVLMJudge over bare generate, and single-pass cached vs plain, tiny model."""
    import torch

    from aesthete_gui.engine.dimensions import DIMENSIONS
    from aesthete_gui.ml.images import load_rgb
    from aesthete_gui.ml.loading import load_vlm
    from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer, score_batch_uncached
    from aesthete_gui.ml.vlm import LocalVLMJudge, chat_text
    from tests.fixtures.tiny_models import build_tiny_qwen25_vl

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_tiny_qwen25_vl(Path(tmp) / "tiny")
        photos = _photos(Path(tmp))
        loaded = load_vlm(folder)
        judge = LocalVLMJudge(folder, loaded=loaded, batch_size=4, max_new_tokens=NEW_TOKENS)
        text = chat_text(loaded.processor, 2, judge.prompts.pairwise().text)
        generate_times: list[float] = []
        real_generate = loaded.model.generate

        def timed_generate(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return real_generate(*args, **kwargs)
            finally:
                generate_times.append((time.perf_counter() - started) * 1000)

        loaded.model.generate = timed_generate
        rows = []
        for count in (1, 4):
            pairs = [(photos[i % 4], photos[(i + 1) % 4]) for i in range(count)]
            bare_other, our_other, bare_total, generate_only = [], [], [], []
            for index in range(repeats + 2):
                bare_call, bare_generate_ms = _timed(lambda p=pairs: bare_generate(loaded, p, text), generate_times)
                our_call, our_generate_ms = _timed(lambda p=pairs: judge.judge_pairs(p), generate_times)
                if index < 2:  # warm-up rounds
                    continue
                bare_other.append(bare_call - bare_generate_ms)
                our_other.append(our_call - our_generate_ms)
                bare_total.append(bare_call)
                generate_only.append(bare_generate_ms)
            bare_ms = statistics.median(bare_other)
            ours_ms = statistics.median(our_other)
            rows.append(
                {
                    "pairs_per_call": count,
                    "generate_ms": round(statistics.median(generate_only), 2),
                    "bare_other_ms": round(bare_ms, 2),
                    "ours_other_ms": round(ours_ms, 2),
                    "overhead_ms": round(ours_ms - bare_ms, 2),
                    "overhead_pct_of_bare_call": round(100 * (ours_ms - bare_ms) / statistics.median(bare_total), 1),
                }
            )
        loaded.model.generate = real_generate
        scorer = VLMSinglePassScorer(folder, loaded=loaded, batch_size=4)
        images = [load_rgb(p, 1024) for p in photos]
        prompt, prefixes = scorer.prompts.single_pass()
        cached = _median_ms(lambda: scorer.score_images(images), max(3, repeats // 3), warmup=1)
        plain = _median_ms(
            lambda: [
                score_batch_uncached(loaded, image, prompt.text, prefixes[d])
                for image in images
                for d in DIMENSIONS
            ],
            max(3, repeats // 3),
            warmup=1,
        )
        single = {
            "images": len(images),
            "cached_images_per_s": round(len(images) / (cached / 1000), 2),
            "plain_images_per_s": round(len(images) / (plain / 1000), 2),
            "speedup": round(plain / cached, 2),
        }
        prompt_tokens = len(loaded.processor.tokenizer(text)["input_ids"])
    return {"overhead": rows, "single_pass": single, "pairwise_prompt_tokens_tiny": prompt_tokens}


REAL_SIZE = {
    # Published architecture hyperparameters of the two checkpoints (weights are random here).
    "Qwen2.5-VL-3B": {
        "family": "qwen2_5_vl",
        "text": {"hidden_size": 2048, "intermediate_size": 11008, "num_hidden_layers": 36,
                 "num_attention_heads": 16, "num_key_value_heads": 2, "vocab_size": 151936,
                 "rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24],
                                     "rope_theta": 1000000.0}},
        "vision": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16,
                   "out_hidden_size": 2048, "patch_size": 14, "window_size": 112,
                   "fullatt_block_indexes": [7, 15, 23, 31]},
    },
    "Qwen3-VL-4B": {
        "family": "qwen3_vl",
        "text": {"hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                 "vocab_size": 151936,
                 "rope_parameters": {"rope_type": "default", "mrope_section": [24, 20, 20],
                                     "mrope_interleaved": True, "rope_theta": 5000000.0}},
        "vision": {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "num_heads": 16,
                   "out_hidden_size": 2560, "patch_size": 16, "num_position_embeddings": 2304,
                   "deepstack_visual_indexes": [5, 11, 17]},
    },
}  # fmt: skip


def shrunken(configs: dict[str, Any]) -> dict[str, Any]:
    """The same architectures made tiny, to check the GPU section's code on a CPU (--smoke)."""
    small = {}
    for name, spec in configs.items():
        text = dict(spec["text"], hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, vocab_size=512)
        if "head_dim" in text:
            text["head_dim"] = 16
        text["rope_parameters"] = dict(text["rope_parameters"], mrope_section=[2, 3, 3])
        vision = dict(spec["vision"], depth=2, hidden_size=32, intermediate_size=64, num_heads=2,
                      out_hidden_size=64)
        for key in ("fullatt_block_indexes", "deepstack_visual_indexes"):
            if key in vision:
                vision[key] = [1] if key == "fullatt_block_indexes" else [0, 1]
        if "num_position_embeddings" in vision:
            vision["num_position_embeddings"] = 64
        small[name] = dict(spec, text=text, vision=vision)
    return small  # fmt: skip


def build_real_size(name: str, folder: Path, device: str, configs: dict[str, Any] = REAL_SIZE) -> Any:
    """A random-weight model of the named architecture with the tiny tokenizer's processor."""
    import torch
    import transformers

    from aesthete_gui.ml.loading import DeviceChoice, LoadedModel
    from tests.fixtures import tiny_models

    spec = configs[name]
    builder = (
        tiny_models.build_tiny_qwen25_vl
        if spec["family"] == "qwen2_5_vl"
        else tiny_models.build_tiny_qwen3_vl
    )
    tiny_dir = builder(folder / "processor")
    processor = transformers.AutoProcessor.from_pretrained(tiny_dir)
    processor.tokenizer.padding_side = "left"
    # Real-size image token budget (the tiny processor caps images at 64 tokens).
    patch = spec["vision"]["patch_size"]
    processor.image_processor.size = {"shortest_edge": (patch * 2) ** 2 * 4, "longest_edge": (patch * 2) ** 2 * 1024}
    tiny_config = transformers.AutoConfig.from_pretrained(tiny_dir)
    config_class = type(tiny_config)
    ids = {k: getattr(tiny_config, k) for k in ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id")}
    text = dict(spec["text"])
    # The tiny tokenizer's ids must fit the embedding (shrunken configs use a small vocabulary).
    text["vocab_size"] = max(text["vocab_size"], len(processor.tokenizer))
    config = config_class(text_config=text, vision_config=spec["vision"], **ids)
    model_class = getattr(transformers, tiny_config.architectures[0])
    dtype = "bfloat16" if device.startswith("cuda") else "float32"
    # Built directly in the target dtype on the device: no fp32 copy, no load spike in the peak.
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        with torch.device(device):
            model = model_class(config).eval()
    finally:
        torch.set_default_dtype(previous)
    model.generation_config.eos_token_id = processor.tokenizer.eos_token_id
    model.generation_config.pad_token_id = processor.tokenizer.pad_token_id
    return LoadedModel(model, processor, tiny_dir, name, DeviceChoice(device, dtype))


def gpu_section(
    repeats: int,
    device: str = "cuda",
    configs: dict[str, Any] = REAL_SIZE,
    batches: tuple[int, ...] = GPU_BATCHES,
    max_new_tokens: int | None = None,
) -> list[dict[str, Any]]:
    """Pairwise judgments/s and single-pass images/s for real-size architectures, batch 1/8/32."""
    import torch

    from aesthete_gui.ml.images import load_rgb
    from aesthete_gui.ml.prompt_judge import ChatRequest
    from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer
    from aesthete_gui.ml.vlm import LocalVLMJudge, generate_batch

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        photos = _photos(Path(tmp))
        images = [load_rgb(p, 1024) for p in photos]
        for name in configs:
            loaded = build_real_size(name, Path(tmp) / name, device, configs)
            judge = LocalVLMJudge(loaded.path, loaded=loaded)
            prompt = judge.prompts.pairwise()
            scorer = VLMSinglePassScorer(loaded.path, loaded=loaded)
            for batch in batches:
                if device.startswith("cuda"):
                    torch.cuda.reset_peak_memory_stats()
                requests = [
                    (ChatRequest((photos[i % 4], photos[(i + 1) % 4]), prompt), [images[i % 4], images[(i + 1) % 4]])
                    for i in range(batch)
                ]
                pair_ms = _median_ms(
                    lambda r=requests, m=loaded: generate_batch(m, r, max_new_tokens), max(2, repeats // 5), warmup=1
                )
                scorer.batch_size = batch
                batch_images = [images[i % 4] for i in range(batch)]
                score_ms = _median_ms(lambda b=batch_images, s=scorer: s.score_images(b), max(2, repeats // 5), warmup=1)
                rows.append(
                    {
                        "model": name,
                        "batch": batch,
                        "pairwise_judgments_per_s": round(batch / (pair_ms / 1000), 3),
                        "new_tokens_per_judgment": min(prompt.max_new_tokens, max_new_tokens or 10**9),
                        "single_pass_images_per_s": round(batch / (score_ms / 1000), 2),
                        "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 1)
                        if device.startswith("cuda")
                        else None,
                    }
                )
            del loaded, judge, scorer
            if device.startswith("cuda"):
                torch.cuda.empty_cache()
    return rows


def machine() -> dict[str, Any]:
    """uname -a, nproc, Python, torch versions, GPU name if any."""
    import torch
    import transformers

    try:
        uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        uname = " ".join(platform.uname())
    return {
        "uname": uname,
        "nproc": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def markdown(result: dict[str, Any]) -> str:
    """The docs/benchmarks/judge.md text."""
    info = result["machine"]
    lines = [
        "# Judge benchmark (model layer)",
        "",
        f"Run {info['date']} with `python benchmarks/judge.py`. Machine: `{info['uname']}`, "
        f"nproc {info['nproc']}, load average {info['load_average']} (the machine is shared, so "
        f"absolute times vary), Python {info['python']}, torch {info['torch']}, transformers "
        f"{info['transformers']}.",
        "",
        "## Per-call overhead over a bare transformers call (tiny Qwen2.5-VL, CPU)",
        "",
        f"Greedy, at most {NEW_TOKENS} new tokens, two 640 px JPEG photographs per pair; bare and ours "
        "measured alternately, medians. The time inside `model.generate` is measured separately and "
        "taken out of both, so the overhead compares only the work around it: the bare script opens "
        "the files with PIL, runs the processor and decodes; ours adds safe decoding (orientation, "
        "colour), prompt building, batching, parsing and the record. Overhead % is relative to the "
        "whole bare call.",
        "",
        "| pairs per call | generate ms | bare other ms | ours other ms | overhead ms | overhead % of bare call |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in result["cpu"]["overhead"]:
        lines.append(
            f"| {row['pairs_per_call']} | {row['generate_ms']} | {row['bare_other_ms']} | "
            f"{row['ours_other_ms']} | {row['overhead_ms']} | {row['overhead_pct_of_bare_call']} |"
        )
    single = result["cpu"]["single_pass"]
    lines += [
        "",
        "## Single-pass scoring (tiny Qwen2.5-VL, CPU)",
        "",
        "Five expected scores per image: the shared image-prefix cache against five plain forward passes.",
        "",
        "| images | cached images/s | plain images/s | speed-up |",
        "| ---: | ---: | ---: | ---: |",
        f"| {single['images']} | {single['cached_images_per_s']} | {single['plain_images_per_s']} | {single['speedup']}x |",
        "",
        "## GPU: real-size architectures (random weights)",
        "",
    ]
    if result["gpu"] is None:
        lines.append(
            "Not measured: no CUDA device was available when this was run (the session that wrote "
            "this had no GPU machine). The section runs by itself on a machine with CUDA and fills "
            "this table: pairwise judgments/s and single-pass images/s for Qwen2.5-VL-3B and "
            "Qwen3-VL-4B at batch sizes 1, 8, 32."
        )
    else:
        lines += [
            f"GPU: {info['gpu']}. Every pairwise call generates the full token limit (random weights).",
            "",
            "| model | batch | pairwise judgments/s | tokens per judgment | single-pass images/s | peak GiB |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in result["gpu"]:
            lines.append(
                f"| {row['model']} | {row['batch']} | {row['pairwise_judgments_per_s']} | "
                f"{row['new_tokens_per_judgment']} | {row['single_pass_images_per_s']} | {row['peak_memory_gib']} |"
            )
    return "\n".join(lines) + "\n"


def gpu_compare(baseline: str, repeats: int, student_files: int, keep: str | None = None) -> str:
    """Run benchmarks/judge_gpu.py for the baseline code and this code, one after the other; the table."""
    script = Path(__file__).with_name("judge_gpu.py")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = keep or scratch
        outputs = []
        for code, label in ((baseline, "before"), (str(REPO), "after")):
            out = Path(tmp) / f"{label}.json"
            command = [sys.executable, str(script), "--code", code, "--label", label, "--out", str(out),
                       "--repeats", str(max(2, repeats)), "--student-files", str(student_files)]
            subprocess.run(command + (["--profile"] if label == "after" else []), check=True)
            outputs.append(str(out))
        table = subprocess.run([sys.executable, str(script), "--combine", *outputs],
                               check=True, capture_output=True, text=True).stdout
        profiles = sorted(Path(tmp).glob("profile-*.txt"))
        extra = "".join(f"\n### {p.stem}\n\n```\n{p.read_text()}```\n" for p in profiles)
    return table + extra


GPU_TABLE_START = "<!-- gpu-compare -->"


def write_gpu_table(table: str) -> None:
    """Put the before/after GPU table into docs/benchmarks/judge.md (replacing an earlier one)."""
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Judge benchmark (model layer)\n"
    head = text.split(GPU_TABLE_START)[0].rstrip("\n")
    section = f"\n\n{GPU_TABLE_START}\n## GPU: issue 14 rows, before and after\n\n{table}"
    DOC.write_text(head + section, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run the sections, print the table (or JSON), write docs/benchmarks/judge.md."""
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks/judge.md")
    parser.add_argument("--repeats", type=int, default=15, help="timed calls per measurement (default 15)")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="only run the GPU section's code on the CPU with shrunken models (checks code, no figures)",
    )
    parser.add_argument(
        "--gpu-baseline",
        metavar="DIR",
        help="GPU rows of issue 14 for the code in DIR (the baseline) and this code, in one run, with ratios",
    )
    parser.add_argument("--student-files", type=int, default=400, help="files for the student row")
    parser.add_argument("--keep", metavar="DIR", help="keep the raw JSON and profiles of --gpu-baseline here")
    args = parser.parse_args(argv)
    if args.gpu_baseline:
        table = gpu_compare(args.gpu_baseline, args.repeats, args.student_files, args.keep)
        if not args.no_write:
            write_gpu_table(table)
        print(table)
        return 0
    if args.smoke:
        rows = gpu_section(2, "cpu", shrunken(REAL_SIZE), (1, 2), max_new_tokens=4)
        print(json.dumps(rows, indent=2))
        return 0
    result = {
        "cpu": cpu_section(args.repeats),
        "gpu": gpu_section(args.repeats) if torch.cuda.is_available() else None,
        "machine": machine(),
    }
    text = markdown(result)
    if not args.no_write:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(text, encoding="utf-8")
    print(json.dumps(result, indent=2) if args.json else text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
