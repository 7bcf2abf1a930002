"""Output schemas: field names and types exactly as SPEC section 2, wrapped in the envelope."""

from typing import Any

from marshmallow import EXCLUDE, Schema, fields

from service.bounds import DISPENSARY_REVIEWS
from service.compounds import (
    BASES,
    COMPOUND_KEYS,
    COMPOUND_KINDS,
    GRAMS_PER_UNIT,
    LINEAGE_DEPTH_MAX,
    ORIGINS,
    PERCENT,
    QUALIFIERS,
    RATIOS,
    TERPENE_KEYS,
    TOTAL_CBD_FORMULA,
    TOTAL_THC_FORMULA,
    UNITS,
)
from service.lab import MAX_LAB_RESULTS
from service.lineage import LINEAGE_MAX_EDGES, LINEAGE_MAX_NODES
from service.vocab import DISPENSARY_TYPES, KEY_TIERS, SEARCH_HIT_TYPES, STRAIN_TYPES

from .fields import OptionalBoolean, OptionalFloat, OptionalString, Stamp

DATE_FORMAT = "%Y-%m-%d"


class Output(Schema):
    """An output schema. They are only dumped, never loaded, so ``unknown`` only shapes the
    document: EXCLUDE publishes no ``additionalProperties: false``, leaving responses open to new
    fields (a strict client would break on each one). Requests stay strict: rest.blueprint
    refuses unknown query parameters. With SPEED_TRICKS on, rest.init_rest compiles their dumps."""

    class Meta:
        unknown = EXCLUDE


# Change stamps, the last fields of every object (added after the fields each had before, so
# that the classes an object's fields come from end with them: Marshmallow lists a parent's
# fields first).
_UPDATED_AT = "When anything the object shows last changed: RFC 3339, UTC, milliseconds."
_MENU_UPDATED_AT = "When its menu (items, prices, stock) last changed: RFC 3339, UTC, milliseconds."


def _updated_at() -> Stamp:
    return Stamp(
        required=True,
        metadata={
            "description": _UPDATED_AT,
            "format": "date-time",
            "example": "2026-11-27T10:04:11.123Z",
        },
    )


def _menu_updated_at() -> Stamp:
    return Stamp(
        required=True,
        metadata={
            "description": _MENU_UPDATED_AT,
            "format": "date-time",
            "example": "2026-11-27T10:04:11.123Z",
        },
    )


class _StrainFields(Output):
    """What a strain shows in a list and in full (never published on its own)."""

    slug = fields.String(required=True)
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"enum": list(STRAIN_TYPES)})
    thc = fields.Float(required=True, metadata={"description": "THC percentage."})
    cbd = fields.Float(required=True, metadata={"description": "CBD percentage."})
    effects = fields.List(fields.String(), required=True)
    flavors = fields.List(fields.String(), required=True)


def _dominant_terpene() -> fields.String:
    return fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The key of the terpene with the highest median in the strain's "
            "chemistry; null without chemistry.",
            # null among the words too: OpenAPI 3.0 nullable enums need it (generated clients).
            "enum": [*TERPENE_KEYS, None],
        },
    )


def _ratio() -> fields.String:
    return fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "thc_dominant when total THC is at least twice total CBD, "
            "cbd_dominant when total CBD is at least twice total THC, else balanced (on the "
            "medians); null without chemistry.",
            "enum": [*RATIOS, None],
        },
    )


class StrainItemSchema(_StrainFields):
    dominant_terpene = _dominant_terpene()
    ratio = _ratio()
    updated_at = _updated_at()


_PERCENTILE = "percentile over the strain's samples, percent of dry weight (0 to 100)."


def _percentile(which: str) -> fields.Float:
    return fields.Float(required=True, metadata={"description": f"{which} {_PERCENTILE}"})


class ChemistryCompoundSchema(Output):
    """One compound's spread over the strain's samples."""

    key = fields.String(required=True, metadata={"enum": list(COMPOUND_KEYS)})
    name = fields.String(required=True, metadata={"example": "THCA"})
    unit = fields.String(required=True, metadata={"enum": list(UNITS)})
    p25 = _percentile("25th")
    p50 = _percentile("50th (the median)")
    p75 = _percentile("75th")


