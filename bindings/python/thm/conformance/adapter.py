"""``python -m thm.conformance.adapter [--path DIR] TARGET``: the adapter program the suite
starts for a harness written in Python (``thm conformance --queue 'exec:python -m
thm.conformance.adapter TARGET'``, which ``thm.conformance.run`` builds). TARGET is
``package.module:name``: a harness, or a function or class that makes one (it may be async),
imported the way Python imports anything, from DIR first when it is given. Logs go to
stderr; stdout carries protocol lines only, also while TARGET is imported.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, cast


def resolve(target: str) -> Callable[[], Any]:
    """The factory ``target`` names: ``module:name``, ``name`` a harness or what makes one."""
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"a harness is named as package.module:name, not {target!r}")
    found: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        found = getattr(found, part)
    if hasattr(found, "open_session") and not isinstance(found, type):
        harness = found
        return lambda: harness
    if not callable(found):
        raise TypeError(f"{target} is neither a harness nor something that makes one")
    return cast(Callable[[], Any], found)


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "--path":
        sys.path.insert(0, argv[1])
        argv = argv[2:]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    from thm.conformance._serve import serve
    protocol = sys.stdout.buffer
    sys.stdout = sys.stderr  # a print() as the harness is imported must not reach the suite
    try:
        factory = resolve(argv[0])
    except Exception as error:  # named in the suite's report through stderr
        print(f"thm.conformance.adapter: cannot load {argv[0]}: {type(error).__name__}: {error}",
              file=sys.stderr)
        return 2
    return serve(factory, protocol)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
