"""The admin shows everything and edits almost nothing.

Approved versions, events and SNIDs are part of a persistent record: the admin
can read them but every change goes through the site's services, which log it.
"""

from django.contrib import admin

from .enums import ProposalState
from .models import Comment, Judgement, Namespace, Proposal, ProposalEvent, ReservationRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

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

    def has_change_permission(self, request, obj=None):
        # Viewing is allowed; saving an approved proposal is refused by the model too.
        if obj is not None and obj.state == ProposalState.APPROVED:
            return False
        return super().has_change_permission(request, obj)


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
