"""OpenAI-compatible servers: judge throughput, server scoring throughput, and how each scoring style
matches the local single-pass definition.

1. Judgments/s: pairwise calls to a scripted server on 127.0.0.1 (tests/ml/chat_server.py) that
   answers after a fixed latency, at 4 / 16 / 64 in flight.
2. Scoring images/s: `RemoteScorer` against a scripted server that answers with log-probabilities
   (tests/ml/logprob_server.py) after 50 ms per call, at 8 / 32 / 128 in flight, in both styles
   (five one-token continuations per image, or one generated answer per image).
Both stand in for a vLLM server whose batching keeps per-call latency flat as concurrency grows;
what is measured is our client (image encoding, request building, the thread pool, reading the
replies); the scoring server runs in a process of its own, on the same cores.
3. Definition: the server scorer against the local single pass (ml/scoring_vlm.py) on real tiny
   Qwen2.5-VL and Qwen3-VL models served with true log-probabilities (tests/ml/tiny_model_server.py),
   the same decoded JPEG on both sides.

    python benchmarks/remote.py [--latency 0.5] [--pairs 256] [--images 256] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DOC = REPO / "docs" / "benchmarks" / "remote.md"
SCORING_LATENCY = 0.05
SCORING_CONCURRENCY = (8, 32, 128)


def measure(latency: float, pairs: int, concurrency: int, photos: list[str]) -> dict[str, float]:
    """Judgments/s for `pairs` pairwise calls at `concurrency` in flight."""
    from aesthete_gui.ml.remote import RemoteJudge
    from tests.ml.chat_server import Action, ChatServer, prompt_text, protocol_reply

    def slow(body: dict, call: int) -> Action:
        return Action(protocol_reply(prompt_text(body)), delay=latency)

    with ChatServer(slow) as server:
        judge = RemoteJudge(server.base_url, "scripted", api_key="x", max_concurrency=concurrency, max_side=512)
        jobs = [(photos[i % len(photos)], photos[(i + 1) % len(photos)]) for i in range(pairs)]
        started = time.perf_counter()
        records = judge.judge_pairs(jobs)
        seconds = time.perf_counter() - started
    failed = sum(1 for r in records if not r.parsed)
    return {
        "concurrency": concurrency,
        "judgments_per_s": round(pairs / seconds, 1),
        "ceiling_per_s": round(concurrency / latency, 1),
        "failed": failed,
    }


def _serve_logprobs(addresses: Any, stop: Any) -> None:
    """The scripted log-probability server, in its own process: its parsing does not take the
    client's interpreter; reports its address, then (when told to stop) the most calls in flight."""
    from tests.ml.chat_server import ChatServer
    from tests.ml.logprob_server import LogprobServerScript

    script = LogprobServerScript(delay=SCORING_LATENCY)
    with ChatServer(script) as server:
        addresses.put(server.base_url)
        stop.wait()
        addresses.put(script.peak)


def measure_scoring(style: str, concurrency: int, photos: list[str]) -> dict[str, Any]:
    """Images/s of the server scorer at `concurrency` requests in flight, 50 ms per call."""
    import multiprocessing

    from aesthete_gui.ml.remote_scoring import RemoteScorer

    context = multiprocessing.get_context("fork")
    addresses, stop = context.Queue(), context.Event()
    server = context.Process(target=_serve_logprobs, args=(addresses, stop), daemon=True)
    server.start()
    try:
        scorer = RemoteScorer(addresses.get(timeout=60), "scripted", api_key="x", concurrency=concurrency, style=style)
        started = time.perf_counter()
        scores = scorer.score_paths(photos)
        seconds = time.perf_counter() - started
        stop.set()
        peak = addresses.get(timeout=60)
    finally:
        stop.set()
        server.join(timeout=30)
    per_image = 5 if style == "continue" else 1
    return {
        "style": style,
        "concurrency": concurrency,
        "images": len(photos),
        "images_per_s": round(len(photos) / seconds, 1),
        "ceiling_per_s": round(concurrency / (per_image * SCORING_LATENCY), 1),
        "peak_in_flight": peak,
        "unscored": sum(1 for s in scores if len(s) < 5),
    }


def definition_rows(folder: Path, count: int = 8) -> list[dict[str, Any]]:
    """Both styles against the local single pass on tiny models (digit rows of the output layer
    scaled ×30 so that, as with a trained judge, the digits lead the next-token distribution)."""
    import numpy as np
    import torch
    from PIL import Image

    from aesthete_gui.ml.loading import load_vlm
    from aesthete_gui.ml.scoring_vlm import score_token_ids
    from tests.fixtures.tiny_models import build_tiny_qwen3_vl, build_tiny_qwen25_vl
    from tests.ml.test_remote_scoring_tiny import compare_with_local

    rng = np.random.default_rng(3)
    paths = []
    for index in range(count):
        gradient = np.linspace(0, 255, 160, dtype=np.float32)[None, :, None]
        pixels = np.clip(0.6 * gradient + rng.normal(0, 40, (120, 160, 3)) + 30 * index, 0, 255).astype(np.uint8)
        path = folder / f"definition_{index}.jpg"
        Image.fromarray(pixels).save(path, quality=90)
        paths.append(str(path))
    rows = []
    for name, build in (("Qwen2.5-VL", build_tiny_qwen25_vl), ("Qwen3-VL", build_tiny_qwen3_vl)):
        loaded = load_vlm(build(folder / name))
        with torch.no_grad():
            loaded.model.lm_head.weight[score_token_ids(loaded.processor.tokenizer)] *= 30
        scores = compare_with_local(loaded, paths)
        local, continued, generated = scores["local"], scores["continue"], scores["generate"]
        later = slice(1, None)
        spread = float(local[:, later].std(axis=0).mean())
        rows.append({
            "model": f"tiny {name}",
            "images": count,
            "continue_max_abs": float(np.abs(continued - local).max()),
            "generate_first_max_abs": float(np.abs(generated[:, 0] - local[:, 0]).max()),
            "generate_later_mean_abs": float(np.abs(generated[:, later] - local[:, later]).mean()),
            "local_later_sd": spread,
            "generate_later_rank_corr": _mean_rank_correlation(generated[:, later], local[:, later]),
            "continue_later_rank_corr": _mean_rank_correlation(continued[:, later], local[:, later]),
        })  # fmt: skip
    return rows


