"""Faces and eyes: the shipped networks on real portraits (scikit-image's astronaut, matplotlib's Grace
Hopper), the decoding and suppression steps, the eye decision on mesh points, and the missing extra."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFilter
from skimage import data as skdata

from aesthete_gui.imaging import face_models, faces
from aesthete_gui.imaging.checks import analyse_path


@pytest.fixture
def fresh_networks() -> Iterator[None]:
    face_models.reset()
    yield
    face_models.reset()


def _astronaut() -> Image.Image:
    return Image.fromarray(skdata.astronaut())


def _grace_hopper() -> Image.Image:
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"
    with Image.open(path) as img:
        return img.convert("RGB")


def test_without_the_interpreter_faces_are_unavailable_and_say_what_to_install(
    monkeypatch: pytest.MonkeyPatch, fresh_networks: None, tmp_path: Path
) -> None:
    # As if the optional package were not installed: its import fails.
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    assert not faces.faces_available()
    assert faces.unavailable_reason() == faces.INSTALL_HINT
    assert faces.unavailable_reason().startswith("face checks unavailable: install")
    assert faces.detect_faces(_astronaut()) == []
    path = tmp_path / "astronaut.png"
    _astronaut().save(path)
    analysis = analyse_path(path)
    assert analysis.faces == [] and "+faces" not in analysis.version


def test_missing_weights_mean_unavailable_not_a_failed_import(
    monkeypatch: pytest.MonkeyPatch, fresh_networks: None, tmp_path: Path
) -> None:
    monkeypatch.setattr(face_models, "LANDMARK_FILE", "no_such_network.tflite")
    reason = faces.unavailable_reason()
    assert reason is not None and reason.startswith("face checks unavailable: the face networks")
    assert "no_such_network.tflite" in reason
    path = tmp_path / "astronaut.png"
    _astronaut().save(path)
    assert analyse_path(path).faces == []


@pytest.mark.parametrize("portrait", ["astronaut", "grace_hopper"])
def test_portrait_face_found_with_open_eyes(portrait: str, fresh_networks: None) -> None:
    img = _astronaut() if portrait == "astronaut" else _grace_hopper()
    found = faces.detect_faces(img)
    assert len(found) == 1
    x, y, w, h = found[0].box
    assert 0.2 < x + w / 2 < 0.8 and 0.1 < y + h / 2 < 0.6 and 0.1 < w < 0.6 and 0.1 < h < 0.6
    assert found[0].eyes == "open"
    assert found[0].openness is not None and min(found[0].openness) >= faces.OPEN_FROM
    stored = found[0].as_dict()
    assert stored["eyes"] == "open" and len(stored["box"]) == 4 and len(stored["openness"]) == 2


def test_a_tilted_head_is_turned_upright_before_the_eyes_are_measured(fresh_networks: None) -> None:
    tilted = _grace_hopper().rotate(35, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=(90, 90, 90))
    found = faces.detect_faces(tilted)
    assert len(found) == 1 and found[0].eyes == "open"


def test_two_people_two_faces_largest_first(fresh_networks: None) -> None:
    # Head-and-shoulders crops side by side: each face spans about a fifth of the frame.
    pair = Image.new("RGB", (840, 400), (40, 40, 40))
    pair.paste(_astronaut().crop((110, 10, 340, 240)).resize((380, 380)), (0, 10))
    pair.paste(_grace_hopper().crop((120, 80, 410, 370)).resize((380, 380)), (450, 10))
    found = faces.detect_faces(pair)
    assert len(found) == 2
    assert found[0].box[2] * found[0].box[3] >= found[1].box[2] * found[1].box[3]
    assert sorted(round(f.box[0] + f.box[2] / 2) for f in found) == [0, 1]  # one per half
    assert all(f.eyes == "open" for f in found)


def test_threads_sharing_the_networks_get_the_same_faces(fresh_networks: None) -> None:
    from concurrent.futures import ThreadPoolExecutor

    images = [_astronaut(), _grace_hopper()] * 4
    alone = [faces.detect_faces(img) for img in images]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(faces.detect_faces, images))
    assert together == alone and all(len(f) == 1 for f in together)


@pytest.mark.parametrize("name", ["coffee", "rocket", "chelsea", "brick"])
def test_no_face_in_photographs_without_people(name: str, fresh_networks: None) -> None:
    assert faces.detect_faces(Image.fromarray(getattr(skdata, name)()).convert("RGB")) == []


def test_a_face_too_small_to_see_its_lids_is_found_with_eyes_unknown(fresh_networks: None) -> None:
    small = _astronaut().resize((150, 150), Image.Resampling.LANCZOS)  # the face is ~30 px wide
    found = faces.detect_faces(small)
    assert len(found) == 1 and found[0].eyes == "unknown"


def test_focus_is_judged_on_the_eyes_of_the_face(tmp_path: Path, fresh_networks: None) -> None:
    path = tmp_path / "portrait.png"
    _astronaut().save(path)
    analysis = analyse_path(path)
    assert len(analysis.faces) == 1 and 2.0 < analysis.faces[0].sharpness < 3.0  # edge spread of the eyes band
    focus = next(c for c in analysis.checks if c.name == "focus")
    assert focus.value == pytest.approx(analysis.faces[0].sharpness)
    assert focus.verdict == "ok" and focus.reason.startswith("the face sharp")
    assert analysis.version.endswith("+faces")
    # a blurred face is soft even when a sharp background is left around it
    frame = np.asarray(_astronaut()).copy()
    x, y, w, h = (round(v * 512) for v in analysis.faces[0].box)
    frame[y: y + h, x: x + w] = np.asarray(Image.fromarray(frame[y: y + h, x: x + w]).filter(ImageFilter.GaussianBlur(2.5)))
    soft_path = tmp_path / "soft_face.png"
    Image.fromarray(frame).save(soft_path)
    soft = next(c for c in analyse_path(soft_path).checks if c.name == "focus")
    assert soft.verdict == "reject" and soft.reason.startswith("the face is soft")


def _mouth_mesh(mouth_width: float, lip_gap: float, eye_span: float = 100.0) -> np.ndarray:
    """Mesh points with only the eye corners and the mouth placed (as the landmark network gives them)."""
    points = np.zeros((468, 3))
    points[faces.EYE_CORNERS[0], :2] = (50.0, 80.0)
    points[faces.EYE_CORNERS[1], :2] = (50.0 + eye_span, 80.0)
    centre = 50.0 + eye_span / 2
    points[faces.MOUTH_CORNERS[0], :2] = (centre - mouth_width / 2, 150.0)
    points[faces.MOUTH_CORNERS[1], :2] = (centre + mouth_width / 2, 150.0)
    points[faces.INNER_LIPS[0], :2] = (centre, 150.0 - lip_gap / 2)
    points[faces.INNER_LIPS[1], :2] = (centre, 150.0 + lip_gap / 2)
    return points


@pytest.mark.parametrize(
    ("width", "gap", "expression"),
    [(55.0, 2.0, None), (52.0, 20.0, None), (68.0, 6.0, "smiling"), (68.0, 20.0, "laughing"), (38.0, 1.0, "kissing")],
    ids=["neutral", "talking", "smiling", "laughing", "kissing"],
)
def test_the_mouth_tells_a_smile_a_laugh_and_a_kiss(width: float, gap: float, expression: str | None) -> None:
    shape = faces.mouth_shape(_mouth_mesh(width, gap))
    assert shape == pytest.approx((width / 100.0, gap / width))
    assert faces.expression_of(shape) == expression


def test_the_portraits_smile_and_the_expression_is_stored(fresh_networks: None) -> None:
    found = faces.detect_faces(_astronaut())
    assert found[0].expression == "smiling"
    stored = found[0].as_dict()
    assert stored["expression"] == "smiling" and len(stored["mouth"]) == 2
    assert faces.detect_faces(_grace_hopper())[0].expression is None


def test_anchors_follow_the_detector_output_order() -> None:
    anchors = face_models._anchors(face_models.DETECTOR_SIDE, face_models.ANCHOR_LAYOUT)
    assert anchors.shape == (896, 2)
    # 16 x 16 cells of two anchors, row by row, then 8 x 8 cells of six.
    assert anchors[0].tolist() == anchors[1].tolist() == [1 / 32, 1 / 32]
    assert anchors[2].tolist() == [3 / 32, 1 / 32]
    assert anchors[32].tolist() == [1 / 32, 3 / 32]
    assert anchors[512].tolist() == anchors[517].tolist() == [1 / 16, 1 / 16]
    assert anchors[-1].tolist() == [15 / 16, 15 / 16]


def test_suppression_merges_overlapping_boxes_by_score_and_keeps_separate_ones() -> None:
    boxes = np.array([[0.5, 0.5, 0.2, 0.2], [0.52, 0.5, 0.2, 0.2], [0.1, 0.1, 0.1, 0.1]], dtype=np.float32)
    scores = np.array([0.9, 0.6, 0.7], dtype=np.float32)
    kept = face_models._suppress(boxes, scores)
    assert [round(score, 2) for _, score in kept] == [0.9, 0.7]
    assert kept[0][0][0] == pytest.approx((0.5 * 0.9 + 0.52 * 0.6) / 1.5)
    assert kept[1][0].tolist() == pytest.approx([0.1, 0.1, 0.1, 0.1])


def _mesh(right_gap: float, left_gap: float, right_width: float = 30.0, left_width: float = 30.0) -> np.ndarray:
    """Mesh points with only the eye contours set: each eye level, lids `gap` apart at three places."""
    points = np.zeros((468, 3), dtype=np.float32)
    for eye, centre, width, gap in ((faces.RIGHT_EYE, 60.0, right_width, right_gap), (faces.LEFT_EYE, 130.0, left_width, left_gap)):
        outer, inner = eye["corners"]
        points[outer, :2] = (centre - width / 2, 80)
        points[inner, :2] = (centre + width / 2, 80)
        for upper, lower, dx in zip(eye["upper"], eye["lower"], (-width / 4, 0, width / 4), strict=True):
            points[upper, :2] = (centre + dx, 80 - gap / 2)
            points[lower, :2] = (centre + dx, 80 + gap / 2)
    return points


def test_eye_openness_is_lid_gap_over_eye_width() -> None:
    points = _mesh(right_gap=9.0, left_gap=1.5)
    assert faces.eye_openness(points, faces.RIGHT_EYE) == pytest.approx((0.3, 30.0))
    assert faces.eye_openness(points, faces.LEFT_EYE) == pytest.approx((0.05, 30.0))


@pytest.mark.parametrize(
    ("right_gap", "left_gap", "face_px", "presence", "widths", "expected"),
    [
        (9.0, 8.4, 120, 1.0, (30, 30), "open"),
        (1.2, 1.8, 120, 1.0, (30, 30), "closed"),  # both shut
        (1.2, 9.0, 120, 1.0, (30, 30), "unknown"),  # a wink or a bad measure: no evidence
        (4.5, 4.2, 120, 1.0, (30, 30), "unknown"),  # half closed
        (1.2, 1.8, 30, 1.0, (30, 30), "unknown"),  # face too small to see the lids
        (1.2, 1.8, 120, 0.7, (30, 30), "unknown"),  # the landmark network doubts the face
        (1.2, 1.8, 120, 1.0, (30, 12), "unknown"),  # turned towards profile
    ],
)
def test_eye_state_decision(
    right_gap: float, left_gap: float, face_px: float, presence: float, widths: tuple[float, float], expected: str
) -> None:
    points = _mesh(right_gap, left_gap, *widths)
    right, right_width = faces.eye_openness(points, faces.RIGHT_EYE)
    left, left_width = faces.eye_openness(points, faces.LEFT_EYE)
    assert faces.eye_state((right, left), (right_width, left_width), face_px, presence) == expected


def test_threads_loading_the_networks_at_once_leave_stderr_where_it_was(fresh_networks: None) -> None:
    import os
    import threading

    before = os.fstat(2)
    for _ in range(5):
        face_models.reset()
        start = threading.Barrier(4)
        threads = [threading.Thread(target=lambda b=start: (b.wait(), face_models.networks())) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        after = os.fstat(2)
        assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    assert face_models.networks() is not None
