"""Score a profile's images with a named scorer and store the scores (SPEC §6); cached inputs.

Scorers by name: "builtin" (image-property heuristics, no weights at all) or a trained fast student
("student:<name>", saved in the profile's model folder). The inputs they share — image properties
(stored in the profile's features table) and encoder embeddings (cached in the model folder,
keyed by content hash) — are computed once and reused by the taste adapter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_checks import scoring_arguments
from aesthete_gui.store import ImageRecord, Profile

BUILTIN = "builtin"
STUDENT_PREFIX = "student:"


class ScorerNotFoundError(LookupError):
    """No scorer of that name in this profile."""


@dataclass(frozen=True)
class LibraryArrays:
    """The profile's usable images (status ok, decodable) with their cached inputs, rows aligned."""

    images: list[ImageRecord]
    feature_names: list[str]
    features: np.ndarray  # (n, p)
    embeddings: np.ndarray | None  # (n, e) or None when not asked for
    encoder_id: str

    @property
    def paths(self) -> list[str]:
        """Image paths in row order."""
        return [r.path for r in self.images]


def profile_models_dir(profile: Profile) -> Path:
    """The folder beside the profile file that holds its students and embedding caches."""
    folder = profile.path.with_name(profile.path.name + ".models")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "model"


def ensure_features(
    profile: Profile,
    images: list[ImageRecord],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[ImageRecord], list[str], np.ndarray]:
    """Image properties of `images`, computing and storing the missing ones; undecodable images dropped."""
    from aesthete_gui.imaging.decode import DecodeError
    from aesthete_gui.imaging.features import (
        FEATURE_NAMES,
        FEATURE_VERSION,
        as_vector,
        features_for_path,
    )

    ids, names, matrix = profile.features(str(FEATURE_VERSION))
    stored = dict(zip(ids, matrix, strict=True)) if names == list(FEATURE_NAMES) else {}
    missing = [r for r in images if r.id not in stored]
    rows = []
    for done, record in enumerate(missing, start=1):
        if cancel is not None:
            cancel.raise_if_cancelled()
        try:
            vector = as_vector(features_for_path(record.path))
        except DecodeError:
            continue
        stored[record.id] = vector
        rows.append((record.id, list(FEATURE_NAMES), vector, str(FEATURE_VERSION)))
        if progress is not None:
            progress(Progress(done, len(missing), f"image properties {done}/{len(missing)}"))
        if len(rows) >= 64:
            profile.put_features_many(rows)
            rows = []
    if rows:
        profile.put_features_many(rows)
    kept = [r for r in images if r.id in stored]
    features = np.stack([stored[r.id] for r in kept]).astype(float) if kept else np.zeros((0, len(FEATURE_NAMES)))
    return kept, list(FEATURE_NAMES), np.nan_to_num(features, nan=0.0, posinf=0.0, neginf=0.0)


def ensure_embeddings(
    profile: Profile,
    images: list[ImageRecord],
    encoder_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, str]:
    """Encoder embeddings (n, e) of `images` (default: the offline EfficientNet-Lite0), cached by content."""
    from aesthete_gui.ml.encoder import BUILTIN, BUILTIN_ID, load_encoder

    label = str(encoder_name or BUILTIN)
    cache_file = profile_models_dir(profile) / f"embeddings-{_safe(label)}.npz"
    cache: dict[str, np.ndarray] = {}
    encoder_id = BUILTIN_ID if label == BUILTIN else label
    if cache_file.is_file():
        with np.load(cache_file, allow_pickle=False) as archive:
            cache = dict(zip(archive["keys"].tolist(), archive["vectors"], strict=True))
            encoder_id = str(archive["encoder_id"])
    keys = [r.content_hash or r.path for r in images]
    todo = [i for i, key in enumerate(keys) if key not in cache]
    dim = next(iter(cache.values())).shape[0] if cache else 0
    if todo:  # the encoder is loaded only when something is not cached yet
        encoder = load_encoder(encoder_name)
        encoder_id, dim = encoder.encoder_id, encoder.dim
        vectors = encoder.encode_paths([images[i].path for i in todo], batch_size=16, progress=progress, cancel=cancel)
        for i, vector in zip(todo, vectors, strict=True):
            if np.all(np.isfinite(vector)):  # unreadable images (NaN rows) are not cached
                cache[keys[i]] = np.asarray(vector, dtype=np.float32)
        if cache:
            temporary = cache_file.with_name(cache_file.stem + ".tmp.npz")
            np.savez(temporary, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())), encoder_id=np.array(encoder_id))
            temporary.replace(cache_file)
    zeros = np.zeros(dim, dtype=np.float32)  # an image unreadable now sits at the origin
    rows = [cache.get(k, zeros) for k in keys]
    return np.stack(rows).astype(float), encoder_id


