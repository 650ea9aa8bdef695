"""``verify --witness KEY --quorum N``: the checkpoint must carry enough valid C2SP cosignatures.

Most witnesses here are written in the test from the text of C2SP tlog-cosignature (key id over
0x04, ``cosignature/v1`` and a ``time`` line before the checkpoint's text, a 76-byte signature of
key id, big-endian time and Ed25519 signature), apart from the project's own code; the last test
runs two witnesses as processes, ours (``python -m registry.witness``) and ``aics-witness`` from
PyPI, which nobody here wrote, and has the site's signer ask both.
"""

import base64
import hashlib
import subprocess
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from registry.logcore.cosignature import CosignatureVerifier, cosignature_check

from .test_verify import (  # noqa: F401  (the live site fixture)
    _run,
    replaying_site,  # noqa: F401
    site,
)


class Witness:
    def __init__(self, name: str):
        self.name, self.private = name, Ed25519PrivateKey.generate()
        self.public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.key_id = hashlib.sha256(name.encode() + b"\n\x04" + self.public).digest()[:4]

    @property
    def vkey(self) -> str:
        encoded = base64.b64encode(b"\x04" + self.public).decode()
        return f"{self.name}+{self.key_id.hex()}+{encoded}"

    def cosign(self, note: str, *, when: int | None = None, text: str | None = None) -> str:
        """``note`` with this witness's cosignature line added (over ``text``, by default the note's own)."""
        body = note.split("\n\n", 1)[0] + "\n" if text is None else text
        when = int(time.time()) if when is None else when
        signature = self.private.sign(b"cosignature/v1\ntime " + str(when).encode() + b"\n" + body.encode())
        line = base64.b64encode(self.key_id + when.to_bytes(8, "big") + signature).decode()
        return note + f"\u2014 {self.name} {line}\n"


@pytest.fixture
def cosigned(replaying_site, tmp_path):  # noqa: F811
    """The copy of the site, and a function putting the witnesses' cosignatures on its checkpoint."""
    url, _ = replaying_site
    checkpoint = tmp_path / "copy" / "log" / "checkpoint"
    original = checkpoint.read_text()

    def cosign(*witnesses, **kwargs):
        note = original
        for witness in witnesses:
            note = witness.cosign(note, **kwargs)
        checkpoint.write_text(note)

    return url, cosign


def test_verify_witness_key_ids_follow_the_spec():
    witness = Witness("witness.example/w1")
    parsed = CosignatureVerifier.parse(witness.vkey)
    assert parsed.key_id == witness.key_id and parsed.public == witness.public and str(parsed) == witness.vkey


@pytest.mark.parametrize(
    "bad", ["witness.example/w1", "w+zz+AAAA", "w+00000000+" + base64.b64encode(b"\x04" + bytes(32)).decode()]
)
def test_verify_witness_malformed_keys_are_refused(bad):
    with pytest.raises(ValueError):
        CosignatureVerifier.parse(bad)


def test_verify_witness_a_log_key_is_not_a_cosigner_key(log_key):
    with pytest.raises(ValueError, match="signature type 0x01, not an Ed25519 cosigner key"):
        CosignatureVerifier.parse(str(log_key.verifier()))


def test_verify_with_a_quorum_of_two_witnesses(cosigned, log_key, tmp_path):
    url, cosign = cosigned
    one, two = Witness("witness.example/w1"), Witness("other.example/w2")
    cosign(one, two)
    status, out = _run(
        url,
        "--key",
        log_key.verifier(),
        "--state",
        tmp_path / "s.json",
        "--witness",
        one.vkey,
        "--witness",
        two.vkey,
        "--quorum",
        "2",
    )
    assert status == 0, out
    assert "cosigned by 2 witness(es): witness.example/w1 (" in out and "other.example/w2 (" in out
    assert "and cosigned by 2 of the 2 witness(es) given (quorum 2)" in out


