"""Where comparisons made during a pytest session go, without importing pytest.

Each session owns a :class:`Channel` (session.py creates it): its defaults, and the sink of
the test running now. Golden items and the fixture are handed it; ``assert_json_match``
finds the running session's in a context variable (``current``), so that a session run inside
a test (``pytester``) takes it over only while it runs. A thread started without a copy of
the test's context falls back to the session entered last in the process, so that no
comparison made in a test is lost (``enter`` and ``leave`` keep that list, innermost last).
Outside pytest nothing is recorded, and the defaults are ``field_f1`` with threshold 1.0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

from ..engine.core.errors import ConfigError, JsonMatchError
from ..engine.core.slotted import Slotted

if TYPE_CHECKING:
    from .outcome import Outcome


Sink = Callable[["Outcome"], None]


class Defaults(Slotted):
    """The session's settings for comparisons that do not name their own.

    ``verbosity`` is pytest's assertion verbosity (``-v`` counts); it sets how many fields a
    failure message lists. (Not a dataclass: it is made at every pytest start.)"""

    __slots__ = ("metric", "threshold", "options", "verbosity", "invalid_fails")

    def __init__(
        self,
        *,
        metric: str = "field_f1",
        threshold: float = 1.0,
        options: Mapping[str, object] | None = None,  # None: none
        verbosity: int = 0,
        invalid_fails: bool = False,  # an answer that breaks its schema fails its comparison
    ) -> None:
        self.metric, self.threshold = metric, threshold
        self.options: Mapping[str, object] = {} if options is None else options
        self.verbosity, self.invalid_fails = verbosity, invalid_fails

    def options_for(
        self, metric: str, given: Mapping[str, object] | None = None
    ) -> dict[str, object]:
        """The options of a comparison under ``metric``: the session's that apply to it (all
        of them for the session's metric; for another metric only those it takes:
        ``ignore``, ``fields`` ...), with ``given`` (a case's, or the keywords of
        ``assert_json_match``) laid over them as every level's options are laid over the
        one outside it: key by key, ``fields`` down to each field's settings, ``ignore``
        added to (cases/option_merge.py)."""
        options = self._session_options_for(metric)
        if not given:
            return options
        from ..cases.option_merge import merged_options

        return merged_options(options, given)

    def _session_options_for(self, metric: str) -> dict[str, object]:
        options = dict(self.options)
        if not options or metric == self.metric:
            return options
        from ..engine.metrics import metric_named

        try:
            known = getattr(metric_named(metric), "options", None)
        except Exception:  # noqa: BLE001 (an unknown metric: match_json says so in its own words)
            return options
        return options if known is None else {k: v for k, v in options.items() if k in known}

    def check(self) -> None:
        """The metric and every option key, checked once plugins have registered their
        metrics: an unknown name is a ConfigError naming the setting and the name meant (the
        session's options go to every comparison of its metric). The engine loads only when
        one of them is set."""
        if self.metric == "field_f1" and not self.options:
            return
        from ..engine.metrics import metric_named
        from ..engine.metrics.base import check_options

        try:
            metric = metric_named(self.metric)
        except JsonMatchError as exc:
            raise ConfigError(f"jsonmatch_metric: {exc}") from None
        try:
            check_options(metric, self.options)
        except JsonMatchError as exc:
            raise ConfigError(f"jsonmatch_options: {exc}") from None


class Channel:
    """The way from the comparisons made in one session's tests to that session: its
    ``defaults`` and the ``sink`` of the running test (None: record nothing). Each session
    owns one, so a session run inside a test (``pytester``) leaves the outer one's alone."""

    def __init__(self, defaults: Defaults | None = None) -> None:
        self.defaults = defaults if defaults is not None else Defaults()
        self.sink: Sink | None = None

    def activate(self, sink: Sink | None) -> Sink | None:
        """Send the comparisons of the running test to ``sink`` (None: record nothing).
        Return the sink that was active before, for the caller to restore."""
        previous, self.sink = self.sink, sink
        return previous

    def send(self, outcome: Outcome) -> None:
        """Hand one attempted comparison to the active sink, if any."""
        if self.sink is not None:
            self.sink(outcome)

    def __repr__(self) -> str:
        return (
            f"<Channel {self.defaults.metric!r} threshold={self.defaults.threshold!r} "
            f"sink={self.sink!r}>"
        )


# Outside any session: nothing is recorded unless a caller activates a sink on it.
_OUTSIDE = Channel()
# The session running in this context: set by ``enter``, reset by ``leave``.
_CURRENT: ContextVar[Channel] = ContextVar("pytest_jsonmatch_channel", default=_OUTSIDE)


# The sessions entered in this process and not yet left, innermost last: what a context
# without one of its own (a plain thread) falls back to.
_ENTERED: list[Channel] = []
_BY_TOKEN: dict[int, Channel] = {}  # which channel each live token entered


def current() -> Channel:
    """The channel of the session running now (in this context, or else the one entered last
    in the process), or the one outside any session."""
    found = _CURRENT.get()
    if found is _OUTSIDE and _ENTERED:
        return _ENTERED[-1]
    return found


def lend(channel: Channel) -> Token[Channel]:
    """Make ``channel`` the current one in this context alone (a session's fixture, for one
    call), until ``_CURRENT.reset(token)`` (:func:`take_back`): unlike :func:`enter`,
    nothing process-wide changes, so that a call in one thread never moves another's."""
    return _CURRENT.set(channel)


def take_back(token: Token[Channel]) -> None:
    """Undo :func:`lend`."""
    _CURRENT.reset(token)


def enter(channel: Channel) -> Token[Channel]:
    """Make ``channel`` the current one, until ``leave`` is given the token returned."""
    _ENTERED.append(channel)
    token = _CURRENT.set(channel)
    _BY_TOKEN[id(token)] = channel
    return token


def leave(token: Token[Channel]) -> None:
    """Make the channel current before ``enter`` returned ``token`` current again."""
    entered = _BY_TOKEN.pop(id(token), None)
    for i in range(len(_ENTERED) - 1, -1, -1):  # its last entry
        if _ENTERED[i] is entered:
            del _ENTERED[i]
            break
    try:
        _CURRENT.reset(token)
    except ValueError:  # entered in another context: put the one before back here too
        previous = token.old_value
        _CURRENT.set(_OUTSIDE if previous is Token.MISSING else previous)


# The current channel's, for callers without a session at hand.


def defaults() -> Defaults:
    """The running session's defaults (outside pytest: field_f1, threshold 1.0)."""
    return current().defaults


def activate(sink: Sink | None) -> Sink | None:
    """Send the running test's comparisons to ``sink`` (None: record nothing); return the
    sink it replaced, for the caller to restore."""
    return current().activate(sink)


def active() -> Sink | None:
    """The sink comparisons go to now, or None."""
    return current().sink


def __getattr__(name: str) -> object:
    """``Outcome``, where it was defined before: outcome.py, loaded on first use."""
    if name == "Outcome":
        from .outcome import Outcome

        return Outcome
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
