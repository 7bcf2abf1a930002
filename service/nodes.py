"""Records of any kind by their public ids (the GraphQL ``Node`` ids), one statement per kind.

A public id says its kind: ``disp_<n>``, ``deal_<n>``, ``doc_<n>``, a law's upper-case state
code (``CO``), else a strain's slug (lower case, digits and hyphens, never an underscore), so
the kinds never share an id. Each record is the one the detail lookups give (``get_strain``,
``get_deal``...): a deal that has expired is not found, as it is in every list.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from models.db import Reader

from .deals import DealRow, deal_rows_by_public_ids
from .dispensary_rows import DispensaryRow, dispensary_rows_by_public_ids
from .doctors import DoctorRow, doctor_rows_by_public_ids
from .errors import InvalidParameter
from .geo import JURISDICTIONS
from .ids import DEAL_ID, DISPENSARY_ID, DOCTOR_ID
from .laws import LawRecord, laws_by_codes
from .strains import SLUG_PATTERN, StrainRow, strains_by_slugs

# The most ids one request may ask for (GraphQL's ``nodes``).
MAX_NODE_IDS = 100


@dataclass(frozen=True)
class NodeRecords:
    """The records found, by kind, each keyed by its public id; unknown ids are in none."""

    strains: dict[str, StrainRow] = field(default_factory=dict)
    dispensaries: dict[str, DispensaryRow] = field(default_factory=dict)
    deals: dict[str, DealRow] = field(default_factory=dict)
    doctors: dict[str, DoctorRow] = field(default_factory=dict)
    laws: dict[str, LawRecord] = field(default_factory=dict)


def records_by_public_ids(db: Reader, public_ids: Iterable[str], *, today: date) -> NodeRecords:
    """The records with the given public ids, one statement per kind asked for (none for a kind
    not asked); deals expired before ``today`` are not found. Raise InvalidParameter for more
    than MAX_NODE_IDS ids."""
    asked = list(public_ids)
    if len(asked) > MAX_NODE_IDS:
        raise InvalidParameter(
            f"ids takes at most {MAX_NODE_IDS} ids, got {len(asked)}: ask in several requests",
            param="ids",
        )
    wanted = set(asked)
    by_kind: dict[str, list[str]] = {"disp": [], "deal": [], "doc": [], "law": [], "strain": []}
    for public_id in wanted:
        if DISPENSARY_ID.fullmatch(public_id):
            by_kind["disp"].append(public_id)
        elif DEAL_ID.fullmatch(public_id):
            by_kind["deal"].append(public_id)
        elif DOCTOR_ID.fullmatch(public_id):
            by_kind["doc"].append(public_id)
        elif public_id in JURISDICTIONS:
            by_kind["law"].append(public_id)
        elif SLUG_PATTERN.fullmatch(public_id):
            by_kind["strain"].append(public_id)
    return records_by_kind(
        db,
        strains=by_kind["strain"],
        dispensaries=by_kind["disp"],
        deals=by_kind["deal"],
        doctors=by_kind["doc"],
        laws=by_kind["law"],
        today=today,
    )


def records_by_kind(
    db: Reader,
    *,
    strains: Iterable[str] = (),
    dispensaries: Iterable[str] = (),
    deals: Iterable[str] = (),
    doctors: Iterable[str] = (),
    laws: Iterable[str] = (),
    today: date,
) -> NodeRecords:
    """The records with the public ids given per kind, one statement per kind given some
    (the objects of a change feed page); deals expired before ``today`` are not found."""
    # Each lookup sends no statement when it is given no id.
    found_deals = deal_rows_by_public_ids(db, deals)
    return NodeRecords(
        strains=strains_by_slugs(db, strains),
        dispensaries=dispensary_rows_by_public_ids(db, dispensaries),
        deals={key: deal for key, deal in found_deals.items() if deal.expires >= today},
        doctors=doctor_rows_by_public_ids(db, doctors),
        laws=laws_by_codes(db, laws),
    )
