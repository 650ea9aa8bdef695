"""Key files made on first use, safely when several processes start at once.

Development keys (``.secret_key``, ``.log_key``, ``.backup_key``) and a witness's key are made
by whichever process needs them first. Two processes starting together — two web workers, two
test workers — must end with one key that both read whole: a key written in place can be read
half-written, and two writers each keep their own. So a key is written whole to a private file
beside its place and linked into place, which fails if a key is already there: the first writer
wins, later ones read its key. No Django here (settings use it before Django is set up).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def key_file_create(path: Path | str, text: str) -> bool:
    """Publish ``text`` at ``path`` (mode 0600) unless a file is already there.

    True if this call made it; False if another process had (its key stands, never overwritten).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, draft = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(draft)
