"""A deterministic generator of varied GraphQL documents for the cost calibration (calibrate.py).

Every root field, every relation and every argument of the served schema comes up, with aliases,
named and inline fragments, variables (integers sometimes written as JSON floats) and
introspection. Argument values are drawn from pools that match the full demo dataset (states,
ZIP codes, points, effects, search words), so most documents find rows; the draws are seeded, so
the same seed gives the same documents.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

EFFECTS = ("relaxed", "happy", "euphoric", "uplifted", "creative", "sleepy", "energetic")
FLAVORS = ("earthy", "sweet", "citrus", "berry", "pine", "diesel", "grape", "mint", "vanilla")
STATES = ("CA", "CO", "NY", "TX", "FL", "MI", "WA", "OR", "IL", "MA", "VT", "DC", "PR")
CITIES = (("CA", "Los Angeles"), ("CO", "Denver"), ("NY", "Brooklyn"), ("TX", "Austin"))
ZIPS = ("94110", "80202", "10001", "60601", "98101", "33101", "78701", "02108")
POINTS = ((39.7392, -104.9903), (34.0522, -118.2437), (40.7128, -74.0060), (39.5, -98.35))
RADII = (1, 5, 25, 50, 150, 500)
BOXES = (
    (-122.52, 37.70, -122.35, 37.83),  # San Francisco
    (-105.1, 39.6, -104.8, 39.9),  # Denver
    (-125.0, 24.0, -66.0, 50.0),  # the continental US
    (-90.0, 30.0, -80.0, 40.0),
)
# Steady instants, and instants within days of a change of UTC offset.
STAMP_SORTS = ("UPDATED_AT", "UPDATED_AT_DESC")
# updatedSince: instants in the past (a future one is refused), before and after a day's load.
SINCE = ("2020-01-01T00:00:00Z", "2026-11-01T00:00:00-05:00", "2026-11-27T12:00:00Z")
INSTANTS = (
    "2026-12-04T18:00:00-07:00",
    "2026-07-15T12:30:00Z",
    "2026-12-06T03:00:00-05:00",
    "2026-03-08T09:15:00-08:00",
    "2026-11-01T01:30:00-05:00",
    "2026-03-10T22:00:00-04:00",
)
SEARCH_WORDS = ("blue", "kush", "og", "blue dreem", "haze", "green", "a", "canna", "sour d", "zz")
CATEGORIES = ("flower", "edibles", "vapes", "concentrates", "pre-rolls")
SLUGS = ("blue-dream", "og-kush", "acapulco-gold", "sour-diesel", "no-such-strain")
LIMITS = (1, 2, 5, 10, 20, 50, 100)
OFFSETS = (0, 0, 0, 1, 10, 100, 1000, 1_000_000)
# Leaf fields of each type (every one comes up; __typename too).
LEAVES = {
    "Strain": ["id", "slug", "name", "type", "thc", "cbd", "effects", "flavors", "description",
               "rating", "reviewCount", "terpenes", "dominantTerpene", "ratio"],
    "Dispensary": ["id", "name", "address", "type", "rating", "delivery", "phone", "website",
                   "timezone", "reviewCount", "distance", "price", "unit", "isOpen", "nextChange",
                   "pricePerGram"],
    "Deal": ["id", "title", "dispensaryName", "category", "discount", "expires", "distance"],
    "Doctor": ["id", "name", "city", "state", "telehealth", "rating", "price", "timezone",
               "distance"],
    "Law": ["id", "state", "stateCode", "recreational", "medical", "possessionLimitOz", "homeGrow",
            "homeGrowPlants", "deliveryLegal", "updated"],
    "MenuItem": ["name", "category", "price", "unit", "strainSlug", "pricePerGram"],
    "Review": ["rating", "text", "author", "date"],
}  # fmt: skip
# A batch on the shelf, as a menu item (or a strain's dispensary) shows it.
LAB = "lab { batchId testedAt lab coaUrl results { key value unit qualifier } totalThc totalCbd }"
OBJECTS = {
    "Dispensary": ("hours { mon fri sun }", "location { lat lng }", LAB),
    "Doctor": ("location { lat }",),
    "MenuItem": (LAB,),
}
PAGE_LEAVES = ("total", "limit", "offset")
# Fields of the search union's members that one name gives different types.
UNION_CONFLICTS = frozenset({"price", "type"})
INTROSPECTION = (
    "__schema { types { name kind fields { name args { name type { name kind } } } } }",
    "__schema { queryType { name fields { name description } } }",
    "__type(name: {name}) { name fields { name type { name kind ofType { name } } } }",
    "__type(name: {name}) { name kind enumValues { name } inputFields { name } }",
    "__schema { types { name description enumValues { name } possibleTypes { name } } }",
)
TYPE_NAMES = ("Query", "Dispensary", "Strain", "PlaceSort", "NearInput", "Boolean")
# A strain's chemistry and lineage: what a selection of each may pick.
TERPENES = ("MYRCENE", "LIMONENE", "CARYOPHYLLENE", "PINENE", "LINALOOL", "OCIMENE")
RATIOS = ("THC_DOMINANT", "CBD_DOMINANT", "BALANCED")
PARENTS = ("girl-scout-cookies", "blueberry", "og-kush", "no-such-strain")
CHEMISTRY_PARTS = (
    "basis",
    "sampleCount",
    "source",
    "dominantTerpene",
    "ratio",
    "cannabinoids { key name unit p25 p50 p75 }",
    "terpenes { key p50 }",
    "totalThc { p25 p50 p75 formula }",
    "totalCbd { p50 formula }",
    "totalTerpenes { p50 }",
)
LINEAGE_PARTS = ("origin", "childrenCount", "parents { slug name }")
COMPOUND_PARTS = ("key", "name", "kind", "aliases")


@dataclass
class Document:
    """One generated operation: its text, its variables and what it exercises."""

    name: str
    query: str
    variables: dict[str, Any] = field(default_factory=dict)
    uses: set[str] = field(default_factory=set)  # "Type.field(arg)" and "aliases", ...


class _Builder:
    """Builds one document: arguments become variables now and then, selections fragments."""

    def __init__(self, rng: random.Random, name: str) -> None:
        self.rng = rng
        self.name = name
        self.definitions: list[str] = []  # variable definitions
        self.variables: dict[str, Any] = {}
        self.fragments: list[str] = []
        self.uses: set[str] = set()
        # Leaves left out: in a union, fields one name gives different types (price, type).
        self.excluded: frozenset[str] = frozenset()

    # -- arguments ---------------------------------------------------------------------------

    def value(self, graphql_type: str, value: Any) -> str:
        """A value written inline, or (one time in four) as a variable of ``graphql_type``."""
        if self.rng.random() < 0.25:
            name = f"v{len(self.definitions)}"
            self.definitions.append(f"${name}: {graphql_type}")
            self.uses.add("variables")
            if graphql_type.startswith("Int") and self.rng.random() < 0.3:
                value = float(value)  # 20.0 coerces to the Int 20
                self.uses.add("float-written ints")
            self.variables[name] = value
            return f"${name}"
        return _literal(value, graphql_type)

    def arguments(self, owner: str, given: dict[str, tuple[str, Any]]) -> str:
        parts = []
        for name, (graphql_type, value) in given.items():
            self.uses.add(f"{owner}({name})")
            parts.append(f"{name}: {self.value(graphql_type, value)}")
        return f"({', '.join(parts)})" if parts else ""

    def window(self, given: dict[str, tuple[str, Any]], maximum: int = 100) -> None:
        rng = self.rng
        if rng.random() < 0.8:
            given["limit"] = ("Int!", min(rng.choice(LIMITS), maximum))
        if rng.random() < 0.35:
            given["offset"] = ("Int!", rng.choice(OFFSETS))

    def location(self, given: dict[str, tuple[str, Any]], *, box: bool, zip_radius: bool) -> bool:
        """Maybe a zip, a point or a box; whether it is a point (distance can sort)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.2:
            given["zip"] = ("String", rng.choice(ZIPS))
            if zip_radius and rng.random() < 0.7:
                given["radius"] = ("Float", float(rng.choice(RADII)))
            return True
        if roll < 0.45:
            lat, lng = rng.choice(POINTS)
            point = {"lat": lat, "lng": lng, "radius": float(rng.choice(RADII))}
            given["near"] = ("NearInput", point)
            return True
        if box and roll < 0.6:
            west, south, east, north = rng.choice(BOXES)
            given["bbox"] = (
                "BBoxInput",
                {"west": west, "south": south, "east": east, "north": north},
            )
        return False

    def places(self, given: dict[str, tuple[str, Any]], *, cities: bool = True) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.2:
            given["state"] = ("String", rng.choice(STATES))
        elif roll < 0.3:
            given["states"] = ("[String!]", rng.sample(STATES, rng.randint(2, 5)))
        elif cities and roll < 0.38:
            state, city = rng.choice(CITIES)
            given["state"] = ("String", state)
            given["city"] = ("String", city)

    def when(self, given: dict[str, tuple[str, Any]]) -> None:
        roll = self.rng.random()
        if roll < 0.15:
            given["openNow"] = ("Boolean", self.rng.random() < 0.7)
        elif roll < 0.3:
            given["openAt"] = ("DateTime", self.rng.choice(INSTANTS))

    def since(self, given: dict[str, tuple[str, Any]]) -> None:
        if self.rng.random() < 0.2:
            given["updatedSince"] = ("DateTime", self.rng.choice(SINCE))

    def place_sort(self, given: dict[str, tuple[str, Any]], near: bool) -> None:
        if self.rng.random() < 0.3:
            choices = ["NAME", "RATING", "RATING_DESC", *STAMP_SORTS] + (
                ["DISTANCE"] if near else []
            )
            given["sort"] = ("PlaceSort", _Enum(self.rng.choice(choices)))

    # -- selections --------------------------------------------------------------------------

    def leaves(self, type_name: str, count: int | None = None) -> list[str]:
        names = [n for n in LEAVES[type_name] if n not in self.excluded]
        names += OBJECTS.get(type_name, ())
        picked = self.rng.sample(names, count or self.rng.randint(1, min(5, len(names))))
        for name in picked:
            self.uses.add(f"{type_name}.{name.split(' ')[0]}")
        if self.rng.random() < 0.1:
            picked.append("__typename")
        return picked

    def selection(self, type_name: str, depth: int) -> str:
        """Fields of one ``type_name`` record: leaves, and relations while ``depth`` lasts."""
        parts = self.leaves(type_name)
        relations = RELATIONS.get(type_name, ())
        for relation in relations:
            if depth > 0 and self.rng.random() < 0.45:
                parts.append(relation(self, depth - 1))
        body = " ".join(parts)
        if self.rng.random() < 0.2:  # the same fields through a named fragment
            name = f"F{len(self.fragments)}"
            self.fragments.append(f"fragment {name} on {type_name} {{ {body} }}")
            self.uses.add("fragments")
            spreads = self.rng.choice((1, 1, 2))
            return " ".join([f"...{name}"] * spreads)
        if self.rng.random() < 0.1:
            self.uses.add("inline fragments")
            return f"... on {type_name} {{ {body} }}"
        return body

    def page(self, field_text: str, type_name: str, depth: int) -> str:
        parts = [p for p in PAGE_LEAVES if self.rng.random() < 0.4]
        parts.append(f"items {{ {self.selection(type_name, depth)} }}")
        return f"{field_text} {{ {' '.join(parts)} }}"

    def text(self, roots: list[str]) -> str:
        head = f"query {self.name}"
        if self.definitions:
            head += f"({', '.join(self.definitions)})"
        return " ".join([f"{head} {{ {' '.join(roots)} }}", *self.fragments])


