"""Mixed traffic for bench/run.py: a deterministic trace over every endpoint, Zipf-popular.

``build_trace`` reads real values (slugs, ids, places, points) from a seeded database, builds
``distinct`` distinct requests from the table of request kinds (``KINDS``: REST and GraphQL
shapes), then draws a trace of ``requests`` from them in which rank r weighs 1/r**s, every
distinct request at least once. The same seed and data always give the same trace. GET
/api/v1/usage is left out: its answer is per key.
"""

import json
import random
import re
from collections.abc import Callable
from datetime import date, timedelta
from itertools import accumulate
from typing import Any, NamedTuple
from urllib.parse import urlencode

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Law, Strain
from models.strain import StrainEffect, StrainFlavor
from service.errors import InvalidParameter
from service.geo import zip_point
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES

# The parameters and GraphQL shapes landing now (geo, opening hours, sort, comma lists, a
# strain's dispensaries): on by default once they exist; False builds the trace without them.
NEW_FEATURES = True
API = "/api/v1"


class Request(NamedTuple):
    method: str
    path: str
    body: str | None = None


class Place(NamedTuple):
    public_id: str
    name: str
    state: str
    city: str
    zip: str
    lat: float
    lng: float


class Data(NamedTuple):
    """The real values requests are built from, each list in a fixed order."""

    strains: list[tuple[str, str]]  # (slug, name)
    effects: list[str]
    flavors: list[str]
    dispensaries: list[Place]
    zips: list[str]  # dispensaries' ZIP codes that the service knows
    deals: list[str]  # deals live for a few more days
    doctors: list[Place]
    laws: list[str]
    today: date


def read_data(session: Session, today: date) -> Data:
    """Every value the request kinds draw from, read from the seeded database."""
    places = (Dispensary.public_id, Dispensary.name, Dispensary.state, Dispensary.city)
    dispensaries = [
        Place(*row)
        for row in session.execute(
            select(*places, Dispensary.zip, Dispensary.lat, Dispensary.lng).order_by(Dispensary.id)
        )
    ]
    doctor_columns = (Doctor.public_id, Doctor.name, Doctor.state, Doctor.city, Doctor.zip)
    doctors = [
        Place(*row)
        for row in session.execute(
            select(*doctor_columns, Doctor.lat, Doctor.lng).order_by(Doctor.id)
        )
    ]
    # A deal expiring today may have expired by the time a request is served elsewhere.
    live = select(Deal.public_id).where(Deal.expires >= today + timedelta(days=2))
    return Data(
        strains=[tuple(row) for row in session.execute(select(Strain.slug, Strain.name))],
        effects=sorted(set(session.scalars(select(StrainEffect.name)))),
        flavors=sorted(set(session.scalars(select(StrainFlavor.name)))),
        dispensaries=dispensaries,
        zips=sorted({place.zip for place in dispensaries if _known_zip(place.zip)}),
        deals=list(session.scalars(live.order_by(Deal.id))),
        doctors=doctors,
        laws=list(session.scalars(select(Law.state_code).order_by(Law.state_code))),
        today=today,
    )


def _known_zip(code: str) -> bool:
    try:
        zip_point(code)
    except InvalidParameter:
        return False
    return True


def get(path: str, params: dict[str, Any] | None = None) -> Request:
    """A GET of ``path`` with ``params`` in the given order (commas and colons left plain)."""
    query = urlencode(params, safe=",:") if params else ""
    return Request("GET", f"{API}{path}?{query}" if query else f"{API}{path}")


def graphql(name: str, document: str, variables: dict[str, Any]) -> Request:
    """A POST /graphql of ``document`` with ``variables``, as compact JSON."""
    body = {"operationName": name, "query": document, "variables": variables}
    return Request("POST", "/graphql", json.dumps(body, sort_keys=True, separators=(",", ":")))


# Filter and paging values. Each helper takes the trace's random.Random and the data.
def paging(rng: random.Random, maximum: int = 100) -> dict[str, int]:
    """No paging half the time; otherwise a limit, an offset or both."""
    choice = rng.randrange(4)
    limit = {"limit": rng.choice([n for n in (5, 10, 20, 50, 100) if n <= maximum])}
    offset = {"offset": rng.choice((20, 40, 100))}
    return [{}, {}, limit, {**limit, **offset}][choice]


def some(rng: random.Random, options: dict[str, Callable[[], Any]], most: int) -> dict[str, Any]:
    """Between zero and ``most`` of ``options`` (in their order), each value drawn by its maker."""
    chosen = sorted(rng.sample(range(len(options)), rng.randint(0, most)))
    names = list(options)
    return {names[i]: options[names[i]]() for i in chosen}