def test_verify_fails_without_enough_cosignatures(cosigned, log_key, tmp_path):
    url, cosign = cosigned
    one, two = Witness("witness.example/w1"), Witness("other.example/w2")
    cosign(one)
    args = (
        url,
        "--key",
        log_key.verifier(),
        "--state",
        tmp_path / "s.json",
        "--witness",
        one.vkey,
        "--witness",
        two.vkey,
    )
    status, out = _run(*args)  # the default quorum: every witness given
    assert status == 1
    assert (
        f"DIFFERS: the checkpoint carries 1 valid cosignature(s) of the 2 required (--quorum 2): no "
        f"cosignature by other.example/w2+{two.key_id.hex()}"
    ) in out
    assert _run(*args, "--quorum", "1")[0] == 0


def test_verify_refuses_a_cosignature_of_another_checkpoint_or_from_the_future(cosigned, log_key, tmp_path):
    url, cosign = cosigned
    witness = Witness("witness.example/w1")
    args = (url, "--key", log_key.verifier(), "--state", tmp_path / "s.json", "--witness", witness.vkey)
    cosign(witness, text="registry.test/log\n1\n" + base64.b64encode(bytes(32)).decode() + "\n")
    status, out = _run(*args)
    assert status == 1 and "the cosignature by witness.example/w1 does not verify" in out
    cosign(witness, when=int(time.time()) + 86400)
    status, out = _run(*args)
    assert status == 1 and "the cosignature by witness.example/w1 is dated 86" in out and "s in the future" in out


def test_verify_quorum_counts_a_key_given_twice_once_and_warns(cosigned, log_key, tmp_path):
    url, cosign = cosigned
    one = Witness("witness.example/w1")
    cosign(one)
    args = (url, "--key", log_key.verifier(), "--state", tmp_path / "s.json", "--witness", one.vkey)
    with pytest.raises(SystemExit) as exit:  # two lines, one key: a quorum of two cannot be met
        _run(*args, "--witness", one.vkey, "--quorum", "2")
    assert exit.value.code == 2
    status, out = _run(*args, "--witness", one.vkey)  # the default quorum: every distinct key, one
    assert status == 0, out
    assert f"WARNING: --witness {one.vkey} is given twice; it counts once" in out
    assert "and cosigned by 1 of the 1 witness(es) given (quorum 1)" in out


def test_verify_quorum_counts_one_key_under_two_names_once(cosigned, log_key, tmp_path, capsys):
    """A cosignature's signature does not cover the name it is filed under: the line of one witness, copied
    under a second name with that name's key id, verifies for both names. It is still one witness."""
    url, cosign = cosigned
    one = Witness("witness.example/w1")
    alias = Witness("another.example/w9")
    alias.private, alias.public = one.private, one.public
    alias.key_id = hashlib.sha256(alias.name.encode() + b"\n\x04" + alias.public).digest()[:4]
    when = int(time.time())
    cosign(one, alias, when=when)  # two lines, both valid, one key
    args = (url, "--key", log_key.verifier(), "--state", tmp_path / "s.json", "--witness", one.vkey)
    with pytest.raises(SystemExit) as exit:
        _run(*args, "--witness", alias.vkey, "--quorum", "2")
    assert exit.value.code == 2
    assert "--quorum 2 needs at least 2 distinct --witness keys, and 1 are given" in capsys.readouterr().err
    status, out = _run(*args, "--witness", alias.vkey)
    assert status == 0, out
    assert "is the key of witness.example/w1 under another name; the two count as one witness" in out
    assert "cosigned by 1 witness(es): witness.example/w1 (" in out
    assert "and cosigned by 1 of the 1 witness(es) given (quorum 1)" in out
    # With a second, real witness required too, the alias does not stand in for it.
    two = Witness("other.example/w2")
    status, out = _run(*args, "--witness", alias.vkey, "--witness", two.vkey, "--quorum", "2")
    assert status == 1 and "carries 1 valid cosignature(s) of the 2 required (--quorum 2)" in out


