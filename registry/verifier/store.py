"""The entry bundles a clean verifier run read, kept beside its state file as evidence."""

from __future__ import annotations

from pathlib import Path

from ..logcore.tiles import WIDTH, TileRef, bundle_entries, parse_tile_path


class BundleStore:
    """The entry bundles of the last clean run, kept beside the state file (``<state>.tiles/``).

    Never a substitute for what the site serves (every run reads every leaf from it): they are the
    evidence of what was verified, so that a leaf changed since is reported with what changed in it.
    """

    def __init__(self, state_path: Path):
        self.root = state_path.with_name(state_path.name + ".tiles")

    def leaf(self, index: int) -> bytes | None:
        """The leaf at ``index`` as the last clean run read it, if kept."""
        number, offset = divmod(index, WIDTH)
        candidates = [self.root / TileRef(None, number, WIDTH).path()]
        partial = candidates[0].with_name(candidates[0].name + ".p")
        if partial.is_dir():
            candidates += sorted(
                (p for p in partial.iterdir() if p.name.isascii() and p.name.isdigit()), key=lambda p: -int(p.name)
            )
        for path in candidates:
            try:
                entries = bundle_entries(path.read_bytes())
            except (OSError, ValueError):
                continue
            if offset < len(entries):
                return entries[offset]
        return None

    def write(self, bundles: dict[str, bytes]) -> None:
        for path, data in bundles.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            ref = parse_tile_path(path)
            stale = self.root / (ref.path().split(".p/")[0] + ".p")
            if stale.is_dir():  # narrower bundles of the same index
                for old in stale.iterdir():
                    if ref.full or old.name != str(ref.width):
                        old.unlink(missing_ok=True)