def near(rng: random.Random, data: Data) -> tuple[float, float]:
    """A point within about 3 miles of a real dispensary, to 4 decimals."""
    place = rng.choice(data.dispensaries)
    return round(place.lat + rng.uniform(-0.04, 0.04), 4), round(
        place.lng + rng.uniform(-0.04, 0.04), 4
    )


def point(rng: random.Random, data: Data, *, radius: bool = True) -> dict[str, Any]:
    lat, lng = near(rng, data)
    miles = {"radius": rng.choice((5, 10, 25, 50))} if radius and rng.random() < 0.6 else {}
    return {"lat": lat, "lng": lng, **miles}


def bbox(rng: random.Random, data: Data) -> dict[str, str]:
    lat, lng = near(rng, data)
    half = rng.choice((0.1, 0.5, 1.0))
    return {"bbox": f"{lng - half:.4f},{lat - half:.4f},{lng + half:.4f},{lat + half:.4f}"}


def open_at(rng: random.Random, data: Data) -> str:
    """An ISO time with an offset, such as 2026-12-24T18:30:00-08:00."""
    day = data.today + timedelta(days=rng.randrange(14))
    clock = rng.choice(("08:00", "10:30", "12:00", "18:30", "21:45", "23:30"))
    offset = rng.choice(("-05:00", "-06:00", "-07:00", "-08:00", "-10:00", "+00:00", "+01:00"))
    return f"{day.isoformat()}T{clock}:00{offset}"


def two(rng: random.Random, words: tuple[str, ...] | list[str]) -> str:
    return ",".join(rng.sample(list(words), 2))


def state_of(rng: random.Random, places: list[Place]) -> str:
    return rng.choice(places).state


def prefix(rng: random.Random, data: Data) -> str:
    """What a search box sends: 1-3 characters of a real name, or one whole word of it."""
    names = [name for _, name in data.strains] + [p.name for p in data.dispensaries]
    name = rng.choice(names + [p.name.removeprefix("Dr. ") for p in data.doctors])
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if len(w) >= 3]
    if words and rng.random() < 0.4:
        return rng.choice(words).lower()
    return name[: rng.randint(1, 3)].strip() or name[0]


# REST request kinds, as they exist today.
def strains_list(rng: random.Random, d: Data) -> Request:
    filters = some(
        rng,
        {
            "type": lambda: rng.choice(STRAIN_TYPES),
            "effect": lambda: rng.choice(d.effects),
            "flavor": lambda: rng.choice(d.flavors),
            "thc_min": lambda: rng.choice((10, 15, 18)),
            "thc_max": lambda: rng.choice((20, 25, 30)),
            "cbd_min": lambda: rng.choice((0.5, 1, 5)),
        },
        3,
    )
    return get("/strains", {**filters, **paging(rng)})


def dispensaries_list(rng: random.Random, d: Data) -> Request:
    where = rng.randrange(3)
    if where == 0:
        place = rng.choice(d.dispensaries)
        params: dict[str, Any] = {"state": place.state, "city": place.city}
    elif where == 1:
        params = {"zip": rng.choice(d.zips)}
        if rng.random() < 0.6:
            params["radius"] = rng.choice((5, 10, 25, 50, 100))
    else:
        params = {"state": state_of(rng, d.dispensaries)}
    params |= some(
        rng,
        {
            "type": lambda: rng.choice(DISPENSARY_TYPES),
            "delivery": lambda: rng.choice(("true", "false")),
        },
        2,
    )
    return get("/dispensaries", {**params, **paging(rng)})


def deals_list(rng: random.Random, d: Data) -> Request:
    options = {
        "state": lambda: state_of(rng, d.dispensaries),
        "category": lambda: rng.choice(DEAL_CATEGORIES),
    }
    params = some(rng, options, 2)
    if rng.random() < 0.2:
        place = rng.choice(d.dispensaries)
        params = {"state": place.state, "city": place.city, **params}
    return get("/deals", {**params, **paging(rng)})


def doctors_list(rng: random.Random, d: Data) -> Request:
    params = {"state": state_of(rng, d.doctors)} if rng.random() < 0.7 else {}
    if params and rng.random() < 0.3:
        place = rng.choice(d.doctors)
        params = {"state": place.state, "city": place.city}
    if rng.random() < 0.4:
        params["telehealth"] = rng.choice(("true", "false"))
    return get("/doctors", {**params, **paging(rng, maximum=50)})


def laws_list(rng: random.Random, d: Data) -> Request:
    params = some(
        rng,
        {
            "recreational": lambda: rng.choice(("true", "false")),
            "medical": lambda: rng.choice(("true", "false")),
        },
        2,
    )
    return get("/laws", params)