class _Enum(str):
    """An enum value: written bare."""


def _literal(value: Any, graphql_type: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, _Enum):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_literal(v, '')}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, graphql_type) for v in value) + "]"
    return repr(value)


# -- relations: each returns the relation's field text with its selection ----------------------


def _strain_dispensaries(b: _Builder, depth: int) -> str:
    given: dict[str, tuple[str, Any]] = {}
    b.places(given, cities=False)
    near = b.location(given, box=True, zip_radius=True)
    b.when(given)
    b.since(given)
    b.place_sort(given, near)
    if b.rng.random() < 0.15:
        given["sort"] = ("PlaceSort", _Enum("PRICE_PER_GRAM"))
    if b.rng.random() < 0.2:
        given["totalThcMin"] = ("Float", float(b.rng.choice((0, 10, 18.5, 25, 100))))
    b.window(given)
    arguments = b.arguments("Strain.dispensaries", given)
    return f"dispensaries{arguments} {{ {b.selection('Dispensary', depth)} }}"


def _kin(relation: str, maximum: int) -> Callable[[_Builder, int], str]:
    """Strain.parents or Strain.children: pages of strains again, so nestings multiply their
    limits."""

    def build(b: _Builder, depth: int) -> str:
        given: dict[str, tuple[str, Any]] = {}
        b.window(given, maximum)
        arguments = b.arguments(f"Strain.{relation}", given)
        return b.page(f"{relation}{arguments}", "Strain", depth)

    return build


