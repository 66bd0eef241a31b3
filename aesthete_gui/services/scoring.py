"""The single writer of stored scores, the array scorers (built-in and students) and the cached
inputs they share (docs/method.md §6).

The inputs the array scorers share — image properties (stored in the profile's features table) and
encoder embeddings (cached in the model folder, keyed by content hash) — are computed once and
reused by the taste adapter. Every scorer's scores are stored through `write_scores`; the registry
of all scorers and the one route that scores with any of them is services/scorer_registry.py.
Ids are spelled and parsed only by engine/scorers.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.scorers import BUILTIN, ArrayScorer, ScorerId, ScorerKind, scorer_id
from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_checks import scoring_arguments
from aesthete_gui.store import ImageRecord, Profile

if TYPE_CHECKING:
    from aesthete_gui.training.personalize import TasteInputs

__all__ = ["BUILTIN", "ScorerNotFoundError", "score_library", "write_scores"]

class ScorerNotFoundError(AestheteError, LookupError):
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


FEATURE_BATCH = 8
"""Image properties are stored every this many images, so a job cancelled or cut short by a quit
resumes where it stopped (each image takes about 0.1 s; a commit, milliseconds)."""
EMBEDDING_SAVE_EVERY = 128
"""The embedding cache is written after every this many new embeddings, for the same reason."""


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

    ids, names, matrix = profile.catalog.features(str(FEATURE_VERSION))
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
        if len(rows) >= FEATURE_BATCH:
            profile.catalog.put_features_many(rows)
            rows = []
    if rows:
        profile.catalog.put_features_many(rows)
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
        for start in range(0, len(todo), EMBEDDING_SAVE_EVERY):  # saved as it goes: a quit resumes
            chunk = todo[start : start + EMBEDDING_SAVE_EVERY]

            def overall(step: Progress, before: int = start) -> None:
                if progress is not None:
                    progress(Progress(before + step.done, len(todo), step.message))

            vectors = encoder.encode_paths([images[i].path for i in chunk], batch_size=16, progress=overall, cancel=cancel)
            for i, vector in zip(chunk, vectors, strict=True):
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
    records = usable_images(profile, image_ids)
    images, names, features = ensure_features(profile, records, progress, cancel)
    embeddings, encoder_id = (None, "")
    if with_embeddings and images:
        embeddings, encoder_id = ensure_embeddings(profile, images, encoder_name, progress, cancel)
    return LibraryArrays(images, names, features, embeddings, encoder_id)


def available_scorers(profile: Profile) -> list[str]:
    """The base scorers that score from cached inputs: "builtin" and every trained student."""
    from aesthete_gui.training.distill import list_students

    return [BUILTIN, *(scorer_id(ScorerKind.STUDENT, n) for n in list_students(profile_models_dir(profile)))]


def load_array_scorer(profile: Profile, name: str) -> ArrayScorer:
    """The scorer called `name` ("builtin", "student:<name>" or a bare student name)."""
    from aesthete_gui.engine.builtin_scorer import BuiltinScorer
    from aesthete_gui.training.distill import load_student

    wanted = ScorerId.parse(name, bare=ScorerKind.STUDENT)
    if wanted.kind is ScorerKind.BUILTIN:
        return BuiltinScorer()
    if wanted.kind is not ScorerKind.STUDENT:
        raise ScorerNotFoundError(f"{name!r} is not a base scorer; available: {', '.join(available_scorers(profile))}")
    try:
        return load_student(profile_models_dir(profile), wanted.name)
    except FileNotFoundError as error:
        raise ScorerNotFoundError(f"no scorer {name!r}; available: {', '.join(available_scorers(profile))}") from error


def default_scorer(profile: Profile) -> str:
    """The base scorer to use: the newest trained student, else "builtin"."""
    students = available_scorers(profile)[1:]
    return students[-1] if students else BUILTIN


def write_scores(
    profile: Profile,
    scorer: str,
    scores: Iterable[tuple[int, Mapping[str, float | None]]],
    scorer_version: str = "",
    preset: str = "",
    preset_version: str = "",
) -> int:
    """The single writer of stored scores: one scorer's scores of several images in one transaction,
    which the scores repository announces (ScoresChanged); returns how many images were written."""
    rows = [(image_id, dict(values)) for image_id, values in scores if values]
    profile.scores.put_many(scorer, rows, scorer_version=scorer_version, preset=preset, preset_version=preset_version)
    return len(rows)


def forget_scores(profile: Profile, image_ids: Sequence[int]) -> None:
    """The single writer's other half: drop every scorer's stored scores of these images (their
    files' content changed, so the scores describe pixels that are gone)."""
    profile.scores.forget(image_ids)


def _copy_links(profile: Profile, scorer: Any) -> tuple[Any, dict[int, int] | None]:
    """For the built-in scorer, the stored checks and each copy's original (read once per run and
    handed on to scoring_arguments); (None, None) for any other scorer."""
    if scorer.scorer_id != BUILTIN:
        return None, None
    from aesthete_gui.services.verdicts import copy_originals

    stored = profile.checks.all()
    return stored, copy_originals(profile, stored)


def score_library(
    profile: Profile,
    scorer_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    image_ids: Sequence[int] | None = None,
    preset: str = "",
    store: bool = True,
) -> tuple[str, dict[int, dict[str, float]]]:
    """Score every usable image (or `image_ids`) with one array scorer in one pass and store the
    scores in one transaction (unless `store` is False), with the rubric preset shown; return
    (scorer id, scores)."""
    scorer = load_array_scorer(profile, scorer_name or default_scorer(profile))
    asked = None if image_ids is None else set(image_ids)
    checks, links = _copy_links(profile, scorer)
    if image_ids is not None and links is not None:
        from aesthete_gui.services.verdicts import with_copies_and_originals

        # a copy is capped below its original: both are scored in one run, or a selection holding
        # only the copy would store it above the original (and a copy's stale score would stay)
        image_ids = with_copies_and_originals(links, image_ids)
    arrays = library_arrays(profile, with_embeddings=scorer.needs_embeddings, encoder_name=scorer.encoder_name, progress=progress, cancel=cancel, image_ids=image_ids)
    if not arrays.images:
        return scorer.scorer_id, {}
    values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features,
                                 **scoring_arguments(profile, scorer, arrays.images, checks, links))  # fmt: skip
    result = {
        record.id: {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
        for record, row in zip(arrays.images, values, strict=True)
    }
    if store:
        write_scores(profile, scorer.scorer_id, result.items(), scorer_version=scorer.version, preset=preset)
    return scorer.scorer_id, result if asked is None else {i: v for i, v in result.items() if i in asked}


def base_scores_for(
    profile: Profile, arrays: LibraryArrays, scorer_name: str, checks: Any = None, links: Any = None
) -> np.ndarray:
    """(n, 5) scores of `scorer_name` for the rows of `arrays`, scoring what is not stored yet or was
    stored by another version of the scorer (e.g. built-in rules-2 scores after the rules changed)."""
    scorer = load_array_scorer(profile, scorer_name)
    stored = profile.scores.of_scorer(scorer.scorer_id)
    versions = profile.scores.scorer_versions(scorer.scorer_id)
    if any(
        r.id not in stored or len(stored[r.id]) < len(DIMENSIONS) or versions.get(r.id, "") != scorer.version
        for r in arrays.images
    ):
        values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features,
                                     **scoring_arguments(profile, scorer, arrays.images, checks, links))  # fmt: skip
        rows = ((r.id, dict(zip(DIMENSIONS, map(float, v), strict=True))) for r, v in zip(arrays.images, values, strict=True))
        write_scores(profile, scorer.scorer_id, rows, scorer_version=scorer.version)
        return np.asarray(values, dtype=float)
    return np.array([[stored[r.id][d] for d in DIMENSIONS] for r in arrays.images], dtype=float)


