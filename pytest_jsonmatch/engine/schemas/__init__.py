"""Schemas: a JSON Schema as the user has it, to the graph of nodes the walk reads.

Takes a mapping, a JSON or YAML file or a pydantic model class (``$ref``, ``allOf`` and
nullable unions resolved); gives ``SchemaNode`` graphs with each field's comparator,
transforms, alignment and weight, inferred schemas and annotations. May import ``core``,
``reading`` and ``comparing``.
"""
