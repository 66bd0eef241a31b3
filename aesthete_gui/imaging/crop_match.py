"""Recognise a crop of the same frame (at any size, re-encoded) from two small thumbnails.

Two steps. A colour signature (coarse RGB and luminance histograms) rules out most pairs cheaply:
the colours of a crop are contained in its original's, so a pair whose histograms cannot nest is not
compared further. The survivors are verified by normalised cross-correlation (NCC) of grey levels:
the would-be crop, at a range of sizes, is slid over the other image at a coarse resolution; the
best placements are refined at a finer one, where the match must be nearly exact over the whole crop
and in every tile of it, with each side's overall brightness slope removed (a smooth gradient fits
inside any other). Another exposure of the same scene (a subject that moved, the other half of a
stereo pair) shifts things against each other and fails the tiles.

Grouping asks about the same frames again and again, so a frame's blurred view and its resized crops
are kept between pairs; tests/imaging/crop_match_reference.py keeps the slower first version of this
search, which every verdict here must equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image
from scipy.fft import next_fast_len
from scipy.ndimage import gaussian_filter

COLOUR_BINS = 4
"""Per channel: 4 x 4 x 4 colour bins."""
LUMA_BINS = 16
MIN_KEPT_SIDE = 0.45
"""The smallest crop recognised, as a fraction of the original's width or height (about 20 % of its
area; a crop cutting 50 % of the area away keeps about 71 % of each side)."""
MIN_CONTAINMENT = 0.80
"""Share of the crop's histograms that must fit inside the other image's (scaled by the smallest
area a crop keeps) for the pair to be verified at all."""
COARSE_SIDE = 48
COARSE_SIZES = 24
"""Crop sizes tried at the coarse level, from MIN_KEPT_SIDE to the whole long side (steps of ~3.5 %)."""
COARSE_KEEP = 3
"""Best coarse placements (of different sizes) refined at the fine level."""
COARSE_MIN_NCC = 0.60
FINE_SIDE = 160
FINE_BLUR = 1.0
"""Gaussian sigma (pixels at FINE_SIDE) applied before the fine comparison: detail near the pixel
scale depends on how each copy was resampled, not on what it shows."""
MIN_NCC = 0.93
"""Over the whole crop at FINE_SIDE: true crops mostly measure >= 0.94 in the benchmark, another
frame of the same scene far less (the motorcycle stereo pair 0.80)."""
MIN_TILE_NCC = 0.80
"""In each textured tile of a 4 x 4 grid: local misplacement (parallax, motion) falls below this."""
MAX_TILE_RESIDUAL = 0.5
"""In each tile of a 6 x 6 grid, the mean difference left after one brightness and contrast fit over
the whole crop, relative to the crop's contrast: a moved subject, a damaged or blank part, the
other half of a stereo pair measure 0.6 or more; true crops at most 0.36 in the benchmark."""
_RESIDUAL_TILES = 6
_MIN_REGION_SIDE = 64
"""A match covering fewer fine pixels (long side) is too small to tell a crop from a look-alike
(a tiny image, or a small part of one): it is not accepted."""
_TILES = 4
_KEPT_TEMPLATES = 128
"""Crop templates kept between pairs (each at most 150 KB at FINE_SIDE; grouping 150 frames, twice
as many found only 2 % more)."""
_HOPELESS_NCC = 0.70
_MIN_TILE_STD = 3.0  # grey levels; flatter tiles say nothing about placement
_MIN_TEMPLATE_STD = 4.0
_FRACTIONS = np.geomspace(MIN_KEPT_SIDE, 1.0, COARSE_SIZES)


def _resized(grey: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resample a float grey array to (width, height)."""
    image = Image.fromarray(np.ascontiguousarray(grey, dtype=np.float32), mode="F")
    shrink = size[0] < grey.shape[1] / 2
    return np.asarray(image.resize(size, Image.Resampling.BOX if shrink else Image.Resampling.BILINEAR), dtype=np.float64)


def _fit(shape: tuple[int, ...], side: float) -> tuple[int, int]:
    """(width, height) with the long side `side`, keeping the aspect of an array `shape`."""
    scale = side / max(shape[:2])
    return max(1, round(shape[1] * scale)), max(1, round(shape[0] * scale))


