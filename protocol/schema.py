"""YAML documents checked against a JSON schema, with one-line errors and schema defaults.

Every declaration and profile of the harness goes through :func:`read_yaml`
(a key given twice in one mapping is refused, with both lines, instead of
the second silently replacing the first) and :func:`check`: the first
violation (shallowest key first) becomes a :class:`DeclarationError` whose
message names the file and the key, and the ``default`` of every schema
property that is absent is filled in, so defaults live in the schema alone.
A schema ``integer`` is a whole number written as one: ``256.0`` (a YAML
float), ``true`` (a bool, which Python counts as an int) and ``"256"`` are
refused wherever a count, budget, step, block or seed is meant.  Every number
must be finite: NaN passes JSON schema's range keywords silently (every
comparison with NaN is false), so :func:`check` refuses a NaN or an infinity
anywhere in a document before the schema is applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, validators

from contracts.cli_numbers import not_a_float
from contracts.errors import clip
from contracts.hashing import SHA256_PATTERN, sha256_problem
from contracts.input_file import decode_utf8


class DeclarationError(ValueError):
    """A declaration, profile or reference that does not hold: one line naming file and key."""


def key_path(path: Any) -> str:
    """``a.b[2].c`` for a sequence of keys and indices."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def describe(error: Any) -> str:
    """One line for a jsonschema error, naming the key."""
    where = list(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        keys = ", ".join(key_path([*where, k]) for k in extra)
        hint = f" (allowed here: {', '.join(allowed)})" if allowed else ""
        return f"unknown key {keys}{hint}"
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return f"missing key {', '.join(key_path([*where, k]) for k in missing)}"
    if error.validator == "propertyNames":
        return f"key {key_path(where)}: name {error.instance!r} is not allowed ({error.message})"
    if error.validator == "oneOf" and error.context:
        # the branch of the value's own type says what is wrong with it (a list of numbers
        # with a negative one is not "not one of" the names the other branch allows)
        fitting = [e for e in error.context
                   if _fits(error.validator_value[e.relative_schema_path[0]], error.instance)]
        # of those, a branch whose keys the value has (no unknown or missing key of its own)
        # says more than one that would not take its keys ({file, sha256: TODO} is a pin
        # with a bad hash, not a {weights} leaf with an unknown key file)
        depth = len(error.absolute_path)
        misfits = {e.relative_schema_path[0] for e in error.context
                   if len(e.absolute_path) == depth
                   and e.validator in ("additionalProperties", "required")}
        fitting = [e for e in fitting if e.relative_schema_path[0] not in misfits] or fitting
        best = min(fitting or error.context,
                   key=lambda e: (len(e.absolute_path), e.validator != "enum"))
        return describe(best)
    if error.validator == "pattern" and error.validator_value == SHA256_PATTERN:
        return f"key {key_path(where)}: {sha256_problem(error.instance)}"
    return f"key {key_path(where)} = {error.instance!r}: {error.message}"


_JSON_TYPES = {"array": list, "object": dict, "string": str, "boolean": bool,
               "null": type(None), "number": (int, float), "integer": int}


def _fits(branch: Any, instance: Any) -> bool:
    """Whether ``instance`` has a type a ``oneOf`` branch declares (an ``enum`` branch takes
    scalars); a branch that says neither fits anything."""
    if not isinstance(branch, Mapping):
        return True
    if "type" in branch:
        types = branch["type"] if isinstance(branch["type"], list) else [branch["type"]]
        return any(isinstance(instance, _JSON_TYPES.get(t, object))
                   and not (isinstance(instance, bool) and t in ("number", "integer"))
                   for t in types)
    if "enum" in branch:
        return not isinstance(instance, list | dict)
    return True


def _is_integer(checker: Any, instance: Any) -> bool:
    """A JSON schema integer is an ``int`` here: not a bool, not a float such as 256.0."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def _with_defaults(cls: Any) -> Any:
    """A validator class that also fills each absent property's ``default`` and takes only
    ints as integers."""
    check_properties = cls.VALIDATORS["properties"]

    def properties(validator: Any, props: Mapping[str, Any], instance: Any, schema: Any):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, Mapping) and "default" in sub and name not in instance:
                    instance[name] = yaml.safe_load(yaml.safe_dump(sub["default"], sort_keys=False))
        yield from check_properties(validator, props, instance, schema)

    return validators.extend(cls, {"properties": properties},
                             type_checker=cls.TYPE_CHECKER.redefine("integer", _is_integer))


_FILLING = _with_defaults(Draft202012Validator)


@cache
def load_schema(name: str) -> dict[str, Any]:
    """A schema shipped with this package (``protocol/schemas/<name>.schema.yaml``)."""
    text = resources.files("protocol").joinpath("schemas", f"{name}.schema.yaml").read_text()
    return yaml.safe_load(text)


def schema_path(name: str) -> Path:
    """The file of a shipped schema."""
    return Path(str(resources.files("protocol").joinpath("schemas", f"{name}.schema.yaml")))


class _DuplicateKeyError(Exception):
    """A key given twice in one mapping: where, and the two lines."""


def _check_unique(node: yaml.Node, where: list[Any]) -> None:
    """Raise :class:`_DuplicateKeyError` for the first mapping of ``node`` that repeats a key."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else repr(key.value)
            if name in seen and name != "<<":
                raise _DuplicateKeyError(key_path([*where, name]), seen[name],
                                         key.start_mark.line + 1)
            seen[name] = key.start_mark.line + 1
            _check_unique(value, [*where, name])
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _check_unique(item, [*where, i])


class _Loader(yaml.SafeLoader):
    """YAML's safe loader with YAML 1.2's booleans: ``true`` and ``false`` only.  YAML 1.1
    also reads ``on``, ``off``, ``yes`` and ``no`` as booleans, which would turn a panel
    reading's key ``on`` (docs/panels.md) into ``True``."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                              re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def _load_unique(stream: Any) -> Any:
    """``yaml.safe_load`` (YAML 1.2 booleans, :class:`_Loader`) that refuses a key given twice
    in one mapping."""
    loader = _Loader(stream)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_unique(node, [])
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_yaml(path: str | Path) -> Any:
    """A YAML file's content; unreadable or invalid YAML, or a key given twice in one mapping,
    is a one-line error."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        return _load_unique(decode_utf8(data, str(path), DeclarationError))
    except _DuplicateKeyError as dup:
        key, first, second = dup.args
        raise DeclarationError(f"{path}: key {key}: given twice (lines {first} and {second}); "
                               "the second would silently replace the first") from None
    except OSError as exc:
        raise DeclarationError(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DeclarationError(f"{path}: not valid YAML{where}: {problem}") from None


def non_finite(value: Any, where: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], float] | None:
    """The first NaN, infinity or integer too large for a float in a document (its key path
    and value), or None."""
    if not_a_float(value):
        return where, value
    items = (value.items() if isinstance(value, Mapping)
             else enumerate(value) if isinstance(value, list | tuple) else ())
    for key, item in items:
        found = non_finite(item, (*where, key))
        if found is not None:
            return found
    return None


def check(doc: Any, schema: str | Mapping[str, Any],
          source: str | Path | Callable[[str], str]) -> dict[str, Any]:
    """``doc`` validated against schema ``schema`` (a shipped schema's name, or the schema)
    with defaults filled (a new dict); a NaN or an infinity anywhere is refused first.
    ``source`` names the file in errors, or is a function of the dotted key giving it."""
    if callable(source):
        blame = source
        source = blame("")
    else:
        blame = None
    if not isinstance(doc, Mapping):
        raise DeclarationError(f"{source}: must be a mapping of keys, got {type(doc).__name__}")
    bad = non_finite(plain(doc))
    if bad is not None:
        shown = blame(".".join(map(str, bad[0]))) if blame is not None else source
        raise DeclarationError(f"{shown}: key {key_path(bad[0])} = {clip(repr(bad[1]))}: not a "
                               "finite number")
    filled = yaml.safe_load(yaml.safe_dump(plain(doc), sort_keys=False))
    validator = _FILLING(load_schema(schema) if isinstance(schema, str) else schema)
    errors = sorted(validator.iter_errors(filled),
                    key=lambda e: (len(e.absolute_path), key_path(e.absolute_path)))
    if errors:
        where = list(errors[0].absolute_path)
        if blame is not None and errors[0].validator == "additionalProperties":
            known = set(errors[0].schema.get("properties", {}))
            where += sorted(set(errors[0].instance) - known)[:1]
        shown = blame(".".join(map(str, where))) if blame is not None else source
        raise DeclarationError(f"{shown}: {describe(errors[0])}")
    return filled


def plain(value: Any) -> Any:
    """Mappings and sequences as plain dicts and lists (Snakemake hands OrderedDicts)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