def base_ranking(
    profile: Profile,
    scorer_name: str,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[ImageRecord], TasteInputs]:
    """The usable images with their stored `scorer_name` scores as taste inputs (no properties, no
    embeddings): only images without a current stored score are measured and scored (then stored)."""
    from aesthete_gui.training.personalize import TasteInputs

    scorer = load_array_scorer(profile, scorer_name)
    records = usable_images(profile, None)

    def current() -> dict[int, list[float]]:
        stored = profile.scores.of_scorer(scorer.scorer_id)
        versions = profile.scores.scorer_versions(scorer.scorer_id)
        return {
            i: [float(values[d]) for d in DIMENSIONS]
            for i, values in stored.items()
            if all(values.get(d) is not None for d in DIMENSIONS) and versions.get(i, "") == scorer.version
        }

    scores = current()
    missing = [r.id for r in records if r.id not in scores]
    checks, links = _copy_links(profile, scorer) if missing else (None, None)
    if missing and links is not None:
        from aesthete_gui.services.verdicts import with_copies_and_originals

        missing = with_copies_and_originals(links, missing)  # a copy is scored with its original (score_library)
    if missing:
        arrays = library_arrays(
            profile, with_embeddings=scorer.needs_embeddings, encoder_name=scorer.encoder_name,
            progress=progress, cancel=cancel, image_ids=missing,
        )  # fmt: skip
        if arrays.images:
            base_scores_for(profile, arrays, scorer_name, checks, links)  # scores and stores them
        scores = current()
    images = [r for r in records if r.id in scores]
    base = np.array([scores[r.id] for r in images], dtype=float).reshape(len(images), len(DIMENSIONS))
    return images, TasteInputs(keys=[r.id for r in images], base_scores=base)


def usable_images(profile: Profile, image_ids: Sequence[int] | None) -> list[ImageRecord]:
    """The readable images of the profile, or of those among `image_ids` (in that order)."""
    records = profile.catalog.images(status="ok")
    if image_ids is None:
        return records
    by_id = {r.id: r for r in records}
    return [by_id[i] for i in dict.fromkeys(image_ids) if i in by_id]


def personal_scorer_id(profile: Profile) -> str | None:
    """The scorer id of the active adapter's personal ranking, or None when no adapter is active."""
    active = profile.adapters.active()
    return scorer_id(ScorerKind.TASTE, active.name) if active is not None else None