class _Coarse:
    """An image at COARSE_SIDE prepared for NCC searches: zero-padded spectrum and integral images."""

    def __init__(self, grey: np.ndarray) -> None:
        small = _resized(grey, _fit(grey.shape, COARSE_SIDE))
        self.shape = small.shape
        self.spectrum = np.fft.rfft2(small, s=(COARSE_SIDE, COARSE_SIDE))
        padded = np.pad(small, ((1, 0), (1, 0)))
        self.s1 = padded.cumsum(0).cumsum(1)
        self.s2 = (padded * padded).cumsum(0).cumsum(1)
        # this image as a would-be crop: zero-mean templates at every size tried, and their spectra
        self.templates: list[tuple[int, int, float]] = []
        stack = np.zeros((len(_FRACTIONS), COARSE_SIDE, COARSE_SIDE))
        for k, fraction in enumerate(_FRACTIONS):
            template = _resized(small, _fit(small.shape, fraction * COARSE_SIDE))
            centred = template - template.mean()
            stack[k, : centred.shape[0], : centred.shape[1]] = centred
            self.templates.append((*template.shape, float(np.sqrt((centred * centred).sum()))))
        self.template_spectra = np.conj(np.fft.rfft2(stack)).astype(np.complex64)

    def window_std(self, th: int, tw: int) -> np.ndarray:
        """sqrt of (n x variance) of every th x tw window (rows x cols of placements)."""
        s1, s2 = self.s1, self.s2
        total = s1[th:, tw:] - s1[:-th, tw:] - s1[th:, :-tw] + s1[:-th, :-tw]
        squares = s2[th:, tw:] - s2[:-th, tw:] - s2[th:, :-tw] + s2[:-th, :-tw]
        return np.sqrt(np.maximum(squares - total * total / (th * tw), 1e-6))


@dataclass(frozen=True, eq=False)
class Thumb:
    """What matching needs from one image: 8-bit grey pixels at FINE_SIDE (about 19 KB) and its
    histograms; the coarse search data is derived on demand (see _coarse)."""

    grey: np.ndarray
    histogram: np.ndarray


@lru_cache(maxsize=256)
def _coarse(thumb: Thumb) -> _Coarse:
    """The coarse search data of a view (about 250 KB; the recently used ones are kept)."""
    return _Coarse(thumb.grey.astype(np.float64))


def load_thumb(image: Image.Image) -> Thumb:
    """The matching view of an image (any size; a 256 px thumbnail is plenty)."""
    rgb = image.convert("RGB")
    if max(rgb.size) > FINE_SIDE:
        rgb = rgb.resize(_fit((rgb.height, rgb.width), FINE_SIDE), Image.Resampling.BOX)
    pixels = np.asarray(rgb)
    grey = np.clip(np.rint(pixels.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)), 0, 255).astype(np.uint8)
    return Thumb(grey=grey, histogram=signature(pixels, grey).astype(np.float32))


