"""Facts about the loaded dataset that the edges need (cache validators)."""

from sqlalchemy import func, select

from models import DatasetInfo
from models.db import Reader


def data_version(db: Reader) -> int:
    """Return the version of the loaded data: bumped by every seed or import (0 if none)."""
    return db.scalar(select(func.max(DatasetInfo.version))) or 0
