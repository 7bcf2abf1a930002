"""What every resolver receives as ``info.context``."""

from dataclasses import dataclass, field
from datetime import date

from sqlalchemy.orm import Session

from .loaders import BatchCache


@dataclass
class Context:
    session: Session
    today: date  # deals are active on or after this day (evaluated once per request)
    batch: BatchCache = field(default_factory=BatchCache)
