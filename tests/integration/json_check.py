#!/usr/bin/env python3
"""json_check.py SCHEMA_NAME FILE: validate FILE's JSON against docs/json.md's schema.

The schemas are read from docs/json.md itself (the block after
`<!-- schema: NAME -->`), so the documentation is what is checked.
Exit 0 valid, 1 invalid (the reason printed), 77 python3-jsonschema missing.
"""
import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is missing")
    sys.exit(77)

doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "json.md"),
           encoding="utf-8").read()
schemas = dict(re.findall(r"<!-- schema: (\w+) -->\n```json\n(.*?)\n```", doc, re.S))
name, path = sys.argv[1], sys.argv[2]
if name not in schemas:
    sys.exit(f"no schema '{name}' in docs/json.md")
schema = json.loads(schemas[name])
jsonschema.Draft202012Validator.check_schema(schema)
try:
    jsonschema.Draft202012Validator(schema).validate(json.load(open(path, encoding="utf-8")))
except jsonschema.ValidationError as e:
    print(f"{path} does not match '{name}': {e.message} at {list(e.absolute_path)}")
    sys.exit(1)
