"""Parse judge replies (`<think>…</think><answer>{json}</answer>`) into validated answers, never inventing.

Replies from language models are messy: tags go missing, JSON comes in code fences, with single
quotes or trailing commas, values are out of range or spelled as words. Every function here
returns a result whose `parsed` flag is False (and whose values are None) when nothing valid could
be read; a value that is present but invalid makes only that dimension None and adds a note.
Nothing here raises on any input string.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN
from aesthete_gui.engine.judgments import Outcome

_THINK_RE = re.compile(r"<think>(.*?)(?:</think>|$)", re.IGNORECASE | re.DOTALL)
_ANSWER_RE = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.IGNORECASE | re.DOTALL)
_FENCE_RE = re.compile(r"```[a-zA-Z]*")
_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
_BARE_KEY_RE = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_ ]*?)(\s*:)")
_NUMBER_TEXT_RE = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(?:/\s*5(?:\.0+)?)?\s*$", re.ASCII)
_POSITION_DIGITS = 3  # image numbers are 1..8; longer digit strings are never a position
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})

_OUTCOME_WORDS: dict[str, Outcome] = {
    "a": "A",
    "image a": "A",
    "first": "A",
    "the first": "A",
    "first image": "A",
    "the first image": "A",
    "image 1": "A",
    "left": "A",
    "b": "B",
    "image b": "B",
    "second": "B",
    "the second": "B",
    "second image": "B",
    "the second image": "B",
    "image 2": "B",
    "right": "B",
    "tie": "TIE",
    "equal": "TIE",
    "same": "TIE",
    "draw": "TIE",
    "neither": "TIE",
    "both": "TIE",
    "even": "TIE",
}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass(frozen=True)
class ReplyParts:
    """A reply split into reasoning (inside <think>) and answer text (inside <answer>, or the rest)."""

    reasoning: str
    answer: str
    had_answer_tag: bool


@dataclass(frozen=True)
class ParsedPointwise:
    """Five scores in 1..5 (None where missing or invalid); parsed False when none was valid."""

    parsed: bool
    scores: dict[str, float | None]
    rationale: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedPairwise:
    """Five outcomes A/B/TIE (None where missing or invalid); parsed False when none was valid."""

    parsed: bool
    outcome: dict[str, Outcome | None]
    rationale: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedSet:
    """Best and worst as 0-based positions in the shown order; parsed False when either is invalid."""

    parsed: bool
    best: int | None = None
    worst: int | None = None
    per_dimension: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    rationale: str = ""
    notes: tuple[str, ...] = ()


def _total(on_error: Callable[[str], Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a parser total: any error on a strange reply gives `on_error(note)` (unparsed), never a raise."""

    def decorate(parse: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(parse)
        def guarded(raw: str, *args: Any) -> Any:
            try:
                return parse(raw, *args)
            except Exception as error:  # the contract: no reply text makes a parser raise
                return on_error(f"reply could not be read ({type(error).__name__})")

        return guarded

    return decorate


def split_reply(raw: str) -> ReplyParts:
    """Separate the <think> reasoning from the <answer> text; tolerate missing or unclosed tags."""
    text = raw if isinstance(raw, str) else ""
    think = _THINK_RE.search(text)
    reasoning = think.group(1).strip() if think else ""
    answer_match = _ANSWER_RE.search(text)
    if answer_match:
        return ReplyParts(reasoning, answer_match.group(1).strip(), True)
    closed = think is not None and think.group(0).lower().endswith("</think>")
    rest = text[think.end() :] if closed and think is not None else text
    if not reasoning:
        reasoning = _prose_outside_json(rest)
    return ReplyParts(reasoning, rest.strip(), False)


def _prose_outside_json(text: str) -> str:
    span = _last_object_span(text)
    if span is None:
        return text.strip()
    return (text[: span[0]] + " " + text[span[1] :]).strip()


def _last_object_span(text: str) -> tuple[int, int] | None:
    """Start and end of the last balanced {...} block, honouring quoted strings."""
    best: tuple[int, int] | None = None
    depth = 0
    start = -1
    quote: str | None = None
    escaped = False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'" and depth > 0:
            quote = char
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                best = (start, index + 1)
    return best


def _load_object(candidate: str) -> dict[str, Any] | None:
    """Read one JSON-like object, repairing single quotes, trailing commas and bare keys."""
    attempts = [candidate, _TRAILING_COMMA_RE.sub(r"\1", candidate)]
    for attempt in attempts:
        try:
            value = json.loads(attempt)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    try:
        value = ast.literal_eval(candidate)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = None
    if isinstance(value, dict):
        return value
    repaired = _TRAILING_COMMA_RE.sub(r"\1", candidate.replace("'", '"'))
    repaired = _BARE_KEY_RE.sub(lambda m: f'{m.group(1)}"{m.group(2).strip()}"{m.group(3)}', repaired)
    repaired = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", repaired))
    repaired = re.sub(r"\bNone\b", "null", repaired)
    try:
        value = json.loads(repaired)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def extract_answer_object(raw: str) -> tuple[dict[str, Any] | None, ReplyParts]:
    """The answer's JSON object (keys lower-cased and stripped) and the split reply; None if absent."""
    parts = split_reply(raw)
    text = _FENCE_RE.sub("", parts.answer).translate(_SMART_QUOTES)
    span = _last_object_span(text)
    if span is None:
        return None, parts
    obj = _load_object(text[span[0] : span[1]])
    if obj is None:
        return None, parts
    return {str(k).strip().lower(): v for k, v in obj.items()}, parts


def _excerpt(value: Any, limit: int = 40) -> str:
    """A short repr for a note; never raises (an int too long to print is described instead)."""
    try:
        text = repr(value)
    except ValueError:
        return f"<a number of over {sys.get_int_max_str_digits()} digits>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            return None
    elif isinstance(value, str):
        match = _NUMBER_TEXT_RE.match(value)
        if not match:
            return None
        number = float(match.group(1))
    else:
        return None
    return number if math.isfinite(number) else None


def _rationale(parts: ReplyParts, obj: Mapping[str, Any] | None) -> str:
    if parts.reasoning:
        return parts.reasoning
    if obj:
        for key in ("reason", "reasoning", "rationale", "thinking", "explanation"):
            value = obj.get(key)
            if isinstance(value, str):
                return value.strip()
    return ""


def _dimension_source(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """Some replies nest the five keys one level down ({"scores": {...}}); accept that."""
    if any(d in obj for d in DIMENSIONS):
        return obj
    for value in obj.values():
        if isinstance(value, Mapping) and any(str(k).lower() in DIMENSIONS for k in value):
            return {str(k).strip().lower(): v for k, v in value.items()}
    return obj


@_total(lambda note: ParsedPointwise(False, dict.fromkeys(DIMENSIONS), "", (note,)))
def parse_pointwise(raw: str) -> ParsedPointwise:
    """Read five scores in 1..5; out-of-range, non-numeric or missing values become None with a note."""
    obj, parts = extract_answer_object(raw)
    scores: dict[str, float | None] = dict.fromkeys(DIMENSIONS)
    if obj is None:
        return ParsedPointwise(False, scores, _rationale(parts, None), ("no JSON answer found",))
    source = _dimension_source(obj)
    notes: list[str] = []
    for dimension in DIMENSIONS:
        if dimension not in source:
            notes.append(f"{dimension}: missing")
            continue
        number = _number(source[dimension])
        if number is None:
            notes.append(f"{dimension}: not a number in range ({_excerpt(source[dimension])})")
        elif not SCORE_MIN <= number <= SCORE_MAX:
            notes.append(f"{dimension}: {number:g} outside {SCORE_MIN:g}..{SCORE_MAX:g}")
        else:
            scores[dimension] = number
    parsed = any(v is not None for v in scores.values())
    return ParsedPointwise(parsed, scores, _rationale(parts, obj), tuple(notes))


def outcome_from_value(value: Any) -> Outcome | None:
    """A/B/TIE from a reply value, accepting plain synonyms ('first', 'image 1', 'left'); else None."""
    if not isinstance(value, str):
        return None
    key = re.sub(r"[\s_\-.!\"']+", " ", value).strip().lower()
    return _OUTCOME_WORDS.get(key)


@_total(lambda note: ParsedPairwise(False, dict.fromkeys(DIMENSIONS), "", (note,)))
def parse_pairwise(raw: str) -> ParsedPairwise:
    """Read A/B/TIE for the five dimensions; unknown values and missing keys become None with a note."""
    obj, parts = extract_answer_object(raw)
    outcome: dict[str, Outcome | None] = dict.fromkeys(DIMENSIONS)
    if obj is None:
        return ParsedPairwise(False, outcome, _rationale(parts, None), ("no JSON answer found",))
    source = _dimension_source(obj)
    notes: list[str] = []
    for dimension in DIMENSIONS:
        if dimension not in source:
            notes.append(f"{dimension}: missing")
            continue
        value = outcome_from_value(source[dimension])
        if value is None:
            notes.append(f"{dimension}: not A/B/TIE ({_excerpt(source[dimension])})")
        outcome[dimension] = value
    parsed = any(v is not None for v in outcome.values())
    return ParsedPairwise(parsed, outcome, _rationale(parts, obj), tuple(notes))


def position_from_value(value: Any, count: int) -> int | None:
    """0-based position from a 1-based image number ('3', 3, 'image 3', 'third'); None if invalid."""
    if isinstance(value, bool):
        return None
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        text = value.strip().lower().lstrip("#")
        text = re.sub(r"^(image|img|picture|photo|candidate)\s*#?\s*", "", text)
        if text.isascii() and text.isdigit() and len(text) <= _POSITION_DIGITS:
            number = int(text)
        elif text.removeprefix("the ").split(" ")[0] in _ORDINALS:
            number = _ORDINALS.index(text.removeprefix("the ").split(" ")[0]) + 1
    if number is None or not 1 <= number <= count:
        return None
    return number - 1


@_total(lambda note: ParsedSet(False, notes=(note,)))
def parse_set(raw: str, count: int) -> ParsedSet:
    """Read best and worst image numbers (1..count) plus optional per-dimension best/worst."""
    obj, parts = extract_answer_object(raw)
    if obj is None:
        return ParsedSet(False, rationale=_rationale(parts, None), notes=("no JSON answer found",))
    notes: list[str] = []
    best = position_from_value(obj.get("best"), count)
    worst = position_from_value(obj.get("worst"), count)
    if best is None:
        notes.append(f"best: missing or not an image number 1..{count} ({_excerpt(obj.get('best'))})")
    if worst is None:
        notes.append(f"worst: missing or not an image number 1..{count} ({_excerpt(obj.get('worst'))})")
    if best is not None and best == worst:
        notes.append("best and worst name the same image")
        best = worst = None
    per_dimension: dict[str, tuple[int | None, int | None]] = {}
    for dimension in DIMENSIONS:
        entry = obj.get(dimension)
        if isinstance(entry, Mapping):
            lowered = {str(k).strip().lower(): v for k, v in entry.items()}
            d_best = position_from_value(lowered.get("best"), count)
            d_worst = position_from_value(lowered.get("worst"), count)
            if d_best is not None and d_best == d_worst:
                d_best = d_worst = None
                notes.append(f"{dimension}: best and worst name the same image")
            per_dimension[dimension] = (d_best, d_worst)
    parsed = best is not None and worst is not None
    if not parsed:
        best = worst = None
    return ParsedSet(parsed, best, worst, per_dimension, _rationale(parts, obj), tuple(notes))


def parse_free_text(raw: str) -> str:
    """A stage text (analysis, critique): the reply without tags and stray whitespace."""
    text = raw if isinstance(raw, str) else ""
    text = re.sub(r"</?(think|answer)>", "", text, flags=re.IGNORECASE)
    return text.strip()