def search(rng: random.Random, d: Data) -> Request:
    scope = some(
        rng,
        {"type": lambda: rng.choice(SEARCH_TYPES), "state": lambda: state_of(rng, d.dispensaries)},
        1,
    )
    return get("/search", {"q": prefix(rng, d), **scope, **paging(rng)})


# New REST kinds (NEW_FEATURES).
def dispensaries_near(rng: random.Random, d: Data) -> Request:
    options = {
        "sort": lambda: rng.choice(("distance", "name", "rating", "-rating")),
        "open_now": lambda: "true",
        "type": lambda: rng.choice(DISPENSARY_TYPES),
        "delivery": lambda: "true",
    }
    return get("/dispensaries", {**point(rng, d), **some(rng, options, 2), **paging(rng)})


def dispensaries_open_at(rng: random.Random, d: Data) -> Request:
    where = point(rng, d) if rng.random() < 0.6 else {"state": state_of(rng, d.dispensaries)}
    return get("/dispensaries", {**where, "open_at": open_at(rng, d), **paging(rng)})


def dispensaries_bbox(rng: random.Random, d: Data) -> Request:
    options = {
        "sort": lambda: rng.choice(("name", "rating", "-rating")),
        "open_now": lambda: "true",
        "type": lambda: rng.choice(DISPENSARY_TYPES),
    }
    return get("/dispensaries", {**bbox(rng, d), **some(rng, options, 2), **paging(rng)})


def dispensaries_sorted(rng: random.Random, d: Data) -> Request:
    if rng.random() < 0.5:
        where, sort = {"zip": rng.choice(d.zips)}, ("distance", "name", "rating", "-rating")
    else:
        where, sort = {"state": state_of(rng, d.dispensaries)}, ("name", "rating", "-rating")
    return get("/dispensaries", {**where, "sort": rng.choice(sort), **paging(rng)})


def dispensaries_multi(rng: random.Random, d: Data) -> Request:
    states = sorted({p.state for p in d.dispensaries})
    options = {"state": lambda: two(rng, states), "type": lambda: two(rng, DISPENSARY_TYPES)}
    params = some(rng, options, 2) or {"state": two(rng, states)}
    return get("/dispensaries", {**params, **paging(rng)})


def doctors_geo(rng: random.Random, d: Data) -> Request:
    if rng.random() < 0.6:
        where, sort = point(rng, d), ("distance", "name", "rating", "-rating")
    else:
        where, sort = bbox(rng, d), ("name", "rating", "-rating")
    options = {"sort": lambda: rng.choice(sort), "telehealth": lambda: "true"}
    return get("/doctors", {**where, **some(rng, options, 2), **paging(rng, maximum=50)})


def deals_near(rng: random.Random, d: Data) -> Request:
    options = {
        "open_now": lambda: "true",
        "sort": lambda: rng.choice(("expires", "distance")),
        "category": lambda: rng.choice(DEAL_CATEGORIES),
    }
    return get("/deals", {**point(rng, d), **some(rng, options, 2), **paging(rng)})


def deals_multi(rng: random.Random, d: Data) -> Request:
    states = sorted({p.state for p in d.dispensaries})
    options = {
        "state": lambda: two(rng, states),
        "category": lambda: two(rng, DEAL_CATEGORIES),
        "sort": lambda: "expires",
    }
    params = some(rng, options, 3) or {"category": two(rng, DEAL_CATEGORIES)}
    return get("/deals", {**params, **paging(rng)})


def strains_multi(rng: random.Random, d: Data) -> Request:
    options = {
        "type": lambda: two(rng, STRAIN_TYPES),
        "effect": lambda: two(rng, d.effects),
        "flavor": lambda: two(rng, d.flavors),
    }
    params = some(rng, options, 2) or {"effect": two(rng, d.effects)}
    return get("/strains", {**params, **paging(rng)})


def strain_dispensaries(rng: random.Random, d: Data) -> Request:
    slug = rng.choice(d.strains)[0]
    params = point(rng, d) if rng.random() < 0.6 else {}
    if rng.random() < 0.3:
        params["open_now"] = "true"
    if rng.random() < 0.4:
        params["limit"] = rng.choice((5, 10, 50))
    return get(f"/strains/{slug}/dispensaries", params)


def detail(path: str, values: Callable[[Data], list]) -> Callable[[random.Random, Data], Request]:
    """A detail kind: ``path`` formatted with one value drawn from ``values(data)``."""

    def build(rng: random.Random, d: Data) -> Request:
        value = rng.choice(values(d))
        return get(path.format(value[0] if isinstance(value, tuple) else value))

    return build


