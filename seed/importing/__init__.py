"""Importing an operator's own dataset from a directory of JSONL and CSV files.

``read_directory`` finds and reads the resource files, ``validate`` checks every record against
the rules the API promises (reporting each bad one as ``FILE:LINE: reason``), and
``build_dataset`` turns the accepted records into a ``Dataset`` for ``seed.load.load_dataset``.
"""

from .build import build_dataset
from .reading import ImportSource, Issue, read_directory
from .resources import RESOURCES, Resource
from .validate import ImportReport, validate

__all__ = [
    "RESOURCES",
    "ImportReport",
    "ImportSource",
    "Issue",
    "Resource",
    "build_dataset",
    "read_directory",
    "validate",
]
