"""GPU rows of the judge benchmark (issue 14's table), runnable against any checkout of the code.

    python benchmarks/judge_gpu.py --code DIR --label before --out before.json
    python benchmarks/judge_gpu.py --combine before.json after.json --out judge-gpu.md

`--code` puts that checkout's `aesthete_gui` first on the path, so one command can measure the
previous code (the baseline) and this one on the same machine in one run; `--combine` prints the
table with the ratio after/before. Models are real-size Qwen2.5-VL-3B / Qwen3-VL-4B architectures
with random weights, built directly in bf16 on the GPU (speed does not depend on the weights;
random weights never stop early, so every generation runs to its token limit). The peak-memory
counter is reset before every row. `--smoke` runs the same code on the CPU with shrunken models.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _setup_path(code: str) -> None:
    """Import `aesthete_gui` from `code` now, before anything else can put another checkout first."""
    sys.path.insert(0, str(Path(code).resolve()))
    import aesthete_gui

    print(f"code under test: {Path(aesthete_gui.__file__).parent}", flush=True)


def _photos(folder: Path, side: int, count: int = 4) -> list[str]:
    import skimage.data
    from PIL import Image

    names = ("astronaut", "coffee", "chelsea", "rocket")
    paths = []
    for name in names[:count]:
        image = Image.fromarray(getattr(skimage.data, name)()).convert("RGB")
        image = image.resize((side, side * 3 // 4), Image.Resampling.BICUBIC)
        path = folder / f"{name}-{side}.jpg"
        image.save(path, quality=90)
        paths.append(str(path))
    return paths


def _judge() -> Any:
    """benchmarks/judge.py next to this file (not the one of the checkout under test)."""
    import importlib.util

    if "bench_judge" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_judge", Path(__file__).with_name("judge.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_judge"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_judge"]


class Row:
    """One measured row: resets the peak-memory counter first, records the peak after."""

    def __init__(self, rows: list[dict[str, Any]], what: str, device: str) -> None:
        self.rows, self.what, self.device = rows, what, device

    def __enter__(self) -> dict[str, Any]:
        import torch

        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        self.row: dict[str, Any] = {"what": self.what}
        return self.row

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        import torch

        if error is not None:
            self.row["error"] = f"{type(error).__name__}: {str(error)[:160]}"
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
            self.row["peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        self.rows.append(self.row)
        print(json.dumps(self.row), flush=True)
        return True  # one failing row must not lose the others


def _seconds(function: Any, repeats: int, warmup: int = 1) -> float:
    import torch

    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeats):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        started = time.perf_counter()
        function()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def single_pass_rows(rows: list, loaded: Any, name: str, device: str, photos: dict[int, list[str]],
                     batches: tuple, repeats: int) -> None:
    """Single-pass images/s per image size and batch size (None = the scorer's own choice)."""
    from aesthete_gui.ml.images import load_rgb
    from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer

    for side, paths in photos.items():
        for batch in batches:
            label = "auto" if batch is None else batch
            with Row(rows, f"single-pass {name} {side}px batch {label}", device) as row:
                try:
                    scorer = VLMSinglePassScorer(loaded.path, loaded=loaded, batch_size=batch)
                except ValueError:  # the previous code has no automatic batch size
                    row["error"] = "no automatic batch size in this code"
                    continue
                count = 64 if batch is None else batch
                images = [load_rgb(paths[i % len(paths)], side) for i in range(count)]
                seconds = _seconds(lambda s=scorer, b=images: s.score_images(b), repeats)
                row["images_per_s"] = round(count / seconds, 2)
                row["batch"] = scorer.batch_size


def set_verdict_row(rows: list, loaded: Any, name: str, device: str, paths: list[str], fast: bool,
                    max_new_tokens: int | None) -> None:
    """One set of 4 images, best and worst with the three-stage explanation (seconds)."""
    from aesthete_gui.ml.vlm import LocalVLMJudge

    with Row(rows, f"set verdict + explanation {name} 4 images", device) as row:
        options: dict[str, Any] = {"max_new_tokens": max_new_tokens}
        if fast:
            options["static_cache"] = True
        try:
            judge = LocalVLMJudge(loaded.path, loaded=loaded, **options)
        except TypeError:
            judge = LocalVLMJudge(loaded.path, loaded=loaded, max_new_tokens=max_new_tokens)
        stages: list[float] = []
        judge.on_stage = lambda event: stages.append(time.perf_counter())
        if fast:  # compiling the decoding step happens on the first call: timed apart
            started = time.perf_counter()
            judge.select_best_worst([paths], explain=True)
            row["first_call_s"] = round(time.perf_counter() - started, 1)
        stages.clear()
        started = time.perf_counter()
        judge.select_best_worst([paths], explain=True)
        row["seconds"] = round(time.perf_counter() - started, 2)
        row["stage_times_s"] = [round(t - started, 1) for t in stages]
        row["static_cache"] = fast


def student_rows(rows: list, device: str, folder: Path, files: int, code_is_new: bool) -> None:
    """The fast student from image files end to end, and its encoder alone at batch 1,024."""
    import numpy as np
    import torch

    from aesthete_gui.imaging.features import FEATURE_NAMES
    from aesthete_gui.ml.encoder import BuiltinEncoder
    from aesthete_gui.training.distill import StudentConfig, train_student

    paths = _student_files(folder, files)
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(64, 1280)).astype(np.float32)
    features = rng.normal(size=(64, len(FEATURE_NAMES)))
    pseudo = rng.uniform(1, 5, size=(64, 5))
    student = train_student("bench", embeddings, list(FEATURE_NAMES), features, pseudo, folder,
                            {"encoder": "builtin"}, StudentConfig(epochs=2))
    with Row(rows, f"student end to end from {files} files", device) as row:
        student.score_paths(paths[:32])  # loads the encoder, warms the kernels
        started = time.perf_counter()
        scores = student.score_paths(paths)
        seconds = time.perf_counter() - started
        row["images_per_s"] = round(files / seconds, 1)
        row["scored"] = sum(1 for s in scores if s)
    size = 1024 if device.startswith("cuda") else 8
    with Row(rows, f"student encoder alone, batch {size}", device) as row:
        encoder = BuiltinEncoder(device)
        dtype = getattr(encoder, "dtype", torch.float32)
        layout = getattr(encoder, "memory_format", torch.contiguous_format)
        pixels = torch.rand(size, 3, 224, 224, device=device)

        def forward() -> None:
            tensor = ((pixels - 0.5) / 0.5).to(dtype=dtype, memory_format=layout)
            with torch.inference_mode():
                encoder.model.features(tensor)

        seconds = _seconds(forward, 5 if size > 8 else 1, warmup=2 if size > 8 else 0)
        row["images_per_s"] = round(size / seconds)
        row["dtype"] = str(dtype).removeprefix("torch.")


