"""The type stubs (thm/_thm.pyi) say what the extension module has: the same classes with
the same fields, the same enum members, the same functions. mypy --strict checks callers
against the stubs; this checks the stubs against the module, so neither can drift."""

from __future__ import annotations

import ast
import enum
import inspect
from pathlib import Path
from typing import Any

import thm._thm as module

STUB = ast.parse((Path(module.__file__).parent / "_thm.pyi").read_text(encoding="utf-8"))
CLASSES = {node.name: node for node in STUB.body if isinstance(node, ast.ClassDef)}
FUNCTIONS = {node.name for node in STUB.body if isinstance(node, ast.FunctionDef)}
ALIASES = {target.id for node in STUB.body if isinstance(node, ast.Assign)
           for target in node.targets if isinstance(target, ast.Name)}


def runtime(kind: type) -> dict[str, Any]:
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and isinstance(value, kind)}


def properties(node: ast.ClassDef) -> list[str]:
    return [item.name for item in node.body if isinstance(item, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list)]


def test_every_class_and_only_those_is_stubbed() -> None:
    assert set(runtime(type)) == set(CLASSES) - {"_Value"}


def test_every_value_class_has_its_fields_in_order() -> None:
    for name, value in runtime(type).items():
        if issubclass(value, enum.Enum):
            continue
        assert tuple(properties(CLASSES[name])) == value.__match_args__, name


def test_every_enum_has_its_members_and_tokens() -> None:
    for name, value in runtime(type).items():
        if not issubclass(value, enum.Enum):
            continue
        stubbed = {target.id: item.value.value for item in CLASSES[name].body
                   if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
                   for target in item.targets if isinstance(target, ast.Name)}
        assert stubbed == {member.name: member.value for member in value}, name


def test_every_function_and_variant_union_is_stubbed() -> None:
    functions = {name for name, value in vars(module).items()
                 if not name.startswith("_") and inspect.isbuiltin(value)}
    assert functions == FUNCTIONS
    unions = {name for name, value in vars(module).items() if type(value).__name__ == "UnionType"}
    assert unions and unions <= ALIASES
