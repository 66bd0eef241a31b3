"""Library upkeep after an import: burst grouping (skipped when nothing changed; large libraries
grouped in a worker process) and keeping the thumbnail cache under its limit."""

from __future__ import annotations

import os

from aesthete_gui.imaging.thumbnails import CacheTrim, claim_cache, trim_cache
from aesthete_gui.services.library_pool import WorkerPool
from aesthete_gui.settings import thumbnail_cache_dir, thumbnail_cache_limit_bytes
from aesthete_gui.store import Profile

__all__ = ["GROUPING_STATE", "grouping_outdated", "regroup_bursts", "tidy_thumbnail_cache"]


def tidy_thumbnail_cache(profile: Profile, cache_dir: str | os.PathLike[str], limit_bytes: int | None = None) -> CacheTrim:
    """Keep the thumbnail cache under its limit (the profile's `thumbnail_cache_mb` setting), least
    recently used first; in a cache the profile owns, files of content no present image has (an
    edited or deleted photo) go first, with what grouping remembered about that content."""
    limit = limit_bytes if limit_bytes is not None else thumbnail_cache_limit_bytes(profile.path)
    own_folder = os.path.abspath(cache_dir) == os.path.abspath(thumbnail_cache_dir(profile.path))
    owned = claim_cache(cache_dir, profile.path, own=own_folder)
    trimmed = trim_cache(cache_dir, limit, profile.grouping.present_content_hashes() if owned else None)
    if owned:
        profile.grouping.forget_unused()
    return trimmed


GROUPING_STATE = "burst_grouping"
"""library_state key: the fingerprint of the library the stored automatic bursts were grouped from."""
GROUPING_VERSION = "4"
"""Changes whenever grouping itself changes, so that every library is grouped again once."""


def regroup_bursts(
    profile: Profile, cache_dir: str | os.PathLike[str] | None = None, force: bool = False, pool: WorkerPool | None = None,
    judge: bool = True,
) -> int:
    """Group the profile's images into bursts again (edited bursts are kept); return how many
    automatic bursts there are. A library unchanged since its last grouping is left as it is. With
    a `pool` of several processes, a large library is grouped in one of them (the window stays
    responsive). The verdicts are judged again after (judge=False: the caller does that itself)."""
    # The library as it is before grouping reads it: an import finishing meanwhile leaves the stored
    # fingerprint behind the library, so the next look groups again rather than never.
    fingerprint = _grouping_fingerprint(profile)
    if not force and profile.grouping.library_state(GROUPING_STATE) == fingerprint:
        return sum(1 for burst in profile.catalog.bursts() if not burst.edited)
    from aesthete_gui.services.library_bursts import library_burst_groups

    in_worker = pool is not None and pool.workers > 1 and profile.catalog.image_count(status="ok") >= GROUP_IN_WORKER_FROM
    groups = _groups_in_worker(profile, cache_dir, pool) if pool is not None and in_worker else None
    if groups is None:
        groups, _ = library_burst_groups(profile, cache_dir)
    created = len(profile.catalog.replace_automatic_bursts(groups))
    profile.grouping.set_library_state(GROUPING_STATE, fingerprint)
    if judge:
        from aesthete_gui.services.verdicts import rejudge_library

        rejudge_library(profile)  # brackets, panoramas, copies and the shoot type change verdicts (services/verdicts.py)
    return created


def grouping_outdated(profile: Profile) -> bool:
    """Whether the stored bursts were grouped by another grouping version (an update of Aesthete);
    a library changed since its grouping is the next import's to see. One stored value read."""
    grouped = profile.grouping.library_state(GROUPING_STATE)
    return grouped is not None and grouped.split("/", 1)[0] != GROUPING_VERSION


GROUP_IN_WORKER_FROM = 1000
"""Libraries of at least this many images are grouped in a worker process (a smaller one is grouped
here, quicker than that process can load the grouping code)."""


def _groups_in_worker(profile: Profile, cache_dir: str | os.PathLike[str] | None, pool: WorkerPool) -> list[list[int]] | None:
    """The library's groups computed in one of the pool's processes (None when that process failed)."""
    from aesthete_gui.services.library_bursts import group_profile

    found: list[list[list[int]]] = []
    pool.run([str(profile.path)], group_profile, lambda path: (path, None if cache_dir is None else str(cache_dir)),
             lambda _path, groups: found.append(groups), lambda _path, _error: None, None)  # fmt: skip
    return found[0] if found else None


def _grouping_fingerprint(profile: Profile) -> str:
    return f"{GROUPING_VERSION}/{profile.grouping.library_fingerprint()}"
