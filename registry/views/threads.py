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
    thread = get_object_or_404(Comment.objects.select_related("proposal", "proposal__submitter"), pk=pk,
                               parent__isnull=True)
    if not rules.can_see_review(request.user, thread.proposal):
        raise Http404("There is no such thread.")
    return thread


def _back(request, thread: Comment):
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = thread.proposal.get_absolute_url()
    return redirect(target.split("#")[0] + f"#thread-{thread.pk}")


def _act(request, pk, act, done) -> object:
    """Run one thread service for the person asking; say what happened, or why not."""
    thread = _thread(request, pk)
    # Tagged with the thread, so the page shows it in the thread it lands on, not above the fold.
    tag = f"thread-{thread.pk}"
    try:
        act(thread)
        messages.success(request, done(thread), extra_tags=tag)
    except services.ServiceError as exc:
        messages.error(request, exc.message, extra_tags=tag)
    return _back(request, thread)


def _replied(request, thread) -> str:
    other = ("the GFD editors" if rules.is_submitter(request.user, thread.proposal)
             else thread.proposal.submitter.get_username())
    return f"Reply added; {other} can read it in the thread."


@login_required
@require_POST
def thread_reply(request, pk):
    return _act(request, pk, lambda t: services.comment_reply(t, request.user, request.POST.get("text", "")),
                lambda t: _replied(request, t))


@login_required
@require_POST
def thread_resolve(request, pk):
    return _act(request, pk, lambda t: services.thread_resolve(t, request.user),
                lambda t: "Thread marked resolved. Reopen it if there is more to say.")


@login_required
@require_POST
def thread_reopen(request, pk):
    return _act(request, pk, lambda t: services.thread_reopen(t, request.user), lambda t: "Thread reopened.")
