"""RAW+JPEG pairs for the verdicts: the camera's JPEG of a RAW's exposure, whose noise the RAW is judged beside."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aesthete_gui.imaging.judging import ISO, PAIR, Sibling, values_of
from aesthete_gui.imaging.photo_units import exposures
from aesthete_gui.imaging.raw import is_raw_name

if TYPE_CHECKING:
    from aesthete_gui.store import ImageRecord

NOISE_MEASURES = ("noise", "noise.chroma", "noise.whiteness", "underexposure.median", ISO)
"""What judging a frame's noise reads (services/verdicts keeps them with the pair mark)."""


def camera_renderings(images: Iterable[ImageRecord]) -> dict[int, ImageRecord]:
    """Each RAW whose pair partner (the camera's JPEG, HEIF or TIFF of the same exposure, photo_units'
    rule) is among `images`: RAW id -> that partner."""
    by_path = {image.path: image for image in images}
    out: dict[int, ImageRecord] = {}
    for group in exposures(sorted(by_path)):
        raws = [p for p in group if is_raw_name(os.path.basename(p))]
        rendered = [p for p in group if not is_raw_name(os.path.basename(p))]
        if len(raws) == 1 and rendered:
            out[by_path[raws[0]].id] = by_path[rendered[0]]
    return out


def pair_siblings(
    images: Sequence[ImageRecord], stored: Mapping[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]],
    iso_of: Mapping[int, float],
) -> dict[int, Sibling]:
    """For each RAW of a pair, a PAIR sibling naming its camera rendering with that frame's noise
    measures (and the ISO recorded on either half: a RAW made by a converter may carry none)."""
    out: dict[int, Sibling] = {}
    for raw_id, partner in camera_renderings(images).items():
        if partner.id not in stored:
            continue
        values = values_of(stored[partner.id][0])
        iso = iso_of.get(partner.id, iso_of.get(raw_id))
        if iso is not None:
            values[ISO] = iso
        kept = tuple((k, float(values[k])) for k in NOISE_MEASURES if k in values and math.isfinite(float(values[k])))
        out[raw_id] = Sibling(PAIR, Path(partner.path).name, kept)
    return out