def _student_files(folder: Path, files: int) -> list[str]:
    """Camera-size JPEGs (4000 x 3000, photographic content plus noise), written in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import skimage.data
    from PIL import Image

    base = Image.fromarray(skimage.data.astronaut()).convert("RGB").resize((4000, 3000))
    rng = np.random.default_rng(1)
    noisy = [
        Image.fromarray(np.clip(np.asarray(base, dtype=np.int16) + rng.integers(-12, 12, (3000, 4000, 3)), 0, 255)
                        .astype(np.uint8))
        for _ in range(4)
    ]
    paths = [str(folder / f"shot{i:04d}.jpg") for i in range(files)]

    def write(index: int) -> None:
        noisy[index % 4].save(paths[index], quality=88)

    with ThreadPoolExecutor(os.cpu_count() or 4) as pool:
        list(pool.map(write, range(files)))
    return paths


def profile_tables(loaded: Any, photos: list[str], name: str, generation: bool) -> dict[str, str]:
    """torch.profiler summaries (top operators by device time) of one scoring batch and one generation."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from aesthete_gui.ml.images import load_rgb
    from aesthete_gui.ml.prompt_judge import ChatRequest
    from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer
    from aesthete_gui.ml.vlm import LocalVLMJudge, generate_batch

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    sort = "cuda_time_total" if torch.cuda.is_available() else "cpu_time_total"
    tables = {}
    scorer = VLMSinglePassScorer(loaded.path, loaded=loaded, batch_size=32)
    images = [load_rgb(photos[i % len(photos)], 1024) for i in range(32)]
    scorer.score_images(images)
    with profile(activities=activities) as prof:
        scorer.score_images(images)
        torch.cuda.synchronize() if torch.cuda.is_available() else None
    tables[f"single_pass_{name}_batch32"] = prof.key_averages().table(sort_by=sort, row_limit=25)
    if not generation:
        return tables
    prompt = LocalVLMJudge(loaded.path, loaded=loaded).prompts.set_selection(4)
    pictures = [load_rgb(p, 1024) for p in photos]
    request = [(ChatRequest(tuple(photos), prompt), pictures)]
    generate_batch(loaded, request, 48, static_cache=True)
    with profile(activities=activities) as prof:
        generate_batch(loaded, request, 48, static_cache=True)
        torch.cuda.synchronize() if torch.cuda.is_available() else None
    tables["set_generation_4B_48_tokens_static"] = prof.key_averages().table(sort_by=sort, row_limit=25)
    return tables


