"""In CI the oracles that skip without their tool must not skip (issue 17).

Several oracles skip on a machine without their tool: the HTML report's browser test
(``tests/compare/test_report_browser.py``: Chromium and chromedriver, installed by
``.ci/install_engines.sh``) and the random-data ranx oracle
(``tests/oracles/test_oracle_ranx.py``: ranx, in the ``[test]`` extra).  A skip is silent
in CI's output, so this test fails there instead when one of them is missing: CI sets
``CI=true`` (``.ci/run`` is run that way), a developer's machine without them still skips.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"true", "1"}


@pytest.mark.skipif(not IN_CI, reason="only in CI (CI=true): elsewhere these oracles may skip")
def test_ci_has_every_tool_the_skipping_oracles_need() -> None:
    missing = [
        name
        for name, found in [
            ("chromium", shutil.which("chromium") or shutil.which("chromium-browser")),
            ("chromedriver", shutil.which("chromedriver")),
            ("selenium", importlib.util.find_spec("selenium")),
            ("ranx", importlib.util.find_spec("ranx")),
            ("matplotlib", importlib.util.find_spec("matplotlib")),
        ]
        if not found
    ]
    assert not missing, f"CI would skip oracles for want of {missing}"
