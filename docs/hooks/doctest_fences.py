"""Griffe extension: show a docstring's bare doctest (``>>>`` lines and their output) as a
fenced ``pycon`` block on the site.

The numpy docstring parser reads doctests only under an ``Examples`` heading; elsewhere
Markdown would take ``>>> # comment`` for a quote holding a heading. The docstrings stay
plain doctests (``pytest --doctest-modules`` runs them); only the site's copy changes.
"""

from __future__ import annotations

from typing import Any

from griffe import Extension


def fence_doctests(text: str) -> str:
    """Wrap each run of doctest lines (prompt, continuation, output up to a blank line)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if not inside and stripped.startswith(">>>"):
            out.append("```pycon")
            inside = True
        elif inside and not stripped:
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


class DoctestFences(Extension):
    """Fence bare doctests outside an ``Examples`` section."""

    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None or ">>>" not in docstring.value:
            return
        head, sep, examples = docstring.value.partition("Examples\n--------")
        docstring.value = fence_doctests(head) + sep + examples
