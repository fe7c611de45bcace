"""What a target returns for an agent's whole run: :class:`AgentRun`.

An ``AgentRun`` is a :class:`~.call_figures.TargetResult` whose output is the run's JSON form
(``{"messages": [...], "state": ...}``, engine/agents/agent_run.py), made when the target
returns it: the state is read while the environment is still the target's, so the recording
holds the whole run and its state as JSON and a replay needs no environment. The runner
takes it as any ``TargetResult``: the output recorded, the usage reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.core.values import JsonValue
from .call_figures import TargetResult


class AgentRun(TargetResult):
    """An agent's run as a target returns it: ``messages`` (the messages of the run, the
    conversation it was given, the assistant's calls, the tool results and the final answer,
    in any vendor's shape the reader reads: OpenAI chat or Responses, Anthropic, Gemini; dicts
    or a client's message objects), ``state`` (the environment the
    run left: anything ``read_state`` reads, or None), and what its model calls cost
    (``input_tokens``, ``output_tokens``, ``cost``: summed over the run's calls). A message or
    a state that cannot be read to JSON is a ParseError or ConfigError naming it, raised
    here, in the target."""

    messages: tuple[JsonValue, ...]
    state: JsonValue | None

    def __init__(
        self,
        messages: Sequence[object],
        state: object = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cost: float | None = None,
    ) -> None:
        from ..engine.agents import run_json

        form = run_json(messages, state)
        super().__init__(form, input_tokens, output_tokens, cost)
        plain = form["messages"]
        assert isinstance(plain, list)
        object.__setattr__(self, "messages", tuple(plain))
        object.__setattr__(self, "state", form["state"])

    def run_json(self) -> object:
        """The run's JSON form, as a recording holds it."""
        return self.output

    def __repr__(self) -> str:
        return (
            f"AgentRun({len(self.messages)} messages, state={'null' if self.state is None else '...'}"
            f", input_tokens={self.input_tokens}, output_tokens={self.output_tokens})"
        )
