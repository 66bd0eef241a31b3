"""Build a trial shoot from a held-out split of the corpus: a folder laid out the way a camera card looks.

About 150-200 frames named IMG_0001.JPG…, 2,000-3,000 px JPEGs with camera EXIF (capture time with
sub-seconds, ISO, exposure): single frames, bursts of 4-11 frames made from one photograph by small
shifts and crops with some frames blurred, noisy high-ISO frames (σ 28, ISO 25600), under- and
over-exposed frames, smeared and defocused frames, resized and recompressed copies beside their
originals (one PNG), an exposure bracket (-2/0/+2 EV, a second apart, ExposureBiasValue), a RAW+JPEG
pair (a DNG made from the photograph), the corpus's genuinely flawed held frames, a truncated JPEG
and a .MOV stub. `truth.json` says what each file is and what a photographer expects of it.

    python benchmarks/trial_shoot.py OUT_DIR [--split held16 [--split held15]] [--cache DIR] [--seed 7]

held16 (the default) is the untouched split; held7 to held15 were run and looked at, every other split is fitted on
(benchmarks/culling_fit_data.py), so a shoot of them is no longer a trial of material the checks never
saw. The tune half is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from PIL import Image
from PIL.TiffImagePlugin import IFDRational

sys.path.insert(0, str(Path(__file__).resolve().parent))
import culling_data as degrade
from corpus import CorpusPhoto, load_corpus

START = datetime(2026, 6, 14, 9, 0, 0)
MAKE, MODEL = "Canon", "Canon EOS R6"
NOISE_SIGMA, NOISE_ISO = 28.0, 25600
UNDER_EV, OVER_EV = -2.5, 2.0
SMEAR, DEFOCUS = 0.012, 0.005  # of the frame's width
MOV_STUB = b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00qt  \x00\x00\x00\x08wide\x00\x00\x00\x08mdat"


def smear(img: Image.Image, length: int, angle_deg: float) -> Image.Image:
    """Camera shake: the mean of `length` copies shifted along a line at `angle_deg` (fast for long smears)."""
    rgb = np.asarray(img, dtype=np.float32)
    pad = length
    padded = np.pad(rgb, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    acc = np.zeros_like(rgb)
    for t in np.linspace(-(length - 1) / 2, (length - 1) / 2, length):
        dx, dy = round(t * np.cos(np.radians(angle_deg))), round(-t * np.sin(np.radians(angle_deg)))
        acc += padded[pad + dy : pad + dy + rgb.shape[0], pad + dx : pad + dx + rgb.shape[1]]
    return Image.fromarray(np.clip(np.rint(acc / length), 0, 255).astype(np.uint8))


def defocus(img: Image.Image, diameter: float) -> Image.Image:
    """Missed focus: a disc (lens aperture) blur of `diameter` pixels."""
    from scipy.signal import fftconvolve

    r = max(diameter / 2, 0.5)
    n = int(np.ceil(r))
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    disc = (xx**2 + yy**2 <= r * r).astype(np.float64)
    disc /= disc.sum()
    rgb = np.asarray(img, dtype=np.float64)
    padded = np.pad(rgb, ((n, n), (n, n), (0, 0)), mode="edge")
    out = np.stack([fftconvolve(padded[..., c], disc, mode="valid") for c in range(3)], axis=2)
    return Image.fromarray(np.clip(np.rint(out), 0, 255).astype(np.uint8))


def exif_for(when: datetime, iso: int = 200, bias: float | None = None, shutter: tuple[int, int] = (1, 250)) -> Image.Exif:
    """Camera-like EXIF: make, model, capture time with sub-seconds, ISO, exposure and (for brackets) bias."""
    exif = Image.Exif()
    exif[0x010F], exif[0x0110], exif[0x0131] = MAKE, MODEL, "aesthete benchmarks/trial_shoot.py"
    exif[0x0132] = when.strftime("%Y:%m:%d %H:%M:%S")
    ifd = exif.get_ifd(0x8769)
    ifd[0x9003] = ifd[0x9004] = when.strftime("%Y:%m:%d %H:%M:%S")
    ifd[0x9291] = f"{when.microsecond // 10000:02d}"
    ifd[0x8827] = iso
    ifd[0x829A] = IFDRational(*shutter)
    ifd[0x829D] = IFDRational(40, 10)
    if bias is not None:
        ifd[0x9204] = IFDRational(round(bias * 3), 3)
    return exif


def write_dng(img: Image.Image, path: Path, when: datetime) -> None:
    """A small but real DNG (RGGB mosaic, 12-bit, linear) of `img`, readable by LibRaw."""
    import tifffile

    srgb = np.asarray(img, dtype=np.float64) / 255.0
    lin = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    h, w = (lin.shape[0] // 2) * 2, (lin.shape[1] // 2) * 2
    cfa = np.empty((h, w))
    cfa[0::2, 0::2], cfa[0::2, 1::2] = lin[0:h:2, 0:w:2, 0], lin[0:h:2, 1:w:2, 1]
    cfa[1::2, 0::2], cfa[1::2, 1::2] = lin[1:h:2, 0:w:2, 1], lin[1:h:2, 1:w:2, 2]
    white = 4095
    xyz_to_srgb = (3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570)
    matrix = [v for m in xyz_to_srgb for v in (round(m * 10000), 10000)]
    stamp = when.strftime("%Y:%m:%d %H:%M:%S")
    tags = [
        (50706, "B", 4, (1, 4, 0, 0), True), (50707, "B", 4, (1, 1, 0, 0), True),
        (50708, "s", 0, f"{MAKE} {MODEL} (trial)", True), (33421, "H", 2, (2, 2), True),
        (33422, "B", 4, (0, 1, 1, 2), True), (50721, "2i", 9, matrix, True), (50778, "H", 1, 21, True),
        (50728, "2I", 3, (1, 1, 1, 1, 1, 1), True), (50717, "I", 1, white, True), (50714, "H", 1, 0, True),
        (271, "s", 0, MAKE, True), (272, "s", 0, MODEL, True), (306, "s", 0, stamp, True),
    ]  # fmt: skip
    data = np.clip(np.rint(cfa * white), 0, white).astype(np.uint16)
    tifffile.imwrite(path, data, photometric=32803, extratags=tags, metadata=None, subfiletype=0)


class Shoot:
    """Numbers files, keeps the capture clock and records the truth of each frame."""

    def __init__(self, out: Path, rng: np.random.Generator, progress: Callable[[str], None]) -> None:
        self.out, self.rng, self.progress = out, rng, progress
        self.number, self.clock, self.frames = 0, START, []  # type: ignore[var-annotated]

    def name(self, ext: str = ".JPG") -> str:
        self.number += 1
        return f"IMG_{self.number:04d}{ext}"

    def tick(self, low: float, high: float) -> datetime:
        self.clock += timedelta(seconds=float(self.rng.uniform(low, high)))
        return self.clock.replace(microsecond=(self.clock.microsecond // 10000) * 10000)

    def save(self, img: Image.Image, when: datetime, truth: dict[str, object], *, name: str | None = None,
             iso: int = 200, bias: float | None = None, quality: int = 92) -> str:  # fmt: skip
        name = name or self.name()
        exif = exif_for(when, iso=iso, bias=bias)
        if name.lower().endswith(".png"):
            img.save(self.out / name, exif=exif)
        else:
            img.save(self.out / name, quality=quality, exif=exif)
        self.frames.append({"file": name, "captured": when.isoformat(timespec="milliseconds"), "size": list(img.size), **truth})
        self.progress(name)
        return name


def _fit(photo: CorpusPhoto, rng: np.random.Generator, long_side: tuple[int, int]) -> Image.Image:
    """The photograph at a random long side in `long_side`, never enlarged by more than 15 %."""
    img = photo.open()
    side = min(int(rng.integers(long_side[0], long_side[1] + 1)), round(max(img.size) * 1.15))
    scale = side / max(img.size)
    return img.resize((round(img.width * scale), round(img.height * scale)), Image.Resampling.LANCZOS)


def _burst(shoot: Shoot, photo: CorpusPhoto, img: Image.Image, size: int, tag: str) -> None:
    """`size` frames 1/8 s apart: small drifts of a crop window and zoom; one to three frames blurred."""
    w, h = img.size
    out = (round(w * 0.93), round(h * 0.93))  # a camera's frames of one burst are all one size
    blurred = set(shoot.rng.choice(np.arange(1, size), size=int(shoot.rng.integers(1, min(3, size - 1) + 1)), replace=False).tolist())
    when = shoot.tick(20, 90)
    for i in range(size):
        keep = 0.94 - 0.02 * float(shoot.rng.random())
        cw, ch = round(w * keep), round(h * keep)
        x = int(np.clip((w - cw) / 2 + shoot.rng.normal(0, w * 0.01) * i ** 0.5, 0, w - cw))
        y = int(np.clip((h - ch) / 2 + shoot.rng.normal(0, h * 0.01) * i ** 0.5, 0, h - ch))
        frame = img.crop((x, y, x + cw, y + ch)).resize(out, Image.Resampling.LANCZOS)
        cw = out[0]
        kind, detail = "burst frame", f"crop at ({x}, {y}), {keep:.0%} of the frame"
        if i in blurred:
            if shoot.rng.random() < 0.5:
                frame, detail = smear(frame, max(3, round(cw * SMEAR)), float(shoot.rng.uniform(0, 180))), detail + f"; shake {SMEAR:.1%} of width"
            else:
                frame, detail = defocus(frame, cw * DEFOCUS), detail + f"; defocus {DEFOCUS:.1%} of width"
            kind = "burst frame, blurred"
        shoot.save(frame, when + timedelta(milliseconds=125 * i), {
            "kind": kind, "source": photo.id, "scene": list(photo.scene), "burst": tag, "detail": detail,
            "expected": "reject" if i in blurred else "keep (one of a burst: the sharpest is its best)",
        })  # fmt: skip


def build_shoot(photos: list[CorpusPhoto], out: Path, seed: int = 7, long_side: tuple[int, int] = (2000, 3000),
                progress: Callable[[str], None] = lambda _name: None, min_side: int = 1900) -> list[dict[str, object]]:  # fmt: skip
    """Write the trial shoot of `photos` (held-out photographs) into the empty folder `out`; the truth of each file.
    Frames are made from the clean photographs of at least `min_side` px (never enlarged by more than 15 %)."""
    if any(p.split == "tune" for p in photos):
        raise ValueError("a trial shoot is built from held-out photographs only, never the tune half")
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: a trial shoot goes into a new folder")
    rng = np.random.default_rng(seed)
    shoot = Shoot(out, rng, progress)
    clean = [p for p in photos if p.label == "clean"]
    big = sorted((p for p in clean if max(p.width, p.height) >= min_side), key=lambda p: p.id)
    if len(big) < 4:
        raise ValueError(f"only {len(big)} clean photographs of {min_side} px or more: lower --min-side")
    order = [big[i] for i in rng.permutation(len(big))]
    skies = [p for p in order if "sky" in p.scene]
    bracket_src = skies[0] if skies else order[0]
    order.remove(bracket_src)
    raw_src = order.pop()
    motion_first = sorted(order, key=lambda p: not ({"animal", "action", "people", "sport"} & set(p.scene)))
    n_bursts = min(10, max(1, len(order) // 3))
    bursts, singles = motion_first[:n_bursts], [p for p in order if p not in motion_first[:n_bursts]]
    variants = {k: [singles[i] for i in rng.permutation(len(singles))][:n] for k, n in
                (("noise", 12), ("under", 8), ("over", 8), ("smear", 8), ("defocus", 8), ("copy", 7))}  # fmt: skip
    sizes = [int(s) for s in rng.permutation([4, 5, 6, 7, 8, 9, 10, 11, 6, 7])[:n_bursts]]
    queue: list[tuple[str, CorpusPhoto]] = [("burst", p) for p in bursts] + [("single", p) for p in singles]
    queue = [queue[i] for i in rng.permutation(len(queue))] + [("bracket", bracket_src), ("raw", raw_src)]
    for n, (what, photo) in enumerate(queue):
        img = _fit(photo, rng, long_side)
        base = {"source": photo.id, "scene": list(photo.scene)}
        if what == "burst":
            _burst(shoot, photo, img, sizes.pop(0), f"B{n + 1:02d}")
            continue
        if what == "bracket":
            when = shoot.tick(60, 120)
            for i, ev in enumerate((-2.0, 0.0, 2.0)):
                shoot.save(degrade.exposure(img, 2.0**ev), when + timedelta(seconds=i), {
                    **base, "kind": "exposure bracket", "bracket": "E1", "ev": ev,
                    "expected": "keep all (a bracket is one set, never suggested as rejects)"}, bias=ev)  # fmt: skip
            continue
        if what == "raw":
            when = shoot.tick(30, 90)
            name = shoot.name("")
            write_dng(img, out / f"{name}.DNG", when)
            shoot.frames.append({"file": f"{name}.DNG", "captured": when.isoformat(timespec="milliseconds"),
                                 "size": [img.width // 2 * 2, img.height // 2 * 2], **base, "kind": "RAW of a RAW+JPEG pair",
                                 "pair": f"{name}.JPG", "expected": "keep: one photograph with its JPEG"})  # fmt: skip
            shoot.save(img, when, {**base, "kind": "JPEG of a RAW+JPEG pair", "pair": f"{name}.DNG",
                                   "expected": "keep: one photograph with its RAW"}, name=f"{name}.JPG")  # fmt: skip
            continue
        when = shoot.tick(15, 120)
        original = shoot.save(img, when, {**base, "kind": "original", "expected": "keep"})
        w = img.width
        if photo in variants["noise"]:
            shoot.save(degrade.noise(img, NOISE_SIGMA, seed=n), shoot.tick(2, 6), {**base, "kind": "high-ISO noise", "of": original,
                       "detail": f"Gaussian noise σ {NOISE_SIGMA:g} per channel", "expected": "reject; ranks below its clean frame"}, iso=NOISE_ISO)  # fmt: skip
        for kind, ev in (("under", UNDER_EV), ("over", OVER_EV)):
            if photo in variants[kind]:
                shoot.save(degrade.exposure(img, 2.0**ev), shoot.tick(2, 6), {**base, "kind": f"{kind}-exposed", "of": original,
                           "detail": f"{ev:+g} EV", "expected": "reject; ranks below its clean frame"})  # fmt: skip
        if photo in variants["smear"]:
            shoot.save(smear(img, round(w * SMEAR), float(rng.uniform(0, 180))), shoot.tick(2, 6), {**base, "kind": "camera shake",
                       "of": original, "detail": f"smear {SMEAR:.1%} of width", "expected": "reject"})  # fmt: skip
        if photo in variants["defocus"]:
            shoot.save(defocus(img, w * DEFOCUS), shoot.tick(2, 6), {**base, "kind": "missed focus", "of": original,
                       "detail": f"disc blur {DEFOCUS:.1%} of width", "expected": "reject"})  # fmt: skip
        if photo in variants["copy"]:
            k = variants["copy"].index(photo)
            stem = original.rsplit(".", 1)[0]
            if k == 0:
                copy, name, detail = img, f"{stem}.png", "PNG copy, same pixels"
            elif k % 2:
                copy, name, detail = img.resize((w // 2, img.height // 2), Image.Resampling.LANCZOS), f"{stem}_small.JPG", "half size, quality 80"
            else:
                s = min(1200, 0.6 * max(img.size)) / max(img.size)  # a web copy is never larger than its original
                size = (round(w * s), round(img.height * s))
                copy, name, detail = img.resize(size, Image.Resampling.LANCZOS), f"{stem}_web.JPG", f"{max(size)} px, quality 80"
            shoot.save(copy, when, {**base, "kind": "resized or recompressed copy", "of": original, "detail": detail,
                                    "expected": "copy: never chosen over its original"}, name=name, quality=80)  # fmt: skip
    for photo in sorted((p for p in photos if p.label == "reject"), key=lambda p: p.id):
        shoot.save(photo.open(), shoot.tick(30, 90), {"source": photo.id, "scene": list(photo.scene), "kind": "flawed as shipped",
                                            "detail": photo.why, "expected": "reject"})  # fmt: skip
    broken = shoot.save(_fit(singles[0] if singles else raw_src, rng, long_side), shoot.tick(10, 30),
                        {"kind": "truncated file", "detail": "cut to 40 % of its bytes", "expected": "error: cannot be read"})  # fmt: skip
    data = (out / broken).read_bytes()
    (out / broken).write_bytes(data[: len(data) * 2 // 5])
    movie = shoot.name(".MOV")
    (out / movie).write_bytes(MOV_STUB)
    shoot.frames.append({"file": movie, "kind": "video stub", "expected": "skipped (not a photograph)"})
    return shoot.frames


_MIN_SIDE = {"held3": 700, "held4": 700, "held10": 800, "held11": 800, "held12": 800, "held13": 800, "held14": 600, "held15": 700,
             **dict.fromkeys(("held5", "held6", "held7", "held8", "held9"), 1200)}
"""Least long side of the photographs a split's frames are made from (default 1900): most of held3's are
720 px, held4 has 52 photographs, held10 to held13 are mostly under 1200 px, a third of held14's under 700, and four of
held15's."""


