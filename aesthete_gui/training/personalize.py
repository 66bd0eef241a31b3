"""Per-user taste adapter: a small residual on top of the base scorer, fitted to choices.

For each dimension the user judged, the personal utility of an image is
    u(x) = β·base(x) + w·φ(x)
where base(x) is the active scorer's score (1–5), φ(x) the design row in three blocks — the five
base scores and the image properties (each standardised), and the library's leading principal
components of the embeddings (the low-rank part) — and w the residual. A Bradley–Terry logistic
likelihood on the choice pairs (a tie counts as half a win each way) is maximised under a Gaussian
prior: λ_g‖w_g‖² per block plus λ_β(β − β₀)², so with no evidence the adapter reproduces the base
ranking exactly, and it moves only along directions the user's choices support.

The embedding components keep their natural spread (one common scale, not whitened): the prior on
the embedding residual is then a linear kernel on the embeddings — images that look alike get alike
corrections — and the leading directions, which carry most of what differs between images, are
penalised least. Each block's λ_g is chosen by the Laplace approximation of the marginal likelihood
(evidence), a coordinate search over a grid; with few choices a fixed default is used. Everything is
numpy/scipy (L-BFGS with exact gradients): 1,000 choices train in seconds.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aesthete_gui.engine.blas import single_blas_thread
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.training.bt_fit import (
    DEFAULT_LAMBDA,
    choose_penalties,
    fit_logistic,
    penalty_vector,
)

BASE_SLOPE = 2.0
"""Prior logit per point of base score: a 1-point gap means the base expects ~88% agreement."""
MIN_CHOICES_FOR_SELECTION = 20
ADAPTER_FORMAT = "aesthete-taste-adapter/2"
READABLE_FORMATS = ("aesthete-taste-adapter/1", ADAPTER_FORMAT)
EMBEDDING_COMPONENTS = 128


@dataclass(frozen=True)
class TasteInputs:
    """Per-image inputs, rows aligned with `keys` (image ids or paths); any block may be None."""

    keys: Sequence[object]
    base_scores: np.ndarray | None = None  # (n, 5) on the 1–5 scale, columns in DIMENSIONS order
    properties: np.ndarray | None = None  # (n, p) image properties (QIPs)
    embeddings: np.ndarray | None = None  # (n, e) encoder embeddings

    def __post_init__(self) -> None:
        n = len(self.keys)
        for name in ("base_scores", "properties", "embeddings"):
            block = getattr(self, name)
            if block is not None and (block.ndim != 2 or block.shape[0] != n):
                raise ValueError(
                    f"{name} must have one row per image ({n}); got shape {block.shape}"
                )
            if block is not None and not np.all(np.isfinite(block)):
                raise ValueError(f"{name} contains NaN or infinite values")
        if self.base_scores is not None and self.base_scores.shape[1] != len(DIMENSIONS):
            raise ValueError(f"base_scores needs {len(DIMENSIONS)} columns")


@dataclass(frozen=True)
class PairChoice:
    """One choice between rows `a` and `b` of a TasteInputs: winner 'a', 'b' or 'tie'."""

    a: int
    b: int
    winner: str
    dimension: str = "overall"


@dataclass
class Featurizer:
    """Standardises the design blocks with statistics of the whole library (no labels used)."""

    use_base: bool
    use_properties: bool
    embedding_components: int
    mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scale: np.ndarray = field(default_factory=lambda: np.ones(0))
    embedding_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    embedding_basis: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def fit(self, inputs: TasteInputs) -> Featurizer:
        """Learn means, spreads and the embeddings' principal directions from `inputs`."""
        if inputs.embeddings is not None and self.embedding_components > 0:
            emb = inputs.embeddings.astype(float)
            self.embedding_mean = emb.mean(axis=0)
            _, _, vt = np.linalg.svd(emb - self.embedding_mean, full_matrices=False)
            self.embedding_basis = vt[: min(self.embedding_components, vt.shape[0])].T
        raw = self._raw(inputs)
        self.mean = raw.mean(axis=0) if raw.shape[1] else np.zeros(0)
        spread = raw.std(axis=0) if raw.shape[1] else np.ones(0)
        self.scale = np.where(spread > 1e-9, spread, 1.0)
        components = self.embedding_basis.shape[1] if self.embedding_basis.size else 0
        if components:
            # one scale for the whole embedding block (the leading component's spread): not whitened
            leading = spread[-components]
            self.scale[-components:] = leading if leading > 1e-9 else 1.0
        return self

    def column_blocks(self) -> list[str]:
        """The block name ("base", "properties" or "embeddings") of every design column."""
        components = self.embedding_basis.shape[1] if self.embedding_basis.size else 0
        base = len(DIMENSIONS) if self.use_base else 0
        properties = self.mean.shape[0] - base - components
        return ["base"] * base + ["properties"] * properties + ["embeddings"] * components

    def transform(self, inputs: TasteInputs) -> np.ndarray:
        """The standardised design matrix (n, k)."""
        raw = self._raw(inputs)
        if raw.shape[1] != self.mean.shape[0]:
            raise ValueError("these inputs do not have the blocks the adapter was trained with")
        return (raw - self.mean) / self.scale

    def _raw(self, inputs: TasteInputs) -> np.ndarray:
        blocks = [np.zeros((len(inputs.keys), 0))]
        if self.use_base and inputs.base_scores is not None:
            blocks.append(inputs.base_scores.astype(float))
        if self.use_properties and inputs.properties is not None:
            blocks.append(inputs.properties.astype(float))
        if self.embedding_basis.size and inputs.embeddings is not None:
            blocks.append((inputs.embeddings - self.embedding_mean) @ self.embedding_basis)
        return np.concatenate(blocks, axis=1)


