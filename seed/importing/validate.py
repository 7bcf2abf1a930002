"""Checking every record of an import: its fields, unique ids, and references between files.

Resources are checked in dependency order, so when a record names another record (a deal its
dispensary, a dispensary its state's law) the target's own verdict is already final: a record
that refers to an invalid record is invalid too, which is also what ``--skip-invalid`` drops.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from ..geography import load_laws
from .fields import FieldError
from .lineage import describe, find_cycles
from .reading import ImportSource, Issue, RawRecord, SourceFile
from .resources import DELETIONS, LAWS, RESOURCES, STRAINS, Reference, Resource, Values

PROGRESS_STEP = 500

# Key -> the record that owns it; None for the bundled laws (always valid).
Owners = dict[object, "Record | None"]  # keyed by the id as read (a string)


@dataclass
class Record:
    """One checked record: its normalised values and every reason it is invalid."""

    file: str
    line: int
    values: Values
    errors: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class ImportReport:
    """The outcome of checking an import directory."""

    problems: tuple[Issue, ...]  # whole-file problems: the import cannot go ahead
    files: dict[str, str]  # resource name -> file name
    records: dict[str, list[Record]]  # resource name -> checked records, in file order
    merge: bool = False  # checked as a merge into the stored data

    @property
    def bundled_laws(self) -> bool:
        """True when a full import has no laws file and the bundled law records apply."""
        return not self.merge and LAWS.name not in self.files

    def issues(self) -> list[Issue]:
        """Whole-file problems, then every invalid record, in resource and line order."""
        invalid = [
            Issue(record.file, record.line, "; ".join(record.errors))
            for records in self.records.values()
            for record in records
            if not record.valid
        ]
        return [*self.problems, *invalid]

    def accepted(self, resource_name: str) -> list[Values]:
        """Values of the valid records of a resource, in file order."""
        return [r.values for r in self.records.get(resource_name, []) if r.valid]

    def skipped(self) -> list[tuple[str, int, int]]:
        """(file name, invalid records, all records) for each file with invalid records."""
        counts = []
        for name, records in self.records.items():
            bad = sum(1 for r in records if not r.valid)
            if bad:
                counts.append((self.files[name], bad, len(records)))
        return counts


def check_record(resource: Resource, source: SourceFile, raw: RawRecord) -> Record:
    """Read and check every field of one record, then the rules across its fields."""
    if raw.values is None:
        return Record(source.name, raw.line, {}, [raw.problem or "unreadable record"])
    errors = [f"unknown field {name!r}" for name in raw.values if name not in resource.field_names]
    values: Values = {}
    for spec in resource.fields:
        try:
            values[spec.name] = spec.read(raw.values.get(spec.name), source.from_csv)
        except FieldError as exc:
            errors.append(f"{spec.name} {exc}")
    if not errors:
        for check in resource.checks:
            errors.extend(check(values))
    return Record(source.name, raw.line, values, errors)


def _claim_unique(resource: Resource, records: list[Record]) -> Owners:
    """Flag repeated ids and unique values; return the key's owners (first occurrences)."""
    owners: Owners = {}
    for name in (resource.key, *resource.unique):
        if name is None:
            continue
        seen: dict[object, Record] = {}
        for record in records:
            value = record.values.get(name)
            if value is None:
                continue
            first = seen.setdefault(value, record)
            if first is not record:
                record.errors.append(f"duplicate {name} {value!r} (first on line {first.line})")
        if name == resource.key:
            owners = dict(seen)
    return owners


def _reference_problem(
    ref: Reference, value: str, owners: dict[str, Owners], files: dict[str, str]
) -> str | None:
    if ref.resource not in owners:
        return f"{ref.label} {value} does not exist: no {ref.resource} file was given"
    if value not in owners[ref.resource]:
        if ref.resource not in files:  # a merge without that file: not stored (or deleted)
            return f"{ref.label} {value} is not stored (or is deleted by this merge)"
        return f"{ref.label} {value} is not in {files[ref.resource]}"
    target = owners[ref.resource][value]
    if target is not None and not target.valid:
        return f"{ref.label} {value} is invalid (see {target.file}:{target.line})"
    return None


def _check_references(
    resource: Resource, records: list[Record], owners: dict[str, Owners], files: dict[str, str]
) -> None:
    for record in records:
        if not record.valid:
            continue
        for ref in resource.references:
            value = record.values.get(ref.field)
            for key in value if isinstance(value, list) else [value]:
                problem = None if key is None else _reference_problem(ref, key, owners, files)
                if problem is not None:
                    record.errors.append(problem)


