"""File-safety figures (issue 19): the fault harness's rounds, faults and losses, and how the final
no-replace step of a copy behaves on the file systems at hand.

`--harness` runs the harness (tests/robustness/test_file_safety_*.py, the real CLI in subprocesses)
and prints per case: rounds, faults injected, files lost (0 whenever the case passes: each round
asserts that every byte is still somewhere) and seconds. `--folders DIR…` probes each folder's file
system: does `renameat2(RENAME_NOREPLACE)` refuse a taken name, do hard links and a folder lock work,
and how long 2,000 placements take with renameat2 and with link-then-unlink.

    python benchmarks/file_safety.py --harness [--seed N]
    python benchmarks/file_safety.py --folders /tmp /dev/shm
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = {
    "test_kill_9_during_ingest_loses_nothing_and_a_rerun_completes": ("kill -9 during ingest, then a rerun", "ingest"),
    "test_kill_9_during_copy_picks_loses_nothing_and_a_rerun_completes[copy]": ("kill -9 during copy-picks, then a rerun", "copy"),
    "test_kill_9_during_copy_picks_loses_nothing_and_a_rerun_completes[move]": ("kill -9 during copy-picks --move, then a rerun", "move"),
    "test_two_ingests_at_once_with_the_same_names_keep_every_photo[card-names]": ("two ingests at once, same names, {name}{ext}", None),
    "test_two_ingests_at_once_with_the_same_names_keep_every_photo[default-template]": ("two ingests at once, same names, default template", None),
    "test_a_full_disk_is_refused_before_anything_is_written": ("a full tmpfs (ingest and move)", None),
    "test_a_disk_filling_up_mid_ingest_is_one_line_and_leaves_only_whole_units": ("disk full mid-ingest, then a rerun", None),
    "test_a_disk_filling_up_mid_move_is_one_line_and_loses_nothing": ("disk full mid-move, then a rerun", None),
    "test_a_read_only_destination_is_one_line_and_nothing_moves": ("a read-only destination (ingest and move)", None),
    "test_a_card_file_vanishing_mid_ingest_is_skipped_and_reported_and_the_rest_goes_on": ("a card file vanishing mid-ingest, then a rerun", None),
    "test_helper_processes_end_when_a_killed_import_leaves_them": ("helpers of a killed import (4 processes)", None),
    "test_a_spawned_pool_ends_with_its_parent": ("workers of a killed spawned pool", None),
    "test_card_photographs_whose_names_differ_only_in_case_are_both_copied": ("card names differing only in case, 3 templates, reruns", None),
    "test_move_of_photographs_whose_names_differ_only_in_case_keeps_each_ones_name_and_sidecar": ("move of names differing only in case, own sidecars", None),
    "test_a_fifo_socket_or_folder_named_as_a_card_file_is_refused_in_one_line_and_nothing_hangs": ("FIFO, socket, folder, /dev/zero link on a card", None),
    "test_sidecars_that_are_fifos_or_links_to_dev_zero_do_not_stop_copy_picks_or_fill_the_disk": ("FIFO and /dev/zero-link sidecars in copy-picks (small tmpfs)", None),
    "test_a_card_sidecar_linked_to_dev_zero_is_refused_and_the_rest_of_the_card_is_copied": ("/dev/zero-link and 8 MiB+ card sidecars (small tmpfs)", None),
    "test_same_name_size_time_and_first_64_kib_is_not_already_there_unless_every_byte_is": ("same name, size, time, first 64 KiB, other bytes", None),
    "test_a_live_copys_temporary_file_is_kept_and_a_leftover_is_removed_whatever_the_pids_say": ("a live copy's temp file with a foreign pid", None),
}
FAULTS = {  # faults each single-round case injects
    "test_two_ingests_at_once_with_the_same_names_keep_every_photo[card-names]": 1,
    "test_two_ingests_at_once_with_the_same_names_keep_every_photo[default-template]": 1,
    "test_a_full_disk_is_refused_before_anything_is_written": 2,
    "test_a_disk_filling_up_mid_ingest_is_one_line_and_leaves_only_whole_units": 1,
    "test_a_disk_filling_up_mid_move_is_one_line_and_loses_nothing": 1,
    "test_a_read_only_destination_is_one_line_and_nothing_moves": 2,
    "test_a_card_file_vanishing_mid_ingest_is_skipped_and_reported_and_the_rest_goes_on": 3,
    "test_helper_processes_end_when_a_killed_import_leaves_them": 1,
    "test_a_spawned_pool_ends_with_its_parent": 1,
    "test_card_photographs_whose_names_differ_only_in_case_are_both_copied": 3,
    "test_move_of_photographs_whose_names_differ_only_in_case_keeps_each_ones_name_and_sidecar": 1,
    "test_a_fifo_socket_or_folder_named_as_a_card_file_is_refused_in_one_line_and_nothing_hangs": 5,
    "test_sidecars_that_are_fifos_or_links_to_dev_zero_do_not_stop_copy_picks_or_fill_the_disk": 2,
    "test_a_card_sidecar_linked_to_dev_zero_is_refused_and_the_rest_of_the_card_is_copied": 2,
    "test_same_name_size_time_and_first_64_kib_is_not_already_there_unless_every_byte_is": 1,
    "test_a_live_copys_temporary_file_is_kept_and_a_leftover_is_removed_whatever_the_pids_say": 2,
}


def harness(seed: str | None) -> None:
    """Run the harness and print its table."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "junit.xml"
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **({"AESTHETE_HARNESS_SEED": seed} if seed else {}))
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", f"--junitxml={report}",
             "tests/robustness/test_file_safety_kills.py", "tests/robustness/test_file_safety_faults.py",
             "tests/robustness/test_file_safety_names.py", "tests/robustness/test_file_safety_temps.py"],
            cwd=REPO, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        total = time.monotonic() - started
        cases = {c.get("name"): c for c in ET.parse(report).getroot().iter("testcase")}
    figures: dict[str, int] = {}
    for line in run.stdout.splitlines():
        text = line.lstrip(".sF")
        if text.startswith('{"seed"'):
            figures = json.loads(text)
    print(f"seed {figures.get('seed')}; {platform.node()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{time.strftime('%Y-%m-%d %H:%M')}; pytest exit {run.returncode}, {total:.0f} s in all")  # fmt: skip
    print("| case | rounds | faults injected | files lost | result | seconds |")
    print("|---|---|---|---|---|---|")
    for name, (label, key) in CASES.items():
        case = cases.get(name)
        if case is None:
            print(f"| {label} | – | – | – | not run | – |")
            continue
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        result = "failed" if failed else "skipped" if skipped else "passed"
        if key:
            rounds = figures.get(f"{key} rounds", 0)
            faults = f"{figures.get(f'{key} kills', 0)} kills in the work, {figures.get(f'{key} half-done', 0)} left it half-done"
        else:
            rounds, faults = 1, str(FAULTS[name])
        lost = "0" if result == "passed" else "see failure"
        print(f"| {label} | {rounds} | {faults} | {lost} | {result} | {float(case.get('time', 0)):.1f} |")
    if run.returncode:
        print(run.stdout[-3000:], run.stderr[-2000:], sep="\n")


