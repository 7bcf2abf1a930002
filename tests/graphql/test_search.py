"""GraphQL search: union items resolving their own fields and relations, and the page envelope."""

from datetime import date

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Law, Strain, StrainTerpene
from service.search import WORD_SEPARATORS
from tests.graphql.expected import (
    DEAL_FIELDS,
    DISPENSARY_FIELDS,
    DOCTOR_FIELDS,
    LAW_FIELDS,
    STRAIN_FIELDS,
    _active_deals,
    _all,
    _deal_dict,
    _dispensary_dict,
    _dispensary_ids,
    _doctor_dict,
    _law_dict,
    _listing_dispensaries,
    _rest_all,
    _strain_dicts,
    _traits,
)
from tests.menus import most_listed_strain

TYPENAMES = {"strain": "Strain", "dispensary": "Dispensary", "doctor": "Doctor", "deal": "Deal"}
SEARCH_ITEM = (
    "__typename ... on Strain { slug } ... on Dispensary { id } "
    "... on Doctor { id } ... on Deal { id }"
)


def _words(text: str) -> str:
    for separator in WORD_SEPARATORS:
        text = text.replace(separator, " ")
    return text


def _rank(q: str, name: str) -> int:
    q, name = q.lower(), name.lower()
    if name == q:
        return 0
    if name.startswith(q):
        return 1
    if f" {_words(q).strip()} " in f" {_words(name)} ":
        return 2
    return 3


def _search_oracle(
    session: Session, today: date, q: str, kinds: set[str], state: str | None = None
) -> list[tuple[str, str]]:
    """(typename, key) of every match in rank order: an independent model of the ranking."""
    rows: list[tuple[str, str, str, str | None]] = []
    rows += [("strain", k, n, None) for k, n in session.execute(select(Strain.slug, Strain.name))]
    rows += [
        ("dispensary", *r)
        for r in session.execute(select(Dispensary.public_id, Dispensary.name, Dispensary.state))
    ]
    rows += [
        ("doctor", *r) for r in session.execute(select(Doctor.public_id, Doctor.name, Doctor.state))
    ]
    rows += [
        ("deal", *r)
        for r in session.execute(
            select(Deal.public_id, Deal.title, Dispensary.state)
            .join(Dispensary, Deal.dispensary_id == Dispensary.id)
            .where(Deal.expires >= today)
        )
    ]
    hits = [
        (_rank(q, name), name.lower(), name, kind, key)
        for kind, key, name, where in rows
        if kind in kinds
        and q.lower() in name.lower()
        and (state is None or kind == "strain" or where == state)
    ]
    return [(TYPENAMES[kind], key) for *_order, kind, key in sorted(hits)]


def _keys(items: list[dict]) -> list[tuple[str, str]]:
    return [(i["__typename"], i.get("slug") or i["id"]) for i in items]


def test_search_items_resolve_their_own_fields_and_relations(
    gql, session: Session, reference_day: date
) -> None:
    strain = most_listed_strain(session)
    doctor = session.scalar(select(Doctor).order_by(Doctor.id))
    dispensary = session.scalar(select(Dispensary).order_by(Dispensary.id.desc()))
    deal = _active_deals(session, reference_day)[0]
    laws = {law.state_code: law for law in session.scalars(select(Law))}
    fragments = {
        "s": f"... on Strain {{ {STRAIN_FIELDS} terpenes dispensaries(limit: 2) {{ id }} }}",
        "di": f"... on Dispensary {{ {DISPENSARY_FIELDS} law {{ stateCode }} }}",
        "do": f"... on Doctor {{ {DOCTOR_FIELDS} law {{ {LAW_FIELDS} }} }}",
        "de": f"... on Deal {{ {DEAL_FIELDS} dispensary {{ id }} }}",
    }
    kinds = {"s": "STRAINS", "di": "DISPENSARIES", "do": "DOCTORS", "de": "DEALS"}
    query = (
        "query($s: String!, $di: String!, $do: String!, $de: String!) { "
        + " ".join(
            f"{alias}: search(q: ${alias}, type: {kind}, limit: 1) "
            f"{{ items {{ __typename {fragments[alias]} }} }}"
            for alias, kind in kinds.items()
        )
        + " }"
    )
    variables = {"s": strain.name, "di": dispensary.name, "do": doctor.name, "de": deal.title}
    data = gql.data(query, variables)
    terpenes = _traits(session, StrainTerpene)[strain.id]
    assert data["s"]["items"] == [
        {
            "__typename": "Strain",
            **_strain_dicts(session)[strain.slug],
            "terpenes": terpenes,
            "dispensaries": [{"id": i} for i in _listing_dispensaries(session, strain.id)[:2]],
        }
    ]
    [found_dispensary] = data["di"]["items"]
    same_name = _dispensary_ids(session, Dispensary.name == dispensary.name)
    assert found_dispensary["id"] == same_name[0]
    found_row = session.scalar(select(Dispensary).where(Dispensary.public_id == same_name[0]))
    assert found_dispensary == {
        "__typename": "Dispensary",
        **_dispensary_dict(found_row),
        "law": {"stateCode": found_row.state},
    }
    [found_doctor] = data["do"]["items"]
    assert found_doctor["__typename"] == "Doctor"
    assert found_doctor["name"] == doctor.name
    found_doctor_row = session.scalar(select(Doctor).where(Doctor.public_id == found_doctor["id"]))
    assert found_doctor == {
        "__typename": "Doctor",
        **_doctor_dict(found_doctor_row),
        "law": _law_dict(laws[found_doctor_row.state]),
    }
    [found_deal] = data["de"]["items"]
    deal_row = session.scalar(select(Deal).where(Deal.public_id == found_deal["id"]))
    assert found_deal["title"] == deal.title
    owner = session.get_one(Dispensary, deal_row.dispensary_id)
    assert found_deal == {
        "__typename": "Deal",
        **_deal_dict(deal_row, owner.name),
        "dispensary": {"id": owner.public_id},
    }


def test_search_page_reports_total_limit_and_offset(
    gql, session: Session, reference_day: date
) -> None:
    expected = _search_oracle(session, reference_day, "an", set(TYPENAMES))
    page = gql.data(
        '{ search(q: "an", limit: 5, offset: 7) { total limit offset items { '
        + SEARCH_ITEM
        + " } } }"
    )
    assert (page["search"]["total"], page["search"]["limit"], page["search"]["offset"]) == (
        len(expected),
        5,
        7,
    )
    assert _keys(page["search"]["items"]) == expected[7:12]


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        ('q: "kush"', {"q": "kush"}),
        ('q: "an", type: STRAINS', {"q": "an", "type": "strains"}),
        ('q: "an", type: DISPENSARIES', {"q": "an", "type": "dispensaries"}),
        ('q: "an", type: DOCTORS', {"q": "an", "type": "doctors"}),
        ('q: "off", type: DEALS', {"q": "off", "type": "deals"}),
        ('q: "an", state: "ca"', {"q": "an", "state": "CA"}),
    ],
)
def test_each_argument_reaches_the_service_as_rests_parameter_does(
    gql, api, arguments: str, params: dict
) -> None:
    # Which names match, and their rank, is tests/service/test_search.py's; here each argument
    # and enum value must find the same items, in the same order, as REST's parameter.
    found = [
        (typename.lower(), key)
        for typename, key in _keys(_all(gql, "search", SEARCH_ITEM, arguments))
    ]
    rest = _rest_all(api, "/api/v1/search", **params)
    assert found == [(i["type"], i["slug"] if i["type"] == "strain" else i["id"]) for i in rest]
    assert found