@dataclass
class DimensionFit:
    """The fitted residual of one dimension and what it was fitted on."""

    weights: np.ndarray
    base_slope: float
    penalties: dict[str, float]  # prior precision λ per design block
    choices: int
    covariance: np.ndarray  # Laplace posterior covariance of [weights, base_slope]


@dataclass
class TasteAdapter:
    """A trained adapter: the featurizer plus one residual per judged dimension."""

    featurizer: Featurizer
    anchored: bool  # True: residual on top of the base scores; False: a plain re-weighting
    fits: dict[str, DimensionFit]

    def utilities(
        self, inputs: TasteInputs, dimension: str = "overall", design: np.ndarray | None = None
    ) -> np.ndarray:
        """Personal utility (logit scale) of every image for `dimension`.

        `design` is `featurizer.transform(inputs)` when the caller already has it.
        """
        base = _base_column(inputs, dimension) if self.anchored else np.zeros(len(inputs.keys))
        fit = self.fits.get(dimension)
        if fit is None:
            return BASE_SLOPE * base
        if design is None:
            design = self.featurizer.transform(inputs)
        return fit.base_slope * base + design @ fit.weights

    def scores(self, inputs: TasteInputs) -> dict[str, np.ndarray]:
        """Personal scores per dimension on the base's 1–5 scale: the personal order dealt the
        base's sorted scores over `inputs` (training.personal_scale); without base
        scores, the utilities spread evenly over 1–5 in the same order."""
        from aesthete_gui.training.personal_scale import onto_base_scale

        design = self.featurizer.transform(inputs) if self.fits else None
        flat = np.full(len(inputs.keys), 3.0)
        return {
            d: onto_base_scale(
                self.utilities(inputs, d, design),
                _base_column(inputs, d) if inputs.base_scores is not None else flat,
            )
            for d in DIMENSIONS
        }

    def pair_variance(
        self, inputs: TasteInputs, a: np.ndarray, b: np.ndarray, dimension: str = "overall"
    ) -> np.ndarray:
        """Posterior variance of u(a) − u(b) under the Laplace approximation (prior only when unfitted)."""
        design = self.featurizer.transform(inputs)
        base = _base_column(inputs, dimension) if self.anchored else np.zeros(len(inputs.keys))
        diff = np.concatenate([design[a] - design[b], (base[a] - base[b])[:, None]], axis=1)
        fit = self.fits.get(dimension)
        covariance = np.eye(diff.shape[1]) / DEFAULT_LAMBDA if fit is None else fit.covariance
        return np.einsum("ij,jk,ik->i", diff, covariance, diff)

    def to_bytes(self) -> bytes:
        """Serialise as an .npz archive (no pickle)."""
        # Any: numpy's stubs reject `**dict[str, ndarray]` because a key could be `allow_pickle`
        arrays: dict[str, Any] = {
            "mean": self.featurizer.mean,
            "scale": self.featurizer.scale,
            "embedding_mean": self.featurizer.embedding_mean,
            "embedding_basis": self.featurizer.embedding_basis,
        }
        fits: dict[str, object] = {}
        for dim, fit in self.fits.items():
            arrays[f"w_{dim}"] = fit.weights
            arrays[f"cov_{dim}"] = fit.covariance
            fits[dim] = {
                "base_slope": fit.base_slope,
                "penalties": fit.penalties,
                "choices": fit.choices,
            }
        meta: dict[str, object] = {
            "format": ADAPTER_FORMAT,
            "use_base": self.featurizer.use_base,
            "use_properties": self.featurizer.use_properties,
            "embedding_components": self.featurizer.embedding_components,
            "anchored": self.anchored,
            "fits": fits,
        }
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> TasteAdapter:
        """Read an adapter written by `to_bytes`; ValueError for anything else."""
        try:
            archive = np.load(io.BytesIO(blob), allow_pickle=False)
            meta = json.loads(bytes(archive["meta"]).decode("utf-8"))
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"not a taste adapter: {error}") from error
        if meta.get("format") not in READABLE_FORMATS:
            raise ValueError(f"unknown adapter format {meta.get('format')!r}")
        featurizer = Featurizer(
            use_base=meta["use_base"],
            use_properties=meta["use_properties"],
            embedding_components=meta["embedding_components"],
            mean=archive["mean"],
            scale=archive["scale"],
            embedding_mean=archive["embedding_mean"],
            embedding_basis=archive["embedding_basis"],
        )
        fits = {
            dim: DimensionFit(
                weights=archive[f"w_{dim}"],
                base_slope=float(info["base_slope"]),
                penalties=_stored_penalties(info, featurizer),
                choices=int(info["choices"]),
                covariance=archive[f"cov_{dim}"],
            )
            for dim, info in meta["fits"].items()
        }
        return cls(featurizer=featurizer, anchored=meta["anchored"], fits=fits)


