"""Trajectories: an agent's run of several steps against the expected run, step by step.

Takes a run as agents record it (OpenAI chat messages, OpenAI Responses items, Anthropic
messages, LangChain/LangGraph message dicts, a plain list of steps) and the expected run;
gives the ``trajectory`` metric: agentevals' trajectory match modes (strict, unordered,
subset, superset) and argument modes, each expected call's function and arguments a field.
A run's messages are read by ``reading/agent_messages.py``, as every agent API reads them.
May import ``core``, ``reading``, ``comparing``, ``results``, ``schemas``, ``configuring``,
``metrics``, ``pairing`` and ``tool_calls``; no stage below it imports it: ``metrics`` names
its metric module as text, loaded when the metric is first looked up. Its argument modes and
its calls' field rows are tool_calls/argument_checks.py's, its calls paired by
pairing/call_pairing.py.

| module               | its job                                                             |
|----------------------|---------------------------------------------------------------------|
| trajectory_metric.py | the ``trajectory`` metric: a run's steps, options, fields, score    |
"""
