"""Golden case files rewritten on update, and the update review: the updating stage.

Takes a case (cases/), the output a run produced and the metric's result of it, and the
update setting; gives :class:`~.updates.CaseUpdate` values and case files whose ``expected``
is rewritten byte for byte (:func:`~.yaml_edit.rewrite`), or, under ``,review``, the
pending-updates file and what ``jsonmatch accept`` takes of it. May import the engine,
reporting and cases/; never calls/, telemetry/, session/ or pytest (session/, plugin/ and
cli/ import this package, never the other way round).
"""
