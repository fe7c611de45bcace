"""The engine: pure scoring, no pytest. Its stages, in the order data flows through them:

reading (text, files, objects -> plain JSON) -> judge (the LLM judge, batching) ->
comparing (one value against another, and the registry) -> schemas -> configuring
(options -> WalkConfig) -> pairing (array elements) -> walking (field results) -> results
(scores, accounting); metrics/ chooses the walk and the steps around it, and match.py is
the entry point. ``core`` is shared by all. Imports nothing outside the engine; the public
names are exported once, from :mod:`pytest_jsonmatch`.
"""
