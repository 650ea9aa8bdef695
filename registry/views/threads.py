"""The review conversation: reply in a thread, resolve it, reopen it.

Shared by the applicant's pages and the editor's: each form carries ``next``,
the page to return to, and lands on the thread's anchor. Threads exist only for
the applicant and editors (``rules.can_see_review``); to anyone else they are 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from .. import rules, services
from ..models import Comment


def _thread(request, pk) -> Comment:
    thread = get_object_or_404(
        Comment.objects.select_related("proposal", "proposal__submitter"), pk=pk, parent__isnull=True
    )
    if not rules.can_see_review(request.user, thread.proposal):
        raise Http404("There is no such thread.")
    return thread


def _back(request, thread: Comment):
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = thread.proposal.get_absolute_url()
    return redirect(target.split("#")[0] + f"#thread-{thread.pk}")


#: What a person can do in a thread: the service, and what the page then says.
ACTS = {
    "reply": (
        lambda request, thread, text: services.comment_reply(thread, request.user, text),
        lambda request, thread: _replied(request, thread),
    ),
    "resolve": (
        lambda request, thread, text: services.thread_resolve(thread, request.user),
        lambda request, thread: "Thread marked resolved. Reopen it if there is more to say.",
    ),
    "reopen": (
        lambda request, thread, text: services.thread_reopen(thread, request.user),
        lambda request, thread: "Thread reopened.",
    ),
}


def thread_act(request, thread: Comment, act: str, text: str = "") -> bool:
    """Do ``act`` ("reply", "resolve", "reopen") in ``thread`` for the person asking; say what
    happened, or why not, in the thread (the message is tagged with it, so the page it lands on
    shows it there, not above the fold). Whether it was done. The edit page uses it too, after
    keeping what its form holds (views.proposals)."""
    service, done = ACTS[act]
    try:
        service(request, thread, text)
    except services.ServiceError as exc:
        messages.error(request, exc.message, extra_tags=f"thread-{thread.pk}")
        return False
    messages.success(request, done(request, thread), extra_tags=f"thread-{thread.pk}")
    return True


def _act(request, pk, act: str) -> object:
    thread = _thread(request, pk)
    thread_act(request, thread, act, request.POST.get("text", ""))
    return _back(request, thread)


def _replied(request, thread) -> str:
    other = (
        "the GFD editors"
        if rules.is_submitter(request.user, thread.proposal)
        else thread.proposal.submitter.get_username()
    )
    return f"Reply added; {other} can read it in the thread."


@login_required
@require_POST
def thread_reply(request, pk):
    return _act(request, pk, "reply")


@login_required
@require_POST
def thread_resolve(request, pk):
    return _act(request, pk, "resolve")


@login_required
@require_POST
def thread_reopen(request, pk):
    return _act(request, pk, "reopen")