class ChemistrySpreadSchema(Output):
    """A total's percentiles over the strain's samples."""

    p25 = _percentile("25th")
    p50 = _percentile("50th (the median)")
    p75 = _percentile("75th")


class ChemistryTotalSchema(ChemistrySpreadSchema):
    """A total's percentiles and the formula each sample's total follows."""

    formula = fields.String(
        required=True,
        metadata={
            "description": "How the total is computed from each sample's compounds.",
            "enum": [TOTAL_THC_FORMULA, TOTAL_CBD_FORMULA],
        },
    )


class StrainChemistrySchema(Output):
    """A strain's typical chemistry: percentiles over its samples."""

    basis = fields.String(required=True, metadata={"enum": list(BASES)})
    sample_count = fields.Integer(
        required=True, metadata={"description": "Samples the percentiles are taken over."}
    )
    source = fields.String(
        required=True, metadata={"description": "Where the samples come from.", "example": "demo"}
    )
    cannabinoids = fields.List(
        fields.Nested(ChemistryCompoundSchema),
        required=True,
        metadata={"description": "Highest median first."},
    )
    terpenes = fields.List(
        fields.Nested(ChemistryCompoundSchema),
        required=True,
        metadata={"description": "Highest median first; the first is the dominant terpene."},
    )
    total_thc = fields.Nested(ChemistryTotalSchema, required=True)
    total_cbd = fields.Nested(ChemistryTotalSchema, required=True)
    total_terpenes = fields.Nested(ChemistrySpreadSchema, required=True)
    dominant_terpene = _dominant_terpene()
    ratio = fields.String(required=True, metadata={"enum": list(RATIOS)})


class StrainParentSchema(Output):
    slug = fields.String(required=True)
    name = fields.String(required=True)


class StrainLineageSchema(Output):
    """Where a strain comes from."""

    origin = fields.String(required=True, metadata={"enum": list(ORIGINS)})
    parents = fields.List(
        fields.Nested(StrainParentSchema),
        required=True,
        metadata={"description": "First parent first; empty for a landrace or unknown origin."},
    )
    children_count = fields.Integer(
        required=True, metadata={"description": "Strains bred from this one."}
    )


class StrainSchema(_StrainFields):
    """One strain in full; published as component "Strain" (the envelope is "StrainDetail")."""

    description = fields.String(required=True)
    terpenes = fields.List(fields.String(), required=True)
    rating = fields.Float(required=True)
    reviewCount = fields.Integer(attribute="review_count", required=True)
    dominant_terpene = _dominant_terpene()
    ratio = _ratio()
    chemistry = fields.Nested(
        StrainChemistrySchema,
        required=True,
        allow_none=True,
        metadata={"description": "null when the strain has no samples (never zeros)."},
    )
    lineage = fields.Nested(StrainLineageSchema, required=True)
    updated_at = _updated_at()


class CompoundSchema(Output):
    """A compound the service knows (GET /compounds)."""

    key = fields.String(required=True, metadata={"enum": list(COMPOUND_KEYS)})
    name = fields.String(required=True, metadata={"example": "THCA"})
    kind = fields.String(required=True, metadata={"enum": list(COMPOUND_KINDS)})
    aliases = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Other names lab reports print for it (import accepts them)."},
    )


class LineageNodeSchema(Output):
    slug = fields.String(required=True)
    name = fields.String(required=True)
    depth = fields.Integer(
        required=True,
        metadata={
            "description": "Generations from the root (its smallest, when reached twice).",
            "minimum": 1,
            "maximum": LINEAGE_DEPTH_MAX,
        },
    )


class LineageEdgeSchema(Output):
    child = fields.String(required=True, metadata={"description": "The child's slug."})
    parent = fields.String(required=True, metadata={"description": "The parent's slug."})