def train_adapter(
    inputs: TasteInputs,
    choices: Sequence[PairChoice],
    *,
    anchored: bool = True,
    use_properties: bool = True,
    embedding_components: int = EMBEDDING_COMPONENTS,
    penalties: dict[str, float] | None = None,
    featurizer: Featurizer | None = None,
) -> TasteAdapter:
    """Fit one residual per dimension that has choices; block penalties by evidence unless given.

    `featurizer` (from `fit_featurizer` on the same inputs) saves refitting the embedding basis
    (seconds on a large library) when several adapters are trained on one library.

    `anchored=False, embedding_components=0` gives the plain re-weighting baseline (a BT logistic on
    the five dimension scores and the image properties, starting from nothing).
    """
    if anchored and inputs.base_scores is None:
        anchored = False  # no scorer yet: the adapter learns from embeddings and properties alone
    if featurizer is None:
        featurizer = fit_featurizer(inputs, use_properties, embedding_components)
    design = featurizer.transform(inputs)
    blocks = featurizer.column_blocks()
    fits: dict[str, DimensionFit] = {}
    with single_blas_thread():
        for dimension in DIMENSIONS:
            fit = _fit_dimension(inputs, design, blocks, choices, dimension, anchored, penalties)
            if fit is not None:
                fits[dimension] = fit
    return TasteAdapter(featurizer=featurizer, anchored=anchored, fits=fits)


