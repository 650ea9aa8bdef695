"""The leaf kinds' schemas: checked when a kind is first used, not when the module is imported."""

import jsonschema
import pytest

from registry.logcore import kinds


@pytest.mark.parametrize("name", sorted(kinds.KINDS))
def test_kinds_every_schema_is_a_valid_json_schema(name):
    jsonschema.Draft202012Validator.check_schema(kinds.KINDS[name].schema)
    assert kinds._validator(name).schema is kinds.KINDS[name].schema


def test_kinds_a_broken_schema_is_refused_at_its_first_use():
    kind = kinds.register("test-broken", 1, "a kind whose schema is not one", {"x": {"type": 3}}, ["x"])
    try:
        with pytest.raises(jsonschema.SchemaError):
            kinds.leaf_validate({"kind": kind.name, "v": 1, "at": "2026-01-01T00:00:00Z", "x": "y"})
    finally:
        kinds.KINDS.pop(kind.name)
        kinds._validator.cache_clear()


def test_kinds_an_invalid_leaf_is_refused_saying_where():
    with pytest.raises(kinds.LeafError, match="reservation-granted leaf"):
        kinds.leaf_validate({"kind": "reservation-granted", "v": 1, "at": "2026-01-01T00:00:00Z"})