class LineageSchema(Output):
    """A strain's ancestors or descendants: component "Lineage" (the envelope is
    "LineageDetail")."""

    root = fields.String(required=True, metadata={"description": "The slug asked about."})
    nodes = fields.List(
        fields.Nested(LineageNodeSchema),
        required=True,
        metadata={
            "description": "The strains reached, the root left out, each once at its smallest "
            "depth; by depth, then name (any case), then slug. At most "
            f"{LINEAGE_MAX_NODES}."
        },
    )
    edges = fields.List(
        fields.Nested(LineageEdgeSchema),
        required=True,
        metadata={
            "description": "The parent links walked: from the root and from each node below "
            "the depth asked, to its parents (ancestors) or children (descendants); ordered "
            "by their nearer end (the root first, then as nodes), then their farther end. At "
            f"most {LINEAGE_MAX_EDGES}."
        },
    )
    truncated = fields.Boolean(
        required=True,
        metadata={
            "description": f"true when the walk stopped at its bound ({LINEAGE_MAX_NODES} nodes "
            f"or {LINEAGE_MAX_EDGES} edges): nodes holds the first ones in their order, edges "
            "the links between them."
        },
    )


class LabResultSchema(Output):
    """One compound's result: a value, or no value and a qualifier saying why."""

    key = fields.String(
        required=True, metadata={"description": "A compound key (GET /api/v1/compounds)."}
    )
    value = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Percent of dry weight; null when not quantified (qualifier)."},
    )
    unit = fields.String(required=True, metadata={"enum": [PERCENT]})
    qualifier = OptionalString(
        metadata={
            "description": "Why there is no value: nd (not detected), lt_loq (below the limit "
            "of quantitation). Only when value is null.",
            "enum": list(QUALIFIERS),
        }
    )


class LabBatchSchema(Output):
    """The lab result of the batch on the shelf."""

    batch_id = fields.String(required=True, metadata={"example": "B-2611-0042"})
    tested_at = fields.String(
        required=True, metadata={"format": "date", "description": "YYYY-MM-DD."}
    )
    lab = fields.String(required=True, metadata={"description": "The testing laboratory."})
    coa_url = fields.String(
        required=True, metadata={"description": "The certificate of analysis.", "format": "uri"}
    )
    results = fields.List(
        fields.Nested(LabResultSchema),
        required=True,
        metadata={"description": f"At most one per compound ({MAX_LAB_RESULTS})."},
    )
    total_thc = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": f"{TOTAL_THC_FORMULA} over the results (a missing or "
            "unquantified one counts 0), one decimal."
        },
    )
    total_cbd = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": f"{TOTAL_CBD_FORMULA} over the results, one decimal."},
    )


def _lab() -> fields.Nested:
    return fields.Nested(
        LabBatchSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The lab result of the batch on the shelf; null without one."},
    )


def _price_per_gram() -> fields.Float:
    return fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "US dollars per gram, two decimals: price over the grams of a weight "
            f"unit ({', '.join(GRAMS_PER_UNIT)}); null for other units."
        },
    )


class DispensaryItemSchema(Output):
    id = fields.String(attribute="public_id", required=True, metadata={"example": "disp_1042"})
    name = fields.String(required=True)
    address = fields.String(required=True)
    type = fields.String(required=True, metadata={"enum": list(DISPENSARY_TYPES)})
    rating = fields.Float(required=True)
    delivery = fields.Boolean(required=True)
    hours = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": 'Open days only, e.g. {"mon": "9:00-21:00"}.'},
    )


# Where a dispensary or doctor is (added after the fields each object had before).
def _lat() -> fields.Float:
    return fields.Float(required=True, metadata={"description": "Latitude, WGS84 degrees."})


def _lng() -> fields.Float:
    return fields.Float(required=True, metadata={"description": "Longitude, WGS84 degrees."})


def _timezone() -> fields.String:
    return fields.String(
        required=True,
        metadata={"description": "IANA time zone of its hours.", "example": "America/Denver"},
    )


# Instants are written as text (isoformat, keeping the dispensary's UTC offset) but published
# as the instants they are.
_INSTANT = {"format": "date-time"}
_IS_OPEN = "Open at the instant asked about (now, or open_at), in its own time zone."
_NEXT_CHANGE = (
    "When it next opens (if closed) or closes (if open): ISO 8601 with the dispensary's UTC "
    "offset; null when that never happens (always open, or no hours)."
)


