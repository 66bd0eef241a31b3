"""A small real library for taste/scoring/distill tests: varied photos written to disk and imported."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from aesthete_gui.store import Profile, open_profile


def write_photos(folder: Path, count: int = 24, seed: int = 0) -> list[Path]:
    """`count` distinct images: blocks of colour at varied brightness, saturation and blur."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        blocks = rng.integers(0, 255, (6 + index % 5, 8 + index % 7, 3))
        image = np.kron(blocks, np.ones((24, 24, 1)))[:144, :192]
        brightness = 0.4 + 1.2 * index / count
        image = np.clip(image * brightness, 0, 255).astype(np.uint8)
        picture = Image.fromarray(image).filter(ImageFilter.GaussianBlur(0.5 + 3 * (index % 4)))
        path = folder / f"photo_{index:02d}.jpg"
        picture.save(path, quality=90)
        paths.append(path)
    return paths


def brightness_taste(profile: Profile) -> dict[str, float]:
    """A simulated user who likes bright images: utility per stored path."""
    taste = {}
    for record in profile.catalog.images(status="ok"):
        with Image.open(record.path) as image:
            taste[record.path] = float(np.asarray(image.convert("L")).mean())
    return taste


def build_profile(root: Path, count: int = 24) -> Path:
    """Import `count` photos (with image properties and cached embeddings) into root/profile.db."""
    from aesthete_gui.services.library import import_folders
    from aesthete_gui.services.scoring import library_arrays

    write_photos(root / "photos", count)
    path = root / "profile.db"
    profile = open_profile(path)
    try:
        import_folders(profile, [root / "photos"], features=True, workers=1, cache_dir=root / "thumbs")
        # the synthetic pictures are smooth, so the focus check calls them soft; these tests are about
        # taste, so the library starts with every suggested reject dismissed (all comparable)
        profile.checks.dismiss_suggestions(profile.checks.suggested_rejects())
        library_arrays(profile)  # embeddings cached in the model folder, copied with the profile
    finally:
        profile.close()
    return path


def copy_profile(template: Path, target: Path) -> Path:
    """Copy a built profile (database, photos and model folder) so a test can change it freely."""
    shutil.copytree(template, target, dirs_exist_ok=True)
    return target / "profile.db"
