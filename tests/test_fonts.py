"""The site's served fonts (static/registry/fonts.css): every face's file is there, licensed and used, and
no stylesheet of the site names a system font stack of its own (it would draw differently on every machine)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.template.loader import render_to_string

STATIC = Path(settings.BASE_DIR) / "static" / "registry"
FONTS = STATIC / "fonts"
FAMILIES = {"Source Sans 3": "source-sans-3", "Source Code Pro": "source-code-pro"}


def _faces() -> list[dict]:
    css = (STATIC / "fonts.css").read_text()
    faces = []
    for block in re.findall(r"@font-face\s*\{(.*?)\}", css, re.S):
        declarations = dict(re.findall(r"([a-z-]+)\s*:\s*([^;]+);", block))
        faces.append(declarations)
    return faces


def test_fonts_css_declares_each_face_with_swap_and_a_file_that_is_woff2():
    faces = _faces()
    assert len(faces) == 12
    for face in faces:
        file = re.fullmatch(r'url\("(fonts/[a-z0-9-]+\.woff2)"\) format\("woff2"\)', face["src"]).group(1)
        assert (STATIC / file).read_bytes()[:4] == b"wOF2", file
        assert face["font-display"] == "swap" and face["font-weight"] == "200 900"
        assert face["font-family"].strip('"') in FAMILIES and "U+" in face["unicode-range"]


def test_every_font_file_is_declared_and_every_family_has_its_licence():
    declared = {re.search(r"fonts/([^\"]+)", face["src"]).group(1) for face in _faces()}
    assert declared == {p.name for p in FONTS.glob("*.woff2")}
    for stem in FAMILIES.values():
        licence = (FONTS / f"LICENSE-{stem}.txt").read_text()
        assert "SIL Open Font License, Version 1.1" in licence and "Adobe" in licence
        assert any(name.startswith(stem) for name in declared)


def test_the_latin_faces_cover_the_text_the_pages_write():
    """The latin subset's range holds every character of the templates except the few symbols (✓ ✗ → ← ▶ ≡)
    that the stack's system fonts draw."""
    latin = next(face["unicode-range"] for face in _faces() if "source-sans-3-latin-wght-normal" in face["src"])
    spans = []
    for part in latin.split(","):
        low, _, high = part.strip().removeprefix("U+").partition("-")
        spans.append((int(low, 16), int(high or low, 16)))
    text = "".join(p.read_text() for p in (Path(settings.BASE_DIR) / "templates").rglob("*.html"))
    missing = {c for c in text if not any(low <= ord(c) <= high for low, high in spans)}
    assert missing <= set("✓✗→←▶≡"), sorted(missing)


def test_no_stylesheet_names_a_font_stack_of_its_own():
    """font and font-family declarations take the served stacks (var(--sans) / var(--mono)) or inherit."""
    for sheet in STATIC.glob("*.css"):
        css = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        css = re.sub(r"@font-face\s*\{.*?\}", "", css, flags=re.S)
        for prop, value in re.findall(r"(?<![-\w])(font-family|font)\s*:\s*([^;}]+)", css):
            assert value.strip() == "inherit" or re.search(r"var\(--(sans|mono)\b", value), (sheet.name, prop, value)
    stacks = dict(re.findall(r"--(sans|mono)\s*:\s*([^;]+);", (STATIC / "fonts.css").read_text()))
    assert stacks["sans"].startswith('"Source Sans 3",') and stacks["sans"].rstrip().endswith("sans-serif")
    assert stacks["mono"].startswith('"Source Code Pro",') and stacks["mono"].rstrip().endswith("monospace")


def test_pages_preload_the_latin_faces_and_load_fonts_css_before_site_css(rf):
    from django.contrib.auth.models import AnonymousUser

    request = rf.get("/")
    request.user = AnonymousUser()
    html = render_to_string("base.html", request=request)
    preloaded = re.findall(
        r'<link rel="preload" href="/static/registry/(fonts/[^"]+)" as="font" '
        r'type="font/woff2" crossorigin>',
        html,
    )
    assert preloaded == ["fonts/source-sans-3-latin-wght-normal.woff2", "fonts/source-code-pro-latin-wght-normal.woff2"]
    assert all((STATIC / p).exists() for p in preloaded)
    assert html.index("registry/fonts.css") < html.index("registry/site.css")


def test_admin_and_api_reference_use_the_served_stacks():
    admin = (STATIC / "admin.css").read_text()
    assert "--font-family-primary:var(--sans" in admin and "--font-family-monospace:var(--mono" in admin
    typography = settings.SPECTACULAR_SETTINGS["REDOC_UI_SETTINGS"]["theme"]["typography"]
    assert typography["fontFamily"].startswith("var(--sans")
    assert typography["code"]["fontFamily"].startswith("var(--mono")
