"""The admin shows everything and edits nothing.

Approved versions, events and SNIDs are part of a persistent record: the admin
can read them but every change goes through the site's services, which log it.
Every write through the admin — add, change (even a save of unchanged fields,
which the append-only record would refuse at the database), delete — is refused
with 403 before it reaches the database.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError

from .accounts.models import Account
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


# --- accounts: user names compared folded, and how each account came to be -------------------------


class FoldedNameMixin:
    """A user name another account has when case is ignored ("Ärger" and "ärger") is an error on the
    form, not a 500 at the save (registry.accounts.names keeps the rule at the database too)."""

    def clean_username(self):
        username = self.cleaned_data.get("username")
        from .accounts.names import name_taken  # the name rules' data loads when a name is checked, not at start-up

        unchanged = self.instance.pk is not None and username == self.instance.username
        if username and not unchanged and name_taken(username, except_pk=self.instance.pk):
            raise ValidationError(
                "Another account has this user name (user names are compared ignoring case: "
                "“Ärger” and “ärger” are one name).",
                code="unique",
            )
        return username


class FoldedNameCreationForm(FoldedNameMixin, AdminUserCreationForm):
    pass


class FoldedNameChangeForm(FoldedNameMixin, UserChangeForm):
    pass


class AccountInline(admin.StackedInline):
    """How the account came to be (read only: set by the service that made it)."""

    model = Account
    can_delete = False
    readonly_fields = ("origin", "confirmed_at", "name_key")
    fields = readonly_fields
    verbose_name = verbose_name_plural = "account record"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountUserAdmin(UserAdmin):
    form = FoldedNameChangeForm
    add_form = FoldedNameCreationForm
    inlines = [AccountInline]
    list_display = (*UserAdmin.list_display, "origin")
    list_filter = (*UserAdmin.list_filter, "account__origin")
    list_select_related = ("account",)

    @admin.display(description="made by", ordering="account__origin")
    def origin(self, user):
        account = getattr(user, "account", None)
        return account.get_origin_display() if account else "—"
