"""The README cannot drift: its tables come from the registry, its code runs.

Every code block of the README (and docs/) is run by tests/docs/test_doc_blocks.py.
"""

from __future__ import annotations

import re
import subprocess
import sys

from polars_rankeval._docs import measure_table, preset_table, rewrite
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text()


def between(marker: str) -> str:
    match = re.search(rf"<!-- {marker}:start -->\n(.*?)\n<!-- {marker}:end -->", README, re.DOTALL)
    assert match, f"README lacks the {marker} markers"
    return match.group(1)


def test_measure_table_lists_every_registered_family():
    assert between("measures") == measure_table()


def test_every_generated_readme_section_is_fresh():
    """Stale tables fail here: run `python -m polars_rankeval._docs --write README.md`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rewrite(text) == text


def test_preset_table_matches_the_presets():
    assert between("presets") == preset_table()


def test_quickstart_code_and_output_are_the_example_script_and_what_it_prints():
    script = ROOT / "examples" / "quickstart.py"
    body = script.read_text().split('"""\n', 1)[1].strip()  # the code after its docstring
    assert f"```python\n{body}\n```" in README
    printed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.rstrip()
    assert f"```text\n{printed}\n```" in README


def test_the_readme_opens_with_the_setup_and_test_commands_ci_runs():
    first_block = re.search(r"```bash\n(.*?)```", README, re.DOTALL).group(1).strip().splitlines()
    assert "examples/quickstart.py" in first_block[0]
    test_command = first_block[1]
    assert test_command in (ROOT / ".ci" / "run").read_text()
