"""Finding the resource files of an import directory and splitting them into raw records.

Problems with a whole file (an unknown file name, two formats for one resource, a CSV header
naming unknown columns or missing required ones, text that is not UTF-8) are ``Issue``s of the
source; problems with one line (malformed JSON, a CSV row of the wrong width) travel with that
line's ``RawRecord`` and are reported like any other invalid record.
"""

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .resources import READABLE, Resource

FORMATS = ("jsonl", "csv")


@dataclass(frozen=True)
class Issue:
    """One reported problem: ``FILE:LINE: reason``, or ``FILE: reason`` for a whole file."""

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class RawRecord:
    """One record as read: field values, or why its line could not be read at all."""

    line: int
    values: dict[str, Any] | None
    problem: str | None = None


@dataclass(frozen=True)
class SourceFile:
    """The records of one resource file."""

    resource: Resource
    name: str
    from_csv: bool
    records: tuple[RawRecord, ...]


@dataclass(frozen=True)
class ImportSource:
    """What an import directory holds: readable files per resource, and file-level issues."""

    directory: Path
    files: dict[str, SourceFile]
    problems: tuple[Issue, ...]

    @property
    def record_count(self) -> int:
        """Number of records (readable or not) over every file."""
        return sum(len(f.records) for f in self.files.values())


def read_directory(directory: Path) -> ImportSource:
    """Find ``<resource>.jsonl`` / ``<resource>.csv`` files in ``directory`` and read them."""
    paths, problems = _discover(directory)
    files: dict[str, SourceFile] = {}
    for resource_name, path in paths.items():
        resource = READABLE[resource_name]
        try:
            content = _read_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Issue(path.name, None, f"cannot be read as UTF-8 text: {exc}"))
            continue
        if path.suffix == ".csv":
            records, header_problems = _csv_records(resource, path.name, content)
            problems.extend(header_problems)
            if header_problems:
                continue
        else:
            records = _jsonl_records(content)
        files[resource_name] = SourceFile(resource, path.name, path.suffix == ".csv", records)
    return ImportSource(directory, files, tuple(problems))


def _expected_names() -> str:
    return ", ".join(READABLE)


def _discover(directory: Path) -> tuple[dict[str, Path], list[Issue]]:
    """Resource name -> its file; unknown resource files and clashes as issues."""
    found: dict[str, list[Path]] = {}
    problems: list[Issue] = []
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        return {}, [Issue(directory.name or str(directory), None, f"cannot be listed: {exc}")]
    for path in entries:
        if not path.is_file() or path.name.startswith("."):
            continue
        stem, _, suffix = path.name.rpartition(".")
        if suffix in FORMATS and stem not in READABLE:
            problems.append(
                Issue(path.name, None, f"unknown resource file; resources are {_expected_names()}")
            )
        elif stem in READABLE and suffix not in FORMATS:
            problems.append(Issue(path.name, None, "unsupported format; use .jsonl or .csv"))
        elif stem in READABLE:
            found.setdefault(stem, []).append(path)
    for paths in found.values():
        if len(paths) > 1:
            names = " and ".join(p.name for p in paths)
            problems.append(Issue(paths[0].name, None, f"both {names} given; keep one of them"))
    if not found and not problems:
        problems.append(
            Issue(
                directory.name or str(directory),
                None,
                f"no resource files: expected <resource>.jsonl or <resource>.csv for at least "
                f"one of {_expected_names()}",
            )
        )
    return {stem: paths[0] for stem, paths in found.items() if len(paths) == 1}, problems


def _read_text(path: Path) -> str:
    # utf-8-sig tolerates the byte-order mark spreadsheet programs write; universal newlines
    # make "\r\n" files count lines like "\n" files.
    with path.open(encoding="utf-8-sig", newline=None) as stream:
        return stream.read()


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in pairs:
        if key in values:
            raise ValueError(f"the key {key!r} appears twice")
        values[key] = value
    return values


def _jsonl_records(content: str) -> tuple[RawRecord, ...]:
    """One record per non-blank line, numbered by physical line."""
    records = []
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            records.append(
                RawRecord(number, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
            )
            continue
        except (ValueError, RecursionError) as exc:
            records.append(RawRecord(number, None, f"malformed JSON: {exc}"))
            continue
        if not isinstance(value, dict):
            records.append(RawRecord(number, None, "each line must hold one JSON object"))
            continue
        records.append(RawRecord(number, value))
    return tuple(records)


def _header_problems(resource: Resource, name: str, header: list[str]) -> list[Issue]:
    allowed = resource.csv_columns()
    problems = []
    duplicates = sorted({c for c in header if header.count(c) > 1})
    unknown = [c for c in header if c not in allowed]
    missing = [c for c in resource.required_csv_columns() if c not in header]
    if duplicates:
        problems.append(Issue(name, 1, f"repeated column {', '.join(map(repr, duplicates))}"))
    if unknown:
        problems.append(
            Issue(
                name,
                1,
                f"unknown column {', '.join(map(repr, unknown))}; "
                f"{resource.name} columns are {', '.join(allowed)}",
            )
        )
    if missing:
        problems.append(Issue(name, 1, f"missing required column {', '.join(map(repr, missing))}"))
    return problems


def _csv_values(resource: Resource, header: list[str], row: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = dict(zip(header, row, strict=True))
    if resource.csv_group is not None:
        field, columns = resource.csv_group
        cells = {column: values.pop(column, "").strip() for column in columns}
        values[field] = {column: cell for column, cell in cells.items() if cell}
    return values


def _csv_records(
    resource: Resource, name: str, content: str
) -> tuple[tuple[RawRecord, ...], list[Issue]]:
    """Records after the header row, each numbered by the physical line it starts on."""
    reader = csv.reader(io.StringIO(content, newline=""), strict=True)
    header: list[str] | None = None
    records: list[RawRecord] = []
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if header is None:
                return (), [Issue(name, start, f"malformed CSV header: {exc}")]
            records.append(RawRecord(start, None, f"malformed CSV: {exc}"))
            continue
        if not any(cell.strip() for cell in row):
            continue  # blank line
        if header is None:
            if start != 1:
                return (), [Issue(name, start, "the header must be the first line")]
            header = [cell.strip() for cell in row]
            problems = _header_problems(resource, name, header)
            if problems:
                return (), problems
        elif len(row) != len(header):
            problem = f"malformed CSV row: {len(row)} fields where the header has {len(header)}"
            records.append(RawRecord(start, None, problem))
        else:
            records.append(RawRecord(start, _csv_values(resource, header, row)))
    return tuple(records), []
