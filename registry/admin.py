"""The admin shows everything and edits nothing.

Approved versions, events and SNIDs are part of a persistent record: the admin
can read them but every change goes through the site's services, which log it.
Every write through the admin — add, change (even a save of unchanged fields,
which the append-only record would refuse at the database), delete — is refused
with 403 before it reaches the database.
"""

from django.contrib import admin

from .models import Comment, Judgement, Namespace, Proposal, ProposalEvent, ReservationRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the change page is shown read-only (view permission); a POST is 403

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(Namespace)
class NamespaceAdmin(ReadOnlyAdmin):
    list_display = ("snid", "status", "current", "reserved_until", "registered_at")
    list_filter = ("status",)
    search_fields = ("snid",)


class EventInline(admin.TabularInline):
    model = ProposalEvent
    template = "admin/registry/events_inline.html"  # a read-only table whose every column has a header
    extra = 0
    can_delete = False
    readonly_fields = ("created_at", "actor", "kind", "action", "from_state", "to_state", "comment")
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyAdmin):
    list_display = ("snid", "version", "title", "state", "submitter", "updated_at", "is_demo")
    list_filter = ("state", "is_demo")
    search_fields = ("snid", "title")
    inlines = [EventInline]



@admin.register(ProposalEvent)
class ProposalEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "proposal", "actor", "action", "from_state", "to_state")
    list_filter = ("action",)


@admin.register(Comment)
class CommentAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "proposal", "author", "section")


@admin.register(ReservationRequest)
class ReservationRequestAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "snid", "requester", "state", "decided_by")
    list_filter = ("state",)


@admin.register(Judgement)
class JudgementAdmin(ReadOnlyAdmin):
    list_display = ("proposal", "check_id", "ok", "editor", "updated_at")
