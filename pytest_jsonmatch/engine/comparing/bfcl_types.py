"""BFCL's reading of Java and JavaScript argument values, which models write as source text.

The Berkeley Function Calling Leaderboard's AST checker takes every Java and JavaScript
argument as a string and converts it by the declared type with regular expressions
(``"5L"`` is the long 5, ``"new int[]{1, 2}"`` the array [1, 2]); text that does not fit
stays text. These functions do the same conversion, rule for rule, so that ``rules: bfcl``
gives the leaderboard's verdict: where its conversion is lax (a ``char`` never converts,
the elements of a JavaScript array split on every comma) this is lax the same way. Where it
raises (a ``Set``, an unknown type), :class:`Unconvertible` is raised.
"""

from __future__ import annotations

import re

from ..core.values import JsonObject, JsonValue


class Unconvertible(Exception):
    """BFCL's checker cannot convert a value of this declared type (it raises)."""


# the Python type each declared type converts to (BFCL's tables)
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_JAVA_CHAR = re.compile(r"^\'.$\'")
_F_SUFFIX = re.compile(r"[fF]$")
_L_SUFFIX = re.compile(r"[lL]$")
_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD = re.compile(r"add\((.+?)\)")
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_PUTS = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_EMPTY_MAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)")
_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_JS_2D = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_BRACKETED = re.compile(r"\[(.*?)\]")
_JS_OBJECT = re.compile(r"\{(.*?)\}")
_JS_PAIRS = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def java_value(text: str, declared: str, item_type: str | None = None) -> JsonValue:
    """A Java argument's text converted by its declared type (``item_type``: an array's)."""
    if declared not in JAVA_TYPES:
        raise Unconvertible(f"unsupported Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(_F_SUFFIX.sub("", text)) if _JAVA_FLOAT.match(text) else text
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if declared == "long":
        return int(_L_SUFFIX.sub("", text)) if _JAVA_LONG.match(text) else text
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "char":
        return text  # (BFCL's pattern for a quoted char matches no text)
    if declared == "ArrayList":
        return _java_list(text, item_type)
    if declared == "Array":
        return _java_array(text, item_type)
    if declared == "HashMap":
        return _java_map(text)
    if declared in ("String", "any"):
        return text
    raise Unconvertible(f"BFCL converts no Java {declared}")


def _java_element(text: str, item_type: str | None) -> JsonValue:
    if item_type in ("char", "String"):
        return text[1:-1]
    return java_value(text, item_type) if item_type else java_literal(text)


def _java_list(text: str, item_type: str | None) -> JsonValue:
    found = _AS_LIST.search(text)
    if found:
        return [_java_element(part.strip(), item_type) for part in found.group(1).split(",")]
    found = _ADDS.search(text)
    if found:
        return [_java_element(add.strip(), item_type) for add in _ADD.findall(found.group(1))]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, item_type: str | None) -> JsonValue:
    found = _ARRAY.search(text)
    if not found:
        return text
    parts = [part.strip() for part in found.group(1).split(",") if part.strip()]
    if item_type:
        return [java_value(part, item_type) for part in parts]
    return [java_literal(part) for part in parts]


def _java_map(text: str) -> JsonValue:
    found = _PUTS.search(text)
    if found:
        entries: JsonObject = {}
        if found.group(1).strip():
            for key, value in _PUT.findall(found.group(1)):
                entries[key] = java_literal(value.strip())
        return entries
    if _EMPTY_MAP.search(text):
        return {}
    return text


def java_literal(text: str) -> JsonValue:
    """A Java literal of no declared type: a boolean, a quoted string, a long, a float, an
    integer or a number, else the text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(_F_SUFFIX.sub("", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> JsonValue:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(text: str, declared: str, item_type: str | None = None) -> JsonValue:
    """A JavaScript argument's text converted by its declared type."""
    if declared not in JS_TYPES:
        raise Unconvertible(f"unsupported JavaScript type {declared!r}")
    if declared == "String":
        quoted = (text.startswith('"') and text.endswith('"')) or (
            text.startswith("'") and text.endswith("'")
        )
        return text[1:-1] if quoted else text
    if declared == "integer":
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if declared == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else text
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "dict":
        return _js_object(text.strip())
    if declared == "array":
        return _js_array(text.strip(), item_type)
    return text  # any


def _js_array(code: str, item_type: str | None) -> JsonValue:
    try:
        nested = _JS_2D.match(code)
        if nested:
            rows: list[JsonValue] = []
            for i, inner in enumerate(_BRACKETED.findall(nested.group(0))):
                inner = inner.strip()
                if i == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([js_literal(part.strip()) for part in inner.split(",")])
            return rows
        flat = _JS_1D.match(code)
        if not flat:
            return code
        body = flat.group(1) if flat.group(1) is not None else flat.group(2)
        body = (body or "").strip()
        parts = body.split(",") if body else []
        if not item_type:
            return [js_literal(part.strip()) for part in parts]
        out = []
        for part in parts:
            part = part.strip()
            if part.startswith(("'", '"')):
                out.append(js_value(part, item_type, "String"))
            else:
                out.append(js_value(part, item_type))
        return out
    except Exception:  # noqa: BLE001 (BFCL keeps the text when its reading of an array fails)
        return code


def _js_object(code: str) -> JsonValue:
    if code == "{}":
        return {}
    found = _JS_OBJECT.match(code)
    if not found:
        return code
    try:
        entries: JsonObject = {}
        for key, value in _JS_PAIRS.findall(found.group(1)):
            key = key.strip().strip("'\"")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                entries[key] = _js_array(value.strip(), None)
            elif value.startswith("{") and value.endswith("}"):
                entries[key] = _js_object(value.strip())
            else:
                entries[key] = js_literal(value.strip("'\""))
        return entries
    except Exception:  # noqa: BLE001 (as above, for an object)
        return code


def js_literal(text: str) -> JsonValue:
    """A JavaScript literal of no declared type: a boolean, a quoted string, an integer or
    a number, else the text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return _number_or_text(text)