def fit_featurizer(
    inputs: TasteInputs,
    use_properties: bool = True,
    embedding_components: int = EMBEDDING_COMPONENTS,
) -> Featurizer:
    """The design of `inputs` (no choices needed): standardisation and the embeddings' leading basis."""
    return Featurizer(
        use_base=inputs.base_scores is not None,
        use_properties=use_properties,
        embedding_components=embedding_components if inputs.embeddings is not None else 0,
    ).fit(inputs)


def _fit_dimension(
    inputs: TasteInputs,
    design: np.ndarray,
    blocks: list[str],
    choices: Sequence[PairChoice],
    dimension: str,
    anchored: bool,
    penalties: dict[str, float] | None,
) -> DimensionFit | None:
    """The residual of one dimension from its choices (None when it has none)."""
    subset = [c for c in choices if c.dimension == dimension]
    if not subset:
        return None
    _check_choices(subset, len(inputs.keys))
    prior_slope = BASE_SLOPE if anchored else 0.0
    base = _base_column(inputs, dimension) if anchored else np.zeros(len(inputs.keys))
    a = np.array([c.a for c in subset])
    b = np.array([c.b for c in subset])
    target = np.array([{"a": 1.0, "b": 0.0, "tie": 0.5}[c.winner] for c in subset])
    x = design[a] - design[b]
    offset = base[a] - base[b]
    if penalties is not None:
        chosen = dict(penalties)
    elif len(subset) < MIN_CHOICES_FOR_SELECTION:
        chosen = dict.fromkeys(dict.fromkeys(blocks), DEFAULT_LAMBDA)
    else:
        chosen = choose_penalties(x, offset, target, blocks, prior_slope)
    fit = fit_logistic(x, offset, target, penalty_vector(blocks, chosen), prior_slope)
    return DimensionFit(fit.weights, fit.slope, chosen, len(subset), fit.covariance)


def agreement(predicted_gap: np.ndarray, winners: Sequence[str]) -> np.ndarray:
    """Per-choice agreement: 1 when the sign of u(a) − u(b) matches the winner, 0.5 for a predicted tie.

    Choices the user called a tie are not scored (NaN), as in the seeds' pairwise accuracy.
    """
    gap = np.asarray(predicted_gap, dtype=float)
    result = np.full(gap.shape, np.nan)
    for index, winner in enumerate(winners):
        if winner == "tie":
            continue
        sign = 1.0 if winner == "a" else -1.0
        value = np.sign(gap[index]) * sign
        result[index] = 0.5 if value == 0 else float(value > 0)
    return result


def bootstrap_interval(
    values: np.ndarray, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of the non-NaN values and its percentile bootstrap 95% interval."""
    clean = np.asarray(values, dtype=float)
    clean = clean[~np.isnan(clean)]
    if clean.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = clean[rng.integers(0, clean.size, size=(resamples, clean.size))].mean(axis=1)
    return (
        float(clean.mean()),
        float(np.percentile(means, 2.5)),
        float(np.percentile(means, 97.5)),
    )


def _base_column(inputs: TasteInputs, dimension: str) -> np.ndarray:
    if inputs.base_scores is None:
        return np.zeros(len(inputs.keys))
    return inputs.base_scores[:, DIMENSIONS.index(dimension)].astype(float)


def _check_choices(choices: Sequence[PairChoice], n: int) -> None:
    for choice in choices:
        if choice.winner not in ("a", "b", "tie"):
            raise ValueError(f"winner must be 'a', 'b' or 'tie', not {choice.winner!r}")
        if not (0 <= choice.a < n and 0 <= choice.b < n):
            raise ValueError(f"choice refers to an image outside the inputs: {choice}")
        if choice.a == choice.b:
            raise ValueError("a choice needs two different images")


def _stored_penalties(info: dict[str, Any], featurizer: Featurizer) -> dict[str, float]:
    """Block penalties of a stored fit (parsed JSON); format 1 kept one λ for every block."""
    if "penalties" in info:
        return {str(k): float(v) for k, v in info["penalties"].items()}
    return dict.fromkeys(dict.fromkeys(featurizer.column_blocks()), float(info["lam"]))
