"""The GraphQL edge (Strawberry) over the same service layer as REST.

May import service (and models for type hints), strawberry and flask; never rest or seed.
"""
