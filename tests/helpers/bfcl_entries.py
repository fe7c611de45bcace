"""BFCL's own entries (from the installed ``bfcl-eval`` package) and model outputs made from
them: each possible answer, and each kind of wrong one. Shared by the differential test of
``rules="bfcl"`` and its benchmark.

``bfcl_eval``'s AST checker imports ``bfcl_eval.constants.model_config``, which loads every
provider's client; :func:`load_checker` puts a small module in its place first, holding the
two model settings the checker reads (``underscore_to_dot`` false and true).
"""

from __future__ import annotations

import copy
import json
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the AST categories of item 3, as BFCL names their files
CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
PLAIN_MODEL = "plain-model"  # names function names as they are
DOTS_MODEL = "dots-model"  # writes dots as underscores (OpenAI's, Gemini's API)


@dataclass(frozen=True)
class _ModelSetting:
    underscore_to_dot: bool


def load_checker() -> Any:
    """BFCL's ``ast_checker`` and its ``Language`` enum, imported without the providers'
    clients."""
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stand_in = types.ModuleType(name)
        stand_in.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
            PLAIN_MODEL: _ModelSetting(False),
            DOTS_MODEL: _ModelSetting(True),
        }
        sys.modules[name] = stand_in
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language


def data_dir() -> Path:
    import bfcl_eval

    return Path(bfcl_eval.__file__).parent / "data"


@dataclass(frozen=True)
class Entry:
    id: str
    category: str
    functions: list[dict[str, Any]]
    possible_answer: list[dict[str, Any]]


def entries(category: str) -> list[Entry]:
    """The entries of a category: their function documents and possible answers."""
    root = data_dir()
    questions = _lines(root / f"BFCL_v4_{category}.json")
    answers = {
        item["id"]: item for item in _lines(root / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    return [
        Entry(q["id"], category, q["function"], answers[q["id"]]["ground_truth"])
        for q in questions
        if q["id"] in answers
    ]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def language_of(category: str) -> str:
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


# -- model outputs --------------------------------------------------------------------------


def _java_text(value: Any, declared: str, item_type: str | None) -> str:
    """A value as a Java model writes it, by its declared type."""
    if type(value) is bool:
        return "true" if value else "false"
    if declared == "long":
        return f"{value}L"
    if declared == "float":
        return f"{value}f"
    if type(value) is list:
        items = ", ".join(
            _java_text(v, item_type or "", None) if type(v) is not str else f'"{v}"' for v in value
        )
        if declared == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({items}))"
        return f"new {_java_name(item_type)}[]{{{items}}}"
    if type(value) is dict:
        puts = " ".join(
            f'put("{k}", {_java_text(v, "", None) if type(v) is not str else chr(34) + v + chr(34)});'
            for k, v in value.items()
        )
        return f"new HashMap<String, String>() {{{{ {puts} }}}}"
    return str(value)


def _java_name(item_type: str | None) -> str:
    return {"long": "long", "integer": "int", "String": "String", "double": "double"}.get(
        item_type or "", "Object"
    )


def _js_text(value: Any, declared: str) -> str:
    """A value as a JavaScript model writes it, by its declared type."""
    if type(value) is bool:
        return "true" if value else "false"
    if declared == "Bigint":
        return f"{value}n"
    if type(value) is list:
        return "[" + ", ".join(f"'{v}'" if type(v) is str else _js_text(v, "") for v in value) + "]"
    if type(value) is dict:
        return (
            "{"
            + ", ".join(
                f"{k}: " + (f"'{v}'" if type(v) is str else _js_text(v, ""))
                for k, v in value.items()
            )
            + "}"
        )
    return str(value)


def as_source(entry: Entry, name: str, arg: str, value: Any) -> Any:
    """A possible answer's value as a model of the entry's language gives it: itself in
    Python, source text in Java and JavaScript (BFCL's possible answers hold the values
    that text converts to)."""
    language = language_of(entry.category)
    if language == "python":
        return value
    doc = _doc(entry, name) or {"parameters": {"properties": {}}}
    details = doc["parameters"]["properties"].get(arg, {})
    declared = details.get("type", "")
    if type(value) is str and declared in ("String", "any", "char", ""):
        return value
    if language == "java":
        return _java_text(value, declared, details.get("items", {}).get("type"))
    return _js_text(value, declared)


def correct_outputs(entry: Entry) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each possible answer as a model's decoded calls: the k-th acceptable value of every
    argument (``""``: left out), for k up to the longest list of acceptable values, written
    as the entry's language writes it."""
    longest = max(
        (
            len(values)
            for call in entry.possible_answer
            for args in call.values()
            for values in args.values()
        ),
        default=1,
    )
    seen = []
    for k in range(max(longest, 1)):
        output = []
        for call in entry.possible_answer:
            ((name, args),) = call.items()
            chosen = {}
            for arg, values in args.items():
                value = values[min(k, len(values) - 1)] if values else ""
                if not (type(value) is str and value == ""):
                    chosen[arg] = as_source(entry, name, arg, copy.deepcopy(value))
            output.append({name: chosen})
        if output not in seen:
            seen.append(output)
            yield f"answer{k}", output


def _first_answer(entry: Entry) -> list[dict[str, Any]]:
    return next(correct_outputs(entry))[1]


def _doc(entry: Entry, name: str) -> dict[str, Any] | None:
    return next((doc for doc in entry.functions if doc["name"] == name), None)


def _wrong_value(value: Any) -> Any:
    if type(value) is bool:
        return not value
    if type(value) in (int, float):
        return value + 7
    if type(value) is str:
        return value + " zq wrong"
    if type(value) is list:
        return value + ["zq wrong"] if value else ["zq wrong"]
    if type(value) is dict:
        return {**value, "zq_wrong": 1}
    return "zq wrong"


def _wrong_type(value: Any) -> Any:
    if type(value) is str:
        return 12345
    if type(value) is bool:
        return "true"
    if type(value) in (int, float):
        return str(value)
    if type(value) is list:
        return {"items": value}
    return [value]


def wrong_outputs(entry: Entry) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each kind of wrong output made from the first possible answer: a wrong value, a
    wrong type, a required argument missing, an argument added, a wrong function, a wrong
    count (a call dropped, a call repeated), and the calls shuffled (reversed; parallel
    categories must still pass it)."""
    base = _first_answer(entry)
    ((name, args),) = base[0].items()
    if args:
        arg = next(iter(args))
        for kind, change in (("value", _wrong_value), ("type", _wrong_type)):
            output = copy.deepcopy(base)
            output[0][name][arg] = change(args[arg])
            yield f"wrong_{kind}", output
    doc = _doc(entry, name) or entry.functions[0]
    required = [p for p in doc["parameters"].get("required", []) if p in args]
    if required:
        output = copy.deepcopy(base)
        del output[0][name][required[0]]
        yield "missing_required", output
    output = copy.deepcopy(base)
    output[0][name]["zq_unexpected"] = 1
    yield "extra_argument", output
    output = copy.deepcopy(base)
    output[0] = {name + "_zq": output[0][name]}
    yield "wrong_function", output
    yield "wrong_count_fewer", base[:-1] if len(base) > 1 else []
    yield "wrong_count_more", base + [copy.deepcopy(base[-1])]
    if len(base) > 1:
        yield "shuffled", list(reversed(base))


def outputs(entry: Entry) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    yield from correct_outputs(entry)
    yield from wrong_outputs(entry)
