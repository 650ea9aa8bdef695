"""The parts of the mirror's verifier (``registry.verify``), by what each checks: what the site serves
(``fetch``: bounded downloads, every leaf of a checkpoint, the entries it does not serve), what the
checkpoint's signatures say (``signed``: freshness, and a quorum of distinct witness keys), what this run
sees against the last one (``history``), what the log says is published (``replay``), how that compares
with what the site publishes (``compare``), the bundles a clean run keeps as evidence (``store``) and the
static copy it writes (``mirror``); ``report`` is what it says. Witnesses' cosignatures are checked with
the log's own ``logcore.cosignature``, the one implementation the site and the witness use too.

Like ``registry.verify`` itself, nothing here imports Django: a mirror runs it with the
standard library, ``cryptography`` and ``jsonschema``.
"""
