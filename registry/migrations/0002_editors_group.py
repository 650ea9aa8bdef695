"""Create the "GFD editors" group with the permission to review proposals."""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def create_editors_group(apps, schema_editor):
    app_config = apps.get_app_config("registry")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="GFD editors")
    group.permissions.add(Permission.objects.get(codename="review_proposal", content_type__app_label="registry"))


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_editors_group, migrations.RunPython.noop)]
