"""The pages draw with the fonts the site serves, whatever the machine has (static/registry/fonts.css)."""

import pytest

from registry import demo

#: What the browser made of the fonts: the faces it loaded, and the family that draws each kind of text.
FONTS_USED = """
async () => {
  await document.fonts.ready;
  const loaded = [...document.fonts].filter(f => f.status === "loaded").map(f => `${f.family} ${f.style}`);
  const family = (selector) => getComputedStyle(document.querySelector(selector)).fontFamily;
  return {loaded: [...new Set(loaded)].sort(), body: family("body"), code: family("code"),
          heading: family("h1"), input: family("form.check-urn input")};
}
"""


@pytest.fixture
def demo_site(transactional_db):
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])


@pytest.mark.django_db(transaction=True)
def test_pages_draw_with_the_served_fonts_and_use_what_they_preload(new_page, demo_site):
    page = new_page()
    console = []
    page.on("console", lambda message: console.append(message.text))
    fonts = []
    page.on("response", lambda response: fonts.append(response.url) if ".woff2" in response.url else None)
    page.goto("/urn/example/")
    page.wait_for_load_state("networkidle")
    used = page.evaluate(FONTS_USED)
    # the diagrams' comments ("4 times") are italic
    assert used["loaded"] == ["Source Code Pro normal", "Source Sans 3 italic", "Source Sans 3 normal"], used
    assert used["body"].startswith('"Source Sans 3"') and used["heading"].startswith('"Source Sans 3"')
    assert used["code"].startswith('"Source Code Pro"') and used["input"].startswith('"Source Code Pro"')
    # only the Latin files, each once (the preloads are the requests the faces use)
    assert sorted(url.rsplit("/", 1)[1] for url in fonts) == [
        "source-code-pro-latin-wght-normal.woff2",
        "source-sans-3-latin-wght-italic.woff2",
        "source-sans-3-latin-wght-normal.woff2",
    ]
    assert not [text for text in console if "preload" in text], console
    # the page's text is drawn with the faces: measured against the system stack the width differs
    widths = page.evaluate("""() => {
      const probe = document.createElement("span");
      probe.textContent = "urn:ogf:example:cluster:2009:example.net:42";
      document.body.append(probe);
      const served = probe.getBoundingClientRect().width;
      probe.style.fontFamily = "sans-serif";
      return [served, probe.getBoundingClientRect().width];
    }""")
    assert abs(widths[0] - widths[1]) > 1, widths


@pytest.mark.django_db(transaction=True)
def test_text_in_other_scripts_loads_only_its_own_subset(new_page, demo_site):
    """A registrant's name in Greek or Cyrillic fetches that file; Latin pages never do."""
    page = new_page()
    fonts = []
    page.on(
        "response", lambda response: fonts.append(response.url.rsplit("/", 1)[1]) if ".woff2" in response.url else None
    )
    page.goto("/urn/")
    page.wait_for_load_state("networkidle")
    assert not [name for name in fonts if "cyrillic" in name or "greek" in name]
    page.evaluate("""() => { const p = document.createElement("p"); p.textContent = "Ольга Σοφία Łukasz";
                             document.querySelector("main").append(p); return document.fonts.ready; }""")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("[...document.fonts].filter(f => f.status === 'loaded').length >= 5")
    assert {
        "source-sans-3-cyrillic-wght-normal.woff2",
        "source-sans-3-greek-wght-normal.woff2",
        "source-sans-3-latin-ext-wght-normal.woff2",
    } <= set(fonts)