_LIBC = ctypes.CDLL(None, use_errno=True)


def _noreplace(source: Path, target: Path) -> int:
    if _LIBC.renameat2(-100, os.fsencode(source), -100, os.fsencode(target), 1) == 0:
        return 0
    return ctypes.get_errno()


def probe(folder: Path, count: int = 2000) -> None:
    """One table row per folder: what works there and the cost of each placement."""
    import fcntl

    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        root = Path(scratch)
        (root / "a").write_bytes(b"a")
        (root / "b").write_bytes(b"b")
        refused = errno.errorcode.get(_noreplace(root / "a", root / "b"), "replaced!")
        try:
            os.link(root / "a", root / "c")
            link = "yes"
        except OSError as error:
            link = errno.errorcode.get(error.errno, str(error))
        handle = os.open(root, os.O_RDONLY)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lock = "yes"
        except OSError as error:
            lock = errno.errorcode.get(error.errno, str(error))
        finally:
            os.close(handle)
        timings = []
        for way in ("renameat2", "link"):
            for n in range(count):
                (root / f"t{n}").write_bytes(b"")
            started = time.perf_counter()
            for n in range(count):
                if way == "renameat2":
                    assert _noreplace(root / f"t{n}", root / f"{way}{n}") == 0
                else:
                    os.link(root / f"t{n}", root / f"{way}{n}")
                    os.unlink(root / f"t{n}")
            timings.append((time.perf_counter() - started) / count * 1e6)
        kind = subprocess.run(["stat", "-f", "-c", "%T", str(folder)], capture_output=True, text=True).stdout.strip()
        print(f"| {folder} ({kind}) | {refused} | {link} | {lock} | {timings[0]:.1f} | {timings[1]:.1f} |")


def main() -> None:
    """Run what was asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", action="store_true", help="run the fault harness and print its table")
    parser.add_argument("--seed", default=None, help="the harness's random seed (default: a new one)")
    parser.add_argument("--folders", nargs="*", type=Path, default=[], help="probe these folders' file systems")
    args = parser.parse_args()
    if args.folders:
        print("| folder | renameat2 NOREPLACE onto a taken name | hard links | folder lock | µs renameat2 | µs link+unlink |")
        print("|---|---|---|---|---|---|")
        for folder in args.folders:
            probe(folder)
    if args.harness:
        harness(args.seed)


if __name__ == "__main__":
    main()
