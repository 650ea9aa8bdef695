"""The parts of the mirror's verifier (``registry.verify``): what the log says is published
(``replay``), how that compares with what the site publishes (``compare``), witnesses'
cosignatures (``cosignature``) and the static copy it writes (``mirror``).

Like ``registry.verify`` itself, nothing here imports Django: a mirror runs it with the
standard library, ``cryptography`` and ``jsonschema``.
"""