def _nested_window(owner: str, maximum: int) -> Callable[[_Builder, int], str]:
    type_of = {"deals": "Deal", "menu": "MenuItem", "reviews": "Review"}

    def build(b: _Builder, depth: int) -> str:
        given: dict[str, tuple[str, Any]] = {}
        b.window(given, maximum)
        arguments = b.arguments(f"Dispensary.{owner}", given)
        return f"{owner}{arguments} {{ {b.selection(type_of[owner], depth)} }}"

    return build


def _one(field_name: str, type_name: str) -> Callable[[_Builder, int], str]:
    def build(b: _Builder, depth: int) -> str:
        b.uses.add(f"{field_name}->{type_name}")
        return f"{field_name} {{ {b.selection(type_name, depth)} }}"

    return build


def _picked(b: _Builder, parts: tuple[str, ...]) -> str:
    return " ".join(b.rng.sample(parts, b.rng.randint(1, len(parts))))


def _chemistry(b: _Builder, depth: int) -> str:
    b.uses.add("chemistry->Chemistry")
    return f"chemistry {{ {_picked(b, CHEMISTRY_PARTS)} }}"


def _strain_lineage(b: _Builder, depth: int) -> str:
    b.uses.add("lineage->Lineage")
    return f"lineage {{ {_picked(b, LINEAGE_PARTS)} }}"


