"""Every node id this session collected, before ``-m``/``-k`` deselect any, so that
``test_targets.py`` checks the names in the mutation targets without a second
``pytest --collect-only`` process (about 8 s of imports and collection).  Not when the
command line names single tests (``file.py::test``): then a file may be collected only
in part."""

from __future__ import annotations

import pytest

COLLECTED = pytest.StashKey[frozenset[str]]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any("::" in arg for arg in config.args):
        config.stash[COLLECTED] = frozenset(item.nodeid for item in items)
