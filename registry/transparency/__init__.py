"""The registry's transparency log: a signed, append-only RFC 9162 Merkle log of every public change.

``merkle``, ``note``, ``tiles``, ``kinds``, ``signer_state`` (the signer's record and its
checks), ``cosignature`` (the one C2SP tlog-cosignature implementation: the signer, the witness
and the verifier use it) and ``witness`` (tlog-witness) are pure Python (the verifier,
``python -m registry.verify``, and the witness, ``python -m registry.witness``, run without
Django); ``models``, ``log``, ``records``, ``backfill``, ``entries``, ``signer`` and ``views``
are the log inside the Django project. docs/transparency.md explains the whole.
"""
