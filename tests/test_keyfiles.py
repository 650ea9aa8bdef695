"""Key files made on first use by processes that start together (registry/keyfiles.py)."""

from __future__ import annotations

import multiprocessing
import secrets
import stat

from registry.keyfiles import key_file_create


def _make_and_read(path, barrier, results):
    barrier.wait()  # every process tries at the same moment
    made = key_file_create(path, secrets.token_hex(32) + "\n")
    results.put((made, path.read_text(encoding="ascii")))


def test_key_file_create_concurrent_starts_end_with_one_whole_key(tmp_path):
    path = tmp_path / "keys" / ".secret_key"
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(8), context.Queue()
    processes = [context.Process(target=_make_and_read, args=(path, barrier, results)) for _ in range(8)]
    for process in processes:
        process.start()
    answers = [results.get(timeout=30) for _ in processes]
    for process in processes:
        process.join(timeout=30)
    assert sum(made for made, _ in answers) == 1
    assert {text for _, text in answers} == {path.read_text(encoding="ascii")}
    assert len(path.read_text(encoding="ascii")) == 65  # whole: 64 hex digits and the newline
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == [".secret_key"]  # no drafts left behind


def test_key_file_create_never_overwrites_a_key(tmp_path):
    path = tmp_path / ".log_key"
    path.write_text("the key in use\n", encoding="ascii")
    assert key_file_create(path, "another key\n") is False
    assert path.read_text(encoding="ascii") == "the key in use\n"
