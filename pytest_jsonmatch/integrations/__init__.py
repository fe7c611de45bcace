"""Adapters that let evaluation frameworks score with pytest-jsonmatch: one module per
framework, each an extra of its own, each importable without the others.

| module          | gives                                              | extra            |
|-----------------|----------------------------------------------------|------------------|
| pydantic_evals  | ``JsonMatch``, a pydantic-evals ``Evaluator``      | ``pydantic-evals`` |
| inspect_ai      | ``json_match``, an Inspect AI ``@scorer``          | ``inspect-ai``     |
| deepeval        | ``JsonMatchMetric``, a deepeval ``BaseMetric``     | ``deepeval``       |
| openai_agent    | ``run_tools`` (calls/agent_loop.py), re-exported    | (none: duck typed) |
| anthropic_agent | the same ``run_tools``, for the ``anthropic`` client | (none: duck typed) |

Takes a framework's actual and expected outputs (text or objects, read leniently as
:func:`~pytest_jsonmatch.match_json` reads them), a metric, a threshold and match_json's
options; gives the framework's own result: the score (match_json's, exactly), pass or fail
against the threshold, and a reason naming the fields that cost points.

May import the engine's public API (``engine``), this package and ``calls`` (``run_tools``'s
home); never pytest, never the
plugin, reporting or the command line. This package imports nothing: each adapter module
imports its framework when its adapter is first looked up (``from
pytest_jsonmatch.integrations.deepeval import JsonMatchMetric``), which raises ImportError
naming the extra to install when the framework is missing.
"""
