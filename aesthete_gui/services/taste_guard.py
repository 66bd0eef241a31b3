"""Keeps personal taste honest: the held-out split, when an adapter may become active, personal
scores on the base scorer's 1–5 scale (training.personal_scale), which images are worth comparing.

The split is by time at the level of *groups*: the choices of one Set verdict (one best/worst
pick expands to several pairs of the same frames) and the choices between frames of one burst
are near-copies of each other, so a group lies wholly on one side. Holding out half of one
verdict and training on the other half would measure memory, not taste; holding out one
verdict alone (5 near-identical choices) would measure a coin toss.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aesthete_gui.store import ChoiceRecord, ImageRecord, Profile

HELD_OUT_FRACTION = 0.2
"""Share of the latest choices held out to measure agreement (at least MIN_HELD_OUT_CHOICES)."""
MIN_HELD_OUT_CHOICES = 20
"""Fewer held-out choices give no figure: at 20 the 95% interval is still about ±20 points wide."""
MIN_TRAIN_CHOICES = 20
"""The measuring adapter is trained on at least this many earlier choices."""
MIN_JUDGEABLE_SIDE = 128
"""Images whose shorter side is below this (pixels) are too small to judge: icons, thumbnails."""


@dataclass(frozen=True)
class HeldOutSplit:
    """Indices (into the choices, time order kept) trained on and held out."""

    train: list[int]
    held_out: list[int]

    @property
    def measurable(self) -> bool:
        """True when there are enough held-out choices for an agreement figure."""
        return len(self.held_out) >= MIN_HELD_OUT_CHOICES


def choice_groups(choices: Sequence[ChoiceRecord], burst_of: Mapping[int, int | None]) -> list[int]:
    """A group label per choice: one Set verdict's choices share one, so do choices within a burst."""
    parent = list(range(len(choices)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with_key: dict[tuple[str, str], int] = {}
    for index, choice in enumerate(choices):
        for key in _group_keys(choice, burst_of):
            if key in first_with_key:
                parent[find(index)] = find(first_with_key[key])
            else:
                first_with_key[key] = index
    return [find(i) for i in range(len(choices))]


def _group_keys(choice: ChoiceRecord, burst_of: Mapping[int, int | None]) -> list[tuple[str, str]]:
    keys = []
    state = choice.app_state or {}
    if state.get("view") == "set":  # one verdict: every pair it expanded to carries the same state
        keys.append(("set", json.dumps(state, sort_keys=True, default=str)))
    burst = burst_of.get(choice.image_a)
    if burst is not None and burst == burst_of.get(choice.image_b):
        keys.append(("burst", str(burst)))
    return keys


def split_by_time(groups: Sequence[int]) -> HeldOutSplit:
    """Hold out the latest whole groups: about HELD_OUT_FRACTION, at least MIN_HELD_OUT_CHOICES
    when there are MIN_TRAIN_CHOICES left to train on; a group counts as late as its last choice."""
    count = len(groups)
    target = max(round(HELD_OUT_FRACTION * count), MIN_HELD_OUT_CHOICES)
    cap = max(0, count - MIN_TRAIN_CHOICES)
    members: dict[int, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    held: list[int] = []
    for group in sorted(members, key=lambda g: members[g][-1], reverse=True):
        if len(held) >= target or len(held) + len(members[group]) > cap:
            break  # never skip a late group to hold out an earlier one: the split stays by time
        held.extend(members[group])
    held_set = set(held)
    return HeldOutSplit([i for i in range(count) if i not in held_set], sorted(held))


def choices_still_needed(choices: int, held_out: int) -> int:
    """About how many more choices it takes before agreement can be measured: MIN_HELD_OUT_CHOICES
    held out with MIN_TRAIN_CHOICES left to train on (0 when measurable). A lower bound: a late
    Set verdict or burst is held out whole or not at all, which can ask for a few more."""
    if held_out >= MIN_HELD_OUT_CHOICES:
        return 0
    return max(MIN_HELD_OUT_CHOICES + MIN_TRAIN_CHOICES - choices, MIN_HELD_OUT_CHOICES - held_out, 1)


def expected_held_out(choices: int) -> int:
    """How many of `choices` split_by_time would hold out when no group spans the cut."""
    return min(max(round(HELD_OUT_FRACTION * choices), MIN_HELD_OUT_CHOICES), max(0, choices - MIN_TRAIN_CHOICES))


def too_few_to_measure(choices: int, held_out: int) -> str:
    """What the window says instead of an agreement figure: how far it is, how many more to make."""
    more = choices_still_needed(choices, held_out)
    return (
        f"not enough held-out choices to measure: {held_out} of {MIN_HELD_OUT_CHOICES}; about {more} "
        f"more choice{'s' if more != 1 else ''} needed"
    )


def may_activate(base_mean: float | None, adapter_mean: float | None) -> bool:
    """An adapter becomes active on its own only when measured at least as good as the base."""
    if base_mean is None or adapter_mean is None:
        return False
    if math.isnan(base_mean) or math.isnan(adapter_mean):
        return False
    return adapter_mean >= base_mean


def too_small_to_judge(record: ImageRecord) -> bool:
    """True when the image's shorter side is known and below MIN_JUDGEABLE_SIDE."""
    if record.width is None or record.height is None:
        return False
    return min(record.width, record.height) < MIN_JUDGEABLE_SIDE


def comparable_image_ids(profile: Profile, include_rejects: bool = False) -> list[int]:
    """The readable images worth offering in a comparison: not rejected by the user, not a suggested
    reject (a technical reject verdict), not too small to judge.

    `include_rejects` brings rejected and suggested-reject images back (the user asked for them).
    """
    marks = profile.marks.all()
    suggested = set() if include_rejects else profile.checks.suggested_rejects()
    return [
        record.id
        for record in profile.catalog.images(status="ok")
        if not too_small_to_judge(record)
        and (include_rejects or not _rejected_by_user(marks.get(record.id)))
        and record.id not in suggested
    ]


def _rejected_by_user(mark: object) -> bool:
    return getattr(mark, "flag", None) == "reject"
