"""The registry's transparency log: a signed, append-only RFC 9162 Merkle log of every public change.

``merkle``, ``note``, ``tiles`` and ``kinds`` are pure Python (the verifier, ``python -m
registry.verify``, runs without Django); ``models``, ``log``, ``records`` and ``views`` are
the log inside the Django project. docs/transparency.md explains the whole.
"""