def library_arrays(
    profile: Profile,
    with_embeddings: bool = True,
    encoder_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    image_ids: Sequence[int] | None = None,
) -> LibraryArrays:
    """Every usable image of the profile (or of `image_ids`) with its properties (and embeddings)."""
    if image_ids is None:
        records = profile.images(status="ok")
    else:
        found = (profile.image_by_id(i) for i in image_ids)
        records = [r for r in found if r is not None and r.status == "ok"]
    images, names, features = ensure_features(profile, records, progress, cancel)
    embeddings, encoder_id = (None, "")
    if with_embeddings and images:
        embeddings, encoder_id = ensure_embeddings(profile, images, encoder_name, progress, cancel)
    return LibraryArrays(images, names, features, embeddings, encoder_id)


def available_scorers(profile: Profile) -> list[str]:
    """"builtin" and every trained student of this profile."""
    from aesthete_gui.training.distill import list_students

    return [BUILTIN, *(STUDENT_PREFIX + n for n in list_students(profile_models_dir(profile)))]


def load_array_scorer(profile: Profile, name: str) -> Any:
    """The scorer called `name` ("builtin", "student:<name>" or a bare student name)."""
    from aesthete_gui.training.distill import BuiltinScorer, load_student

    if name == BUILTIN:
        return BuiltinScorer()
    student = name.removeprefix(STUDENT_PREFIX)
    try:
        return load_student(profile_models_dir(profile), student)
    except FileNotFoundError as error:
        raise ScorerNotFoundError(f"no scorer {name!r}; available: {', '.join(available_scorers(profile))}") from error


def default_scorer(profile: Profile) -> str:
    """The base scorer to use: the newest trained student, else "builtin"."""
    students = available_scorers(profile)[1:]
    return students[-1] if students else BUILTIN


def score_library(
    profile: Profile,
    scorer_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    image_ids: Sequence[int] | None = None,
    preset: str = "",
) -> tuple[str, dict[int, dict[str, float]]]:
    """Score every usable image (or `image_ids`) with one scorer in one pass and store the scores
    in one transaction, with the rubric preset shown; return (scorer id, scores)."""
    scorer = load_array_scorer(profile, scorer_name or default_scorer(profile))
    arrays = library_arrays(profile, with_embeddings=scorer.needs_embeddings, encoder_name=scorer.encoder_name, progress=progress, cancel=cancel, image_ids=image_ids)
    if not arrays.images:
        return scorer.scorer_id, {}
    values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features, **scoring_arguments(profile, scorer, arrays.images))
    result = {
        record.id: {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
        for record, row in zip(arrays.images, values, strict=True)
    }
    profile.put_scores_many(scorer.scorer_id, result.items(), scorer_version=scorer.version, preset=preset)
    return scorer.scorer_id, result


def base_scores_for(
    profile: Profile, arrays: LibraryArrays, scorer_name: str
) -> np.ndarray:
    """(n, 5) scores of `scorer_name` for the rows of `arrays`, scoring what is not stored yet."""
    scorer = load_array_scorer(profile, scorer_name)
    stored = profile.scores(scorer.scorer_id)
    if any(r.id not in stored or len(stored[r.id]) < len(DIMENSIONS) for r in arrays.images):
        values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features, **scoring_arguments(profile, scorer, arrays.images))
        rows = ((r.id, dict(zip(DIMENSIONS, map(float, v), strict=True))) for r, v in zip(arrays.images, values, strict=True))
        profile.put_scores_many(scorer.scorer_id, rows, scorer_version=scorer.version)
        return np.asarray(values, dtype=float)
    return np.array([[stored[r.id][d] for d in DIMENSIONS] for r in arrays.images], dtype=float)
