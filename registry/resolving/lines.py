"""Resolvers as lines of text, for the proposal form and the editor's change form.

One resolver a line: ``name | URL template | returns | media types | primary``; only the
first two are required (returns defaults to ``landing``; media types are separated by
commas; the word ``primary`` marks the primary, otherwise the first line is).
"""

from __future__ import annotations

from .templates import RESOLVERS_MAX

LINE_FORMAT = "name | URL template | returns (landing, metadata or data) | media types | primary"


def resolvers_from_lines(text: str) -> list[dict]:
    resolvers = []
    for line in (text or "").splitlines()[: RESOLVERS_MAX + 1]:
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split("|")]
        cells += [""] * (5 - len(cells))
        name, template, returns, types, primary = cells[:5]
        if not template and "|" not in line:
            # a bare template: named after its host (a stewards' change request writes only templates)
            template = name
            name = template.split("//", 1)[1].split("/", 1)[0].split("?", 1)[0][:60] if "//" in template else "resolver"
            taken = {r["name"].lower() for r in resolvers}
            base, number = name, 2
            while name.lower() in taken:
                name, number = f"{base} ({number})", number + 1
        resolvers.append(
            {
                "name": name,
                "template": template,
                "returns": returns or "landing",
                "media_types": [t.strip() for t in types.split(",") if t.strip()],
                "primary": primary.lower() in ("primary", "yes", "true"),
            }
        )
    return resolvers


def resolvers_to_lines(resolvers) -> str:
    lines = []
    for r in resolvers or ():
        cells = [
            r.get("name", ""),
            r.get("template", ""),
            r.get("returns", "landing"),
            ", ".join(r.get("media_types") or []),
            "primary" if r.get("primary") else "",
        ]
        while cells and not cells[-1]:
            cells.pop()
        lines.append(" | ".join(cells))
    return "\n".join(lines)
