"""BFCL's multi-turn calls executed on its environment classes, without ``eval``.

BFCL's checker rewrites each decoded call text (every name of an involved class's public
method followed by ``(`` gets the instance's name in front, string literals included), refuses
a few names, ``eval``s the text and records the result as text. Here the same rewrite is made,
the text is parsed (``compile`` to a tree, never run), and the call is made directly: the
method found by name among the involved instances' public methods, its arguments literals.
What BFCL records as the result (the text of the value, or ``Error during execution: ...``)
is recorded the same way, so that a verdict that compares results gives BFCL's (the value's
text made inside the call's ``try``, as BFCL makes it: an int past 4,300 digits is the call's
error text). A result text longer than ``RESULT_CHARS`` is recorded as an error text saying so.

Where BFCL's ``eval`` would run more than one call with literal arguments (a nested call, a
variable, a builtin), the result is an error text saying so instead: docs/metrics.md
("BFCL's multi-turn verdict") lists these differences.

The environments are bfcl-eval's own classes (an extra, installed with ``--no-deps``); its
table of which module holds each class is read from its constants. Only the eight classes of
the four multi-turn categories are executed (``MULTI_TURN_CLASSES``): bfcl-eval's table also
names classes that reach the network or a model (``WebSearchAPI``, ``MemoryAPI_*``), and an
entry naming one is refused.

This module executes calls in the process that uses it. ``bfcl_multi_turn_verdict`` never
does: it executes an entry in a child process of ``bfcl_fork_server.py``, which bounds each
call (``CallGate``) and keeps the caller's process as it was.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..core.errors import ConfigError

INSTALL = 'pip install --no-deps "bfcl-eval==2026.3.23"'
# the method names BFCL's checker refuses to run, as it lists them
_REFUSED = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")
# what BFCL's rewrite takes as a called name
_CALLED_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
# what BFCL's instance names replace with "_"
_SEPARATORS = re.compile(r"[-./:]")
_ERROR = "Error during execution: "
# the classes of the four multi-turn categories (base, miss_func, miss_param, long_context):
# the only ones executed
MULTI_TURN_CLASSES = (
    "GorillaFileSystem",
    "MathAPI",
    "MessageAPI",
    "TwitterAPI",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "VehicleControlAPI",
)
# the longest result text recorded as it is; a longer one is recorded as an error text
RESULT_CHARS = 1_000_000


class CallGate(Protocol):
    """What runs each call of an entry, in order (both sides' calls counted together): the
    child process's bound on its time (``bfcl_fork_server.py``)."""

    def result(self, execute: Callable[[str], str], call: str) -> str: ...


def check_classes(entry_id: str, classes: Sequence[str]) -> None:
    """A ConfigError for a class of the entry that is not one of ``MULTI_TURN_CLASSES``, or
    where bfcl-eval is not installed."""
    _backend_tables()
    for name in classes:
        if name not in MULTI_TURN_CLASSES:
            raise ConfigError(
                f"BFCL entry {entry_id!r}: involved class {name!r:.80} is not one of the "
                f"multi-turn categories' classes ({', '.join(MULTI_TURN_CLASSES)}); only "
                f"those are executed"
            )


def _backend_tables() -> tuple[Mapping[str, str], Sequence[str]]:
    """bfcl-eval's table of the module of each environment class, and its stateless ones."""
    try:
        config = importlib.import_module("bfcl_eval.constants.executable_backend_config")
    except ImportError:
        raise ConfigError(f"BFCL's multi-turn environments need bfcl-eval: {INSTALL}") from None
    return config.CLASS_FILE_PATH_MAPPING, config.STATELESS_CLASSES


def environment_class(name: str) -> type:
    """bfcl-eval's environment class ``name`` (``GorillaFileSystem``, ``TradingBot``, ...)."""
    modules, _ = _backend_tables()
    module_name = modules.get(name) if isinstance(name, str) else None
    if module_name is None:
        raise ConfigError(
            f"BFCL has no environment class {name!r}: its classes are {', '.join(sorted(modules))}"
        )
    if name not in MULTI_TURN_CLASSES:
        raise ConfigError(
            f"BFCL's {name} environment is not executed: only the multi-turn categories' "
            f"classes are ({', '.join(MULTI_TURN_CLASSES)})"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigError(
            f"BFCL's {name} environment cannot be loaded: {error} (bfcl-eval is installed "
            f"with --no-deps; install what its environment imports)"
        ) from None
    found: type = getattr(module, name)
    return found


# an environment class -> the names of its instances' public methods, read once
_METHODS: dict[type, tuple[str, ...]] = {}


def public_methods(cls: type) -> tuple[str, ...]:
    """The names (sorted) of the public methods an instance of ``cls`` has, as BFCL reads them
    from an instance (``inspect.getmembers(instance, inspect.ismethod)``): its functions and
    class methods, not its static methods. Read from the class, so that no instance is made
    (the fork server reads them before any of BFCL's code runs)."""
    names = _METHODS.get(cls)
    if names is None:
        found = []
        for name in sorted(dir(cls)):
            member = inspect.getattr_static(cls, name)
            if not name.startswith("_") and (
                isinstance(member, classmethod) or inspect.isfunction(member)
            ):
                found.append(name)
        names = _METHODS[cls] = tuple(found)
    return names


class _Unsupported(Exception):
    """An expression this executor does not evaluate (BFCL's ``eval`` would)."""


class BfclEnvironment:
    """The instances of one side of one BFCL entry (the model's, or the ground truth's),
    loaded from the entry's initial configuration, kept from turn to turn.

    ``side`` is the name BFCL's checker builds its instances' names from (the rewrite of a
    call's text writes it into the text, so it shows in a string literal that names a
    method followed by ``(``, as in BFCL). ``gate``, where given, runs each call (the child
    process's bound on its time)."""

    def __init__(
        self,
        entry_id: str,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any],
        long_context: bool,
        side: str,
        gate: CallGate | None = None,
    ) -> None:
        check_classes(entry_id, involved_classes)
        _, stateless = _backend_tables()
        self._gate = gate
        self.instances: dict[str, Any] = {}
        self.by_name: dict[str, Any] = {}  # an instance's name in rewritten text -> instance
        self._class_of: dict[str, str] = {}  # an instance's name -> its class's name
        # the calls made on each class's instance since the mapping was last emptied (by
        # whoever compares the states: a method changes its own instance only), each as
        # ``recorded`` gives it
        self.calls: dict[str, list[str]] = {}
        owner: dict[str, str] = {}  # a public method's name -> its instance's name
        for class_name in involved_classes:
            instance = environment_class(class_name)()
            if class_name not in stateless:
                config = initial_config.get(class_name, {})
                try:
                    instance._load_scenario(copy.deepcopy(config), long_context=long_context)
                except Exception as error:  # noqa: BLE001 (the environment's own checks)
                    raise ConfigError(
                        f"BFCL entry {entry_id}: {class_name}'s initial_config cannot be "
                        f"loaded ({type(error).__name__}: {error})"[:300]
                    ) from None
            name = _SEPARATORS.sub("_", f"{side}_{entry_id}_{class_name}_instance")
            self.instances[class_name] = instance
            self.by_name[name] = instance
            self._class_of[name] = class_name
            for method_name in public_methods(type(instance)):
                owner[method_name] = name
        self._owner = owner

    def execute(self, calls: Sequence[str]) -> list[str]:
        """Each call made in order on these instances, each result as BFCL records it."""
        gate = self._gate
        if gate is None:
            return [self._result(call) for call in calls]
        return [gate.result(self._result, call) for call in calls]

    def _rewrite(self, call: str) -> tuple[str, int]:
        """BFCL's rewrite: every method name followed by ``(`` gets its instance in front;
        and how many did."""
        owner = self._owner
        count = 0

        def prefixed(match: re.Match[str]) -> str:
            nonlocal count
            name = match.group(1)
            if name not in owner:
                return name
            count += 1
            return f"{owner[name]}.{name}"

        return _CALLED_NAME.sub(prefixed, call), count

    def _result(self, call: str) -> str:
        text, count = self._rewrite(call)
        head = text.split("(")[0] if "(" in text else text
        if "." in head:
            head = head.split(".")[1]
        # what the call is recorded as (``calls``): its text where the rewrite changed only
        # its callee, the same text then being the same call on either side; else the
        # rewritten text, which names this side's instance
        recorded = call if count == 1 else text
        try:
            if head in _REFUSED:
                raise PermissionError(f"Function call {head} is not allowed.")
            # (eval drops leading spaces and tabs from text; compile does not)
            tree = ast.parse(text.lstrip(" \t"), "<string>", "eval")
            # (the value's text made inside: BFCL records its failure, such as an int of
            # more than 4,300 digits, as the call's error)
            result = as_result_text(self._evaluate(tree.body, recorded))
        except Exception as error:  # noqa: BLE001 (what BFCL records of any failure)
            return _ERROR + str(error)
        if len(result) > RESULT_CHARS:
            return (
                f"{_ERROR}the result's text is {len(result)} characters long, past "
                f"jsonmatch's limit of {RESULT_CHARS}"
            )
        return result

    def _evaluate(self, node: ast.expr, recorded: str) -> Any:
        if not isinstance(node, ast.Call):
            return _literal(node)
        method = self._callee(node.func, recorded)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise _Unsupported(_unsupported(arg))
            args.append(_literal(arg))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise _Unsupported(_unsupported(keyword.value))
            kwargs[keyword.arg] = _literal(keyword.value)
        return method(*args, **kwargs)

    def _callee(self, func: ast.expr, recorded: str) -> Callable[..., Any]:
        if isinstance(func, ast.Name):
            raise NameError(f"name '{func.id}' is not defined")
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in self.by_name
            and not func.attr.startswith("_")
        ):
            found: Callable[..., Any] = getattr(self.by_name[func.value.id], func.attr)
            self.calls.setdefault(self._class_of[func.value.id], []).append(recorded)
            return found
        raise _Unsupported(_unsupported(func))


def _literal(node: ast.expr) -> Any:
    """A literal argument's value; a bare name fails as ``eval`` fails on it."""
    if isinstance(node, ast.Name):
        raise NameError(f"name '{node.id}' is not defined")
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Unsupported(_unsupported(node)) from None


def _unsupported(node: ast.expr) -> str:
    return (
        f"only calls of the environments' methods with literal arguments are executed, "
        f"not {ast.unparse(node)[:80]!r}"
    )


def as_result_text(value: object) -> str:
    """A call's value as BFCL records it: text as it is, a dict as JSON (or its ``str``
    where it is not JSON), anything else its ``str``."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:  # noqa: BLE001 (BFCL falls back to str on any failure)
            return str(value)
    return str(value)
