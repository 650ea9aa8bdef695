"""The registry's transparency log: a signed, append-only RFC 9162 Merkle log of every public change.

``merkle``, ``note``, ``tiles``, ``kinds``, ``signer_state`` (the signer's record and its
check), ``cosignature`` and ``witness`` (C2SP tlog-cosignature and tlog-witness) are pure
Python (the verifier, ``python -m registry.verify``, and the witness, ``python -m
registry.witness``, run without Django); ``models``, ``log``, ``records``, ``signer`` and
``views`` are the log inside the Django project. docs/transparency.md explains the whole.
"""
