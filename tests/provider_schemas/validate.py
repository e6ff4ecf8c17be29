"""Validates the strict provider catalogs against the providers' own SDK types
and their documented schema rules and limits.

For every server binary given, every scope and every strict format, this
dumps `BINARY --dump-catalog --scope S --format F` (a fresh, empty data
directory: every tool is listed) and checks each tool entry:

* openai-strict: the entry against the `openai` SDK's
  `ChatCompletionFunctionToolParam` (a TypedDict, through a pydantic
  TypeAdapter), then the parameters against OpenAI's documented strict
  subset ("Supported schemas" of the Structured Outputs guide): the listed
  keywords and formats only, every object closed with every property
  required, a root object that is not `anyOf`, at most 5000 properties and
  10 levels of nesting, at most 1000 enum values, 120,000 characters of
  names and enum values, 15,000 characters for one enum of over 250 values;
  names `^[a-zA-Z0-9_-]{1,64}$`.
* anthropic-strict: the entry against the `anthropic` SDK's `ToolParam`,
  then Anthropic's documented strict subset ("JSON Schema limitations"):
  the listed keywords and formats, closed objects, `minItems` 0 or 1,
  scalar enums, simple patterns; per request at most 20 strict tools, 24
  optional parameters and 16 union-typed parameters (checked per tool; the
  catalog's totals are printed, since a client picks the tools of one
  request); names `^[a-zA-Z0-9_-]{1,64}$`.
* gemini: the entry through `google.genai.types.FunctionDeclaration`
  (`model_validate`, whose Schema model forbids unknown fields), then the
  OpenAPI subset Gemini documents: upper-case types, string enums, formats
  by type, parameter names `^[A-Za-z_][A-Za-z0-9_]{0,63}$`, function names
  starting with a letter or `_` (at most 64 of letters, digits, `_`, `.`,
  `:`, `-`).

A tool the catalog offers unconstrained (`strict: false`, or Gemini's
`parametersJsonSchema`) must be named in the catalog's `projection` report
with a reason; only the SDK types apply to it. Every problem is printed
with binary, scope, format, tool and JSON Pointer; the exit code is 1 if
there is any.

Usage: validate.py BINARY [BINARY...]
"""

from __future__ import annotations

import datetime
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Iterator

import pydantic
from anthropic.types import ToolParam
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionFunctionToolParam

FORMATS = ["openai-strict", "anthropic-strict", "gemini"]

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
GEMINI_PARAMETER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

# OpenAI: "Supported schemas" (keywords by type, plus the structural ones).
OPENAI_KEYWORDS = {
    "type", "description", "enum", "anyOf", "properties", "required",
    "additionalProperties", "items", "pattern", "format", "multipleOf",
    "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "minItems", "maxItems",
}
OPENAI_FORMATS = {
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4",
    "ipv6", "uuid",
}
OPENAI_MAX_PROPERTIES = 5000
OPENAI_MAX_DEPTH = 10
OPENAI_MAX_ENUM_VALUES = 1000
OPENAI_MAX_STRING_CHARS = 120_000
OPENAI_LARGE_ENUM = 250
OPENAI_LARGE_ENUM_CHARS = 15_000

# Anthropic: "JSON Schema limitations".
ANTHROPIC_KEYWORDS = {
    "type", "description", "enum", "const", "anyOf", "allOf", "default",
    "properties", "required", "additionalProperties", "items", "format",
    "pattern", "minItems",
}
ANTHROPIC_FORMATS = {
    "date-time", "time", "date", "duration", "email", "hostname", "uri",
    "ipv4", "ipv6", "uuid",
}
ANTHROPIC_MAX_STRICT_TOOLS = 20
ANTHROPIC_MAX_OPTIONAL = 24
ANTHROPIC_MAX_UNIONS = 16
# Documented regex features: anchors, * + ? and simple {n,m}, [] . \d \w \s, (...).
ANTHROPIC_PATTERN = re.compile(
    r"^(?:[^\\\[\](){}|]|\\[dws]|\\[!-/:-@\[-`{-~]|\[(?:[^\\\[\]]|\\[dws]|\\[!-/:-@\[-`{-~])*\]"
    r"|\((?!\?)|\)|\{\d{1,3}(?:,\d{0,3})?\})*$"
)

