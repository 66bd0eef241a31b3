"""The data the verdict models are fitted on: the fit pool's photographs and graded defects of them.

The fit pool is FIT_SPLITS: every split that has been looked at — the corpus's tune half, held and
held2 (looked at while the checks were tuned in earlier rounds), and held3, held4, held5 and held6 (each
run untouched once, then looked at) (benchmarks/corpus/README.md). held7 and held8 were each judged once,
untouched, then looked at, and are not fitted on, nor are held9, held10 and held11 (each judged once, untouched). For each photograph of a split (benchmarks/corpus.py) this makes, once,
into a cache folder:
its working copy (at most culling_data.WORK_SIDE, a camera-like JPEG, as the benchmark makes it) and
copies degraded at several strengths of each defect (milder than, at and beyond issue 21's moderate
level; smears at several angles so no model learns one direction). Each file is then measured by
the app's own checks (imaging/checks.py) and the measurements are kept in a JSON-lines table next to
the files, keyed by the measuring code's version, so refitting costs no decoding.

    python benchmarks/culling_fit_data.py [--split tune|held|held2|held3|held4|held5|held6] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import culling_data as data
from corpus import CorpusPhoto, default_cache, load_corpus
from PIL import Image

from aesthete_gui.imaging.checks import MEASURE_VERSION, analyse_path
from aesthete_gui.imaging.judging import values_of

FIT_SPLITS = ("tune", "held", "held2", "held3", "held4", "held5", "held6")
"""The splits the verdict models may be fitted on (not held7 or held8, each run once and looked at: the
models are those they measured; nor held9, held10 or held11, each judged once untouched)."""


def panned(img: Image.Image, fraction: float = 0.03) -> Image.Image:
    """A panning shot made of a photograph: an ellipse around the centre (the subject) kept sharp,
    everything around it streaked sideways by `fraction` of the width."""
    import numpy as np

    frame = np.asarray(img)
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    subject = (((yy - h / 2) / (h * 0.3)) ** 2 + ((xx - w / 2) / (w * 0.22)) ** 2) <= 1
    streaked = np.asarray(data.smear(img, fraction, angle_deg=0.0))
    return Image.fromarray(np.where(subject[..., None], frame, streaked).astype(np.uint8))


def reframed(img: Image.Image, share: float = 0.03) -> Image.Image:
    """The next frame of a burst, as near as a still photograph allows: the view moved and zoomed by
    `share` of the frame (cropped at the top left, enlarged back to the same size)."""
    left, top = round(img.width * share), round(img.height * share)
    return img.crop((left, top, img.width, img.height)).resize(img.size, Image.Resampling.LANCZOS)


@dataclass(frozen=True)
class Variant:
    """One degraded copy: its name, the defect it shows, its strength class and how it is made.

    `grade` is "mild" (below the moderate level: not labelled, reported only), "moderate" (issue
    21's level: must be caught), "strong" (beyond it: must be caught too) or "intent" (a scene
    shot that way on purpose: never to be suggested; reported, not fitted) or "sibling" (another
    frame of the same burst, clean: what the burst comparison must not flag)."""

    name: str
    defect: str
    grade: str
    make: Callable[[Image.Image], Image.Image]


VARIANTS: tuple[Variant, ...] = (
    Variant("noise-14", "noise", "mild", lambda i: data.noise(i, 14.0, seed=1)),
    Variant("noise-20", "noise", "mild", lambda i: data.noise(i, 20.0, seed=2)),
    Variant("noise-28", "noise", "moderate", lambda i: data.noise(i, 28.0)),
    Variant("noise-40", "noise", "strong", lambda i: data.noise(i, 40.0, seed=3)),
    Variant("smear-0.6", "smear", "mild", lambda i: data.smear(i, 0.006, angle_deg=70.0)),
    Variant("smear-0.9", "smear", "mild", lambda i: data.smear(i, 0.009, angle_deg=135.0)),
    Variant("smear-1.2", "smear", "moderate", lambda i: data.smear(i, 0.012)),
    Variant("smear-1.2-100", "smear", "moderate", lambda i: data.smear(i, 0.012, angle_deg=100.0)),
    Variant("smear-2.0", "smear", "strong", lambda i: data.smear(i, 0.02, angle_deg=160.0)),
    Variant("defocus-0.3", "defocus", "mild", lambda i: data.defocus(i, 0.003)),
    Variant("defocus-0.4", "defocus", "mild", lambda i: data.defocus(i, 0.004)),
    Variant("defocus-0.5", "defocus", "moderate", lambda i: data.defocus(i, 0.005)),
    Variant("defocus-0.8", "defocus", "strong", lambda i: data.defocus(i, 0.008)),
    Variant("ev+1", "over", "mild", lambda i: data.exposure(i, 2.0)),
    Variant("ev+1.5", "over", "mild", lambda i: data.exposure(i, 2.0**1.5)),
    Variant("ev+2", "over", "moderate", lambda i: data.exposure(i, 4.0)),
    Variant("ev+3", "over", "strong", lambda i: data.exposure(i, 8.0)),
    Variant("ev-1.5", "under", "mild", lambda i: data.exposure(i, 2.0**-1.5)),
    Variant("ev-2", "under", "mild", lambda i: data.exposure(i, 0.25)),
    Variant("ev-2.5", "under", "moderate", lambda i: data.exposure(i, 2.0**-2.5)),
    Variant("ev-3.5", "under", "strong", lambda i: data.exposure(i, 2.0**-3.5)),
    Variant("panning", "intent", "intent", panned),
    Variant("reframed", "sibling", "sibling", reframed),
)  # fmt: skip


def fit_cache(split: str, cache: Path | None = None) -> Path:
    """The folder the degraded copies and their measurements of one half are kept in."""
    return (cache or default_cache().parent) / "fit" / split


def make_copies(photo: CorpusPhoto, folder: Path) -> dict[str, Path]:
    """The working copy and every variant of one clean photograph (made once, kept on disk)."""
    out = {"original": folder / photo.id / "original.jpg"}
    out |= {v.name: folder / photo.id / f"{v.name}.jpg" for v in VARIANTS}
    if all(p.is_file() for p in out.values()):
        return out
    (folder / photo.id).mkdir(parents=True, exist_ok=True)
    img = photo.open()
    if max(img.size) > data.WORK_SIDE:
        img = data.downscale(img, data.WORK_SIDE)
    if not out["original"].is_file():
        img.save(out["original"], quality=data.CAMERA_QUALITY)
    for variant in VARIANTS:
        if not out[variant.name].is_file():
            variant.make(img).save(out[variant.name], quality=data.CAMERA_QUALITY)
    return out


@dataclass
class Row:
    """One measured file: the photograph, the variant ("shipped", "original" or a Variant name),
    the photograph's label and scene kinds, and the measurements (judging.values_of form)."""

    photo: str
    variant: str
    label: str
    scene: tuple[str, ...]
    group: str
    values: dict[str, float]
    why: str = ""

    @property
    def defect(self) -> str:
        return next((v.defect for v in VARIANTS if v.name == self.variant), "")

    @property
    def grade(self) -> str:
        return next((v.grade for v in VARIANTS if v.name == self.variant), "")


