"""registry/gunicorn.py: the server settings the deployment docs promise."""

import gc
import sys

import pytest

from registry import gunicorn


def test_gunicorn_workers_are_threaded_and_keep_connections():
    assert (gunicorn.worker_class, gunicorn.preload_app) == ("gthread", True)
    assert gunicorn.keepalive > 0


def test_gunicorn_pre_fork_freezes_what_the_master_loaded():
    gc.unfreeze()
    try:
        gunicorn.pre_fork(server=None, worker=None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_gunicorn_post_fork_shortens_the_lock_hand_over_interval():
    before = sys.getswitchinterval()
    try:
        gunicorn.post_fork(server=None, worker=None)
        assert sys.getswitchinterval() == pytest.approx(0.0005)
    finally:
        sys.setswitchinterval(before)
