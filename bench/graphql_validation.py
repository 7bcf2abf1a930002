"""GraphQL validation timings: how they grow with the document, and their share of a page.

Usage: .venv/bin/python bench/graphql_validation.py [--repeat 20] [--database-url URL]

1. Documents of n fragments, each spreading the next twice, through the served schema's whole
   pre-execution pipeline; the cost walk alone; Strawberry's depth and alias limiters (up to 16).
2. Admitted documents near the 2,000-token limit through the whole pipeline.
3. At full scale: the cost check against bench/run.py's nested page, and the verdict on 16
   aliased introspection walks (once the most expensive admissible document found; the
   calibration of bench/calibrate.py looks for the longest ones now). Without --database-url
   (or DATABASE_URL) the full demo dataset is built into a temporary SQLite file first.

Each timed document is new to the caches (its operation name changes). Numbers are wall-clock
on a shared machine: compare them with each other.
"""

import argparse
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from graphql import parse, validate
from run import NESTED
from strawberry.extensions import MaxAliasesLimiter, QueryDepthLimiter

from app import create_app, dispose_engines
from graphql_schema import make_schema
from graphql_schema.context import Context
from graphql_schema.cost import DocumentLimits, analyse
from graphql_schema.deadline import OperationTimeout
from models.db import make_engine
from seed import generate, load_dataset
from service import keys
from web.db import SESSIONS_EXTENSION

FRAGMENTS = (10, 20, 40, 80)
BEFORE = (8, 10, 12, 14, 16)  # Strawberry's limiters double their time per fragment
TYPE_NAMES = (
    "__schema { types { fields { name description isDeprecated deprecationReason "
    "type { name kind } args { name description defaultValue type { name kind } } } } }"
)
NAMED_ROOTS = (
    'deals(offset: 1000000, limit: 1) { total } dispensaries(zip: "10001", radius: 500, '
    'offset: 1000000, limit: 1) { total } strains(effect: "relaxed", flavor: "earthy", '
    'thcMin: 1, offset: 1000000, limit: 1) { total } search(q: "blue dreem", limit: 1) { total } '
    'doctors(offset: 1000000, limit: 1) { total } laws { state } strain(slug: "blue-dream") '
    '{ slug } dispensary(id: "disp_1001") { id } law(state: "CA") { '
    + "... on Law { state } " * 190
    + "}"
)
# Once the costliest admissible document found: introspection was the dearest value per unit of
# cost, so the budget went on it, in 16 copies; every other root field asks for the slowest
# count it can, and the tokens left make graphql-core's overlap rule work.
WORST = (
    "query Worst { "
    + " ".join(f"n{k}: {TYPE_NAMES}" for k in range(15))
    + f" {TYPE_NAMES} {NAMED_ROOTS} }}"
)


def doubling(count: int, name: str = "Q") -> str:
    parts = [f"query {name} {{ ...F0 }}"]
    parts += [f"fragment F{n} on Query {{ ...F{n + 1} ...F{n + 1} }}" for n in range(count)]
    parts.append(f"fragment F{count} on Query {{ __typename }}")
    return " ".join(parts)


def _count(text: str) -> int:
    """Tokens as graphql-core's parser counts them (its lexer, up to the end)."""
    from graphql.language import Lexer, Source, TokenKind

    lexer = Lexer(Source(text))
    count = 0
    while lexer.advance().kind != TokenKind.EOF:
        count += 1
    return count


def _median_ms(repeat: int, call: Callable[[int], object]) -> float:
    call(-1)
    samples = []
    for n in range(repeat):
        started = time.perf_counter()
        call(n)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _late_context() -> Context:
    """A context whose deadline has passed: execution stops at its first field, so a timing
    covers parsing and validation only. It opens no connection."""

    def nothing():
        raise AssertionError("no database here")

    return Context(connections=nothing, today=date.today(), deadline=time.monotonic() - 1)


