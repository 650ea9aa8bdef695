"""``manage.py make_editor USER [--staff] [--confirm] [--remove]``: who is a GFD editor, without the admin."""

from django.core.management.base import BaseCommand, CommandError

from ... import services
from ...accounts.services import signup_confirm, unconfirmed_signup
from ._common import get_user


class Command(BaseCommand):
    help = (
        "Make a user a GFD editor (the 'GFD editors' group: review, decide, reserve). --staff also "
        "opens the read-mostly admin to them; --remove takes both away. An account that cannot sign in "
        "(a sign-up whose address was never confirmed, a closed or deactivated account) is refused; "
        "--confirm confirms an unconfirmed sign-up's address first, if you know it is theirs. For a full "
        "administrator use `manage.py createsuperuser`."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--staff", action="store_true", help="also let them use the admin (read-mostly)")
        parser.add_argument(
            "--confirm",
            action="store_true",
            help="confirm an unconfirmed sign-up's address (you know it is theirs), then make them an editor",
        )
        parser.add_argument("--remove", action="store_true", help="no longer a GFD editor nor staff")

    def handle(self, username, staff=False, confirm=False, remove=False, **options):
        user = get_user(username)
        if remove:
            services.editor_revoke(user)
            self.stdout.write(f"{username} is no longer a GFD editor.")
            return
        if unconfirmed_signup(user):
            if not confirm:
                raise CommandError(
                    f"{user.get_username()} signed up but never confirmed the address {user.email or '(none)'}: "
                    "the account cannot sign in, and an editor who cannot sign in is no editor. Ask them to "
                    "confirm it (signing up again or the password-reset form mails a new link), or give "
                    "--confirm if you know the address is theirs. Nothing was changed."
                )
            signup_confirm(user)
            self.stdout.write(
                f"{user.get_username()}'s address {user.email} is now confirmed; the account can sign in."
            )
        elif not user.is_active:
            raise CommandError(
                f"{user.get_username()} is closed or deactivated and cannot sign in; reactivate it in the admin "
                "first (Users → the account → Active). Nothing was changed."
            )
        services.editor_grant(user, staff=staff)
        admin = " and may use the admin" if user.is_staff else " (not staff: --staff opens the admin)"
        self.stdout.write(f"{user.get_username()} is a GFD editor{admin}.")
