"""Test data picked from the menus themselves."""

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import MenuItem, Strain


def most_listed_strain(session: Session) -> Strain:
    """The strain on the most dispensaries' menus (the lowest id among equals)."""
    strain_id = session.scalar(
        select(MenuItem.strain_id)
        .where(MenuItem.strain_id.is_not(None))
        .group_by(MenuItem.strain_id)
        .order_by(func.count(func.distinct(MenuItem.dispensary_id)).desc(), MenuItem.strain_id)
    )
    return session.get_one(Strain, strain_id)
