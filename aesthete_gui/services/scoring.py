"""The one home of scorers (docs/method.md §6): the registry, scoring with any of them, the single
writer of stored scores, and the cached inputs they share.

Registered scorers: "builtin" (image-property rules, no weights), trained fast students
("student:<name>", saved in the profile's model folder), a vision-language model read in one pass
("vlm-single-pass:<model>"), each taste adapter's personal ranking ("taste:<adapter>") and the
bridge's calibrated pseudo-scores of a distillation run ("bridge:<judge>", written by
services/distill through `write_scores`). Ids are spelled and parsed only by engine/scorers.py.
The inputs the array scorers share — image properties (stored in the profile's features table) and
encoder embeddings (cached in the model folder, keyed by content hash) — are computed once and
reused by the taste adapter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.scorers import BUILTIN, ArrayScorer, ScorerId, ScorerKind, scorer_id
from aesthete_gui.errors import AestheteError
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.services.library_checks import scoring_arguments
from aesthete_gui.store import ImageRecord, Profile

__all__ = ["BUILTIN", "ScoreResult", "ScorerEntry", "ScorerNotFoundError", "registered_scorers", "score_with", "write_scores"]

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
        if len(rows) >= 64:
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
    records = _usable_images(profile, image_ids)
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


def score_library(
    profile: Profile,
    scorer_name: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    image_ids: Sequence[int] | None = None,
    preset: str = "",
) -> tuple[str, dict[int, dict[str, float]]]:
    """Score every usable image (or `image_ids`) with one array scorer in one pass and store the
    scores in one transaction, with the rubric preset shown; return (scorer id, scores)."""
    scorer = load_array_scorer(profile, scorer_name or default_scorer(profile))
    arrays = library_arrays(profile, with_embeddings=scorer.needs_embeddings, encoder_name=scorer.encoder_name, progress=progress, cancel=cancel, image_ids=image_ids)
    if not arrays.images:
        return scorer.scorer_id, {}
    values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features, **scoring_arguments(profile, scorer, arrays.images))
    result = {
        record.id: {d: float(v) for d, v in zip(DIMENSIONS, row, strict=True)}
        for record, row in zip(arrays.images, values, strict=True)
    }
    write_scores(profile, scorer.scorer_id, result.items(), scorer_version=scorer.version, preset=preset)
    return scorer.scorer_id, result


def base_scores_for(
    profile: Profile, arrays: LibraryArrays, scorer_name: str
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
        values = scorer.score_arrays(arrays.embeddings, arrays.feature_names, arrays.features, **scoring_arguments(profile, scorer, arrays.images))
        rows = ((r.id, dict(zip(DIMENSIONS, map(float, v), strict=True))) for r, v in zip(arrays.images, values, strict=True))
        write_scores(profile, scorer.scorer_id, rows, scorer_version=scorer.version)
        return np.asarray(values, dtype=float)
    return np.array([[stored[r.id][d] for d in DIMENSIONS] for r in arrays.images], dtype=float)


@dataclass(frozen=True)
class ScorerEntry:
    """One registered scorer: its id, a label for menus, whether it runs a neural network (and so
    takes the GPU worker), and whether it can score images on demand (bridge scores are stored by a
    distillation run only)."""

    scorer_id: str
    label: str
    runs_model: bool
    can_score: bool = True

    @property
    def kind(self) -> ScorerKind:
        """builtin, student, bridge, taste or vlm-single-pass."""
        return ScorerId.parse(self.scorer_id).kind


@dataclass(frozen=True)
class ScoreResult:
    """What one scoring pass stored: the scorer id, scores by image id, and the images it could not read."""

    scorer_id: str
    scores: Mapping[int, Mapping[str, float]]
    unreadable: tuple[int, ...] = ()


def registered_scorers(profile: Profile, vlm_models: Sequence[str] = ()) -> list[ScorerEntry]:
    """Every scorer this profile can use: built-in, students, taste adapters, the single-pass VLM
    for each of `vlm_models` (model folders or hub ids), and the stored bridge pseudo-scores."""
    entries = [ScorerEntry(BUILTIN, "Built-in rules (no model)", runs_model=False)]
    for student in available_scorers(profile)[1:]:
        entries.append(ScorerEntry(student, f"Fast student {ScorerId.parse(student).name}", runs_model=True))
    for adapter in profile.adapters.all():
        entries.append(ScorerEntry(scorer_id(ScorerKind.TASTE, adapter.name), f"My ranking ({adapter.name})", runs_model=True))
    for model in dict.fromkeys(m for m in vlm_models if m):
        entries.append(ScorerEntry(vlm_scorer_id(model), f"Vision-language model {model}, single pass", runs_model=True))
    for stored in profile.scores.scorers():
        parsed = ScorerId.parse(stored, bare=ScorerKind.STUDENT)
        if parsed.kind is ScorerKind.BRIDGE:
            entries.append(ScorerEntry(stored, f"Distillation pseudo-scores ({parsed.name})", runs_model=True, can_score=False))
    return entries


def vlm_scorer_id(model: str) -> str:
    """The id the single-pass VLM scorer stores its scores under for `model` (folder or hub id)."""
    return scorer_id(ScorerKind.VLM, Path(model).name if Path(model).is_dir() else model)


def score_with(
    profile: Profile,
    scorer: str | None = None,
    image_ids: Sequence[int] | None = None,
    preset: str = "",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    vlm_model: str | None = None,
    vlm_options: Mapping[str, Any] | None = None,
) -> ScoreResult:
    """Score images (all usable ones when `image_ids` is None) with any registered scorer and store
    the scores; for "vlm-single-pass:<model>" `vlm_model` gives the folder when the name is not a hub id."""
    wanted = ScorerId.parse(scorer or default_scorer(profile), bare=ScorerKind.STUDENT)
    if wanted.kind in (ScorerKind.BUILTIN, ScorerKind.STUDENT):
        stored_id, scores = score_library(profile, str(wanted), progress, cancel, image_ids, preset)
        return ScoreResult(stored_id, scores)
    if wanted.kind is ScorerKind.TASTE:
        return _score_personal(profile, wanted.name, progress, cancel)
    if wanted.kind is ScorerKind.VLM:
        return _score_vlm(profile, vlm_model or wanted.name, image_ids, preset, progress, cancel, vlm_options or {})
    raise ScorerNotFoundError(
        f"{wanted} holds the pseudo-scores of a distillation run; run the distillation again to renew them"
    )


def _usable_images(profile: Profile, image_ids: Sequence[int] | None) -> list[ImageRecord]:
    """The readable images of the profile, or of those among `image_ids` (in that order)."""
    records = profile.catalog.images(status="ok")
    if image_ids is None:
        return records
    by_id = {r.id: r for r in records}
    return [by_id[i] for i in dict.fromkeys(image_ids) if i in by_id]


def _score_vlm(
    profile: Profile,
    model: str,
    image_ids: Sequence[int] | None,
    preset: str,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    options: Mapping[str, Any],
) -> ScoreResult:
    from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer

    images = _usable_images(profile, image_ids)
    scorer = VLMSinglePassScorer(model, **({"preset": preset} if preset else {}), **dict(options))
    results = scorer.score_paths([r.path for r in images], progress=progress, cancel=cancel)
    scores = {r.id: values for r, values in zip(images, results, strict=True) if values}
    write_scores(
        profile, scorer.scorer_id, scores.items(), scorer_version=scorer.version,
        preset=preset, preset_version=str(scorer.prompts.preset.version),
    )  # fmt: skip
    unreadable = tuple(r.id for r, values in zip(images, results, strict=True) if not values)
    return ScoreResult(scorer.scorer_id, scores, unreadable)


def _score_personal(
    profile: Profile, adapter: str, progress: ProgressCallback | None, cancel: CancelToken | None
) -> ScoreResult:
    """Store an adapter's personal ranking as "taste:<adapter>" (the grid's "My ranking"); the CLI and
    the GUI both come here, so they store the same ranking."""
    from aesthete_gui.services import taste

    scores = taste.store_personal_ranking(profile, adapter, progress=progress, cancel=cancel)
    return ScoreResult(scorer_id(ScorerKind.TASTE, adapter), scores)


def personal_scorer_id(profile: Profile) -> str | None:
    """The scorer id of the active adapter's personal ranking, or None when no adapter is active."""
    active = profile.adapters.active()
    return scorer_id(ScorerKind.TASTE, active.name) if active is not None else None
