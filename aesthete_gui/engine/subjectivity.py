"""How subjective an explanation is: the share of hedge and feeling words (docs/method.md §4, seed 004).

Hedges ("appears", "somewhat") and feeling words ("feels", "sense") tend to mark criticism that is
not grounded in what is visible. The product counts them in its own explanations and shows the
rate, so a person can tell a concrete explanation from a vague one. Word lists are our own; words
are matched after a light normalisation (lower case, common inflections folded to one form).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

HEDGE_WORDS: frozenset[str] = frozenset(
    {
        "appear",
        "apparently",
        "arguably",
        "seem",
        "seemingly",
        "somewhat",
        "perhaps",
        "maybe",
        "possibly",
        "probably",
        "likely",
        "might",
        "may",
        "could",
        "suggest",
        "rather",
        "fairly",
        "quite",
        "slightly",
        "relatively",
        "presumably",
        "supposedly",
    }
)

FEELING_WORDS: frozenset[str] = frozenset(
    {
        "feel",
        "feeling",
        "sense",
        "evoke",
        "evocative",
        "emotion",
        "emotional",
        "moody",
        "vibe",
        "soul",
        "soulful",
        "captivating",
        "mesmerizing",
        "mesmerising",
        "breathtaking",
        "stunning",
        "beautiful",
        "lovely",
        "charming",
        "striking",
        "powerful",
        "haunting",
        "dreamy",
        "dreamlike",
        "whimsical",
        "serene",
        "tranquil",
        "harmonious",
        "compelling",
        "engaging",
        "immersive",
        "poignant",
        "nostalgic",
        "ethereal",
    }
)

# Multi-word hedges, each counted once. "mood" and "atmosphere" are not feeling words here: they
# name a dimension and appear in every rubric.
_HEDGE_PHRASES = ("kind of", "sort of", "to some extent", "to a degree", "in a way")
_WORD_RE = re.compile(r"[a-zA-Z]+(?:'[a-z]+)?")
_IRREGULAR = {"felt": "feel", "senses": "sense", "sensed": "sense", "sensing": "sense"}


def normalise_word(word: str) -> str:
    """Fold a word to the form used in the lists: 'Feels' -> 'feel', 'appeared' -> 'appear'."""
    lowered = word.lower()
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 3:
            stem = lowered[: -len(suffix)] + replacement
            if stem in HEDGE_WORDS or stem in FEELING_WORDS:
                return stem
            if suffix in ("ing", "ed", "es") and stem + "e" in HEDGE_WORDS | FEELING_WORDS:
                return stem + "e"
    return lowered


@dataclass(frozen=True)
class SubjectivityReport:
    """Counts for one text: words, hedges, feeling words, and which ones were found."""

    words: int
    hedges: int
    feelings: int
    found: tuple[str, ...]

    @property
    def rate(self) -> float:
        """Share of words that are hedges or feeling words (0 for an empty text)."""
        return (self.hedges + self.feelings) / self.words if self.words else 0.0


def measure_subjectivity(text: str) -> SubjectivityReport:
    """Count hedge and feeling words in `text`."""
    lowered = text.lower() if isinstance(text, str) else ""
    tokens = _WORD_RE.findall(lowered)
    hedges = 0
    feelings = 0
    found: list[str] = []
    phrase_words: Counter[str] = Counter()
    for phrase in _HEDGE_PHRASES:
        occurrences = len(re.findall(rf"\b{re.escape(phrase)}\b", lowered))
        if occurrences:
            hedges += occurrences
            found.extend([phrase] * occurrences)
            phrase_words.update({w: occurrences for w in phrase.split()})
    for token in tokens:
        if phrase_words[token] > 0:
            phrase_words[token] -= 1
            continue
        stem = normalise_word(token)
        if stem in HEDGE_WORDS:
            hedges += 1
            found.append(token)
        elif stem in FEELING_WORDS:
            feelings += 1
            found.append(token)
    return SubjectivityReport(len(tokens), hedges, feelings, tuple(found))


def subjectivity_of_stages(stages: tuple[str, ...] | list[str]) -> SubjectivityReport:
    """One report over all stage texts of an explanation together."""
    return measure_subjectivity("\n".join(stages))
