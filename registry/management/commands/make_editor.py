"""``manage.py make_editor USER [--staff] [--remove]``: who is a GFD editor, without the admin."""

from django.core.management.base import BaseCommand

from ... import services
from ._common import get_user


class Command(BaseCommand):
    help = (
        "Make a user a GFD editor (the 'GFD editors' group: review, decide, reserve). --staff also "
        "opens the read-mostly admin to them; --remove takes both away. For a full administrator "
        "use `manage.py createsuperuser`."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--staff", action="store_true", help="also let them use the admin (read-mostly)")
        parser.add_argument("--remove", action="store_true", help="no longer a GFD editor nor staff")

    def handle(self, username, staff=False, remove=False, **options):
        user = get_user(username)
        if remove:
            services.editor_revoke(user)
            self.stdout.write(f"{username} is no longer a GFD editor.")
            return
        services.editor_grant(user, staff=staff)
        admin = " and may use the admin" if user.is_staff else " (not staff: --staff opens the admin)"
        self.stdout.write(f"{username} is a GFD editor{admin}.")
