"""Fixtures of the command-line tests: the real trec_eval 10.0, built once per machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli._trec_eval import BuildUnavailable, trec_eval_binary


@pytest.fixture(scope="session")
def trec_eval() -> Path:
    """The trec_eval 10.0 binary built from the shared source tarball (cached by hash).

    Skips, saying why, only when it cannot be built here (no tarball, C compiler or make).
    """
    try:
        return trec_eval_binary()
    except BuildUnavailable as reason:
        pytest.skip(str(reason))