def main(argv: list[str] | None = None) -> int:
    """Build the shoot into OUT_DIR and write truth.json beside the frames."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a new, empty folder")
    parser.add_argument("--cache", type=Path, default=None, help="corpus cache folder (default: the user cache)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--split", action="append", choices=["held16", "held15", "held14", "held13", "held12", "held11", "held10", "held9", "held8", "held7", "held6", "held5", "held4",
                                                           "held3", "held2", "held"],
                        help="the held-out split to build it from (given twice or more: their photographs together; default held16)")  # fmt: skip
    parser.add_argument("--min-side", type=int, default=None,
                        help="least long side of the photographs frames are made from (default: the split's, _MIN_SIDE)")
    args = parser.parse_args(argv)
    splits = args.split or ["held16"]
    min_side = args.min_side or min(_MIN_SIDE.get(split, 1900) for split in splits)
    photos = [photo for split in splits for photo in load_corpus(split, args.cache)]
    if not photos:
        print(f"error: no {'/'.join(splits)} photographs in the cache: run benchmarks/corpus_fetch.py --split SPLIT", file=sys.stderr)
        return 2
    try:
        frames = build_shoot(photos, args.out, args.seed, progress=lambda name: print(name, end=" ", flush=True), min_side=min_side)
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    (args.out / "truth.json").write_text(json.dumps({"made_by": "benchmarks/trial_shoot.py", "seed": args.seed,
                                                     "frames": frames}, indent=1), encoding="utf-8")  # fmt: skip
    print(f"\n{len(frames)} files and truth.json in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