# Gemini: the API's Schema object (ai.google.dev/api/caching#Schema).
GEMINI_KEYWORDS = {
    "type", "format", "title", "description", "nullable", "enum", "items",
    "minItems", "maxItems", "properties", "required", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum",
    "maximum", "anyOf", "propertyOrdering",
}
GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
GEMINI_FORMATS = {
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
    "STRING": {"enum", "date-time"},
}


@dataclass
class Problems:
    found: list[str] = field(default_factory=list)

    def add(self, where: str, path: str, message: str) -> None:
        self.found.append(f"{where} at {path or '/'}: {message}")


def dump(binary: str, data_dir: str, scope: str, fmt: str) -> dict[str, Any]:
    output = subprocess.run(
        [binary, "--dump-catalog", "--data-dir", data_dir, "--scope", scope, "--format", fmt],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(output.stdout)


def subschemas(schema: Any, path: str = "", depth: int = 1) -> Iterator[tuple[str, dict[str, Any], int]]:
    """Every subschema with its JSON Pointer and object-nesting depth."""
    if not isinstance(schema, dict):
        return
    yield path, schema, depth
    is_object = schema.get("type") in ("object", "OBJECT") or "properties" in schema
    inner = depth + 1 if is_object else depth
    for name, sub in (schema.get("properties") or {}).items():
        token = name.replace("~", "~0").replace("/", "~1")
        yield from subschemas(sub, f"{path}/properties/{token}", inner)
    if isinstance(schema.get("items"), dict):
        yield from subschemas(schema["items"], f"{path}/items", depth)
    for key in ("anyOf", "allOf"):
        for index, sub in enumerate(schema.get(key) or []):
            yield from subschemas(sub, f"{path}/{key}/{index}", depth)


def sdk_check(adapter: pydantic.TypeAdapter, entry: dict[str, Any], where: str, problems: Problems) -> None:
    try:
        adapter.validate_python(entry, strict=True)
    except pydantic.ValidationError as error:
        for issue in error.errors():
            location = "/".join(str(part) for part in issue["loc"])
            problems.add(where, "/" + location, f"SDK type: {issue['msg']}")


def extra_keys(entry: dict[str, Any], allowed: set[str], where: str, problems: Problems, path: str = "") -> None:
    """TypedDict validation ignores unknown keys; the API does not."""
    for key in entry:
        if key not in allowed:
            problems.add(where, path, f"unknown field `{key}`")


def check_openai(entry: dict[str, Any], where: str, problems: Problems, adapter: pydantic.TypeAdapter) -> bool:
    sdk_check(adapter, entry, where, problems)
    extra_keys(entry, {"type", "function"}, where, problems)
    function = entry.get("function") or {}
    extra_keys(function, {"name", "description", "parameters", "strict"}, where, problems, "/function")
    if not OPENAI_NAME.match(function.get("name", "")):
        problems.add(where, "/function/name", f"name {function.get('name')!r} breaks {OPENAI_NAME.pattern}")
    if function.get("strict") is not True:
        return False
    schema = function.get("parameters") or {}
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.add(where, "", "the root must be an object, not anyOf")
    properties = enum_values = string_chars = 0
    for path, node, depth in subschemas(schema):
        for key in node:
            if key not in OPENAI_KEYWORDS:
                problems.add(where, path, f"`{key}` is not in OpenAI's strict subset")
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            problems.add(where, path, f"format {node['format']!r} is not supported")
        if "type" not in node and "anyOf" not in node and "enum" not in node:
            problems.add(where, path, "no type")
        if node.get("type") == "object" or "properties" in node:
            props = node.get("properties") or {}
            if node.get("additionalProperties") is not False:
                problems.add(where, path, "an object without additionalProperties: false")
            if sorted(node.get("required") or []) != sorted(props):
                problems.add(where, path, "not every property is in required")
            properties += len(props)
            string_chars += sum(len(name) for name in props)
            if depth > OPENAI_MAX_DEPTH:
                problems.add(where, path, f"nesting depth {depth} exceeds {OPENAI_MAX_DEPTH}")
        if "enum" in node:
            values = node["enum"]
            enum_values += len(values)
            chars = sum(len(v) for v in values if isinstance(v, str))
            string_chars += chars
            if len(values) > OPENAI_LARGE_ENUM and chars > OPENAI_LARGE_ENUM_CHARS:
                problems.add(where, path, f"an enum of {len(values)} values with {chars} characters")
    if properties > OPENAI_MAX_PROPERTIES:
        problems.add(where, "", f"{properties} properties exceed {OPENAI_MAX_PROPERTIES}")
    if enum_values > OPENAI_MAX_ENUM_VALUES:
        problems.add(where, "", f"{enum_values} enum values exceed {OPENAI_MAX_ENUM_VALUES}")
    if string_chars > OPENAI_MAX_STRING_CHARS:
        problems.add(where, "", f"{string_chars} characters of names and values exceed {OPENAI_MAX_STRING_CHARS}")
    return True


def check_anthropic(entry: dict[str, Any], where: str, problems: Problems, adapter: pydantic.TypeAdapter, totals: dict[str, int]) -> bool:
    sdk_check(adapter, entry, where, problems)
    extra_keys(entry, {"name", "description", "input_schema", "strict"}, where, problems)
    if not ANTHROPIC_NAME.match(entry.get("name", "")):
        problems.add(where, "/name", f"name {entry.get('name')!r} breaks {ANTHROPIC_NAME.pattern}")
    if entry.get("strict") is not True:
        return False
    schema = entry.get("input_schema") or {}
    optional = unions = 0
    for path, node, _depth in subschemas(schema):
        for key in node:
            if key not in ANTHROPIC_KEYWORDS:
                problems.add(where, path, f"`{key}` is not in Anthropic's strict subset")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            problems.add(where, path, f"format {node['format']!r} is not supported")
        if "minItems" in node and node["minItems"] not in (0, 1):
            problems.add(where, path, f"minItems {node['minItems']} (only 0 and 1 are supported)")
        if "pattern" in node and not ANTHROPIC_PATTERN.match(node["pattern"]):
            problems.add(where, path, f"pattern {node['pattern']!r} uses undocumented regex features")
        if "enum" in node and any(isinstance(v, (dict, list)) for v in node["enum"]):
            problems.add(where, path, "an enum of complex values")
        if isinstance(node.get("type"), list) or "anyOf" in node:
            unions += 1
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False:
                problems.add(where, path, "an object without additionalProperties: false")
            optional += len(set(node.get("properties") or {}) - set(node.get("required") or []))
    if optional > ANTHROPIC_MAX_OPTIONAL:
        problems.add(where, "", f"{optional} optional parameters exceed {ANTHROPIC_MAX_OPTIONAL} for one request")
    if unions > ANTHROPIC_MAX_UNIONS:
        problems.add(where, "", f"{unions} union-typed parameters exceed {ANTHROPIC_MAX_UNIONS} for one request")
    totals["optional"] += optional
    totals["unions"] += unions
    return True


def check_gemini(entry: dict[str, Any], where: str, problems: Problems) -> bool:
    try:
        genai_types.FunctionDeclaration.model_validate(entry)
    except pydantic.ValidationError as error:
        for issue in error.errors():
            location = "/".join(str(part) for part in issue["loc"])
            problems.add(where, "/" + location, f"SDK type: {issue['msg']}")
    extra_keys(entry, {"name", "description", "parameters", "parametersJsonSchema"}, where, problems)
    if not GEMINI_NAME.match(entry.get("name", "")):
        problems.add(where, "/name", f"name {entry.get('name')!r} breaks {GEMINI_NAME.pattern}")
    if "parameters" in entry and "parametersJsonSchema" in entry:
        problems.add(where, "", "`parameters` and `parametersJsonSchema` are mutually exclusive")
    if "parameters" not in entry:
        return "parametersJsonSchema" not in entry
    schema = entry["parameters"]
    if schema.get("type") != "OBJECT":
        problems.add(where, "/parameters", "the parameters must be an OBJECT")
    for path, node, _depth in subschemas(schema, "/parameters"):
        for key in node:
            if key not in GEMINI_KEYWORDS:
                problems.add(where, path, f"`{key}` is not in Gemini's schema subset")
        kind = node.get("type")
        if kind is not None and kind not in GEMINI_TYPES:
            problems.add(where, path, f"type {kind!r} is not a Gemini Type")
        if "format" in node and node["format"] not in GEMINI_FORMATS.get(kind, set()):
            problems.add(where, path, f"format {node['format']!r} is not documented for {kind}")
        if "enum" in node and not all(isinstance(v, str) for v in node["enum"]):
            problems.add(where, path, "Gemini enums hold strings only")
        if kind == "OBJECT":
            properties = node.get("properties") or {}
            if not properties:
                problems.add(where, path, "an OBJECT without properties")
            for name in properties:
                if not GEMINI_PARAMETER.match(name):
                    problems.add(where, f"{path}/properties/{name}", f"parameter name breaks {GEMINI_PARAMETER.pattern}")
    return True


def entry_name(fmt: str, entry: dict[str, Any]) -> str:
    return (entry.get("function") or {}).get("name", "?") if fmt == "openai-strict" else entry.get("name", "?")


def check_catalog(binary: str, scope: str, fmt: str, catalog: dict[str, Any], problems: Problems, adapters: dict[str, pydantic.TypeAdapter]) -> tuple[int, int]:
    label = f"{binary.rsplit('/', 1)[-1]} {scope} {fmt}"
    if catalog.get("type") != f"{fmt}_tool_catalog":
        problems.add(label, "/type", f"unexpected catalog type {catalog.get('type')!r}")
    report = {item["tool"]: item for item in catalog.get("projection", [])}
    strict = unconstrained = 0
    totals = {"optional": 0, "unions": 0}
    for entry in catalog["tools"]:
        name = entry_name(fmt, entry)
        where = f"{label} tool {name}"
        if fmt == "openai-strict":
            constrained = check_openai(entry, where, problems, adapters["openai"])
        elif fmt == "anthropic-strict":
            constrained = check_anthropic(entry, where, problems, adapters["anthropic"], totals)
        else:
            constrained = check_gemini(entry, where, problems)
        if constrained:
            strict += 1
        else:
            unconstrained += 1
            reason = report.get(name, {}).get("reason")
            if report.get(name, {}).get("strict") is not False or not reason:
                problems.add(where, "", "offered unconstrained without a reason in the projection report")
    for name, item in report.items():
        if name not in {entry_name(fmt, entry) for entry in catalog["tools"]}:
            problems.add(label, "/projection", f"reports {name}, which is not listed")
        for change in item.get("changes", []):
            if set(change) != {"path", "keyword", "action", "detail"} or change["action"] not in (
                "dropped", "rewritten", "nullable-added"
            ):
                problems.add(label, "/projection", f"a malformed change for {name}: {change}")
    if fmt == "anthropic-strict" and strict:
        fits = (
            strict <= ANTHROPIC_MAX_STRICT_TOOLS
            and totals["optional"] <= ANTHROPIC_MAX_OPTIONAL
            and totals["unions"] <= ANTHROPIC_MAX_UNIONS
        )
        print(
            f"  {label}: {strict} strict tools, {totals['optional']} optional and "
            f"{totals['unions']} union-typed parameters in all"
            + ("" if fits else " — more than one request may carry: send a subset")
        )
    return strict, unconstrained


def scopes_of(binary: str, parent: str) -> list[str]:
    """`all`, then every scope the application's tools name (each
    application declares its own vocabulary)."""
    native = dump(binary, f"{parent}/none", "all", "portos")
    named = sorted({scope for tool in native["tools"] for scope in tool["policy"]["scopes"]})
    return ["all", *named]


def store(binary: str, data_dir: str, key: str, value: Any) -> None:
    """Writes one settings value into the data directory's store (the
    application's `<command>.db`)."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    with sqlite3.connect(f"{data_dir}/{binary.rsplit('/', 1)[-1]}.db") as db:
        db.execute(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value), now),
        )


def granting_data_dir(binary: str, parent: str) -> str:
    """A data directory, created and migrated by `binary` itself, whose
    stored grants hold every capability a tool needs, so the catalogs of
    the principals that hold grants (which list only granted tools) list
    every tool of their scope. The MCP principal's grants are the runtime's
    Agent Tools settings; PortOS keeps its Persistent Mind's under
    `persistentMindCapabilities` (a key other applications never read)."""
    data_dir = f"{parent}/granted"
    subprocess.run(
        [binary, "--mcp-stdio", "--data-dir", data_dir],
        stdin=subprocess.DEVNULL, capture_output=True, check=False,
    )
    # The scopes whose principals hold grants mark each tool `granted`.
    needs: dict[str, set[str]] = {}
    for scope in scopes_of(binary, parent)[1:]:
        native = dump(binary, f"{parent}/none", scope, "portos")
        if any(tool["granted"] is not None for tool in native["tools"]):
            needs[scope] = {
                capability
                for tool in native["tools"]
                for capability in tool["policy"]["requiredCapabilities"]
            }
    every = set().union(*needs.values()) if needs else set()
    # PortOS's Persistent Mind reads the keys it knows and ignores the rest.
    store(binary, data_dir, "persistentMindCapabilities", {name: True for name in sorted(every)})
    # The MCP principal's grants: each granted scope's needs in turn, until
    # the Agent Tools settings accept them (its catalog then lists every
    # tool of the scope).
    for scope, wanted in needs.items():
        store(binary, data_dir, "agentContext", {"enabled": True, "actions": {name: True for name in sorted(wanted)}})
        listed = len(dump(binary, data_dir, scope, "openai")["tools"])
        if wanted and listed == len(dump(binary, f"{parent}/none", scope, "portos")["tools"]):
            break
    return data_dir


def main(binaries: list[str]) -> int:
    if not binaries:
        print(__doc__, file=sys.stderr)
        return 2
    adapters = {
        "openai": pydantic.TypeAdapter(ChatCompletionFunctionToolParam),
        "anthropic": pydantic.TypeAdapter(ToolParam),
    }
    problems = Problems()
    checked = 0
    for binary in binaries:
        with tempfile.TemporaryDirectory() as parent:
            data_dir = granting_data_dir(binary, parent)
            for scope in scopes_of(binary, parent):
                listed = len(dump(binary, f"{parent}/none", scope, "portos")["tools"])
                for fmt in FORMATS:
                    catalog = dump(binary, data_dir, scope, fmt)
                    if len(catalog["tools"]) != listed:
                        problems.add(
                            f"{binary.rsplit('/', 1)[-1]} {scope} {fmt}", "/tools",
                            f"{len(catalog['tools'])} tools listed, {listed} in the scope: grants missing?",
                        )
                    strict, unconstrained = check_catalog(binary, scope, fmt, catalog, problems, adapters)
                    checked += strict + unconstrained
                    print(f"{binary.rsplit('/', 1)[-1]} {scope} {fmt}: {strict} strict, {unconstrained} unconstrained")
    for problem in problems.found:
        print(f"FAIL {problem}", file=sys.stderr)
    passed = checked - len({p.split(' at ')[0] for p in problems.found})
    print(f"provider-schemas: {passed} passed, {checked - passed} failed")
    return 1 if problems.found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
