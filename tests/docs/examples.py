"""The request/answer pairs of the Markdown docs: found, turned into requests, and compared with
the answers they show. The convention is written in tests/docs/test_examples.py."""

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ORIGIN = "http://127.0.0.1:5000"  # the quick start's address, which every example names
KEY_VARIABLE = "$KEY"
# What a bare ``...`` stands for once parsed: any value (after a key), or any number of items.
ANY = "\ue000any value"
MORE_ITEMS = "\ue000any items"
ELIDED = "..."  # "...": "..." in an object: keys left out

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_CURL_FLAGS = {"-s", "-S", "-sS", "--silent", "-g", "--globoff"}


class ExampleError(ValueError):
    """An example the convention cannot read; the message names the file and line."""


@dataclass
class Request:
    """One request of an example, as the Flask test client sends it."""

    line: int
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None

    def describe(self) -> str:
        return f"{self.method} {self.path}"


@dataclass
class Example:
    """Requests (one ``sh`` block of curl commands, or one ``graphql`` block) and the answers
    (one ``json`` block, a value per request) shown right after them."""

    source: str  # path relative to the repository, for messages
    line: int
    requests: list[Request]
    answer_line: int
    answers: list[Any]

    @property
    def name(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass
class Found:
    examples: list[Example]
    problems: list[str]  # requests without an answer, unreadable answers or commands


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def find_examples(text: str, source: str) -> Found:
    """Every example of one Markdown text; ``source`` names it in messages."""
    fences = [
        (m.group(1), m.group(2), _line_of(text, m.start()), m.start(), m.end())
        for m in _FENCE.finditer(text)
    ]
    found = Found([], [])
    for index, (lang, body, line, _start, end) in enumerate(fences):
        try:
            requests = _requests(lang, body, line + 1, source)
        except ExampleError as error:
            found.problems.append(str(error))
            continue
        if not requests:
            continue
        following = fences[index + 1] if index + 1 < len(fences) else None
        if following is None or following[0] != "json" or text[end : following[3]].strip():
            found.problems.append(
                f"{source}:{line}: a request without its answer: follow the ```{lang} block "
                "with a ```json block showing what it answers"
            )
            continue
        try:
            answers = parse_answers(following[1], f"{source}:{following[2]}")
        except ExampleError as error:
            found.problems.append(str(error))
            continue
        if len(answers) != len(requests):
            found.problems.append(
                f"{source}:{following[2]}: {len(requests)} request(s) above, "
                f"{len(answers)} answer(s) here: show one JSON value per request, in order"
            )
            continue
        found.examples.append(Example(source, requests[0].line, requests, following[2], answers))
    return found


def find_in_files(root: Path, names: list[str]) -> Found:
    """Every example of the files ``names`` (relative to ``root``), in order."""
    found = Found([], [])
    for name in names:
        one = find_examples((root / name).read_text(encoding="utf-8"), name)
        found.examples += one.examples
        found.problems += one.problems
    return found


def _requests(lang: str, body: str, first_line: int, source: str) -> list[Request]:
    if lang == "graphql":
        document = json.dumps({"query": body.strip()}).encode()
        headers = {"X-API-Key": KEY_VARIABLE, "Content-Type": "application/json"}
        return [Request(first_line - 1, "POST", "/graphql", headers, document)]
    if lang != "sh":
        return []
    requests = []
    for number, command in _shell_lines(body, first_line):
        if command.split(maxsplit=1)[0] == "curl":
            requests.append(_curl(command, f"{source}:{number}", number))
    return requests


def _shell_lines(body: str, first_line: int) -> list[tuple[int, str]]:
    """The block's command lines with their line numbers (continuations joined, comments and
    blank lines left out)."""
    lines: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for offset, raw in enumerate(body.splitlines()):
        text = raw.rstrip()
        if pending is not None:
            number, head = pending
            text = head + " " + text.strip()
        else:
            number = first_line + offset
        if text.endswith("\\"):
            pending = (number, text[:-1].rstrip())
            continue
        pending = None
        if text.strip() and not text.lstrip().startswith("#"):
            lines.append((number, text.strip()))
    return lines


def _curl(command: str, where: str, line: int) -> Request:
    """A curl command line as a request; any option this reader does not know is refused."""
    if re.search(r"'[^']*\$KEY[^']*'", command):
        raise ExampleError(f"{where}: $KEY inside single quotes reaches curl unexpanded")
    try:
        words = shlex.split(command, comments=True)[1:]
    except ValueError as error:
        raise ExampleError(f"{where}: the shell cannot read this command ({error})") from error
    method, headers, body, url = "GET", {}, None, None
    while words:
        word = words.pop(0)
        if word in _CURL_FLAGS:
            continue
        if word in ("-H", "--header") and words:
            name, _, value = words.pop(0).partition(":")
            headers[name.strip()] = value.strip()
        elif word in ("-X", "--request") and words:
            method = words.pop(0)
        elif word in ("-d", "--data", "--data-raw") and words:
            body = words.pop(0).encode()
            method = "POST" if method == "GET" else method
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        elif word.startswith("http") and url is None:
            url = word
        else:
            raise ExampleError(f"{where}: curl {word!r} is not an option this test reads")
    if url is None or not url.startswith(ORIGIN + "/"):
        raise ExampleError(f"{where}: the curl command's URL must start with {ORIGIN}/")
    return Request(line, method, url.removeprefix(ORIGIN), headers, body)


def parse_answers(text: str, where: str) -> list[Any]:
    """The JSON values of an answer block, bare ``...`` read as elisions."""
    decoder = json.JSONDecoder()
    source = _read_ellipses(text, where)
    values, position = [], 0
    while True:
        while position < len(source) and source[position].isspace():
            position += 1
        if position == len(source):
            return values
        try:
            value, position = decoder.raw_decode(source, position)
        except json.JSONDecodeError as error:
            raise ExampleError(f"{where}: the answer is not JSON ({error.msg})") from error
        values.append(value)


def _read_ellipses(text: str, where: str) -> str:
    """``text`` with each bare ``...`` (outside strings) written as JSON: after a key, any
    value; where a key would be, ``"...": "..."``; in a list, any number of items."""
    out: list[str] = []
    stack: list[str] = []
    in_string = escaped = False
    last = ""  # the last significant character outside strings
    i = 0
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                last = '"'
            i += 1
            continue
        if text.startswith("...", i):
            if not stack:
                raise ExampleError(f"{where}: '...' outside any object or list")
            if stack[-1] == "[":
                out.append(json.dumps(MORE_ITEMS))
            elif last == ":":
                out.append(json.dumps(ANY))
            else:
                out.append(json.dumps(ELIDED) + ": " + json.dumps(ELIDED))
            last = '"'
            i += 3
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
        if not char.isspace():
            last = char
        out.append(char)
        i += 1
    return "".join(out)


def expected_status(answer: Any) -> int:
    """200, or for an error envelope its ``error.code``."""
    if isinstance(answer, dict) and answer.get("success") is False:
        code = answer.get("error", {}).get("code")
        if isinstance(code, int):
            return code
    return 200


def differences(shown: Any, actual: Any, path: str = "$") -> list[str]:
    """How ``actual`` differs from what the doc shows (empty when it matches): every key and
    value shown, in the order shown; elisions match what they stand for."""
    if shown == ANY:
        return []
    if isinstance(shown, dict):
        return _object_differences(shown, actual, path)
    if isinstance(shown, list):
        return _list_differences(shown, actual, path)
    cut_short = isinstance(shown, str) and shown.endswith(ELIDED) and isinstance(actual, str)
    if cut_short and actual.startswith(shown.removesuffix(ELIDED)):
        return []
    # JSON types must agree: true is not 1, and 2.0 is shown as 2.0.
    if type(shown) is not type(actual) or shown != actual:
        return [f"{path}: shown {_text(shown)}, the answer has {_text(actual)}"]
    return []


def _object_differences(shown: dict[str, Any], actual: Any, path: str) -> list[str]:
    if not isinstance(actual, dict):
        return [f"{path}: shown an object, the answer has {_text(actual)}"]
    elided = shown.get(ELIDED) == ELIDED
    keys = [key for key in shown if not (key == ELIDED and elided)]
    problems = []
    missing = [key for key in keys if key not in actual]
    if missing:
        problems.append(f"{path}: the answer has no {', '.join(missing)}")
    extra = [key for key in actual if key not in shown]
    if extra and not elided:
        problems.append(
            f"{path}: the answer also has {', '.join(extra)} (show it, or elide with ...)"
        )
    present = [key for key in keys if key in actual]
    order = [key for key in actual if key in present]
    if present != order:
        problems.append(f"{path}: keys shown as {present}, the answer orders them {order}")
    for key in present:
        problems += differences(shown[key], actual[key], f"{path}.{key}")
    return problems


def _list_differences(shown: list[Any], actual: Any, path: str) -> list[str]:
    if not isinstance(actual, list):
        return [f"{path}: shown a list, the answer has {_text(actual)}"]
    if MORE_ITEMS not in shown:
        if len(shown) != len(actual):
            return [f"{path}: shown {len(shown)} item(s), the answer has {len(actual)}"]
        return [
            p for i, item in enumerate(shown) for p in differences(item, actual[i], _at(path, i))
        ]
    # Items shown between elisions are matched in order: the first run at the start, the last
    # at the end (unless an elision ends the list), the others where they first match.
    runs: list[list[Any]] = [[]]
    for item in shown:
        if item == MORE_ITEMS:
            runs.append([])
        else:
            runs[-1].append(item)
    head, *middle, tail = runs
    if len(head) + sum(map(len, middle)) + len(tail) > len(actual):
        return [
            f"{path}: shown at least {len(shown) - len(runs) + 1} item(s), the answer has "
            f"{len(actual)}"
        ]
    problems = [
        p for i, item in enumerate(head) for p in differences(item, actual[i], _at(path, i))
    ]
    start = len(head)
    for run in middle:
        found = next(
            (
                s
                for s in range(start, len(actual) - len(run) - len(tail) + 1)
                if not any(differences(item, actual[s + j]) for j, item in enumerate(run))
            ),
            None,
        )
        if found is None:
            problems.append(f"{path}: no run of items from index {start} matches {_text(run)}")
            return problems
        start = found + len(run)
    offset = len(actual) - len(tail)
    problems += [
        p
        for j, item in enumerate(tail)
        for p in differences(item, actual[offset + j], _at(path, offset + j))
    ]
    return problems


def _at(path: str, index: int) -> str:
    return f"{path}[{index}]"


def _text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
