"""The ingest record (`.aesthete-ingest.jsonl`) is appended all or nothing: a short write is finished, a
failed one is cut back, a torn last line is ignored and the next append starts on a new line; and
a rerun after a full disk copies no photograph twice."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from aesthete_gui.services.ingest_journal import JOURNAL, IngestJournal
from tests.robustness.file_safety import (
    REPO,
    cli_env,
    digest,
    disk_with_few_files,
    every_hash,
    make_card,
    named_hashes,
    run_cli,
)


def _record(n: int) -> dict:
    return {"hash": f"{n:032x}", "path": f"2024/IMG_{n:04d}.JPG", "seq": n, "inode": n, "size": n, "mtime_ns": n}


def test_a_torn_last_line_is_ignored_and_the_next_append_starts_on_a_new_line(tmp_path: Path) -> None:
    journal = IngestJournal(tmp_path)
    journal.append([_record(1)])
    with open(tmp_path / JOURNAL, "ab") as handle:
        handle.write(b'{"hash":"000000000000000000000000000000aa","path":"2024/IMG_00')  # a write cut short
    IngestJournal(tmp_path).append([_record(2)])
    lines = (tmp_path / JOURNAL).read_bytes().split(b"\n")
    assert lines[-1] == b"" and json.loads(lines[0]) == _record(1) and json.loads(lines[2]) == _record(2)
    again = IngestJournal(tmp_path)
    assert sorted(again.by_hash) == [_record(1)["hash"], _record(2)["hash"]] and again.next_seq == 3


def test_a_short_write_is_finished_and_a_refused_one_leaves_the_record_as_it_was(tmp_path: Path) -> None:
    """A file size limit (RLIMIT_FSIZE) makes the kernel write part of the data, then refuse the rest:
    the way a disk filling mid-write behaves, on any file system. With room, the same append is whole."""
    IngestJournal(tmp_path).append([_record(1)])
    before = (tmp_path / JOURNAL).read_bytes()
    script = textwrap.dedent(f"""
        import resource, signal, sys
        from pathlib import Path
        from aesthete_gui.services.ingest_journal import IngestJournal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before)} + int(sys.argv[2]), resource.RLIM_INFINITY))
        records = [{{"hash": "%032x" % n, "path": "x/IMG_%04d.JPG" % n, "seq": n}} for n in range(2, int(sys.argv[3]))]
        try:
            IngestJournal(Path(sys.argv[1])).append(records)
        except OSError as error:
            print("refused", error.errno)
        """)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path), "40", "40"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "refused 27", done.stdout + done.stderr  # EFBIG after a short write
    assert (tmp_path / JOURNAL).read_bytes() == before  # the part written was cut back: no torn line
    small = subprocess.run([sys.executable, "-c", script, str(tmp_path), "400", "3"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert small.stdout == "" and small.returncode == 0, small.stdout + small.stderr
    assert sorted(IngestJournal(tmp_path).by_hash) == [_record(1)["hash"], f"{2:032x}"]


def test_reruns_after_the_disk_filled_copy_no_photograph_twice(tmp_path: Path) -> None:
    card = make_card(tmp_path / "card", 12, padding=20_000)
    env = cli_env()
    with disk_with_few_files(tmp_path / "disk", 9) as grow:
        dest = tmp_path / "disk" / "library"
        args = ["ingest", "--quiet", "--no-import", str(card.folder), str(dest)]
        full = run_cli(args, env)
        assert full.returncode == 2 and "destination is full" in full.stderr, full.stdout + full.stderr
        journal = (dest / JOURNAL).read_bytes()
        assert journal.endswith(b"\n") and all(json.loads(line) for line in journal.splitlines())
        with open(dest / JOURNAL, "ab") as handle:  # and a line torn by a crash (or an older version)
            handle.write(b'{"hash":"0123')
        grow(1000)
        for _ in range(3):
            assert run_cli(args, env).returncode == 0
        copies = every_hash([dest])
    assert all(copies[h] == 1 for h in card.owner), "a photograph or sidecar is missing or there twice"
    assert {digest(p) for p in card.folder.rglob("*.JPG")} <= set(copies)


def test_files_whose_record_lines_were_torn_are_found_by_their_bytes_and_not_copied_again(tmp_path: Path) -> None:
    card = make_card(tmp_path / "card", 6, padding=20_000)
    dest = tmp_path / "library"
    env = cli_env()
    args = ["ingest", "--quiet", "--no-import", str(card.folder), str(dest)]
    assert run_cli(args, env).returncode == 0
    copies = named_hashes(dest)
    record = (dest / JOURNAL).read_bytes()
    (dest / JOURNAL).write_bytes(record[: len(record) // 3])  # the records of most files lost mid-line
    rerun = run_cli(args, env)
    assert rerun.returncode == 0 and "0 copied and verified, 8 already there" in rerun.stdout, rerun.stdout + rerun.stderr
    assert named_hashes(dest) == copies  # nothing copied twice, no sidecar either
    again = run_cli(args, env)  # and the record knows them again
    assert "0 copied and verified, 8 already there" in again.stdout and named_hashes(dest) == copies
