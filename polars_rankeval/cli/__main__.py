"""``python -m polars_rankeval.cli``: the ``rankeval`` command."""

from __future__ import annotations

import sys

from polars_rankeval.cli.main import main

sys.exit(main())