def _check_lineage(records: list[Record], owners: Owners, files: dict[str, str]) -> None:
    """Refuse cycles among the strains' parents (the first strain of each cycle, in file order,
    is the invalid record naming it), then every strain with an invalid parent, until none is
    left: references within one file, unlike those to earlier files, can point either way."""
    valid = {r.values["slug"]: r for r in records if r.valid}
    for cycle in find_cycles({slug: r.values["parents"] for slug, r in valid.items()}):
        valid[cycle[0]].errors.append(describe(cycle))
    parent = Reference("parents", STRAINS.name, "parent")
    changed = True
    while changed:
        changed = False
        for record in records:
            if not record.valid:
                continue
            for key in record.values["parents"]:
                problem = _reference_problem(parent, key, {STRAINS.name: owners}, files)
                if problem is not None:
                    record.errors.append(problem)
                    changed = True
                    break


# Resource name -> the public ids stored, for a merge.
Stored = dict[str, set[str]]
# A deletion's type -> the resource whose ids it names.
DELETED_RESOURCE = {
    "law": "laws",
    "strain": "strains",
    "dispensary": "dispensaries",
    "deal": "deals",
    "doctor": "doctors",
}


def _check_deletions(
    source: ImportSource, stored: Stored, records: dict[str, list[Record]]
) -> dict[str, set[str]]:
    """Check the deletions file against the stored ids; return resource -> ids deleted."""
    deleted: dict[str, set[str]] = {}
    source_file = source.files.get(DELETIONS.name)
    if source_file is None:
        return deleted
    given = {
        resource.name: {raw.values.get(resource.key) for raw in f.records if raw.values}
        for resource in RESOURCES
        if resource.key is not None and (f := source.files.get(resource.name)) is not None
    }
    checked = []
    for raw in source_file.records:
        record = check_record(DELETIONS, source_file, raw)
        if record.valid:
            kind, key = record.values["type"], record.values["id"]
            resource = DELETED_RESOURCE[kind]
            if key not in stored.get(resource, set()):
                record.errors.append(f"no {kind} {key} is stored")
            elif key in deleted.get(resource, set()):
                record.errors.append(f"{kind} {key} is deleted twice")
            elif key in given.get(resource, set()):
                record.errors.append(
                    f"{kind} {key} is also in {source.files[resource].name}: "
                    "a merge either replaces or deletes it"
                )
            else:
                deleted.setdefault(resource, set()).add(key)
        checked.append(record)
    records[DELETIONS.name] = checked
    return deleted


def validate(
    source: ImportSource,
    *,
    progress: Callable[[int], None] | None = None,
    stored: Stored | None = None,
) -> ImportReport:
    """Check every record of ``source``; ``progress(n)`` is told as records are checked.

    With ``stored`` (the public ids in the database) the files are checked as a merge: records
    may name stored objects, and the deletions file is read. Without, a deletions file is an
    error.
    """
    files = {name: f.name for name, f in source.files.items()}
    owners: dict[str, Owners] = {}
    records: dict[str, list[Record]] = {}
    problems = list(source.problems)
    if stored is not None:
        deleted = _check_deletions(source, stored, records)
        for name, keys in stored.items():
            owners[name] = {key: None for key in keys - deleted.get(name, set())}
    else:
        if DELETIONS.name in source.files:
            problems.append(
                Issue(files[DELETIONS.name], None, "deletions are read only by a merge (--merge)")
            )
        if LAWS.name not in source.files:
            owners[LAWS.name] = {law["stateCode"]: None for law in load_laws()}
    for resource in RESOURCES:
        source_file = source.files.get(resource.name)
        if source_file is None:
            continue
        checked = []
        for raw in source_file.records:
            checked.append(check_record(resource, source_file, raw))
            if progress is not None and len(checked) % PROGRESS_STEP == 0:
                progress(PROGRESS_STEP)
        if progress is not None:
            progress(len(checked) % PROGRESS_STEP)
        key_owners = _claim_unique(resource, checked)
        if resource.key is not None:
            owners[resource.name] = {**owners.get(resource.name, {}), **key_owners}
        _check_references(resource, checked, owners, files)
        if resource is STRAINS:
            _check_lineage(checked, owners[resource.name], files)
        records[resource.name] = checked
    return ImportReport(tuple(problems), files, records, merge=stored is not None)
