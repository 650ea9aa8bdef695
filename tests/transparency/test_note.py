"""C2SP signed notes and checkpoints: formats, and refusals that say why."""

import base64

import pytest

from registry.logcore.note import Checkpoint, NoteError, Signer, Verifier, checkpoint_open, key_id, note_open


@pytest.mark.parametrize("attempt", range(20))  # base64 keys often hold '+' themselves
def test_note_keys_round_trip_in_go_format(attempt):
    signer = Signer.generate("example.org/log")
    assert Signer.parse(str(signer)) == signer
    text = str(signer.verifier())
    name, hex_id, key = text.split("+", 2)
    assert name == "example.org/log" and len(hex_id) == 8
    raw = base64.b64decode(key)
    assert raw[0] == 1 and len(raw) == 33 and key_id(name, raw[1:]).hex() == hex_id
    assert Verifier.parse(text) == signer.verifier()


def test_note_signature_verifies_and_changed_text_does_not():
    signer = Signer.generate("example.org/log")
    note = signer.sign("hello\nworld\n")
    assert note.startswith("hello\nworld\n\n\u2014 example.org/log ")
    assert note_open(note, signer.verifier()) == "hello\nworld\n"
    with pytest.raises(NoteError, match="does not verify"):
        note_open(note.replace("world", "w0rld"), signer.verifier())


def test_note_from_another_key_is_refused_naming_the_signer():
    note = Signer.generate("example.org/log").sign("x\n")
    with pytest.raises(NoteError, match="no signature by other.example/log"):
        note_open(note, Signer.generate("other.example/log").verifier())


@pytest.mark.parametrize("bad", ["a+b", "name+00000000+AQ==", "na me+00+AAAA", "x+zz+@@"])
def test_note_malformed_verifier_keys_are_refused(bad):
    with pytest.raises(NoteError):
        Verifier.parse(bad)


def test_note_key_names_cannot_hold_spaces_or_plus():
    with pytest.raises(NoteError, match="not a valid key name"):
        Signer.generate("a b")


def test_checkpoint_text_is_origin_size_root():
    checkpoint = Checkpoint("example.org/log", 12, bytes(range(32)))
    assert checkpoint.text() == f"example.org/log\n12\n{base64.b64encode(bytes(range(32))).decode()}\n"
    assert Checkpoint.parse(checkpoint.text()) == checkpoint


def test_checkpoint_for_another_origin_is_refused():
    signer = Signer.generate("example.org/log")
    note = signer.sign(Checkpoint("elsewhere.org/log", 1, bytes(32)).text())
    with pytest.raises(NoteError, match="for the log 'elsewhere.org/log'"):
        checkpoint_open(note, signer.verifier())


ROOT_B64 = base64.b64encode(bytes(32)).decode()


@pytest.mark.parametrize(
    "text",
    [
        "o\n01\nAAAA\n",
        "o\nten\n" + ROOT_B64 + "\n",
        "o\n1\nAAAA\n",
        "o\n1\n",
        "o\n\u0664\u0661\u0665\n" + ROOT_B64 + "\n",
        "o\n4\u0661\n" + ROOT_B64 + "\n",
        "o\n\uff14\n" + ROOT_B64 + "\n",
        "o\n" + str(1 << 63) + "\n" + ROOT_B64 + "\n",
    ],
)
def test_checkpoint_malformed_bodies_are_refused(text):
    with pytest.raises(NoteError):
        Checkpoint.parse(text)


# Go's golang.org/x/mod/sumdb/note test vectors (note_test.go: TestSign, TestNewVerifier).
GO_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_NOTE = GO_TEXT + (
    "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZ"
    "SNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)


def test_note_matches_go_known_answers():
    signer = Signer.parse(GO_SIGNER)
    assert str(signer) == GO_SIGNER
    assert str(signer.verifier()) == GO_VERIFIER
    assert signer.sign(GO_TEXT) == GO_NOTE
    assert note_open(GO_NOTE, Verifier.parse(GO_VERIFIER)) == GO_TEXT


def test_checkpoint_time_line_is_read_in_ascii_digits_only():
    signed = Checkpoint.parse(f"o\n1\n{ROOT_B64}\ntime 2026-11-25T14:30:00Z\n")
    assert signed.time is not None and signed.time.year == 2026
    arabic = Checkpoint.parse(f"o\n1\n{ROOT_B64}\ntime \u0662\u0660\u0662\u0666-11-25T14:30:00Z\n")
    assert arabic.time is None  # strptime alone reads it as 2026
