"""OpenAI-compatible judge throughput: judgments/s against a local scripted server at 4 / 16 / 64 in flight.

The server (tests/ml/chat_server.py, on 127.0.0.1) answers every pairwise request with a well-formed
reply after a fixed latency, standing in for a vLLM server whose batching keeps per-call latency
flat as concurrency grows. What is measured is our client: image encoding, request building,
the thread pool, parsing. With latency L and C calls in flight the ceiling is C / L judgments/s.

    python benchmarks/remote.py [--latency 0.5] [--pairs 256] [--no-write]
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DOC = REPO / "docs" / "benchmarks" / "remote.md"


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


def main(argv: list[str] | None = None) -> int:
    """Print the table; write docs/benchmarks/remote.md unless --no-write."""
    import numpy as np
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="server seconds per call (default 0.5)")
    parser.add_argument("--pairs", type=int, default=256, help="pairwise calls per row (default 256)")
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
    lines = [
        "# OpenAI-compatible judge throughput",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M UTC} with `python benchmarks/remote.py` on "
        f"`{platform.platform()}` (Python {platform.python_version()}): {args.pairs} pairwise calls "
        f"per row to a scripted server on 127.0.0.1 that answers after {args.latency} s.",
        "",
        "| calls in flight | judgments/s | ceiling (in flight / latency) | failed |",
        "| ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['concurrency']} | {r['judgments_per_s']} | {r['ceiling_per_s']} | {r['failed']} |" for r in rows
    ]
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        DOC.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
