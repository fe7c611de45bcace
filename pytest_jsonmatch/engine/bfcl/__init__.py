"""BFCL: the Berkeley Function Calling Leaderboard's verdicts, single- and multi-turn.

Takes a BFCL entry and a model's calls; gives BFCL's verdict as its checkers would, with the
fields that differed. Sits above the engine's entry beside ``agents``, whose state reading the
multi-turn verdict uses; nothing else of the engine imports it (the ``tool_calls`` metric
loads ``bfcl_checker.py`` by name for ``rules="bfcl"``, as ``metrics`` loads that metric).
No face: the root package's ``_API`` names each public name's module here.

| module               | its job                                                              |
|----------------------|----------------------------------------------------------------------|
| bfcl_java_js.py      | BFCL's reading of Java and JavaScript argument text by declared type |
| bfcl_rules.py        | BFCL's AST checker's rules for one call, in its order                |
| bfcl_entry.py        | one BFCL entry held for many outputs, each call's document kept      |
| bfcl_fast_pass.py    | BFCL's decoded form checked as it is, one loop per call (a switch)   |
| bfcl_checker.py      | ``BfclChecker``, ``bfcl_verdict``; ``rules="bfcl"``'s pairs          |
| bfcl_execution.py    | BFCL's decoded calls run on its environment classes, without eval    |
| bfcl_turn_checks.py  | a BFCL entry's turns checked: states by ``!=``, results; reading later |
| bfcl_isolation.py    | an entry executed in a child process, never here; calls past time   |
| bfcl_fork_server.py  | the fork server: a child per entry, no network, bounded time, memory |
| bfcl_multi_turn.py   | ``bfcl_multi_turn_verdict``: BFCL's verdict, per-turn credit, fields |
"""