def pipeline(schema, document: Callable[[int], str]) -> tuple[str, Callable[[int], object]]:
    """The verdict on ``document(0)`` and a call running the pre-execution pipeline once."""

    def run(n: int) -> object:
        try:
            result = schema.execute_sync(document(n), context_value=_late_context())
        except OperationTimeout:
            return "admitted"
        return result.errors[0].message

    verdict = run(0)
    return (verdict if verdict == "admitted" else f"refused: {verdict[:44]}..."), run


def fragments_section(repeat: int) -> None:
    schema = make_schema()
    print("doubling fragments, whole pre-execution pipeline (served schema)")
    print(f"{'fragments':>9}{'tokens':>8}{'ms':>9}{'us/token':>10}  verdict")
    for count in FRAGMENTS:
        size = _count(doubling(count))
        verdict, run = pipeline(schema, lambda n, c=count: doubling(c, f"Q{n + 2}"))
        ms = _median_ms(repeat, run)
        print(f"{count:>9}{size:>8}{ms:>9.3f}{ms * 1000 / size:>10.2f}  {verdict}")
    limits = DocumentLimits(0)
    limits.attach(schema._schema)
    print("the cost walk alone, spread limit lifted (graphql_schema.cost.analyse)")
    print(f"{'fragments':>9}{'tokens':>8}{'ms':>9}{'us/token':>10}  estimate")
    for count in FRAGMENTS:
        document = parse(doubling(count))
        size = _count(doubling(count))
        call = lambda _n, d=document: analyse(limits.facts, d, None, None, max_spreads=10**6)  # noqa: E731
        ms = _median_ms(repeat, call)
        print(f"{count:>9}{size:>8}{ms:>9.3f}{ms * 1000 / size:>10.2f}  {call(0).cost}")
    rules = [
        *QueryDepthLimiter(max_depth=10).validation_rules,
        *MaxAliasesLimiter(max_alias_count=15).validation_rules,
    ]
    print("before: Strawberry's QueryDepthLimiter and MaxAliasesLimiter (graphql-core rules)")
    print(f"{'fragments':>9}{'tokens':>8}{'ms':>9}{'us/token':>10}")
    for count in BEFORE:
        document = parse(doubling(count))
        size = _count(doubling(count))
        ms = _median_ms(3, lambda _n, d=document: validate(schema._schema, d, rules))
        print(f"{count:>9}{size:>8}{ms:>9.3f}{ms * 1000 / size:>10.2f}")


def _deal_chain(levels: int) -> str:
    """deals { items { dispensary { deals { dispensary ... { id } } } } }, ``levels`` deep."""
    fields = ["deals(limit: 1)", "items"]
    while len(fields) < levels:
        fields.append("dispensary" if len(fields) % 2 == 0 else "deals(limit: 1)")
    selection = "id title"
    for field in reversed(fields):
        selection = f"{field} {{ {selection} }}"
    return selection


# Shapes that make graphql-core's rules work hardest (OverlappingFieldsCanBeMerged compares
# same-named fields and fragments pairwise), each as near 2,000 tokens as it goes. The query's
# name (2 tokens) is added when timed.
NEAR_LIMIT = {
    "one field 1,993 times": lambda: "{ laws { " + "state " * 1993 + "} }",
    "200 inline fragments": lambda: "{ laws { " + "... on Law { state stateCode } " * 200 + "} }",
    "64 fragments on one object": lambda: (
        "{ laws { "
        + " ".join(f"...L{n}" for n in range(64))
        + " } } "
        + " ".join(
            f"fragment L{n} on Law {{ state stateCode recreational medical homeGrow }}"
            for n in range(64)
        )
    ),
    "64 fragments with object fields": lambda: (
        "{ dispensaries(limit: 1) { items { "
        + " ".join(f"...D{n}" for n in range(64))
        + " } } } "
        + " ".join(
            f"fragment D{n} on Dispensary {{ hours {{ mon tue }} law {{ state }} "
            "deals(limit: 1) { id } }"
            for n in range(64)
        )
    ),
    "a chain of 64 fragments": lambda: (
        "{ laws { ...L0 } } "
        + " ".join(f"fragment L{n} on Law {{ state stateCode ...L{n + 1} }}" for n in range(63))
        + " fragment L63 on Law { state }"
    ),
    "15 aliases, each 10 deep": lambda: (
        "{ " + " ".join(f"a{n}: {_deal_chain(10)}" for n in range(15)) + " }"
    ),
}


