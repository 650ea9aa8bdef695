"""The transparency log's core, with no Django: what the signer, the verifier and the witness share.

``merkle`` (RFC 9162 trees and proofs), ``note`` (C2SP signed notes and checkpoints), ``tiles``
(C2SP tlog-tiles), ``kinds`` (the leaf kinds, each a versioned JSON schema), ``cosignature`` (the
one C2SP tlog-cosignature implementation), ``witness`` (tlog-witness) and ``signer_state`` (the
signer's record and its checks). The log room (registry.transparency) keeps the log inside the
Django project with them; the verifier (``python -m registry.verify``) and the witness
(``python -m registry.witness``) run on them without Django. docs/transparency.md explains the whole.
"""
