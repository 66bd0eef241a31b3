"""Compare's "pick informative pairs" before any adapter: the base scores alone (no encoder run),
each image measured once and stored as it goes, so a cancelled or quit job resumes where it stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.services import taste
from aesthete_gui.services.scoring import FEATURE_BATCH, profile_models_dir
from aesthete_gui.store import Profile, open_profile
from tests.services.taste_library import write_photos

PHOTOS = 20


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library imported without image properties, scores or embeddings (a card just brought in)."""
    from aesthete_gui.services.library import import_folders

    root = tmp_path_factory.mktemp("fresh-library")
    write_photos(root / "photos", PHOTOS)
    profile = open_profile(root / "profile.db")
    try:
        import_folders(profile, [root / "photos"], features=False, workers=1, cache_dir=root / "thumbs")
        profile.checks.dismiss_suggestions(profile.checks.suggested_rejects())
    finally:
        profile.close()
    return root


def _stored_features(profile: Profile) -> int:
    return int(profile.conn.execute("SELECT COUNT(*) FROM features").fetchone()[0])


def test_first_suggestions_need_no_embeddings_and_the_second_measures_nothing(profile: Profile) -> None:
    assert profile.adapters.active() is None and _stored_features(profile) == 0
    steps: list[Progress] = []
    pairs = taste.suggest_next_pairs(profile, count=4, progress=steps.append)
    assert len(pairs) == 4
    assert not list(profile_models_dir(profile).glob("embeddings-*"))  # the encoder never ran
    assert _stored_features(profile) == PHOTOS and steps and steps[-1].done == PHOTOS
    assert all(s.message.startswith("image properties") for s in steps)

    again: list[Progress] = []
    assert taste.suggest_next_pairs(profile, count=4, progress=again.append) == pairs
    assert again == []  # stored scores read back: nothing measured the second time


def test_a_cancelled_job_keeps_what_it_measured_and_the_next_one_resumes(profile: Profile, tmp_path: Path) -> None:
    cancel = CancelToken()
    stop_after = FEATURE_BATCH + 2

    def progress(step: Progress) -> None:
        if step.done >= stop_after:
            cancel.cancel()

    with pytest.raises(Cancelled):
        taste.suggest_next_pairs(profile, count=2, progress=progress, cancel=cancel)
    kept = _stored_features(profile)
    assert FEATURE_BATCH <= kept <= stop_after  # stored in small batches, not lost with the job

    profile.close()
    reopened = open_profile(profile.path)  # a relaunch
    try:
        steps: list[Progress] = []
        assert len(taste.suggest_next_pairs(reopened, count=2, progress=steps.append)) == 2
        assert steps[-1].total == PHOTOS - kept  # only the rest was measured
    finally:
        reopened.close()


def test_a_new_photo_is_measured_alone(profile: Profile, tmp_path: Path) -> None:
    from aesthete_gui.services.library import import_folders

    taste.suggest_next_pairs(profile, count=2)
    write_photos(tmp_path / "more", 1, seed=99)
    import_folders(profile, [tmp_path / "more"], features=False, workers=1, cache_dir=tmp_path / "thumbs")
    profile.checks.dismiss_suggestions(profile.checks.suggested_rejects())
    steps: list[Progress] = []
    taste.suggest_next_pairs(profile, count=2, progress=steps.append)
    assert [s.total for s in steps] == [1]