RELATIONS: dict[str, tuple[Callable[[_Builder, int], str], ...]] = {
    "Strain": (
        _strain_dispensaries,
        _chemistry,
        _strain_lineage,
        _kin("parents", 3),
        _kin("children", 100),
    ),
    "Dispensary": (
        _nested_window("deals", 100),
        _nested_window("menu", 100),
        _nested_window("reviews", 20),
        _one("law", "Law"),
    ),
    "Deal": (_one("dispensary", "Dispensary"),),
    "Doctor": (_one("law", "Law"),),
    "MenuItem": (_one("strain", "Strain"),),
}


# -- root fields -----------------------------------------------------------------------------


def _strains(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {}
    if rng.random() < 0.3:
        given["type"] = ("StrainType", _Enum(rng.choice(("INDICA", "SATIVA", "HYBRID"))))
    elif rng.random() < 0.15:
        given["types"] = ("[StrainType!]", [_Enum("INDICA"), _Enum("HYBRID")])
    if rng.random() < 0.3:
        given["effect"] = ("String", rng.choice(EFFECTS))
    elif rng.random() < 0.15:
        given["effects"] = ("[String!]", rng.sample(EFFECTS, 3))
    if rng.random() < 0.25:
        given["flavor"] = ("String", rng.choice(FLAVORS))
    elif rng.random() < 0.15:
        given["flavors"] = ("[String!]", rng.sample(FLAVORS, 2))
    for name, low, high in (
        ("thcMin", 5, 25),
        ("thcMax", 15, 30),
        ("cbdMin", 0, 5),
        ("cbdMax", 1, 10),
    ):
        if rng.random() < 0.15:
            given[name] = ("Float", float(rng.randint(low, high)))
    _chemistry_filters(b, given)
    b.since(given)
    if rng.random() < 0.2:
        given["sort"] = ("StrainSort", _Enum(rng.choice(("NAME", *STAMP_SORTS))))
    b.window(given)
    return b.page(f"strains{b.arguments('Query.strains', given)}", "Strain", depth)


def _chemistry_filters(b: _Builder, given: dict[str, tuple[str, Any]]) -> None:
    """The strain list's chemistry and parent arguments, now and then."""
    rng = b.rng
    for one, many, graphql_type, words in (
        ("terpene", "terpenes", "Terpene", TERPENES),
        ("dominantTerpene", "dominantTerpenes", "Terpene", TERPENES),
        ("ratio", "ratios", "Ratio", RATIOS),
    ):
        if rng.random() < 0.1:
            given[one] = (graphql_type, _Enum(rng.choice(words)))
        elif rng.random() < 0.08:
            given[many] = (f"[{graphql_type}!]", [_Enum(w) for w in rng.sample(words, 2)])
    for name in ("cbgMin", "cbnMin", "thcvMin", "cbcMin"):
        if rng.random() < 0.08:
            given[name] = ("Float", rng.choice((0.1, 0.2, 0.5, 1.0)))
    if rng.random() < 0.08:
        given["parent"] = ("String", rng.choice(PARENTS))


def _dispensaries(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {}
    b.places(given)
    near = b.location(given, box=True, zip_radius=True)
    if rng.random() < 0.2:
        given["type"] = ("DispensaryType", _Enum(rng.choice(("RECREATIONAL", "MEDICAL", "BOTH"))))
    elif rng.random() < 0.1:
        given["types"] = ("[DispensaryType!]", [_Enum("MEDICAL"), _Enum("BOTH")])
    if rng.random() < 0.15:
        given["delivery"] = ("Boolean", rng.random() < 0.5)
    b.when(given)
    b.since(given)
    b.place_sort(given, near)
    b.window(given)
    return b.page(f"dispensaries{b.arguments('Query.dispensaries', given)}", "Dispensary", depth)


def _deals(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {}
    b.places(given)
    near = b.location(given, box=False, zip_radius=True)
    if rng.random() < 0.25:
        given["category"] = ("String", rng.choice(CATEGORIES))
    elif rng.random() < 0.1:
        given["categories"] = ("[String!]", rng.sample(CATEGORIES, 2))
    b.when(given)
    b.since(given)
    if rng.random() < 0.3:
        given["sort"] = (
            "DealSort",
            _Enum(rng.choice(["EXPIRES", *STAMP_SORTS] + (["DISTANCE"] if near else []))),
        )
    b.window(given)
    return b.page(f"deals{b.arguments('Query.deals', given)}", "Deal", depth)


def _doctors(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {}
    b.places(given)
    near = b.location(given, box=True, zip_radius=True)
    if rng.random() < 0.2:
        given["telehealth"] = ("Boolean", rng.random() < 0.5)
    b.since(given)
    b.place_sort(given, near)
    b.window(given, 50)
    return b.page(f"doctors{b.arguments('Query.doctors', given)}", "Doctor", depth)


def _search(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {"q": ("String!", rng.choice(SEARCH_WORDS))}
    if rng.random() < 0.3:
        given["type"] = (
            "SearchType",
            _Enum(rng.choice(("STRAINS", "DISPENSARIES", "DOCTORS", "DEALS"))),
        )
    if rng.random() < 0.2:
        given["state"] = ("String", rng.choice(STATES))
    b.window(given)
    members = [t for t in ("Strain", "Dispensary", "Doctor", "Deal") if rng.random() < 0.6] or [
        "Strain"
    ]
    b.uses.add("search members")
    b.excluded = UNION_CONFLICTS
    inline = " ".join(f"... on {t} {{ {b.selection(t, depth)} }}" for t in members)
    b.excluded = frozenset()
    total = " total" if rng.random() < 0.5 else ""
    return (
        f"search{b.arguments('Query.search', given)} {{{total} items {{ __typename {inline} }} }}"
    )


def _by_id(
    field_name: str, type_name: str, argument: str, pool: Callable[[random.Random], str]
) -> Callable[[_Builder, int], str]:
    def build(b: _Builder, depth: int) -> str:
        given = {argument: ("String!", pool(b.rng))}
        arguments = b.arguments(f"Query.{field_name}", given)
        return f"{field_name}{arguments} {{ {b.selection(type_name, depth)} }}"

    return build


# Ids of each kind of Node (the REST ids), unknown ones among them.
NODE_IDS: dict[str, Callable[[random.Random], str]] = {
    "Strain": lambda rng: rng.choice(SLUGS),
    "Dispensary": lambda rng: f"disp_{rng.randint(1001, 7900)}",
    "Deal": lambda rng: f"deal_{rng.randint(1001, 6600)}",
    "Doctor": lambda rng: f"doc_{rng.randint(1001, 1720)}",
    "Law": lambda rng: rng.choice(STATES),
}


def _node_fragments(b: _Builder, kinds: list[str], depth: int) -> str:
    b.uses.add("node fragments")
    b.excluded = UNION_CONFLICTS  # as in a search: one name, different types across kinds
    text = " ".join(f"... on {kind} {{ {b.selection(kind, depth)} }}" for kind in kinds)
    b.excluded = frozenset()
    return text


def _node(b: _Builder, depth: int) -> str:
    kind = b.rng.choice(list(NODE_IDS))
    arguments = b.arguments("Query.node", {"id": ("ID!", NODE_IDS[kind](b.rng))})
    return f"node{arguments} {{ __typename id {_node_fragments(b, [kind], depth)} }}"


def _nodes(b: _Builder, depth: int) -> str:
    rng = b.rng
    count = rng.choice((1, 2, 5, 20, 100))
    kinds = rng.sample(list(NODE_IDS), rng.randint(1, len(NODE_IDS)))
    ids = [NODE_IDS[rng.choice(kinds)](rng) for _ in range(count)]
    arguments = b.arguments("Query.nodes", {"ids": ("[ID!]!", ids)})
    return f"nodes{arguments} {{ id {_node_fragments(b, kinds, depth)} }}"


def _changes(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {"limit": ("Int", rng.choice((1, 20, 100, 1000)))}
    if rng.random() < 0.5:
        kinds = rng.sample(("STRAIN", "DISPENSARY", "DEAL", "DOCTOR", "LAW"), rng.randint(1, 5))
        given["types"] = ("[ChangeType!]", [_Enum(kind) for kind in kinds])
    if rng.random() < 0.3:
        given["since"] = ("String", None)  # from the beginning (a cursor names a log's epoch)
    arguments = b.arguments("Query.changes", given)
    kinds = rng.sample(list(NODE_IDS), rng.randint(1, len(NODE_IDS)))
    objects = f"object {{ id {_node_fragments(b, kinds, depth)} }}" if rng.random() < 0.5 else ""
    return (
        f"changes{arguments} {{ next hasMore asOf retentionDays "
        f"items {{ type id op at {objects} }} }}"
    )


def _laws(b: _Builder, depth: int) -> str:
    given: dict[str, tuple[str, Any]] = {}
    b.since(given)
    if b.rng.random() < 0.3:
        given["sort"] = ("LawSort", _Enum(b.rng.choice(("STATE_CODE", *STAMP_SORTS))))
    b.uses.add("Query.laws")
    return f"laws{b.arguments('Query.laws', given)} {{ {b.selection('Law', depth)} }}"


def _lineage(b: _Builder, depth: int) -> str:
    rng = b.rng
    given: dict[str, tuple[str, Any]] = {"slug": ("String!", rng.choice(SLUGS))}
    if rng.random() < 0.6:
        given["direction"] = ("LineageDirection!", _Enum(rng.choice(("ANCESTORS", "DESCENDANTS"))))
    if rng.random() < 0.7:
        given["depth"] = ("Int!", rng.choice((1, 2, 3)))
    nodes = "nodes { slug name depth }" if rng.random() < 0.8 else ""
    edges = "edges { child parent }" if rng.random() < 0.7 else ""
    return f"lineage{b.arguments('Query.lineage', given)} {{ root truncated {nodes} {edges} }}"


def _introspection(b: _Builder, depth: int) -> str:
    template = b.rng.choice(INTROSPECTION)
    b.uses.add("introspection")
    if "{name}" in template:
        name = b.value("String!", b.rng.choice(TYPE_NAMES))
        return template.replace("{name}", name)
    return template


def _compounds(b: _Builder, depth: int) -> str:
    b.uses.add("Query.compounds")
    return f"compounds {{ {_picked(b, COMPOUND_PARTS)} }}"


ROOTS: dict[str, Callable[[_Builder, int], str]] = {
    "strains": _strains,
    "strain": _by_id("strain", "Strain", "slug", lambda rng: rng.choice(SLUGS)),
    "dispensaries": _dispensaries,
    "dispensary": _by_id(
        "dispensary", "Dispensary", "id", lambda rng: f"disp_{rng.randint(1001, 7900)}"
    ),
    "deals": _deals,
    "deal": _by_id("deal", "Deal", "id", lambda rng: f"deal_{rng.randint(1001, 6600)}"),
    "doctors": _doctors,
    "doctor": _by_id("doctor", "Doctor", "id", lambda rng: f"doc_{rng.randint(1001, 1720)}"),
    "law": _by_id("law", "Law", "state", lambda rng: rng.choice(STATES)),
    "laws": _laws,
    "search": _search,
    "__introspection": _introspection,
    "node": _node,
    "nodes": _nodes,
    "changes": _changes,
    "compounds": _compounds,
    "lineage": _lineage,
}
# How often each root is drawn: lists more often than single records.
WEIGHTS = {
    "strains": 4,
    "dispensaries": 5,
    "deals": 3,
    "doctors": 2,
    "search": 3,
    "__introspection": 1,
}
# Aliases per document: mostly one root field, sometimes an attacker's many copies.
ALIAS_COUNTS = (1, 1, 1, 1, 2, 2, 3, 4, 8, 15)


def generate(count: int = 360, seed: int = 33) -> list[Document]:
    """``count`` documents from ``seed``: the same arguments give the same documents."""
    rng = random.Random(seed)
    names = list(ROOTS)
    weights = [WEIGHTS.get(name, 1) for name in names]
    documents = []
    for n in range(count):
        builder = _Builder(rng, f"Q{n}")
        root = rng.choices(names, weights)[0]
        copies = rng.choice(ALIAS_COUNTS)
        depth = rng.choice((0, 1, 1, 2, 2, 3))
        if copies > 1:
            builder.uses.add("aliases")
        roots = []
        for k in range(copies):
            # Copies of one root with fresh arguments, or the same text repeated (an attack).
            same = roots and rng.random() < 0.5
            text = roots[-1].split(": ", 1)[1] if same else ROOTS[root](builder, depth)
            roots.append(f"a{k}: {text}" if copies > 1 else text)
        documents.append(
            Document(builder.name, builder.text(roots), builder.variables, builder.uses)
        )
    return documents
