"""Distillation benchmark (issue 6): simulated judge → bridge pseudo-scores → fast student, end to end.

Images and their measurements are the taste benchmark's (real photographs and edited renditions,
offline EfficientNet-Lite0 embeddings, image properties; cached with --cache). Each image gets a
hidden five-dimension truth (a shared quality part plus a per-dimension part, linear in properties
and embeddings). The simulated judge answers pairs with the Bradley–Terry noise of a fallible VLM:
P(A) = σ((t_A − t_B) / T), ties when the draw lands near 0.5, plus a first-position bias.

80% of the images go into a real profile and through `services.distill.distill_profile` (bridge with
pool N and K references, every judgment stored, the student trained on the stored pseudo-scores);
the other 20% are never judged. Reported: the pseudo-labels' SRCC to the truth (judged images) next
to the student's SRCC on the held-out images, per dimension.

    python benchmarks/distill.py [--pool 50 --refs 10] [--noise 0.5] [--cache DIR] [--json] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from aesthete_gui.engine.dimensions import DIMENSIONS  # noqa: E402
from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment  # noqa: E402
from aesthete_gui.engine.metrics import srcc  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "distill.md"


class SimulatedJudge:
    """A noisy pairwise judge with a first-position bias, answering from hidden per-dimension truths."""

    judge_id = "simulated"

    def __init__(self, truth: dict[str, np.ndarray], noise: float, position_bias: float = 0.1, seed: int = 0) -> None:
        self.truth = truth
        self.noise = noise
        self.position_bias = position_bias
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def judge_pairs(self, pairs, progress=None, cancel=None) -> list[PairwiseJudgment]:  # type: ignore[no-untyped-def]
        """Outcome per dimension drawn from the noisy Bradley–Terry model."""
        out = []
        for first, second in pairs:
            self.calls += 1
            gap = (self.truth[first] - self.truth[second]) / self.noise + self.position_bias
            p = 1.0 / (1.0 + np.exp(-gap))
            draws = self.rng.random(len(DIMENSIONS))
            outcome = {
                d: ("TIE" if abs(u - q) < 0.05 else "A" if u < q else "B")
                for d, u, q in zip(DIMENSIONS, draws, p, strict=True)
            }
            out.append(PairwiseJudgment(first, second, outcome, judge_id=self.judge_id))
        return out

    def score_items(self, items, progress=None, cancel=None) -> list[PointwiseJudgment]:  # type: ignore[no-untyped-def]
        """Pointwise scores squeezed into a high band, as raw VLM scores are (seed 000)."""
        return [PointwiseJudgment(i, {d: float(4 + 0.5 * np.tanh(v)) for d, v in zip(DIMENSIONS, self.truth[i], strict=True)}) for i in items]

    def select_best_worst(self, sets, explain=False, progress=None, cancel=None) -> list[SetJudgment]:  # type: ignore[no-untyped-def]
        """Best and worst by the overall truth."""
        return [SetJudgment(tuple(s), max(s, key=lambda i: self.truth[i][-1]), min(s, key=lambda i: self.truth[i][-1])) for s in sets]


def hidden_truth(measured: dict[str, np.ndarray], seed: int) -> np.ndarray:
    """(n, 5) truths with unit spread: 60% shared quality, 40% dimension-specific, properties + embeddings."""
    from taste import _standardise

    rng = np.random.default_rng(seed)
    props = _standardise(measured["features"])
    emb = _standardise(measured["embeddings"])

    def direction() -> np.ndarray:
        part = props @ rng.normal(size=props.shape[1]) / np.sqrt(props.shape[1]) + emb @ rng.normal(size=emb.shape[1]) / np.sqrt(emb.shape[1])
        return (part - part.mean()) / part.std()

    shared = direction()
    columns = [0.775 * shared + 0.632 * direction() for _ in DIMENSIONS]
    return np.stack([c / c.std() for c in columns], axis=1)


def run(measured: dict[str, np.ndarray], pool: int, refs: int, noise: float, seed: int, workdir: Path) -> dict[str, object]:
    """The end-to-end distillation on 80% of the images; evaluation on the other 20%."""
    from aesthete_gui.imaging.features import FEATURE_NAMES, FEATURE_VERSION
    from aesthete_gui.services.distill import DistillOptions, distill_profile
    from aesthete_gui.services.scoring import profile_models_dir
    from aesthete_gui.store import open_profile
    from aesthete_gui.training.distill import load_student

    paths = [str(p) for p in measured["paths"]]
    truth = hidden_truth(measured, seed)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(paths))
    held = order[: len(paths) // 5]
    judged = order[len(paths) // 5 :]
    profile = open_profile(workdir / "distill.db")
    ids = {}
    rows = []
    for index in judged:
        ids[index] = profile.catalog.ensure_image(paths[index])
        rows.append((ids[index], list(FEATURE_NAMES), measured["features"][index], str(FEATURE_VERSION)))
    profile.catalog.put_features_many(rows)  # measured once by the taste benchmark; the service reuses them
    np.savez(profile_models_dir(profile) / "embeddings-builtin.npz", keys=np.array([paths[i] for i in judged]),
             vectors=measured["embeddings"][judged].astype(np.float32), encoder_id=measured["encoder_id"])  # fmt: skip
    judge = SimulatedJudge({paths[i]: truth[i] for i in judged}, noise, seed=seed)
    started = time.perf_counter()
    summary = distill_profile(profile, judge, DistillOptions(pool=pool, refs=refs, seed=seed, student="bench"))
    seconds = time.perf_counter() - started
    pseudo = profile.scores.of_scorer("bridge:simulated")
    student = load_student(profile_models_dir(profile), "bench")
    predicted = student.score_arrays(measured["embeddings"][held], FEATURE_NAMES, measured["features"][held])
    profile.close()
    table = {}
    for column, dimension in enumerate(DIMENSIONS):
        pseudo_values = [pseudo[ids[i]][dimension] for i in judged]
        table[dimension] = {
            "pseudo_srcc_judged": round(srcc(pseudo_values, truth[judged, column]), 4),
            "student_srcc_held_out": round(srcc(predicted[:, column], truth[held, column]), 4),
        }
    table["mean"] = {k: round(float(np.mean([table[d][k] for d in DIMENSIONS])), 4) for k in table["overall"]}
    return {
        "images_judged": len(judged),
        "images_held_out": len(held),
        "pool": pool,
        "refs": refs,
        "noise": noise,
        "calls": summary.calls_made,
        "exhaustive_calls": len(judged) * (len(judged) - 1) // 2,
        "seconds": round(seconds, 1),
        "student_train_seconds": student.card.get("train_seconds"),
        "pseudo_score_mean": round(float(np.mean([pseudo[ids[i]]["overall"] for i in judged])), 3),
        "student_mean_held_out": round(float(predicted[:, -1].mean()), 3),
        "table": table,
    }


def render(result: dict[str, object]) -> str:
    """Markdown table."""
    lines = [
        f"{result['images_judged']} images judged through the bridge (N = {result['pool']}, K = {result['refs']}): "
        f"{result['calls']} judge calls vs {result['exhaustive_calls']} for all pairs; "
        f"{result['images_held_out']} images held out (never judged). Judge noise T = {result['noise']}.\n",
        "| dimension | pseudo-labels SRCC to truth (judged images) | student SRCC to truth (held-out images) |",
        "|---|---:|---:|",
    ]
    for dimension, row in result["table"].items():  # type: ignore[union-attr]
        lines.append(f"| {dimension} | {row['pseudo_srcc_judged']:.3f} | {row['student_srcc_held_out']:.3f} |")
    lines.append(
        f"\nScale: mean overall pseudo-score {result['pseudo_score_mean']}, student mean on held-out images "
        f"{result['student_mean_held_out']}. Whole run {result['seconds']} s (student training {result['student_train_seconds']} s)."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run, print the table (or JSON), and update docs/benchmarks/distill.md."""
    from taste import build_library, machine, measure_library

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=50, help="reference pool size N")
    parser.add_argument("--refs", type=int, default=10, help="references per other image K")
    parser.add_argument("--noise", type=float, default=0.5, help="judge noise T (truth has unit spread)")
    parser.add_argument("--images-per-photo", type=int, default=14, help="edited renditions per photograph")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--cache", default=None, help="folder with the rendered library and its measurements")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks/distill.md")
    args = parser.parse_args(argv)
    folder = Path(args.cache) if args.cache else Path(tempfile.mkdtemp(prefix="aesthete-distill-"))
    folder.mkdir(parents=True, exist_ok=True)
    cache_file = folder / f"measured-{args.images_per_photo}.npz"
    if cache_file.exists():
        with np.load(cache_file, allow_pickle=False) as archive:
            measured = {k: archive[k] for k in archive.files}
    else:
        paths, sources = build_library(folder, args.images_per_photo, seed=0)
        measured = measure_library(paths)
        measured["sources"], measured["paths"] = np.array(sources), np.array(paths)
        np.savez(cache_file, **measured)
    with tempfile.TemporaryDirectory(prefix="aesthete-distill-run-") as workdir:
        result = run(measured, args.pool, args.refs, args.noise, args.seed, Path(workdir))
    result["machine"] = machine()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
    if not args.no_write:
        info = result["machine"]
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(
            "# Distillation benchmark\n\n"
            f"Machine: `{info['uname']}`, nproc {info['nproc']}, Python {info['python']}; run {info['date']}.\n\n"  # type: ignore[index]
            "Run: `python benchmarks/distill.py [--pool N --refs K --noise T] [--json]` (setup in the module docstring).\n\n"
            + render(result) + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
