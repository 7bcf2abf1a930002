"""The reader of the docs' examples (tests/docs/examples.py) without a database: what it finds
in the Markdown, what it refuses, and the differences it reports."""

from pathlib import Path

import pytest

from tests.docs.examples import (
    ExampleError,
    differences,
    expected_status,
    find_examples,
    find_in_files,
    parse_answers,
)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
FENCE = "```"


def _doc(*blocks: str, between: str = "") -> str:
    return between.join(blocks)


def test_every_request_in_the_docs_has_an_answer_the_test_can_read() -> None:
    found = find_in_files(ROOT, DOCUMENTS)
    assert found.problems == [], "\n".join(found.problems)
    sources = {example.source for example in found.examples}
    assert {"README.md", "docs/api.md", "docs/graphql.md"} <= sources
    assert len(found.examples) >= 20


def test_a_curl_block_and_the_json_after_it_make_one_example_per_command() -> None:
    text = (
        "Intro\n\n"
        f'{FENCE}sh\nKEY=cds_live_...  # a comment\ncurl -H "X-API-Key: $KEY" '
        '"http://127.0.0.1:5000/api/v1/laws/CO"\n'
        "curl -s \\\n  'http://127.0.0.1:5000/api/v1/laws/CA?api_key=x'\n"
        f"{FENCE}\n{FENCE}json\n"
        '{"success": true, ...}\n{"success": false, "error": {"code": 404, ...}}\n'
        f"{FENCE}\n"
    )
    found = find_examples(text, "doc.md")
    assert found.problems == []
    (example,) = found.examples
    assert (example.name, example.answer_line) == ("doc.md:5", 9)
    first, second = example.requests
    assert (first.line, first.method, first.path) == (5, "GET", "/api/v1/laws/CO")
    assert first.headers == {"X-API-Key": "$KEY"}
    assert (second.line, second.path) == (6, "/api/v1/laws/CA?api_key=x")
    assert [expected_status(answer) for answer in example.answers] == [200, 404]


def test_a_graphql_block_is_posted_to_graphql() -> None:
    text = f"{FENCE}graphql\n{{ laws {{ total }} }}\n{FENCE}\n{FENCE}json\n{{...}}\n{FENCE}\n"
    (example,) = find_examples(text, "g.md").examples
    (request,) = example.requests
    assert (request.method, request.path, request.body) == (
        "POST",
        "/graphql",
        b'{"query": "{ laws { total } }"}',
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            f'{FENCE}sh\ncurl "http://127.0.0.1:5000/api/v1/strains"\n{FENCE}\nprose\n',
            "doc.md:1: a request without its answer",
        ),
        (
            f"{FENCE}graphql\n{{ laws {{ total }} }}\n{FENCE}\nSome prose.\n{FENCE}json\n{{}}\n"
            f"{FENCE}\n",
            "doc.md:1: a request without its answer",
        ),
        (
            f"{FENCE}sh\ncurl -H 'X-API-Key: $KEY' http://127.0.0.1:5000/api/v1/strains\n{FENCE}\n",
            "doc.md:2: $KEY inside single quotes",
        ),
        (
            f"{FENCE}sh\ncurl --compressed http://127.0.0.1:5000/api/v1/strains\n{FENCE}\n",
            "doc.md:2: curl '--compressed' is not an option",
        ),
        (
            f"{FENCE}sh\ncurl https://api.example/api/v1/strains\n{FENCE}\n",
            "doc.md:2: the curl command's URL must start with http://127.0.0.1:5000/",
        ),
        (
            f"{FENCE}sh\ncurl http://127.0.0.1:5000/api/v1/strains\n{FENCE}\n"
            f'{FENCE}json\n{{"a": 1}}\n{{"b": 2}}\n{FENCE}\n',
            "doc.md:4: 1 request(s) above, 2 answer(s) here",
        ),
        (
            f"{FENCE}sh\ncurl http://127.0.0.1:5000/api/v1/strains\n{FENCE}\n"
            f'{FENCE}json\n{{"a": 1,}}\n{FENCE}\n',
            "doc.md:4: the answer is not JSON",
        ),
    ],
)
def test_an_example_the_convention_cannot_read_is_a_problem_naming_its_line(
    text: str, problem: str
) -> None:
    found = find_examples(text, "doc.md")
    assert found.examples == []
    assert len(found.problems) == 1
    assert found.problems[0].startswith(problem), found.problems[0]


def test_blocks_without_a_request_are_not_examples() -> None:
    text = f'{FENCE}sh\n./scripts/serve.sh\n{FENCE}\n{FENCE}json\n{{"a": 1}}\n{FENCE}\n'
    assert find_examples(text, "doc.md").examples == []
    assert find_examples(text, "doc.md").problems == []


def test_ellipses_read_as_left_out_keys_any_value_and_left_out_items() -> None:
    (value,) = parse_answers('{"a": [1, ...], "b": ..., ..., "c": "x..."}', "here")
    assert differences(value, {"a": [1, 2, 3], "b": 1795392439, "z": 0, "c": "xyz"}) == []
    assert differences(value, {"a": [1], "b": None, "c": "x"}) == []


def test_a_bare_ellipsis_outside_an_object_or_list_is_refused() -> None:
    with pytest.raises(ExampleError, match=r"here: '\.\.\.' outside any object or list"):
        parse_answers("...", "here")


@pytest.mark.parametrize(
    ("shown", "actual", "expected"),
    [
        (
            '{"id": "disp_1421"}',
            {"id": "disp_2431"},
            ['$.id: shown "disp_1421", the answer has "disp_2431"'],
        ),
        ('{"a": 1}', {"a": 1, "b": 2}, ["$: the answer also has b (show it, or elide with ...)"]),
        ('{"a": 1, "b": 2}', {"a": 1}, ["$: the answer has no b"]),
        (
            '{"b": 2, "a": 1}',
            {"a": 1, "b": 2},
            ["$: keys shown as ['b', 'a'], the answer orders them ['a', 'b']"],
        ),
        ('{"n": 2.0}', {"n": 2}, ["$.n: shown 2.0, the answer has 2"]),
        ('{"ok": 1}', {"ok": True}, ["$.ok: shown 1, the answer has true"]),
        ('{"d": [1, 2]}', {"d": [1]}, ["$.d: shown 2 item(s), the answer has 1"]),
        ('{"d": [1, ..., 9]}', {"d": [1, 5, 8]}, ["$.d[2]: shown 9, the answer has 8"]),
        ('{"d": [..., 5, ...]}', {"d": [1, 2]}, ["$.d: no run of items from index 0 matches [5]"]),
        ('{"d": [{"x": 1}, ...]}', {"d": []}, ["$.d: shown at least 1 item(s), the answer has 0"]),
        (
            '{"t": "Blue..."}',
            {"t": "Red Dream"},
            ['$.t: shown "Blue...", the answer has "Red Dream"'],
        ),
        ('{"data": {...}}', {"data": []}, ["$.data: shown an object, the answer has []"]),
    ],
)
def test_differences_name_the_path_and_both_values(
    shown: str, actual: object, expected: list[str]
) -> None:
    (value,) = parse_answers(shown, "here")
    assert differences(value, actual) == expected


def test_the_status_is_200_unless_the_answer_is_an_error_envelope() -> None:
    assert expected_status({"success": True, "data": []}) == 200
    assert expected_status({"data": None, "errors": [{"message": "x"}]}) == 200
    assert expected_status({"success": False, "error": {"code": 429}}) == 429