class _DispensaryHitFields(DispensaryItemSchema):
    """A list item; ``distance`` (miles, one decimal) appears only around a point,
    ``is_open`` and ``next_change`` only when the request used open_now or open_at."""

    distance = OptionalFloat(
        metadata={"description": "Miles from the zip or lat/lng given (one decimal)."}
    )
    lat = _lat()
    lng = _lng()
    timezone = _timezone()
    is_open = OptionalBoolean(metadata={"description": _IS_OPEN + " With open_now or open_at."})
    # The row has no next_change_text unless the request asked about time (then it may be
    # None: never changes), so the field is left out, or null, as it should be.
    next_change = fields.String(
        attribute="next_change_text",
        allow_none=True,
        metadata={"description": _NEXT_CHANGE + " With open_now or open_at.", **_INSTANT},
    )


class DispensaryHitSchema(_DispensaryHitFields):
    """A list item; ``distance`` (miles, one decimal) appears only around a point,
    ``is_open`` and ``next_change`` only when the request used open_now or open_at."""

    updated_at = _updated_at()
    menu_updated_at = _menu_updated_at()


class StockistSchema(_DispensaryHitFields):
    """A dispensary whose menu has the strain, with that menu item's price and unit."""

    price = fields.Float(required=True, metadata={"description": "US dollars."})
    unit = fields.String(required=True, metadata={"example": "1/8 oz"})
    # Added after the fields it had before, the stamps staying last.
    lab = _lab()
    price_per_gram = _price_per_gram()
    updated_at = _updated_at()
    menu_updated_at = _menu_updated_at()


class MenuItemSchema(Output):
    name = fields.String(required=True)
    category = fields.String(required=True)
    price = fields.Float(required=True, metadata={"description": "US dollars."})
    unit = fields.String(required=True)
    strain = OptionalString(metadata={"description": "The strain's slug, when the item is one."})
    lab = _lab()
    price_per_gram = _price_per_gram()


class ReviewSchema(Output):
    rating = fields.Integer(required=True)
    text = fields.String(required=True)
    author = fields.String(required=True)
    date = fields.Date(DATE_FORMAT, required=True)


class DispensarySchema(DispensaryItemSchema):
    """One dispensary in full: component "Dispensary" (the envelope is "DispensaryDetail")."""

    phone = fields.String(required=True)
    website = fields.String(required=True)
    reviewCount = fields.Integer(attribute="review_count", required=True)
    menu = fields.List(fields.Nested(MenuItemSchema), required=True)
    reviews = fields.List(
        fields.Nested(ReviewSchema),
        required=True,
        metadata={"description": f"Newest first, ≤ {DISPENSARY_REVIEWS.default}."},
    )
    lat = _lat()
    lng = _lng()
    timezone = _timezone()
    is_open = fields.Boolean(
        required=True, metadata={"description": "Open now, in its own time zone."}
    )
    next_change = fields.String(
        required=True, allow_none=True, metadata={"description": _NEXT_CHANGE, **_INSTANT}
    )
    updated_at = _updated_at()
    menu_updated_at = _menu_updated_at()

    def get_attribute(self, obj: Any, attr: str, default: Any) -> Any:
        # obj is a service DispensaryDetail: menu, reviews and the open state beside the row.
        if attr in ("menu", "reviews"):
            return getattr(obj, attr)
        if attr == "is_open":
            return obj.hours_now.is_open
        if attr == "next_change":
            change = obj.hours_now.next_change
            return change.isoformat() if change is not None else None
        return super().get_attribute(obj.dispensary, attr, default)


class DealSchema(Output):
    id = fields.String(attribute="public_id", required=True, metadata={"example": "deal_1"})
    title = fields.String(required=True)
    dispensary = fields.String(attribute="dispensary_name", required=True)
    category = fields.String(required=True)
    discount = fields.String(required=True)
    expires = fields.Date(DATE_FORMAT, required=True)
    dispensary_id = fields.String(
        attribute="dispensary_public_id",
        required=True,
        metadata={"example": "disp_1001", "description": "The id of the deal's dispensary."},
    )
    distance = OptionalFloat(
        metadata={"description": "Miles from the zip or lat/lng given to the deal's dispensary."}
    )
    updated_at = _updated_at()


