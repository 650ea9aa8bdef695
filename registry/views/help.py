"""The help pages (registry/help.py): an index and one page per document."""

from django.http import Http404
from django.shortcuts import render

from .. import help as help_pages
from .. import markdown


def help_index(request):
    return render(request, "registry/help/index.html", {"pages": help_pages.pages()})


def help_page(request, slug):
    page = help_pages.page(slug)
    if page is None:
        raise Http404("There is no such help page.")
    markdown.prerender_page(page.texts)  # its sections formatted in one bounded job
    return render(request, "registry/help/page.html", {"page": page, "pages": help_pages.pages()})
