"""Fast student (docs/method.md §6): embeddings + image properties → a small five-output head on the 1–5 scale.

Trained with 1 − the confidence-weighted ranking-fidelity reward on the bridge's pseudo-scores,
plus a light squared-error term that keeps outputs on the calibrated scale (the ranking term alone
fixes only the order). Saved as `<name>.safetensors` (head weights and input normalisation) with a
`<name>.json` card (encoder, feature version, data, metrics) in the profile's model folder. torch is
imported inside functions only; scoring a library is one matrix pass.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from aesthete_gui.engine.builtin_scorer import BuiltinScorer
from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN
from aesthete_gui.engine.scorers import ScorerKind, scorer_id
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.safe_names import check_name
from aesthete_gui.training.reward import DEFAULT_TAU_W, ranking_fidelity_reward

if TYPE_CHECKING:
    from aesthete_gui.ml.encoder import ImageEncoder

__all__ = ["BuiltinScorer", "StudentConfig", "StudentScorer", "list_students", "load_student", "train_student"]

CARD_FORMAT = "aesthete-student/1"
SCORE_BATCH = 16
POOLED_BATCH = 256  # the encoder's batch when a process pool decodes: keeps the GPU busy
POOL_MIN_PATHS = 64  # fewer files decode faster in this process than a pool starts
"""Images decoded, measured and embedded together when scoring paths."""


@dataclass(frozen=True)
class StudentConfig:
    """Head size and optimisation settings (defaults suit a few hundred to a few thousand images)."""

    hidden: int = 64
    dropout: float = 0.1
    epochs: int = 300
    batch_size: int = 64
    learning_rate: float = 3e-3
    weight_decay: float = 1e-3
    scale_weight: float = 0.1  # weight of the squared-error term that anchors the 1–5 scale
    tau_w: float = DEFAULT_TAU_W
    validation_fraction: float = 0.15
    seed: int = 0


@dataclass
class StudentScorer:
    """A trained student: normalisation, head weights and its card; scores arrays or image paths."""

    name: str
    card: dict[str, Any]
    tensors: dict[str, np.ndarray] = field(repr=False)

    @property
    def scorer_id(self) -> str:
        """"student:<name>"."""
        return scorer_id(ScorerKind.STUDENT, self.name)

    @property
    def version(self) -> str:
        """When it was trained (scores record it)."""
        return str(self.card.get("created", ""))

    @property
    def needs_embeddings(self) -> bool:
        """True: the student reads encoder embeddings."""
        return bool(self.card.get("embedding_dim", 0))

    @property
    def encoder_name(self) -> str | None:
        """The encoder the student was trained on (None = the built-in one)."""
        value = self.card.get("encoder_name")
        return str(value) if value else None

    def score_arrays(self, embeddings: np.ndarray | None, feature_names: Sequence[str], features: np.ndarray) -> np.ndarray:
        """(n, 5) scores on 1–5 from embeddings (n, e) and properties (n, p) named `feature_names`."""
        if list(feature_names) != list(self.card["feature_names"]):
            raise ValueError("image properties differ from the ones this student was trained on; re-train it")
        design = _design(embeddings if self.needs_embeddings else None, features)
        if design.shape[1] != self.tensors["mean"].shape[0]:
            raise ValueError(f"student expects {self.tensors['mean'].shape[0]} inputs, got {design.shape[1]}")
        x = (design - self.tensors["mean"]) / self.tensors["scale"]
        hidden = _gelu(x @ self.tensors["w1"].T + self.tensors["b1"])
        logits = hidden @ self.tensors["w2"].T + self.tensors["b2"]
        return SCORE_MIN + (SCORE_MAX - SCORE_MIN) / (1.0 + np.exp(-logits))

    def score_paths(
        self, paths: Sequence[str], progress: ProgressCallback | None = None, cancel: CancelToken | None = None
    ) -> list[dict[str, float]]:
        """Scorer protocol: one decode per image for properties and embeddings ({} if unreadable)."""
        from aesthete_gui.ml.encoder import load_encoder

        encoder = load_encoder(self.encoder_name) if self.needs_embeddings else None
        readable, names, features, embeddings = _path_inputs(paths, encoder, progress, cancel)
        if not readable:
            return [{} for _ in paths]
        values = self.score_arrays(embeddings, names, features)
        out: list[dict[str, float]] = [{} for _ in paths]
        for index, row in zip(readable, values, strict=True):
            out[index] = {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
        return out


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def _design(embeddings: np.ndarray | None, features: np.ndarray) -> np.ndarray:
    blocks = [np.asarray(features, dtype=float)]
    if embeddings is not None:
        blocks.insert(0, np.asarray(embeddings, dtype=float))
    return np.concatenate(blocks, axis=1)


def _measure(path: str, with_image: bool) -> tuple[np.ndarray, Any] | None:
    """Feature vector (and the encoder's input image) of one file, or None if unreadable.

    Module-level so that a process pool can run it.
    """
    from aesthete_gui.imaging.decode import DecodeError
    from aesthete_gui.imaging.features import as_vector, decode_for_features, decoded_features
    from aesthete_gui.imaging.thumbnails import fit_within
    from aesthete_gui.ml.encoder import DECODE_SIDE

    try:
        decoded = decode_for_features(path)
    except DecodeError:
        return None
    image = fit_within(decoded.image, DECODE_SIDE) if with_image else None
    return as_vector(decoded_features(decoded)), image


def _measured(paths: Sequence[str], with_image: bool, workers: int) -> Iterator[tuple[int, Any]]:
    """(index, result of `_measure`) in path order; decoding spread over a process pool when large."""
    from functools import partial

    if workers <= 1 or len(paths) < POOL_MIN_PATHS:
        for index, path in enumerate(paths):
            yield index, _measure(path, with_image)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from aesthete_gui.process_guard import exit_with_parent

    # spawn, not fork: the caller may hold threads (the GUI, CUDA) that a fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=exit_with_parent) as pool:
        try:
            yield from enumerate(pool.map(partial(_measure, with_image=with_image), paths, chunksize=8))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _path_inputs(
    paths: Sequence[str],
    encoder: ImageEncoder | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    workers: int | None = None,
) -> tuple[list[int], list[str], np.ndarray, np.ndarray | None]:
    """Readable path indices, feature names, features and (with an encoder) embeddings.

    Decoding and measuring run in worker processes that feed the encoder batch by batch.
    """
    import os

    from aesthete_gui.imaging.features import FEATURE_NAMES

    workers = workers if workers is not None else max(1, (os.cpu_count() or 1) - 1)
    batch_size = SCORE_BATCH if workers <= 1 else POOLED_BATCH
    readable: list[int] = []
    feature_rows: list[np.ndarray] = []
    embedding_batches: list[np.ndarray] = []
    images: list[Any] = []

    def flush(done: int) -> None:
        if encoder is not None and images:
            embedding_batches.append(encoder.encode_images(images))
        images.clear()
        if progress is not None:
            progress(Progress(done, len(paths), "image properties and embeddings"))

    for index, result in _measured(paths, encoder is not None, workers):
        if cancel is not None:
            cancel.raise_if_cancelled()
        if result is not None:
            readable.append(index)
            feature_rows.append(result[0])
            if encoder is not None:
                images.append(result[1])
        if (index + 1) % batch_size == 0 or index + 1 == len(paths):
            flush(index + 1)
    features = np.nan_to_num(
        np.asarray(feature_rows, dtype=float).reshape(len(feature_rows), len(FEATURE_NAMES))
    )
    embeddings = None
    if encoder is not None:
        empty = np.zeros((0, encoder.dim), dtype=np.float32)
        embeddings = np.concatenate(embedding_batches) if embedding_batches else empty
    return readable, list(FEATURE_NAMES), features, embeddings


def train_student(
    name: str,
    embeddings: np.ndarray | None,
    feature_names: Sequence[str],
    features: np.ndarray,
    pseudo: np.ndarray,
    models_dir: Path,
    card_extra: dict[str, Any] | None = None,
    config: StudentConfig | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> StudentScorer:
    """Train a student on pseudo-scores (n, 5), save it in `models_dir`, and return it loaded."""
    import torch

    config = config or StudentConfig()
    pseudo = np.asarray(pseudo, dtype=float)
    design = _design(embeddings, features)
    if design.shape[0] != pseudo.shape[0] or pseudo.shape[1] != len(DIMENSIONS):
        raise ValueError(f"need one row of five pseudo-scores per image; got {pseudo.shape} for {design.shape[0]} images")
    if design.shape[0] < 4:
        raise ValueError("a student needs at least 4 pseudo-scored images")
    rng = np.random.default_rng(config.seed)
    order = rng.permutation(design.shape[0])
    n_val = round(config.validation_fraction * design.shape[0]) if design.shape[0] >= 20 else 0
    val, train = order[:n_val], order[n_val:]
    mean = design[train].mean(axis=0)
    spread = design[train].std(axis=0)
    scale = np.where(spread > 1e-9, spread, 1.0)
    x = torch.tensor((design - mean) / scale, dtype=torch.float32)
    y = torch.tensor(pseudo, dtype=torch.float32)

    torch.manual_seed(config.seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a head this small runs several times faster on one thread
    try:
        head, seconds = _fit_head(x, y, train, design.shape[1], config, progress, cancel)
    finally:
        torch.set_num_threads(threads)
    tensors = {
        "mean": mean.astype(np.float32),
        "scale": scale.astype(np.float32),
        **{key: value.detach().numpy().astype(np.float32) for key, value in _named_weights(head).items()},
    }
    card = {
        "format": CARD_FORMAT,
        "name": name,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "embedding_dim": 0 if embeddings is None else int(np.asarray(embeddings).shape[1]),
        "feature_names": list(feature_names),
        "config": config.__dict__,
        "data": {"images": int(design.shape[0]), "train": len(train), "validation": len(val)},
        "train_seconds": round(seconds, 2),
        **(card_extra or {}),
    }
    student = StudentScorer(name=name, card=card, tensors=tensors)
    card["metrics"] = _metrics(student, embeddings, feature_names, features, pseudo, train, val, config)
    save_student(student, models_dir)
    return student


def _fit_head(
    x: Any, y: Any, train: np.ndarray, inputs: int, config: StudentConfig,
    progress: ProgressCallback | None, cancel: CancelToken | None,
) -> tuple[Any, float]:  # fmt: skip
    import torch

    head = _make_head(inputs, config)
    optimiser = torch.optim.AdamW(head.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    started = time.perf_counter()
    train_t = torch.tensor(train)
    for epoch in range(config.epochs):
        if cancel is not None:
            cancel.raise_if_cancelled()
        head.train()
        perm = train_t[torch.randperm(len(train_t))]
        for start in range(0, len(perm), config.batch_size):
            batch = perm[start : start + config.batch_size]
            if len(batch) < 2:
                continue
            optimiser.zero_grad()
            loss = _loss(head(x[batch]), y[batch], config)
            loss.backward()
            optimiser.step()
        if progress is not None and (epoch + 1) % 10 == 0:
            progress(Progress(epoch + 1, config.epochs, f"student epoch {epoch + 1}/{config.epochs}"))
    head.eval()
    return head, time.perf_counter() - started


def _make_head(inputs: int, config: StudentConfig) -> Any:
    import torch

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = torch.nn.Linear(inputs, config.hidden)
            self.dropout = torch.nn.Dropout(config.dropout)
            self.out = torch.nn.Linear(config.hidden, len(DIMENSIONS))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            logits = self.out(self.dropout(torch.nn.functional.gelu(self.hidden(x))))
            return SCORE_MIN + (SCORE_MAX - SCORE_MIN) * torch.sigmoid(logits)

    return Head()


def _named_weights(head: Any) -> dict[str, Any]:
    return {"w1": head.hidden.weight, "b1": head.hidden.bias, "w2": head.out.weight, "b2": head.out.bias}


def _loss(predicted: Any, target: Any, config: StudentConfig) -> Any:
    from aesthete_gui.training.losses import ranking_fidelity_loss

    ranking = ranking_fidelity_loss(predicted, target, tau_w=config.tau_w)
    return ranking + config.scale_weight * ((predicted - target) ** 2).mean()


def _metrics(
    student: StudentScorer,
    embeddings: np.ndarray | None,
    feature_names: Sequence[str],
    features: np.ndarray,
    pseudo: np.ndarray,
    train: np.ndarray,
    val: np.ndarray,
    config: StudentConfig,
) -> dict[str, Any]:
    from aesthete_gui.engine.metrics import srcc

    predicted = student.score_arrays(embeddings, feature_names, features)
    metrics: dict[str, Any] = {}
    for split, rows in (("train", train), ("validation", val)):
        if len(rows) < 3:
            continue
        metrics[split] = {
            "srcc": {d: round(float(srcc(predicted[rows, i], pseudo[rows, i])), 4) for i, d in enumerate(DIMENSIONS)},
            "reward": round(ranking_fidelity_reward(predicted[rows], pseudo[rows], tau_w=config.tau_w), 4),
            "mae": round(float(np.abs(predicted[rows] - pseudo[rows]).mean()), 4),
        }
    return metrics


def save_student(student: StudentScorer, models_dir: Path) -> Path:
    """Write `<name>.safetensors` and `<name>.json` into `models_dir`; return the weights path."""
    from safetensors.numpy import save_file

    check_name(student.name, "student name")
    models_dir.mkdir(parents=True, exist_ok=True)
    weights = models_dir / f"{student.name}.safetensors"
    save_file({k: np.ascontiguousarray(v) for k, v in student.tensors.items()}, str(weights))
    (models_dir / f"{student.name}.json").write_text(json.dumps(student.card, indent=2), encoding="utf-8")
    return weights


def list_students(models_dir: Path) -> list[str]:
    """Names of the students saved in `models_dir`, oldest first."""
    if not models_dir.is_dir():
        return []
    cards = [p for p in models_dir.glob("*.json") if p.with_suffix(".safetensors").is_file()]
    return [p.stem for p in sorted(cards, key=lambda p: p.stat().st_mtime)]


def load_student(models_dir: Path, name: str) -> StudentScorer:
    """Load a saved student; FileNotFoundError when missing, ValueError when the card is not ours,
    DamagedWeights (a ValueError too) naming the file when its weights are damaged."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    from aesthete_gui.ml.model_files import DamagedWeights, read_safetensors_header

    check_name(name, "student name")
    card_path = models_dir / f"{name}.json"
    weights = models_dir / f"{name}.safetensors"
    if not card_path.is_file() or not weights.is_file():
        raise FileNotFoundError(f"no student {name!r} in {models_dir}")
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise ValueError(f"unreadable student card {card_path}: {error}") from error
    if not isinstance(card, dict) or card.get("format") != CARD_FORMAT:
        raise ValueError(f"{card_path} is not an Aesthete student card")
    expected = _student_shapes(card, card_path)
    header = read_safetensors_header(weights)
    for key, shape in expected.items():
        info = header.get(key)
        if info is None:
            raise DamagedWeights(f"{weights} is a damaged student: tensor {key!r} is missing")
        if info["dtype"] not in ("F16", "F32", "F64") or tuple(info["shape"]) != shape:
            raise DamagedWeights(
                f"{weights} is a damaged student: tensor {key!r} is {info['dtype']} {info['shape']}, "
                f"expected floats of shape {list(shape)}"
            )
    try:
        tensors = load_file(str(weights))
    except (SafetensorError, OSError) as error:
        raise DamagedWeights(f"{weights} cannot be loaded: {error}") from error
    return StudentScorer(name=name, card=card, tensors={k: tensors[k] for k in expected})


def _student_shapes(card: dict[str, Any], card_path: Path) -> dict[str, tuple[int, ...]]:
    """The tensor shapes the card implies: inputs = embedding size + image properties."""
    names, embedding = card.get("feature_names"), card.get("embedding_dim", 0)
    hidden = (card.get("config") or {}).get("hidden") if isinstance(card.get("config"), dict) else None
    if not isinstance(names, list) or not isinstance(embedding, int) or not isinstance(hidden, int):
        raise ValueError(f"{card_path} lacks the feature names, embedding size or hidden size of its student")
    inputs = embedding + len(names)
    outputs = len(DIMENSIONS)
    return {
        "mean": (inputs,), "scale": (inputs,), "w1": (hidden, inputs), "b1": (hidden,),
        "w2": (outputs, hidden), "b2": (outputs,),
    }  # fmt: skip
