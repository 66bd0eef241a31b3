"""Another program that writes the same sidecars as Aesthete, run as its own process, and exiftool
kept open for quick reads: the pieces of the sidecar fault harness (and of benchmarks/sidecar_race.py).

The other program edits keywords (`dc:subject`) and sometimes the rating, the way Lightroom or
exiftool do: it reads the sidecar, changes its own fields and renames a new file over the old one.
`careful` mode also checks, as Aesthete does, that the file it displaced is the one it read (an
atomic exchange of names) and otherwise merges onto the newer file; `naive` mode renames blindly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

OTHER_PROGRAM = r'''
import ctypes, json, os, re, sys, time

libc = ctypes.CDLL(None, use_errno=True)


def exchange(first, second):
    if libc.renameat2(-100, os.fsencode(first), -100, os.fsencode(second), 2) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def snapshot(path):
    with open(path, "rb") as stream:
        data = stream.read()
    info = os.lstat(path)
    return (info.st_ino, info.st_size, info.st_mtime_ns), data


def modify(data, keywords, rating):
    text = data.decode("utf-8")
    bag = "<rdf:Bag>" + "".join("<rdf:li>%s</rdf:li>" % k for k in keywords) + "</rdf:Bag>"
    text = re.sub(r"<dc:subject>.*?</dc:subject>", "<dc:subject>" + bag + "</dc:subject>", text, flags=re.S)
    if rating is not None:
        text = re.sub(r'xmp:Rating="[^"]*"', 'xmp:Rating="%d"' % rating, text)
    return text.encode("utf-8")


def temporary(path, data, attempt):
    name = "%s.other-%d-%d.tmp" % (path, os.getpid(), attempt)
    with open(name, "wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    info = os.lstat(name)
    return name, (info.st_ino, info.st_size, info.st_mtime_ns)


def careful(path, keywords, rating):
    expected = snapshot(path)
    held = None
    for attempt in range(1, 100):
        new = modify(expected[1] if held is None else displaced[1], keywords, rating)
        name, ident = temporary(path, new, attempt)
        exchange(name, path)
        displaced = snapshot(name)
        if displaced == expected:
            os.unlink(name)
            if held:
                os.unlink(held)
            return attempt
        if held:
            os.unlink(held)
        held, expected = name, (ident, new)
    raise RuntimeError("gave up")


def naive(path, keywords, rating):
    with open(path, "rb") as stream:
        data = stream.read()
    name, _ = temporary(path, modify(data, keywords, rating), 0)
    os.replace(name, path)
    return 1


write = careful if sys.argv[1] == "careful" else naive
for line in sys.stdin:
    order = json.loads(line)
    time.sleep(order["delay"])
    attempts = write(order["path"], order["keywords"], order.get("rating"))
    print(json.dumps({"round": order["round"], "attempts": attempts}), flush=True)
'''


def sidecar_text(rating: int, *keywords: str) -> str:
    """A sidecar as the other program first writes it: a rating and keywords, one description."""
    items = "".join(f"<rdf:li>{k}</rdf:li>" for k in keywords)
    return ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
            'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            f'xmp:Rating="{rating}"><dc:subject><rdf:Bag>{items}</rdf:Bag></dc:subject></rdf:Description>'
            '</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>')  # fmt: skip


class OtherProgram:
    """The other program as a running process: `order()` a write, `done()` waits for it."""

    def __init__(self, folder: Path, mode: str = "careful") -> None:
        script = folder / "other_program.py"
        script.write_text(OTHER_PROGRAM, encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, str(script), mode], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip

    def order(self, number: int, path: Path, keywords: list[str], rating: int | None, delay: float) -> None:
        """Ask for one write after `delay` seconds (returns at once)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"round": number, "path": str(path), "keywords": keywords,
                                             "rating": rating, "delay": delay}) + "\n")  # fmt: skip
        self.process.stdin.flush()

    def done(self) -> int:
        """Wait for the ordered write; how many tries it took (more than 1: it met our write)."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the other program stopped (exit {self.process.wait()})")
        return int(json.loads(line)["attempts"])

    def close(self) -> None:
        """End the process."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


class ExifTool:
    """One exiftool process kept open (-stay_open), so reading a sidecar costs milliseconds."""

    def __init__(self) -> None:
        found = shutil.which("exiftool")
        assert found, "exiftool is required (Debian package libimage-exiftool-perl)"
        self.process = subprocess.Popen([found, "-stay_open", "True", "-@", "-"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip

    def read(self, *paths: Path) -> list[dict]:
        """exiftool's reading of Rating, Label, PickLabel and Subject (numbers as numbers)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        args = ["-j", "-n", "-XMP-xmp:Rating", "-XMP-xmp:Label", "-XMP-digiKam:PickLabel", "-XMP-dc:Subject",
                *map(str, paths), "-execute"]  # fmt: skip
        self.process.stdin.write("\n".join(args) + "\n")
        self.process.stdin.flush()
        lines = []
        while (line := self.process.stdout.readline()).strip() != "{ready}":
            if not line:
                raise RuntimeError("exiftool stopped")
            lines.append(line)
        return json.loads("".join(lines)) if lines else []

    def close(self) -> None:
        """End the process."""
        assert self.process.stdin is not None
        self.process.stdin.write("-stay_open\nFalse\n")
        self.process.stdin.flush()
        self.process.wait(timeout=10)


def keywords_of(tags: dict) -> list[str]:
    """exiftool's Subject as a list (one keyword comes back as a plain string)."""
    subject = tags.get("Subject", [])
    return [str(k) for k in (subject if isinstance(subject, list) else [subject])]


def temporary_files(folder: Path) -> list[str]:
    """Temporary files of either writer left in the folder."""
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))
