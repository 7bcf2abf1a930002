"""Speed tricks of the models layer that reach into a dependency's private API.

Each module names the private names it uses in ``PRIVATE_API``; ``models.db.make_engine(...,
accel=False)`` builds engines without any of them (the dependencies as shipped).
"""