def _values(path: Path) -> dict[str, float]:
    analysis = analyse_path(path)
    return values_of([c.as_dict() for c in analysis.checks], len(analysis.faces))


def code_version() -> str:
    """MEASURE_VERSION and a digest of the measuring code (so a change while fitting measures again)."""
    import hashlib

    from aesthete_gui.imaging import checks, noise, sharpness, tones

    digest = hashlib.sha256()
    for module in (checks, sharpness, tones, noise):
        digest.update(Path(module.__file__ or "").read_bytes())
    return f"{MEASURE_VERSION}-{digest.hexdigest()[:10]}"


def _table(folder: Path, version: str) -> Path:
    return folder / f"measured-{version}.jsonl"


def measure_all(split: str = "tune", cache: Path | None = None, version: str | None = None, progress: bool = True) -> list[Row]:
    """Every photograph of the half as shipped, and its working copy and variants when it is clean,
    measured (read back from the table when this measuring version already measured them)."""
    folder = fit_cache(split, cache)
    folder.mkdir(parents=True, exist_ok=True)
    table = _table(folder, version or code_version())
    done: dict[tuple[str, str], dict[str, float]] = {}
    if table.is_file():
        for line in table.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            done[(entry["photo"], entry["variant"])] = {k: (math.nan if v is None else v) for k, v in entry["values"].items()}
    rows: list[Row] = []
    started = time.monotonic()
    with table.open("a", encoding="utf-8") as out:
        for n, photo in enumerate(load_corpus(split)):
            files: dict[str, Path] = {"shipped": photo.file}  # type: ignore[dict-item]
            if photo.label == "clean":
                files |= make_copies(photo, folder)
            for variant, path in files.items():
                key = (photo.id, variant)
                if key not in done:
                    done[key] = _values(path)
                    clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in done[key].items()}
                    out.write(json.dumps({"photo": photo.id, "variant": variant, "values": clean}) + "\n")
                rows.append(Row(photo.id, variant, photo.label, photo.scene, photo.group, done[key], photo.why))
            out.flush()
            if progress:
                print(f"  {n + 1} {photo.id} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    return rows


def clean_rows(rows: list[Row]) -> Iterator[Row]:
    """The clean photographs as shipped and their working copies (the negatives of every model)."""
    return (r for r in rows if r.label == "clean" and r.variant in ("shipped", "original"))


def main() -> None:
    """Make the copies and measure them (idempotent: only what is missing is done)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tune", choices=FIT_SPLITS, help="only the fit pool's splits are ever fitted on")
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    rows = measure_all(args.split, args.cache)
    print(f"{len(rows)} rows measured (measuring version {code_version()})")


if __name__ == "__main__":
    main()
