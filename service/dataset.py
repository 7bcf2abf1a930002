"""Facts about the loaded dataset that the edges need (cache validators)."""

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import DatasetInfo


def data_version(session: Session) -> int:
    """Return the version of the loaded data: bumped by every seed or import (0 if none)."""
    return session.scalar(select(func.max(DatasetInfo.version))) or 0
