"""bench/documents.py, the calibration's documents: deterministic, valid against the served
schema, and covering every root field, relation and argument, with aliases, fragments,
variables (integers written as floats too) and introspection."""

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLObjectType,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    get_named_type,
    is_leaf_type,
    parse,
    validate,
    visit,
)

from graphql_schema import make_schema

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def documents() -> Any:
    spec = importlib.util.spec_from_file_location("bench_documents", BENCH / "documents.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_documents"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(documents: Any) -> list[Any]:
    return documents.generate()


class _Seen(Visitor):
    """Fields, arguments and spreads a document uses, by the type they are selected on."""

    def __init__(self, info: TypeInfo) -> None:
        super().__init__()
        self.info = info
        self.fields: set[tuple[str, str]] = set()
        self.arguments: set[tuple[str, str, str]] = set()
        self.aliases = 0
        self.spreads = 0

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        parent = self.info.get_parent_type()
        if parent is None:
            return
        self.fields.add((parent.name, node.name.value))
        self.aliases += node.alias is not None
        for argument in node.arguments or ():
            self.arguments.add((parent.name, node.name.value, argument.name.value))

    def enter_fragment_spread(self, _node: FragmentSpreadNode, *_args: Any) -> None:
        self.spreads += 1


def test_the_same_seed_gives_the_same_documents(documents: Any, generated: list[Any]) -> None:
    again = documents.generate()
    assert [(d.query, d.variables) for d in again] == [(d.query, d.variables) for d in generated]
    other = documents.generate(seed=34)
    assert [d.query for d in other] != [d.query for d in generated]
    assert len(generated) >= 300


def test_every_document_is_valid_against_the_served_schema(generated: list[Any]) -> None:
    schema = make_schema()._schema
    for document in generated:
        errors = validate(schema, parse(document.query))
        assert errors == [], (document.name, errors[0].message)


def test_every_root_field_relation_and_argument_comes_up(generated: list[Any]) -> None:
    schema = make_schema()._schema
    fields: set[tuple[str, str]] = set()
    arguments: set[tuple[str, str, str]] = set()
    aliases = spreads = 0
    for document in generated:
        info = TypeInfo(schema)
        seen = _Seen(info)
        visit(parse(document.query), TypeInfoVisitor(info, seen))
        fields |= seen.fields
        arguments |= seen.arguments
        aliases += seen.aliases
        spreads += seen.spreads
    wanted_fields = set()
    wanted_arguments = set()
    for name, named in schema.type_map.items():
        if name.startswith("__") or not isinstance(named, GraphQLObjectType):
            continue
        for field_name, field in named.fields.items():
            if name == "Query" or not is_leaf_type(get_named_type(field.type)) or field.args:
                wanted_fields.add((name, field_name))
            wanted_arguments |= {(name, field_name, argument) for argument in field.args}
    assert wanted_fields - fields == set()
    assert wanted_arguments - arguments == set()
    assert ("Query", "__schema") in fields or ("Query", "__type") in fields
    assert aliases >= 100
    assert spreads >= 50


def test_variables_come_with_integers_written_as_floats(generated: list[Any]) -> None:
    values = [v for d in generated for v in d.variables.values()]
    assert len(values) >= 100
    assert any(isinstance(v, float) and v.is_integer() for v in values)
    assert any(isinstance(v, dict) for v in values)  # input objects (near, bbox) too
