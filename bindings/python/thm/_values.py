"""How a pickled value is read back: from its wire form (adr/0013)."""

from __future__ import annotations

from typing import Any


def rebuild(wire_type: str, value: Any) -> Any:
    """The value of ``wire_type`` whose wire form is ``value``: what ``__reduce__`` names."""
    from thm._thm import from_json

    return from_json(wire_type, value)
