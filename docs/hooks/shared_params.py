"""Griffe extension: fill the shared parameter placeholders (``{params: by, ties}``) of a
docstring read from the source, as :func:`polars_rankeval._docparams.fill_params` fills
``__doc__`` at import, so the site shows the same text as ``help()``."""

from __future__ import annotations

from typing import Any

from griffe import Extension

from polars_rankeval._docparams import fill


class SharedParams(Extension):
    """Replace each ``{params: ...}`` placeholder with the table's entries."""

    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None and "{params:" in docstring.value:
            docstring.value = fill(docstring.value)
