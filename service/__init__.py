"""The domain and query layer shared by the REST and GraphQL edges.

May import models, sqlalchemy and the standard library; never flask, marshmallow, strawberry,
flask_limiter, web, the edges or seed. A function that reads or writes the database takes a
session (or, for reads, a connection) as its first argument and never opens, commits or closes one.
"""