def near_limit_section(repeat: int) -> None:
    schema = make_schema()
    print("admitted documents near the token limit, whole pipeline (graphql-core's rules too)")
    print(f"{'document':<34}{'tokens':>7}{'ms':>9}  verdict")
    for label, build in NEAR_LIMIT.items():
        text = build()
        verdict, run = pipeline(schema, lambda n, t=text: f"query N{n + 2} " + t)
        ms = _median_ms(repeat, run)
        print(f"{label:<34}{_count(text) + 2:>7}{ms:>9.3f}  {verdict}")


def full_scale_section(repeat: int, url: str | None) -> None:
    if url is None:
        url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
        started = time.perf_counter()
        load_dataset(make_engine(url), generate(scale="full", today=date.today()))
        print(f"seeded full dataset in {time.perf_counter() - started:.1f} s")
    access_log = open(os.devnull, "wb")  # noqa: SIM115 (open for the whole run)
    app = create_app({"DATABASE_URL": url, "PAGE_CACHE_MB": 0, "ACCESS_LOG_STREAM": access_log})
    gc.collect()
    gc.freeze()
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=10**9, name="bench").plaintext
        db.commit()
    client = app.test_client()

    def post(text: str) -> dict:
        response = client.post("/graphql", json={"query": text}, headers={"X-API-Key": key})
        body = response.get_json()
        if response.status_code != 200 or "errors" in body:
            raise RuntimeError(f"GraphQL case failed: {response.get_data(as_text=True)[:300]}")
        return body

    budget = app.config["GRAPHQL_COST_BUDGET"]
    page_ms = _median_ms(repeat * 5, lambda _n: post(NESTED))
    limits = DocumentLimits(budget)
    limits.attach(make_schema()._schema)
    document = parse(NESTED)
    remembered = _median_ms(repeat * 50, lambda _n: limits.check(document, NESTED, None, None))
    fresh = _median_ms(repeat * 5, lambda _n: analyse(limits.facts, document, None, None))
    cost = post(NESTED)["extensions"]["cost"]
    print(f"nested page of bench/run.py (cost {cost['requested']:,} of {budget:,}), in-process")
    print(f"{'request, median':<38}{page_ms:>9.3f} ms")
    print(
        f"{'cost check, remembered (every repeat)':<38}{remembered:>9.4f} ms  "
        f"{remembered / page_ms:>6.2%} of the request"
    )
    print(f"{'cost check, new document':<38}{fresh:>9.4f} ms  {fresh / page_ms:>6.2%}")
    headers = {"X-API-Key": key}
    worst = client.post("/graphql", json={"query": WORST}, headers=headers).get_json()
    size = f"{len(WORST)} characters, {_count(WORST)} tokens"
    if worst.get("errors"):
        refused = worst["errors"][0]["extensions"]["cost"]["requested"]
        print(f"16 aliased introspection walks ({size}): refused, estimated {refused:,}")
    else:
        worst_ms = _median_ms(max(3, repeat // 4), lambda _n: post(WORST))
        requested = worst["extensions"]["cost"]["requested"]
        print(
            f"16 aliased introspection walks ({size}): admitted at {requested:,}, "
            f"{worst_ms:.0f} ms in-process"
        )
    dispose_engines(app)
    access_log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    fragments_section(args.repeat)
    print()
    near_limit_section(args.repeat)
    print()
    full_scale_section(args.repeat, args.database_url or os.environ.get("DATABASE_URL"))


if __name__ == "__main__":
    main()
