"""The registry's transparency log: a signed, append-only RFC 9162 Merkle log of every public change.

The log inside the Django project: ``models`` (its tables), ``log`` (appending, the tree, proofs),
``records`` (what each service logs), ``entries`` (the public list) and ``signer``. Its Django-free
core — the Merkle tree, signed notes, tiles, leaf kinds, cosignatures, the witness — is
registry.logcore, which the verifier (registry.verifier, ``python -m registry.verify``) and the
witness (``python -m registry.witness``) also run on; the pages and proofs are faces
(registry/views/log.py, registry/api/log.py), the backfill of everything published before the log
is registry/backfill.py. docs/transparency.md explains the whole.
"""