def run(args: argparse.Namespace) -> dict[str, Any]:
    """All GPU rows for the code at --code."""
    import torch

    REAL_SIZE, build_real_size, shrunken = _judge().REAL_SIZE, _judge().build_real_size, _judge().shrunken

    device = "cuda" if not args.smoke else "cpu"
    configs = REAL_SIZE if not args.smoke else shrunken(REAL_SIZE)
    fast = args.label != "before"
    rows: list[dict[str, Any]] = []
    profiles: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        photos = {side: _photos(folder, side) for side in (1024, 640)}
        batches: tuple = (args.batch,) if not args.smoke else (2,)
        if fast:
            batches += (None,)
        for name, key in (("4B", "Qwen3-VL-4B"), ("3B", "Qwen2.5-VL-3B")):
            loaded = build_real_size(key, folder / key, device, configs)
            single_pass_rows(rows, loaded, name, device, photos, batches, args.repeats)
            if name == "4B":
                set_verdict_row(rows, loaded, name, device, photos[1024], fast,
                                8 if args.smoke else None)
            if args.profile and fast:
                tables = profile_tables(loaded, photos[1024], name, generation=name == "4B")
                profiles.update(tables)
                for key, table in tables.items():  # written now: a later row must not lose them
                    if args.out:
                        Path(args.out).with_name(f"profile-{key}.txt").write_text(table, encoding="utf-8")
            del loaded
            if device == "cuda":
                torch.cuda.empty_cache()
        student_rows(rows, device, folder, 16 if args.smoke else args.student_files, fast)
    return {"label": args.label, "rows": rows, "profiles": profiles}


def combine(before: dict[str, Any], after: dict[str, Any], machine: dict[str, Any]) -> str:
    """Markdown table: each row before and after, the ratio, peak memory."""
    def value(row: dict[str, Any] | None) -> float | None:
        if row is None or "error" in row:
            return None
        return row.get("images_per_s", row.get("seconds"))

    earlier = {r["what"]: r for r in before["rows"]}
    lines = [
        f"Measured {machine['date']} on {machine['gpu']} ({machine['nproc']} CPU cores), torch "
        f"{machine['torch']}, transformers {machine['transformers']}; before = the code at the "
        "previous commit, after = this code, both in the same run.",
        "",
        "| what | before | after | after/before | peak GiB before | peak GiB after |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in after["rows"]:
        old = earlier.get(row["what"])
        new_value, old_value = value(row), value(old)
        unit = "s" if "seconds" in row else "img/s"
        ratio = ""
        if new_value and old_value:
            ratio = f"{(old_value / new_value if unit == 's' else new_value / old_value):.2f}x"
        shown_new = f"{new_value} {unit}" if new_value is not None else row.get("error", "")
        shown_old = f"{old_value} {unit}" if old_value is not None else (old or {}).get("error", "not measured")
        lines.append(
            f"| {row['what']} | {shown_old} | {shown_new} | {ratio} | "
            f"{(old or {}).get('peak_gib', '')} | {row.get('peak_gib', '')} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure (--code/--label/--out) or combine two result files into a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--label", default="after")
    parser.add_argument("--out", default="")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32, help="fixed batch size measured (plus auto)")
    parser.add_argument("--student-files", type=int, default=400)
    parser.add_argument("--smoke", action="store_true", help="shrunken models on the CPU (checks the code)")
    parser.add_argument("--profile", action="store_true", help="add torch.profiler summaries (after only)")
    parser.add_argument("--combine", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    _setup_path(args.code)
    if args.combine:
        machine = _judge().machine
        before, after = (json.loads(Path(p).read_text()) for p in args.combine)
        text = combine(before, after, machine())
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        print(text)
        return 0
    result = run(args)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")
        for name, table in result["profiles"].items():
            Path(args.out).with_name(f"profile-{name}.txt").write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