class DoctorSchema(Output):
    id = fields.String(attribute="public_id", required=True, metadata={"example": "doc_1"})
    name = fields.String(required=True)
    city = fields.String(required=True)
    state = fields.String(required=True)
    telehealth = fields.Boolean(required=True)
    rating = fields.Float(required=True)
    price = fields.Float(required=True, metadata={"description": "Consultation fee, USD."})
    lat = _lat()
    lng = _lng()
    timezone = _timezone()
    distance = OptionalFloat(
        metadata={"description": "Miles from the zip or lat/lng given (lists around a point)."}
    )
    updated_at = _updated_at()


class LawSchema(Output):
    state = fields.String(required=True)
    stateCode = fields.String(attribute="state_code", required=True)
    recreational = fields.Boolean(required=True)
    medical = fields.Boolean(required=True)
    possession_limit_oz = fields.Float(required=True)
    home_grow = fields.Boolean(required=True)
    home_grow_plants = fields.Integer(required=True)
    delivery_legal = fields.Boolean(required=True)
    updated = fields.Date(DATE_FORMAT, required=True)
    updated_at = _updated_at()


class SearchHitSchema(Output):
    type = fields.String(required=True, metadata={"enum": list(SEARCH_HIT_TYPES)})
    name = fields.String(required=True)
    slug = OptionalString(metadata={"description": "Strains only."})
    id = OptionalString(metadata={"description": "Dispensaries, doctors and deals."})


class MetaSchema(Output):
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)


def _envelope(name: str, data: fields.Field[Any], *, paged: bool) -> type[Schema]:
    attrs: dict[str, Any] = {
        "success": fields.Boolean(required=True, metadata={"enum": [True]}),
        "data": data,
    }
    if paged:
        attrs["meta"] = fields.Nested(MetaSchema, required=True)
    return Output.from_dict(attrs, name=name)


# The document names components after their classes, less "Schema", so the items' classes are
# StrainSchema and DispensarySchema: "StrainDetail" and "DispensaryDetail" name their envelopes.
StrainDetailSchema = StrainSchema
DispensaryDetailSchema = DispensarySchema


def page_envelope(item: type[Schema], name: str) -> type[Schema]:
    """Envelope schema for a list: success, data (array of ``item``), meta."""
    return _envelope(name, fields.List(fields.Nested(item), required=True), paged=True)


def detail_envelope(item: type[Schema], name: str) -> type[Schema]:
    """Envelope schema for one object: success and data, no meta."""
    return _envelope(name, fields.Nested(item, required=True), paged=False)


class ErrorBodySchema(Output):
    code = fields.Integer(required=True)
    message = fields.String(required=True)
    docs = fields.String(required=True)
    param = fields.String(metadata={"description": "The offending parameter, when there is one."})
    reason = fields.String(
        metadata={
            "description": "What went wrong, as a word, where the status alone does not say: "
            "cursor_expired (410 from /changes: read the feed again without since).",
            "enum": ["cursor_expired"],
        }
    )


class ErrorEnvelopeSchema(Output):
    success = fields.Boolean(required=True, metadata={"enum": [False]})
    error = fields.Nested(ErrorBodySchema, required=True)


class UsageSchema(Output):
    tier = fields.String(required=True, metadata={"enum": list(KEY_TIERS)})
    limit = fields.Integer(required=True, metadata={"description": "Requests per hour."})
    remaining = fields.Integer(
        required=True, metadata={"description": "Requests left in the sliding one-hour window."}
    )
    reset = fields.Integer(
        required=True,
        metadata={"description": "UTC epoch seconds when the oldest counted request expires."},
    )


class EndpointSchema(Output):
    path = fields.String(
        required=True, metadata={"description": "Path template, as in the document."}
    )
    summary = fields.String(required=True)


class DocsLinksSchema(Output):
    swagger_ui = fields.String(required=True)
    openapi = fields.String(required=True)
    graphql = fields.String(required=True)
    errors = fields.String(required=True)


class IndexSchema(Output):
    name = fields.String(required=True)
    endpoints = fields.List(fields.Nested(EndpointSchema), required=True)
    docs = fields.Nested(DocsLinksSchema, required=True)
    get_a_key = fields.String(required=True, metadata={"description": "How to get an API key."})
