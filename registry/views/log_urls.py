from django.urls import path, re_path

from . import log as views

urlpatterns = [
    path("log/", views.log_page, name="page"),
    path("log/checkpoint", views.checkpoint, name="checkpoint"),
    path("log/key", views.verifier_key, name="key"),
    re_path(r"^log/tile/(?P<path>[0-9a-z./]{1,80})$", views.tile, name="tile"),
]
