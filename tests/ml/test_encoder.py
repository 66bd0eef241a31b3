"""Image encoders: the built-in EfficientNet-Lite0 (real ImageNet weights) and tiny SigLIP / CLIP towers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import skimage.data
import torch
from PIL import Image

from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.ml.encoder import BUILTIN_ID, builtin_weights_path, load_encoder


@pytest.fixture(scope="module")
def builtin():
    return load_encoder()


@pytest.fixture(scope="module")
def real_photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("real")
    paths = {}
    for name in ("chelsea", "coffee", "astronaut"):
        path = folder / f"{name}.jpg"
        Image.fromarray(getattr(skimage.data, name)()).convert("RGB").save(path, quality=92)
        paths[name] = str(path)
    return paths


def test_builtin_weights_classify_real_photos(builtin, real_photos: dict[str, str]) -> None:
    from aesthete_gui.ml.encoder import BUILTIN_INPUT_SIZE, _square_rgb
    from aesthete_gui.ml.images import load_rgb

    assert builtin_weights_path().name == "efficientnet-lite0-57934424.pth"
    images = [load_rgb(real_photos[n]) for n in ("chelsea", "coffee")]
    batch = np.stack([_square_rgb(i, BUILTIN_INPUT_SIZE) for i in images])
    tensor = (torch.from_numpy(batch).permute(0, 3, 1, 2) - 0.5) / 0.5
    tensor = tensor.to(builtin.device, dtype=builtin.dtype, memory_format=builtin.memory_format)
    with torch.no_grad():
        top = builtin.model(tensor).argmax(dim=1).tolist()
    assert top[0] in (281, 282, 285)  # tabby / tiger / Egyptian cat
    assert top[1] == 967  # espresso


def test_builtin_embeddings_shape_order_and_meaning(builtin, real_photos: dict[str, str], tmp_path: Path) -> None:
    assert load_encoder("builtin").encoder_id == BUILTIN_ID
    flipped = tmp_path / "chelsea_flipped.png"
    Image.open(real_photos["chelsea"]).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(flipped)
    paths = [real_photos["chelsea"], real_photos["coffee"], str(flipped), real_photos["astronaut"]]
    seen: list[Progress] = []
    embeddings = builtin.encode_paths(paths, batch_size=3, progress=seen.append)
    assert embeddings.shape == (4, 1280)
    assert embeddings.dtype == np.float32
    assert [p.done for p in seen] == [3, 4]
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    similarity = unit @ unit.T
    # The mirrored cat is closer to the cat than the coffee or the astronaut are.
    assert similarity[0, 2] > similarity[0, 1]
    assert similarity[0, 2] > similarity[0, 3]
    single = builtin.encode_paths(paths[:1])
    # bf16 on CUDA: a batch of one runs other kernels than a batch of three.
    tolerance = 1e-4 if builtin.dtype == torch.float32 else 2e-2
    np.testing.assert_allclose(single[0], embeddings[0], rtol=tolerance, atol=tolerance)


def test_unreadable_images_give_nan_rows_with_reasons(builtin, real_photos: dict[str, str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    embeddings = builtin.encode_paths([str(empty), real_photos["coffee"]])
    assert np.isnan(embeddings[0]).all()
    assert np.isfinite(embeddings[1]).all()
    assert list(builtin.last_errors) == [0]
    assert "empty.jpg" in builtin.last_errors[0]


def test_cancel_between_batches(builtin, real_photos: dict[str, str]) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        builtin.encode_paths(list(real_photos.values()), cancel=token)
    with pytest.raises(ValueError):
        builtin.encode_paths([], batch_size=0)


def test_siglip_and_clip_towers(tiny_siglip_dir: Path, tiny_clip_dir: Path, photo_paths: list[str]) -> None:
    siglip = load_encoder(tiny_siglip_dir)
    clip = load_encoder(str(tiny_clip_dir))
    assert siglip.encoder_id == f"hf:{tiny_siglip_dir.name}"
    a = siglip.encode_paths(photo_paths[:3], batch_size=2)
    b = clip.encode_paths(photo_paths[:3])
    assert a.shape == (3, 32)
    assert b.shape == (3, 24)  # CLIP's projected embedding, not the hidden size
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert not np.allclose(a[0], a[1])


def test_bf16_channels_last_on_the_gpu_matches_float32(real_photos: dict[str, str]) -> None:
    """The encoder's fast layout and precision change embeddings by bf16 rounding only."""
    from aesthete_gui.ml.encoder import BuiltinEncoder
    from aesthete_gui.ml.images import load_rgb

    images = [load_rgb(p) for p in real_photos.values()]
    reference = BuiltinEncoder("cpu").encode_images(images)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    fast = BuiltinEncoder(device)
    got = fast.encode_images(images)
    if fast.dtype == torch.float32:
        assert np.linalg.norm(got - reference) <= 1e-5 * np.linalg.norm(reference)
        return
    # bf16 keeps 8 bits of mantissa: over the network's depth the embeddings move by a few percent of
    # their length (3.9 % measured on an H200) while their direction stays within a few degrees
    cosine = (got * reference).sum(axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(reference, axis=1))
    assert cosine.min() >= 0.995
    assert np.linalg.norm(got - reference) <= 0.08 * np.linalg.norm(reference)