def signature(pixels: np.ndarray, grey: np.ndarray) -> np.ndarray:
    """Colour (COLOUR_BINS^3) and luminance (LUMA_BINS) histograms, each normalised, side by side."""
    q = (pixels.reshape(-1, 3) // (256 // COLOUR_BINS)).astype(np.int64)
    index = (q[:, 0] * COLOUR_BINS + q[:, 1]) * COLOUR_BINS + q[:, 2]
    colour = np.bincount(index, minlength=COLOUR_BINS**3).astype(np.float64)
    luma = np.bincount(grey.ravel().astype(np.int64) * LUMA_BINS // 256, minlength=LUMA_BINS)
    return np.concatenate([colour / max(1.0, colour.sum()), luma / max(1, luma.sum())])


def containment(crops: np.ndarray, originals: np.ndarray) -> np.ndarray:
    """For signature rows `crops` and `originals` (n, bins): the share of each crop's histograms that
    fits inside the paired original's, allowing the crop to keep as little as MIN_KEPT_SIDE squared."""
    room = originals / (MIN_KEPT_SIDE**2)
    colour = np.minimum(crops[:, : COLOUR_BINS**3], room[:, : COLOUR_BINS**3]).sum(axis=1)
    luma = np.minimum(crops[:, COLOUR_BINS**3 :], room[:, COLOUR_BINS**3 :]).sum(axis=1)
    return np.minimum(colour, luma)


def _coarse_matches(crop: _Coarse, whole: _Coarse) -> list[tuple[float, float, float, float]]:
    """Best placement (score, x, y, width) of `crop` inside `whole` per size tried, best first;
    positions and width as fractions of whole's coarse width/height."""
    sh, sw = whole.shape
    products = np.fft.irfft2(crop.template_spectra * whole.spectrum, s=(COARSE_SIDE, COARSE_SIDE))
    found = []
    for k, (th, tw, norm) in enumerate(crop.templates):
        if th > sh or tw > sw or th < 6 or tw < 6 or norm == 0.0:
            continue
        # circular correlation, exact on the placements inside the image (no wrap round)
        scores = products[k, : sh - th + 1, : sw - tw + 1] / (whole.window_std(th, tw) * norm)
        y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
        found.append((float(scores[y, x]), x / sw, y / sh, tw / sw))
    return sorted(found, reverse=True)


class _Window:
    """Part of the finer image prepared for NCC searches of several templates."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        # transforms of a length with small prime factors only: a prime-sized window costs ~7x more,
        # and the zeros added change no placement inside the image (the correlation has no wrap round)
        self.fft_shape = (next_fast_len(image.shape[0], real=True), next_fast_len(image.shape[1], real=True))
        self.spectrum = np.fft.rfft2(image, s=self.fft_shape)
        padded = np.pad(image, ((1, 0), (1, 0)))
        self.s1 = padded.cumsum(0).cumsum(1)
        self.s2 = (padded * padded).cumsum(0).cumsum(1)

    def best(self, template: _Template) -> tuple[float, np.ndarray]:
        """The highest NCC of `template` over the placements inside the window, and that region."""
        th, tw = template.pixels.shape
        h, w = self.image.shape
        norm = template.norm
        if norm == 0.0 or th > h or tw > w:
            return -1.0, template.pixels
        rows = np.fft.ifft(self.spectrum * template.spectrum(self.fft_shape), axis=0)[: h - th + 1]
        full = np.fft.irfft(rows, n=self.fft_shape[1], axis=1)  # irfft2, only the rows of placements
        s1, s2 = self.s1, self.s2
        total = s1[th:, tw:] - s1[:-th, tw:] - s1[th:, :-tw] + s1[:-th, :-tw]
        squares = s2[th:, tw:] - s2[:-th, tw:] - s2[th:, :-tw] + s2[:-th, :-tw]
        spread = np.sqrt(np.maximum(squares - total * total / (th * tw), 1e-6))
        scores = full[:, : w - tw + 1] / (spread * norm)
        y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return float(scores[y, x]), self.image[y : y + th, x : x + tw]


class _Template:
    """The crop looked for at one size (blurred), with what every search of it needs."""

    def __init__(self, pixels: np.ndarray) -> None:
        self.pixels = pixels
        self.mean = pixels.mean()
        centred = pixels - self.mean
        self.norm = float(np.sqrt((centred * centred).sum()))

    def spectrum(self, shape: tuple[int, int]) -> np.ndarray:
        """conj(rfft2(zero-mean pixels, s=shape)), written out by axis so that the rows of zeros
        added are not transformed (line for line the same arithmetic)."""
        rows = np.fft.rfft(self.pixels - self.mean, n=shape[1], axis=1)
        return np.conj(np.fft.fft(rows, n=shape[0], axis=0))


def _tile_scores(region: np.ndarray, template: np.ndarray) -> list[float]:
    """NCC per tile of a 4 x 4 grid; a tile flat on one side only scores 0, flat on both is skipped."""
    h, w = template.shape
    out = []
    for r in range(_TILES):
        for c in range(_TILES):
            rows = slice(r * h // _TILES, (r + 1) * h // _TILES)
            cols = slice(c * w // _TILES, (c + 1) * w // _TILES)
            a, b = region[rows, cols], template[rows, cols]
            if a.size < 16:
                continue
            flat_a, flat_b = a.std() < _MIN_TILE_STD, b.std() < _MIN_TILE_STD
            if flat_a and flat_b:
                continue  # says nothing about placement; the residual below compares levels
            out.append(0.0 if flat_a or flat_b else float(np.corrcoef(a.ravel(), b.ravel())[0, 1]))
    return out


def _without_slope(grey: np.ndarray) -> np.ndarray:
    """`grey` less its least-squares plane (overall brightness and its left-right / top-bottom slope)."""
    h, w = grey.shape
    x, y = np.arange(w) / w, np.arange(h) / h
    # the normal equations of the plane a x + b y + c, their sums over the grid written out
    gram = np.array([[h * (x @ x), x.sum() * y.sum(), h * x.sum()],
                     [x.sum() * y.sum(), w * (y @ y), w * y.sum()],
                     [h * x.sum(), w * y.sum(), float(h * w)]])  # fmt: skip
    moments = np.array([grey.sum(axis=0) @ x, grey.sum(axis=1) @ y, grey.sum()])
    a, b, c = np.linalg.lstsq(gram, moments, rcond=None)[0]  # one row or column: no slope that way
    return grey - (a * x[np.newaxis, :] + (b * y[:, np.newaxis] + c))


def _worst_residual(region: np.ndarray, template: np.ndarray) -> float:
    """After one brightness/contrast fit over the whole crop, the largest mean absolute difference
    of a tile (6 x 6 grid), relative to the crop's contrast."""
    spread = float(template.std())
    if spread == 0.0:
        return float("inf")
    design = np.stack([region.ravel(), np.ones(region.size)], axis=1)
    (gain, offset), *_ = np.linalg.lstsq(design, template.ravel(), rcond=None)
    residual = np.abs(template - (gain * region + offset))
    h, w = template.shape
    n = _RESIDUAL_TILES
    tiles = [residual[r * h // n : (r + 1) * h // n, c * w // n : (c + 1) * w // n] for r in range(n) for c in range(n)]
    return max(float(t.mean()) for t in tiles if t.size) / spread


@dataclass(frozen=True)
class CropMatch:
    """How well one image matches a crop of the other: the whole-crop and weakest-tile NCC."""

    score: float
    weakest_tile: float
    width_fraction: float
    worst_residual: float = 0.0

    @property
    def same_frame(self) -> bool:
        """True when the numbers say crop (or resize) of one frame."""
        return self.score >= MIN_NCC and self.weakest_tile >= MIN_TILE_NCC and self.worst_residual <= MAX_TILE_RESIDUAL


@lru_cache(maxsize=64)
def _smooth(thumb: Thumb) -> np.ndarray:
    """The view as the image searched (FINE_BLUR applied), kept for its next pair."""
    return gaussian_filter(thumb.grey.astype(np.float64), FINE_BLUR)


@lru_cache(maxsize=_KEPT_TEMPLATES)
def _template(crop: Thumb, size: tuple[int, int]) -> _Template:
    """The view resized to (width, height) and blurred, as the crop looked for (a frame meets its
    candidates at mostly the same few sizes)."""
    return _Template(gaussian_filter(_resized(crop.grey.astype(np.float64), size), FINE_BLUR))


def _placements(crop: Thumb, whole: Thumb) -> Iterator[tuple[np.ndarray, np.ndarray, int]]:
    """For each promising coarse placement of `crop` in `whole`, best first: the fine region and
    the crop's template, both without their brightness slope, and the template's width."""
    if crop.grey.astype(np.float64).std() < _MIN_TEMPLATE_STD:
        return  # a flat picture fits anywhere: no evidence
    coarse = [c for c in _coarse_matches(_coarse(crop), _coarse(whole))[:COARSE_KEEP] if c[0] >= COARSE_MIN_NCC]
    if not coarse:
        return
    h, w = whole.grey.shape
    aspect = crop.grey.shape[0] / crop.grey.shape[1]
    smooth_whole = _smooth(whole)
    margin = max(2, round(w / COARSE_SIDE * 1.5))
    step = w / COARSE_SIDE  # one coarse pixel, in fine pixels
    for _, fx, fy, fw in coarse:
        widest = min(w, round(fw * w + step))
        x0 = min(max(0, round(fx * w) - margin), max(0, w - widest))
        y0 = min(max(0, round(fy * h) - margin), max(0, h - round(widest * aspect)))
        window = _Window(smooth_whole[y0 : min(h, y0 + round(widest * aspect) + 2 * margin), x0 : min(w, x0 + widest + 2 * margin)])
        tried: dict[int, tuple[float, np.ndarray, np.ndarray]] = {}

        def attempt(width: float, window: _Window = window, tried: dict = tried) -> None:
            tw = round(width)
            th = round(tw * aspect)
            if tw in tried or not (tw <= w and th <= h) or max(tw, th) < _MIN_REGION_SIDE:
                return
            template = _template(crop, (tw, th))
            score, region = window.best(template)
            tried[tw] = (score, region, template.pixels)

        for width in (fw * w - step / 2, fw * w, fw * w + step / 2):
            attempt(width)
        if not tried or max(t[0] for t in tried.values()) < _HOPELESS_NCC:
            continue  # far from a match round the coarse size: the sizes between will not rescue it
        for width in np.linspace(fw * w - step, fw * w + step, 5):
            attempt(width)
        centre = max(tried, key=lambda k: tried[k][0])
        for width in (centre - step / 4, centre + step / 4):  # a finer size step round the best
            attempt(width)
        tw = max(tried, key=lambda k: tried[k][0])
        _, region, template = tried[tw]
        if region.shape != template.shape:
            continue
        # judged without each side's overall brightness slope: a smooth gradient fits inside any other
        region, template = _without_slope(region), _without_slope(template)
        if template.std() < _MIN_TEMPLATE_STD:
            continue  # nothing but a gradient: no evidence either way
        yield region, template, tw


def _score(region: np.ndarray, template: np.ndarray) -> float:
    return float(np.corrcoef(region.ravel(), template.ravel())[0, 1])


def match_crop(crop: Thumb, whole: Thumb) -> CropMatch | None:
    """How well `crop` fits at its best place and size inside `whole`; None when it cannot fit.

    The best coarse placements are refined in turn (the first that passes ends the search)."""
    w = whole.grey.shape[1]
    best: CropMatch | None = None
    for region, template, tw in _placements(crop, whole):
        tiles = _tile_scores(region, template)
        found = CropMatch(score=_score(region, template), weakest_tile=min(tiles) if tiles else -1.0,
                          width_fraction=tw / w, worst_residual=_worst_residual(region, template))  # fmt: skip
        if best is None or (found.same_frame, found.score) > (best.same_frame, best.score):
            best = found
        if found.same_frame:
            break
    return best


def _passes(region: np.ndarray, template: np.ndarray) -> bool:
    """CropMatch.same_frame of this placement, its cheapest test first (most placements fail the
    whole-crop NCC, so the tiles and the residual are rarely needed)."""
    if not _score(region, template) >= MIN_NCC:
        return False
    tiles = _tile_scores(region, template)
    if not (min(tiles) if tiles else -1.0) >= MIN_TILE_NCC:
        return False
    return _worst_residual(region, template) <= MAX_TILE_RESIDUAL


def could_contain(whole: Thumb, crop: Thumb) -> bool:
    """The colour prefilter: `crop`'s histograms fit inside `whole`'s."""
    return bool(containment(crop.histogram[np.newaxis], whole.histogram[np.newaxis])[0] >= MIN_CONTAINMENT)


def same_frame(a: Thumb, b: Thumb) -> bool:
    """True when one image is a crop (or a resized copy) of the other; tries both ways round."""
    for crop, whole in ((a, b), (b, a)):
        if not could_contain(whole, crop):
            continue  # the crop has colours its supposed original lacks
        if any(_passes(region, template) for region, template, _ in _placements(crop, whole)):
            return True  # what match_crop(crop, whole).same_frame says, without the numbers it need not give
    return False
