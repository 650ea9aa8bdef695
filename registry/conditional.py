"""HTTP validators shared by the site and the API (a leaf module: nothing of ours imported)."""

from __future__ import annotations


def etag_matches(wanted: str, etag: str) -> bool:
    """``If-None-Match`` uses the weak comparison (RFC 9110 §13.1.2): ``W/"x"`` matches ``"x"``."""
    if not wanted:
        return False
    if wanted.strip() == "*":
        return True
    return etag in [tag.strip().removeprefix("W/") for tag in wanted.split(",")]
