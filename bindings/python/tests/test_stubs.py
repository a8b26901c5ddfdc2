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


def stubbed_parameters(definitions: list[ast.FunctionDef]) -> list[tuple[str, str, bool]]:
    """(name, kind, has a default) of a stubbed function, and for overloads their union in
    order: a parameter some overload lacks has a default."""
    found: dict[str, tuple[str, bool]] = {}
    for definition in definitions:
        arguments = definition.args
        positional = arguments.posonlyargs + arguments.args
        defaults = [False] * (len(positional) - len(arguments.defaults)) + [True] * len(arguments.defaults)
        listed = [(a.arg, "POSITIONAL_OR_KEYWORD", d) for a, d in zip(positional, defaults)]
        listed += [(a.arg, "KEYWORD_ONLY", d is not None)
                   for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)]
        for name, kind, default in listed:
            if name == "self":
                continue
            before = found.get(name, (kind, False))
            found[name] = (kind, default or before[1])
    for name in found:  # a parameter some overload lacks may be left out
        if any(name not in {a.arg for a in d.args.args + d.args.kwonlyargs} for d in definitions):
            found[name] = (found[name][0], True)
    return [(name, kind, default) for name, (kind, default) in found.items()]


def actual_parameters(signature: inspect.Signature) -> list[tuple[str, str, bool]]:
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
            for p in signature.parameters.values()]


def test_help_and_inspect_show_each_functions_stubbed_parameters() -> None:
    for name in FUNCTIONS:
        definitions = [node for node in STUB.body
                       if isinstance(node, ast.FunctionDef) and node.name == name]
        function = getattr(module, name)
        assert actual_parameters(inspect.signature(function)) == stubbed_parameters(definitions), name
        assert "handle" not in (function.__doc__ or ""), name


def test_help_and_inspect_show_each_value_classs_fields_as_keywords() -> None:
    for name, value in runtime(type).items():
        if issubclass(value, enum.Enum):
            continue
        init = [item for item in CLASSES[name].body
                if isinstance(item, ast.FunctionDef) and item.name == "__init__"]
        if not init:  # made by a factory (Team.prepare)
            continue
        assert actual_parameters(inspect.signature(value)) == stubbed_parameters(init), name