def test_verify_counts_only_cosignatures_of_this_origin_and_this_checkpoint(cosigned, log_key, tmp_path):
    url, cosign = cosigned
    one, two = Witness("witness.example/w1"), Witness("other.example/w2")
    args = (url, "--key", log_key.verifier(), "--state", tmp_path / "s.json")
    args += ("--witness", one.vkey, "--witness", two.vkey, "--quorum", "1")
    served = (tmp_path / "copy" / "log" / "checkpoint").read_text().split("\n\n", 1)[0] + "\n"
    elsewhere = served.replace("registry.test/log\n", "elsewhere.test/log\n", 1)  # the same tree, another log
    cosign(one, text=elsewhere)
    status, out = _run(*args)
    assert status == 1 and "the cosignature by witness.example/w1 does not verify" in out
    size, root = served.split("\n")[1:3]
    older = served.replace(f"\n{size}\n{root}\n", f"\n{int(size) - 1}\n{root}\n", 1)  # another checkpoint
    cosign(two, text=older)
    status, out = _run(*args)
    assert status == 1 and "the cosignature by other.example/w2 does not verify" in out


def test_verify_witness_options_are_checked_before_anything_is_fetched(log_key):
    witness = Witness("witness.example/w1")
    for args in (
        ["--witness", witness.vkey, "--quorum", "2"],
        ["--witness", witness.vkey, "--quorum", "\u0661"],
        ["--witness", str(log_key.verifier())],
    ):
        with pytest.raises(SystemExit) as exit:
            _run("http://127.0.0.1:9/", *args)
        assert exit.value.code == 2


def test_cosignature_check_reads_only_the_witness_it_is_asked_about():
    witness, other = Witness("witness.example/w1"), Witness("witness.example/w1")  # same name, another key
    text = "registry.test/log\n3\n" + base64.b64encode(bytes(32)).decode() + "\n"
    note = other.cosign(text + "\n", text=text)
    assert cosignature_check(note, CosignatureVerifier.parse(witness.vkey))[0] is None
    when, why = cosignature_check(note, CosignatureVerifier.parse(other.vkey))
    assert why == "" and abs(when - time.time()) < 60


# --- against witnesses running as processes: ours and aics-witness (written elsewhere) ---------------


def test_verify_a_checkpoint_cosigned_by_ours_and_aics_witness_with_a_quorum_of_two(
    witnesses,
    site,  # noqa: F811
    log_key,  # noqa: F811
    tmp_path,
    settings,
):
    """The site's signer had both witnesses cosign each checkpoint (tests/transparency/conftest.py): the
    verifier accepts their cosignatures with --quorum 2, and refuses once one of them is missing."""
    import urllib.request

    from registry.logcore.cosignature import cosignatures_valid

    from ..factories import proposal_factory

    ours, aics = (str(key) for key in witnesses.keys)
    args = ("--key", log_key.verifier(), "--witness", ours, "--witness", aics)
    status, out = _run(site.url, *args, "--quorum", "2", "--state", tmp_path / "a.json")
    assert status == 0, out
    assert "cosigned by 2 witness(es): ours.test/w1 (" in out and "aics.test/w2 (" in out
    assert "and cosigned by 2 of the 2 witness(es) given (quorum 2)" in out
    # aics-witness stops answering, and the site publishes with one witness's cosignature
    # (REGISTRY_LOG_WITNESS_QUORUM=1): the next checkpoint carries our witness's only.
    settings.REGISTRY_LOG_WITNESS_QUORUM = 1
    witnesses.processes["aics"].terminate()
    witnesses.processes["aics"].wait(timeout=30)
    proposal_factory(site.applicant, state="approved", editor=site.editor, snid="delta")  # signed once committed
    with urllib.request.urlopen(site.url + "/log/checkpoint") as response:
        served = response.read().decode()
    assert "\n9\n" in served and set(cosignatures_valid(served, witnesses.keys)) == {"ours.test/w1"}
    status, out = _run(site.url, *args, "--quorum", "2", "--state", tmp_path / "b.json")
    assert status == 1, out
    assert (
        "DIFFERS: the checkpoint carries 1 valid cosignature(s) of the 2 required (--quorum 2): no cosignature "
        f"by aics.test/w2+{witnesses.aics_key.key_id.hex()}"
    ) in out
    assert _run(site.url, *args, "--quorum", "1", "--state", tmp_path / "c.json")[0] == 0
    witnesses.processes["aics"] = subprocess.Popen(["true"])  # stop() waits for it
