"""The seed package builds the deterministic demo dataset and loads it into a database.

It also imports an operator's own dataset from files (``seed.importing``, ``flask data import``).
It imports models, service (keys, vocabularies and the API's validation rules) and click;
nothing imports it but app.py, bench and the tests.
"""

from .generate import DEFAULT_SEED, Dataset, generate
from .load import load_dataset

__all__ = ["DEFAULT_SEED", "Dataset", "generate", "load_dataset"]