# GraphQL shapes: (operation name, maker of (document, variables), features); edit them here.
# Features: "any" always, "new" only with NEW_FEATURES, "old" only without (a shape the new
# schema replaces). State, type and effect are written into the documents as literals; several
# values go to the plural arguments (types, effects), which take lists.
SEARCH_ITEMS = (
    "__typename ... on Strain { slug name } ... on Dispensary { id name } "
    "... on Doctor { id name } ... on Deal { id title }"
)


def _arguments(values: dict[str, str]) -> str:
    return "".join(f"{name}: {value}, " for name, value in values.items())


def strains_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    written = some(
        rng,
        {
            "type": lambda: rng.choice(STRAIN_TYPES).upper(),
            "effect": lambda: json.dumps(rng.choice(d.effects)),
        },
        2,
    )
    document = (
        "query Strains($thcMin: Float, $limit: Int!) { strains("
        f"{_arguments(written)}thcMin: $thcMin, limit: $limit) "
        "{ total items { slug name type thc effects flavors } } }"
    )
    thc = some(rng, {"thcMin": lambda: rng.choice((10, 15, 18, 20))}, 1)
    return document, {"limit": rng.choice((10, 20, 50)), **thc}


def nested_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query DispensariesNested($limit: Int!) { dispensaries("
        f"state: {json.dumps(state_of(rng, d.dispensaries))}, limit: $limit) "
        "{ total items { id name rating deals(limit: 3) { title discount } "
        "menu(limit: 5) { name price strain { slug } } law { recreational } } } }"
    )
    return document, {"limit": rng.choice((5, 10, 20))}


def search_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query Search($q: String!, $limit: Int!) { search(q: $q, limit: $limit) "
        f"{{ total items {{ {SEARCH_ITEMS} }} }} }}"
    )
    return document, {"q": prefix(rng, d), "limit": rng.choice((5, 10, 20))}


def strain_dispensaries_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query StrainDispensaries($slug: String!, $limit: Int!) { strain(slug: $slug) "
        "{ name thc terpenes dispensaries(limit: $limit) { id name address } } }"
    )
    return document, {"slug": rng.choice(d.strains)[0], "limit": rng.choice((5, 10, 20))}


def open_near_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query OpenNear($lat: Float!, $lng: Float!) { dispensaries(near: {lat: $lat, "
        "lng: $lng, radius: 25}, openNow: true, limit: 10) "
        "{ items { id name distance isOpen nextChange } } }"
    )
    return document, dict(zip(("lat", "lng"), near(rng, d), strict=True))


def strain_near_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query StrainNear($slug: String!, $lat: Float!, $lng: Float!) { strain(slug: $slug) "
        "{ dispensaries(near: {lat: $lat, lng: $lng, radius: 25}, limit: 5) "
        "{ id name price unit distance } } }"
    )
    point = dict(zip(("lat", "lng"), near(rng, d), strict=True))
    return document, {"slug": rng.choice(d.strains)[0], **point}


def strains_multi_document(rng: random.Random, d: Data) -> tuple[str, dict]:
    document = (
        "query StrainsMulti($types: [StrainType!], $effects: [String!], $limit: Int!) "
        "{ strains(types: $types, effects: $effects, limit: $limit) { total items { slug name } } }"
    )
    types = [t.upper() for t in rng.sample(STRAIN_TYPES, 2)]
    return document, {"types": types, "effects": rng.sample(d.effects, 2), "limit": 20}


GraphqlMaker = Callable[[random.Random, Data], tuple[str, dict]]
GRAPHQL_SHAPES: list[tuple[str, GraphqlMaker, str]] = [
    ("Strains", strains_document, "any"),
    ("DispensariesNested", nested_document, "any"),
    ("Search", search_document, "any"),
    ("StrainDispensaries", strain_dispensaries_document, "old"),
    ("OpenNear", open_near_document, "new"),
    ("StrainNear", strain_near_document, "new"),
    ("StrainsMulti", strains_multi_document, "new"),
]


class Kind(NamedTuple):
    endpoint: str  # "METHOD /path/{param}", what endpoint() reports for its requests
    weight: int  # relative share of the distinct requests
    build: Callable[[random.Random, Data], Request]
    features: str = "any"  # "any", "new" (only with NEW_FEATURES) or "old" (only without)


def _graphql_kind(name: str, make: GraphqlMaker, features: str) -> Kind:
    return Kind("POST /graphql", 3, lambda rng, d: graphql(name, *make(rng, d)), features)


def applies(features: str, new_features: bool) -> bool:
    """Whether a kind or shape marked ``features`` is in a trace with or without new features."""
    return features == "any" or (features == "new") == new_features


KINDS: tuple[Kind, ...] = (
    Kind(f"GET {API}/strains", 12, strains_list),
    Kind(f"GET {API}/strains/{{slug}}", 12, detail("/strains/{}", lambda d: d.strains)),
    Kind(f"GET {API}/dispensaries", 12, dispensaries_list),
    Kind(f"GET {API}/dispensaries/{{id}}", 8, detail("/dispensaries/{}", lambda d: d.dispensaries)),
    Kind(f"GET {API}/deals", 6, deals_list),
    Kind(f"GET {API}/deals/{{id}}", 4, detail("/deals/{}", lambda d: d.deals)),
    Kind(f"GET {API}/doctors", 5, doctors_list),
    Kind(f"GET {API}/doctors/{{id}}", 3, detail("/doctors/{}", lambda d: d.doctors)),
    Kind(f"GET {API}/laws", 1, laws_list),
    Kind(f"GET {API}/laws/{{state}}", 4, detail("/laws/{}", lambda d: d.laws)),
    Kind(f"GET {API}/search", 15, search),
    *(_graphql_kind(*shape) for shape in GRAPHQL_SHAPES),
    Kind(f"GET {API}/dispensaries", 6, dispensaries_near, features="new"),
    Kind(f"GET {API}/dispensaries", 3, dispensaries_open_at, features="new"),
    Kind(f"GET {API}/dispensaries", 3, dispensaries_bbox, features="new"),
    Kind(f"GET {API}/dispensaries", 2, dispensaries_sorted, features="new"),
    Kind(f"GET {API}/dispensaries", 2, dispensaries_multi, features="new"),
    Kind(f"GET {API}/doctors", 3, doctors_geo, features="new"),
    Kind(f"GET {API}/deals", 4, deals_near, features="new"),
    Kind(f"GET {API}/deals", 2, deals_multi, features="new"),
    Kind(f"GET {API}/strains", 3, strains_multi, features="new"),
    Kind(f"GET {API}/strains/{{slug}}/dispensaries", 5, strain_dispensaries, features="new"),
)


def endpoints(*, new_features: bool | None = None) -> set[str]:
    """The endpoints a trace covers (every one of them, whatever the seed)."""
    new = NEW_FEATURES if new_features is None else new_features
    return {kind.endpoint for kind in KINDS if applies(kind.features, new)}


def endpoint(request: Request) -> str:
    """The ``KINDS`` endpoint of ``request``, such as ``GET /api/v1/strains/{slug}``."""
    path = request.path.partition("?")[0]
    for name in {kind.endpoint for kind in KINDS}:
        method, _, template = name.partition(" ")
        if method == request.method and re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), path):
            return name
    raise ValueError(f"no endpoint serves {request.method} {request.path}")


def build_trace(
    source: Session | Engine,
    *,
    seed: int = 22,
    requests: int = 5000,
    distinct: int = 1500,
    s: float = 1.1,
    new_features: bool | None = None,
    today: date | None = None,
) -> list[Request]:
    """``requests`` requests drawn from at least ``distinct`` distinct ones (each at least once),
    rank r of them weighing 1/r**s; raise ValueError when the data cannot give that many."""
    if requests < distinct:
        raise ValueError("requests must be at least distinct: each appears once")
    if isinstance(source, Engine):
        with Session(source) as session:
            data = read_data(session, today or date.today())
    else:
        data = read_data(source, today or date.today())
    new = NEW_FEATURES if new_features is None else new_features
    rng = random.Random(seed)
    pool = distinct_requests(rng, data, [k for k in KINDS if applies(k.features, new)], distinct)
    rng.shuffle(pool)  # the popularity ranks
    ranks = list(accumulate(1 / rank**s for rank in range(1, len(pool) + 1)))
    trace = pool + rng.choices(pool, cum_weights=ranks, k=max(0, requests - len(pool)))
    rng.shuffle(trace)
    return trace


def distinct_requests(
    rng: random.Random, data: Data, kinds: list[Kind], distinct: int
) -> list[Request]:
    """One request of each kind, then kinds drawn by weight until ``distinct`` are distinct."""
    found = dict.fromkeys(kind.build(rng, data) for kind in kinds)
    weights = list(accumulate(kind.weight for kind in kinds))
    for _ in range(distinct * 50):
        if len(found) >= distinct:
            return list(found)
        found.setdefault(rng.choices(kinds, cum_weights=weights)[0].build(rng, data))
    raise ValueError(f"only {len(found)} distinct requests from this data, not {distinct}")
