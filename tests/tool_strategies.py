"""Hypothesis strategies for tool arguments, derived from the tools' own schemas (`TOOLS`): good, bad and
borderline values for every field of every tool, for the property tests and the fuzz suites."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from idea.infrastructure.mcp.tools import ToolSpec

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
)
ANY_TEXT = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=60)


def field_values(rules: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Good, bad and borderline values for one field of a schema."""
    options: list[st.SearchStrategy[Any]] = [
        JSON_VALUES,
        ANY_TEXT,
        st.sampled_from(["", " ", "\t\n", "\u0000", "\x1b[2J", "\ud800", "\r\n", "a\u0000b"]),
    ]
    if "enum" in rules:
        choices = rules["enum"]
        options.append(st.sampled_from([*choices, *(c.upper() for c in choices), *(f" {c}\u0000" for c in choices)]))
    limit = rules.get("maxLength")
    if limit is not None:
        options.append(st.sampled_from([limit - 1, limit, limit + 1]).map(lambda n: "x" * n))
    if rules.get("format") == "uuid":
        options.append(st.uuids().map(str) | st.uuids().map(lambda u: u.hex.upper()))
    return st.one_of(options)


def good_values(key: str, rules: dict[str, Any], names: tuple[str, ...]) -> st.SearchStrategy[Any]:
    """Values the field accepts, so that calls get past the parse into the handlers."""
    if "enum" in rules:
        return st.sampled_from(rules["enum"])
    if rules.get("format") == "uuid":
        return st.uuids().map(str)
    if "pattern" in rules:
        return st.from_regex(rules["pattern"], fullmatch=True)
    if key in ("target", "targetAgent") and names:
        return st.sampled_from(names) | st.sampled_from(names).map(str.lower)
    return st.text(min_size=1, max_size=40).filter(str.strip)


@st.composite
def calls(draw: st.DrawFn, tool: ToolSpec, names: tuple[str, ...] = ()) -> dict[str, Any]:
    """Arguments for `tool`: each field absent, good, or anything at all; now and then an unknown one."""
    properties: dict[str, dict[str, Any]] = tool.input_schema["properties"]
    required = set(tool.input_schema.get("required", ()))
    arguments: dict[str, Any] = {}
    for key, rules in properties.items():
        choice = draw(st.integers(0, 9))
        if choice < (1 if key in required else 4):
            continue
        good = choice < 7
        arguments[key] = draw(good_values(key, rules, names) if good else field_values(rules))
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(JSON_SCALARS)
    return arguments
