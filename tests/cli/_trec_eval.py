"""Build the real trec_eval 10.0 from its source tarball, once, into a cache folder.

The tarball is ``<repo>/../shared/conformance/trec_eval-10.0-src.tar.gz`` (override with
``$RANKEVAL_TREC_EVAL_SRC``).  The binary lands in
``$XDG_CACHE_HOME/polars_rankeval/trec_eval-10.0-<sha256[:16]>/trec_eval`` (default
``~/.cache``), keyed by the tarball's hash so a new tarball builds again.  Used by the
oracle tests (``tests/cli/conftest.py``) and by ``benchmarks/cli_vs_trec_eval.py``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["TARBALL", "BuildUnavailable", "trec_eval_binary"]

TARBALL = Path(
    os.environ.get(
        "RANKEVAL_TREC_EVAL_SRC",
        Path(__file__).resolve().parents[3]
        / "shared"
        / "conformance"
        / "trec_eval-10.0-src.tar.gz",
    )
)


class BuildUnavailable(RuntimeError):
    """No tarball, no C compiler or no make: the oracle cannot be built here."""


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "polars_rankeval"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive file lock: pytest-xdist workers build once, the others wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def trec_eval_binary(tarball: Path = TARBALL) -> Path:
    """The path of a built trec_eval binary; builds it on the first call (about 10 s)."""
    if not tarball.is_file():
        raise BuildUnavailable(f"trec_eval source tarball not found at {tarball}")
    missing = [tool for tool in ("make", "cc") if shutil.which(tool) is None]
    if missing:
        raise BuildUnavailable(
            f"cannot build trec_eval: {' and '.join(missing)} not found "
            "(apt-get install gcc make; .ci/install_engines.sh does it)"
        )
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]
    target = _cache_root() / f"trec_eval-10.0-{digest}"
    binary = target / "trec_eval"
    with _locked(_cache_root() / f".trec_eval-{digest}.lock"):
        if not os.access(binary, os.X_OK):
            _build(tarball, target)
    return binary


def _build(tarball: Path, target: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="trec_eval-build-") as scratch:
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="data")
        source = min(Path(scratch).rglob("Makefile"), key=lambda p: len(p.parts)).parent
        done = subprocess.run(
            ["make", "-C", str(source)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0 or not (source / "trec_eval").is_file():
            raise RuntimeError(f"building trec_eval failed:\n{done.stdout}\n{done.stderr}")
        target.mkdir(parents=True, exist_ok=True)
        staged = target / ".trec_eval.tmp"
        shutil.copy2(source / "trec_eval", staged)
        os.replace(staged, target / "trec_eval")
