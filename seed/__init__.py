"""The seed package builds the deterministic demo dataset and loads it into a database.

It imports models, service.keys, service.config and click; nothing imports it but app.py
and the tests.
"""

from .generate import DEFAULT_SEED, Dataset, generate
from .load import load_dataset

__all__ = ["DEFAULT_SEED", "Dataset", "generate", "load_dataset"]
