"""Score a trial shoot (benchmarks/trial_shoot.py) the way a photographer's key does: import the card
into a new profile, then compare the suggested rejects with the key's expected rejects.

    python benchmarks/trial_score.py CARD TRUTH_JSON [--profile P] [--list]

Prints "suggested / expected / both" and, with --list, every disagreement with the app's reason. A
frame counts as expected when the key's `expected` starts with "reject"; copies, bracket frames and
kept frames are expected not to be suggested.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

from aesthete_gui.cli import main as cli


def _rows(profile: Path) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["--profile", str(profile), "images", "--json"]) == 0
    return json.loads(out.getvalue())


def score(card: Path, truth: Path, profile: Path) -> tuple[set[str], set[str], dict[str, dict]]:
    """Import `card` into `profile` (when it is new) and return (suggested, expected, rows by file name)."""
    if not profile.exists():
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli(["--profile", str(profile), "import", "--quiet", str(card)]) == 0
    rows = {Path(r["path"]).name: r for r in _rows(profile)}
    key = json.loads(truth.read_text(encoding="utf-8"))["frames"]
    expected = {f["file"] for f in key if str(f["expected"]).startswith("reject")}
    suggested = {name for name, row in rows.items() if row["suggested_reject"]}
    return suggested, expected, rows


def main(argv: list[str] | None = None) -> int:
    """Print the trial's counts (and disagreements with --list)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("card", type=Path)
    parser.add_argument("truth", type=Path)
    parser.add_argument("--profile", type=Path, default=None, help="reuse this profile (default: a new one)")
    parser.add_argument("--list", action="store_true", help="list every disagreement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        profile = args.profile or Path(tmp) / "trial.db"
        suggested, expected, rows = score(args.card, args.truth, profile)
        key = {f["file"]: f for f in json.loads(args.truth.read_text(encoding="utf-8"))["frames"]}
        print(f"suggested {len(suggested)} / expected {len(expected)} / both {len(suggested & expected)}")
        if args.list:
            for name in sorted(suggested - expected):
                reasons = [c["reason"] for c in rows[name]["checks"] if c["verdict"] == "reject"]
                print(f"  wrongly suggested {name} ({key.get(name, {}).get('kind')}): {'; '.join(reasons)}")
            for name in sorted(expected - suggested):
                warns = [c["reason"] for c in rows.get(name, {}).get("checks", []) if c["verdict"] == "warn"]
                print(f"  missed {name} ({key[name].get('kind')}, {key[name].get('detail')}): {'; '.join(warns) or 'no warning'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
