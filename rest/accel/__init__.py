"""Everything in the REST edge that uses a dependency's private API: ``dumping`` (compiled
Marshmallow dumps, installed by rest.init_rest) and ``views`` (views called without their
documentation-only wrappers), off with ``SPEED_TRICKS``. Each module lists its
names in ``PRIVATE_API``."""
