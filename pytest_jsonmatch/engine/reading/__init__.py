"""Reading: user input to plain JSON the walk can trust.

Takes text (strict for expected, lenient for a model's answer), files a user names, YAML,
and Python objects (pydantic models, dataclasses); gives plain JSON values, or a
``ParseError`` naming the side and the position (a ``TruncatedError`` for a model's answer
cut off inside its JSON value). May import ``core`` only.
"""