def _mean_rank_correlation(a: Any, b: Any) -> float:
    """Spearman correlation between the columns of `a` and `b`, averaged over the columns."""
    import numpy as np

    def ranks(column: Any) -> Any:
        return np.argsort(np.argsort(column, kind="stable"), kind="stable").astype(float)

    values = [float(np.corrcoef(ranks(a[:, j]), ranks(b[:, j]))[0, 1]) for j in range(a.shape[1])]
    return float(np.mean(values))


def _photo_like(folder: Path, count: int) -> list[str]:
    """Photo-like 1024×768 JPEGs (smooth gradients, mild noise), about the size of real frames."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    paths = []
    y, x = np.mgrid[0:768, 0:1024].astype(np.float32)
    for index in range(count):
        base = np.stack([x / 4 + 40 * index, y / 3, (x + y) / 7], axis=-1) % 255
        pixels = np.clip(base + rng.normal(0, 6, base.shape), 0, 255).astype(np.uint8)
        path = folder / f"s{index}.jpg"
        Image.fromarray(pixels).save(path, quality=90)
        paths.append(str(path))
    return paths


def main(argv: list[str] | None = None) -> int:
    """Print the tables; write docs/benchmarks/remote.md unless --no-write."""
    import numpy as np
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="judge server seconds per call (default 0.5)")
    parser.add_argument("--pairs", type=int, default=256, help="pairwise calls per judge row (default 256)")
    parser.add_argument("--images", type=int, default=256, help="images per scoring row (default 256)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        photos = []
        for index in range(4):
            path = Path(tmp) / f"p{index}.jpg"
            Image.fromarray(rng.integers(0, 255, (768, 1024, 3), dtype=np.uint8)).save(path, quality=90)
            photos.append(str(path))
        rows = [measure(args.latency, args.pairs, c, photos) for c in (4, 16, 64)]
        frames = _photo_like(Path(tmp), 16)
        jpeg_kib = np.mean([os.path.getsize(p) for p in frames]) / 1024
        library = [frames[i % len(frames)] for i in range(args.images)]
        scoring = [measure_scoring(style, c, library) for style in ("continue", "generate") for c in SCORING_CONCURRENCY]
        definition = definition_rows(Path(tmp))
    load = os.getloadavg()
    lines = [
        "# OpenAI-compatible servers: judging, scoring, and the scoring definition",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M UTC} with `python benchmarks/remote.py` on "
        f"`{platform.platform()}` (Python {platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}). The scripted servers run on 127.0.0.1 on the same "
        "cores as the client (the judging one in the client's process, the scoring one in a process of its own).",
        "",
        "## Judging",
        "",
        f"{args.pairs} pairwise calls per row to a scripted server that answers after {args.latency} s.",
        "",
        "| calls in flight | judgments/s | ceiling (in flight / latency) | failed |",
        "| ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {r['concurrency']} | {r['judgments_per_s']} | {r['ceiling_per_s']} | {r['failed']} |" for r in rows]
    lines += [
        "",
        "## Scoring on a server (`aesthete score --endpoint`)",
        "",
        f"{args.images} photo-like 1024×768 JPEGs per row (about {jpeg_kib:.0f} KiB each; sent at up to 1024 px) "
        f"to a scripted server that answers each call with log-probabilities after {SCORING_LATENCY * 1000:.0f} ms. "
        "`continue` sends five one-token requests per image (the first dimension alone, then the other four); "
        "`generate` sends one. The ceiling is in flight / (calls per image × latency).",
        "",
        "| style | requests in flight | images/s | ceiling | most in flight seen | images without 5 scores |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['style']} | {r['concurrency']} | {r['images_per_s']} | {r['ceiling_per_s']} | {r['peak_in_flight']} | {r['unscored']} |"
        for r in scoring
    ]
    lines += [
        "",
        "## The two styles against the local single-pass definition",
        "",
        "Tiny random models (tests/fixtures/tiny_models.py) served with true log-probabilities over the whole "
        "vocabulary; the digit rows of the output layer are scaled ×30 so that, as with a trained judge, the "
        "digits lead the next-token distribution. Dimensions 2–5 are the ones a generated answer reads after "
        "its own earlier digits.",
        "",
        "| model | images | continue: max abs. difference | generate, 1st dimension: max abs. difference | generate, dims 2–5: mean abs. difference | local dims 2–5: sd between images | rank correlation with local, dims 2–5: continue / generate |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['model']} | {r['images']} | {r['continue_max_abs']:.1e} | {r['generate_first_max_abs']:.1e} | "
        f"{r['generate_later_mean_abs']:.4f} | {r['local_later_sd']:.4f} | "
        f"{r['continue_later_rank_corr']:.2f} / {r['generate_later_rank_corr']:.2f} |"
        for r in definition
    ]
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        DOC.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
