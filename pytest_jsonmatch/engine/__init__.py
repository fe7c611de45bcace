"""The metric engine: pure scoring, no pytest.

Data flows one way: parse (text to JSON) -> the door (plain JSON) -> configure -> walk
(comparators, alignment) -> FieldResults -> MatchResult / RunResult. The public names are
exported once, from :mod:`pytest_jsonmatch`.
"""
