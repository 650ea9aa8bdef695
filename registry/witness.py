"""Run a C2SP tlog-witness for the registry's log (or any log): ``python -m registry.witness``.

Runs without Django (standard library and ``cryptography``), like the verifier, so a mirror
operator runs it anywhere:

    python -m registry.witness init  --state /var/lib/urn-witness --name witness.example.org/w1
    python -m registry.witness serve --state /var/lib/urn-witness --listen 127.0.0.1:7380 \\
        --log 'urn.ogf.org/log+<key id>+<key>'
    python -m registry.witness latest https://witness.example.org/ --log '<log key>' --witness '<witness key>'

``init`` makes the witness's key (``witness.key``, readable by its owner only; never
overwritten) and prints its public key, which the registry's operator adds to
``REGISTRY_LOG_WITNESSES`` and readers give the verifier. ``serve`` answers
``POST <prefix>add-checkpoint`` and ``GET <prefix><sha256(origin) hex>/checkpoint`` for the
logs given with ``--log`` (the log's verifier key; its name is the origin). What it cosigned
is kept in ``witness.sqlite3`` in the state directory: back the directory up; a witness whose
state is lost must start under a new name (docs/transparency.md, "Running a witness").
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .keyfiles import key_file_create
from .logcore.cosignature import CosignatureVerifier, Cosigner, checkpoint_witnessed
from .logcore.note import NoteError, Verifier
from .logcore.witness import (
    MAX_BODY,
    Answer,
    Witness,
    WitnessEndpoint,
    WitnessRefused,
    WitnessStore,
    witness_latest,
)

KEY_FILE, STORE_FILE = "witness.key", "witness.sqlite3"


def witness_init(state: Path, name: str) -> Cosigner:
    """Make the witness's key in ``state`` (never overwriting one) and its store."""
    state.mkdir(parents=True, exist_ok=True)
    cosigner = Cosigner.generate(name)
    if not key_file_create(state / KEY_FILE, str(cosigner) + "\n"):  # never overwrite a key
        raise FileExistsError(errno.EEXIST, "a witness key is already there", str(state / KEY_FILE))
    WitnessStore(state / STORE_FILE).latest("")  # creates the tables
    return cosigner


def witness_load(state: Path) -> Cosigner:
    try:
        return Cosigner.parse((state / KEY_FILE).read_text(encoding="ascii"))
    except FileNotFoundError:
        raise SystemExit(
            f"No witness key in {state}: run `python -m registry.witness init --state {state} "
            "--name <your witness name>` first."
        ) from None


def make_handler(witness: Witness, prefix: str):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as tlog-witness recommends
        timeout = 10
        server_version = "urn-ogf-witness/1"

        def _answer(self, answer: Answer) -> None:
            body = answer.body.encode("utf-8")
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):  # noqa: N802 - http.server's name
            if self.path != prefix + "add-checkpoint":
                self._answer(Answer(404, f"Not found: POST {prefix}add-checkpoint is the witness.\n"))
                return
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                self.close_connection = True
                self._answer(Answer(411, "Send the request with a Content-Length.\n"))
                return
            if int(length) > MAX_BODY:
                self.close_connection = True
                self._answer(Answer(413, f"The request is larger than {MAX_BODY} bytes.\n"))
                return
            self._answer(witness.add_checkpoint(self.rfile.read(int(length))))

        def do_GET(self):  # noqa: N802
            path = self.path
            if path.startswith(prefix) and path.endswith("/checkpoint"):
                self._answer(witness.checkpoint_of(path[len(prefix) : -len("/checkpoint")]))
            else:
                self._answer(Answer(404, "Not found.\n"))

        def log_message(self, format, *args):  # noqa: A002 - http.server's signature
            if os.environ.get("REGISTRY_WITNESS_QUIET") != "1":
                sys.stderr.write(f"{self.log_date_time_string()} {format % args}\n")

    return Handler


def witness_server(state: Path, logs: list[Verifier], listen: str, prefix: str = "/") -> ThreadingHTTPServer:
    """The witness's HTTP server, bound (``listen`` is host:port; port 0 picks a free one)."""
    host, _, port = listen.rpartition(":")
    witness = Witness(witness_load(state), logs, WitnessStore(state / STORE_FILE))
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    server = ThreadingHTTPServer((host.strip("[]") or "127.0.0.1", int(port)), make_handler(witness, prefix))
    server.daemon_threads = True
    return server


def _latest(args) -> int:
    """``latest``: the witness's last cosigned checkpoint of the log (what a signer that lost its record
    adopts, docs/transparency.md 'Lost record'); 0 printed, 1 none or not valid, 2 not reachable."""
    try:
        log, witness = Verifier.parse(args.log), CosignatureVerifier.parse(args.witness)
    except NoteError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        note = witness_latest(WitnessEndpoint(witness, args.url), log.name)
    except WitnessRefused as exc:
        print(exc, file=sys.stderr)
        return 2
    if note is None:
        print(f"{witness.name} has cosigned no checkpoint of {log.name}.", file=sys.stderr)
        return 1
    try:
        checkpoint_witnessed(note, log, [witness], 1)
    except NoteError as exc:
        print(f"{witness.name} serves a checkpoint that does not verify: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(note)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m registry.witness",
        description="A C2SP tlog-witness: cosigns a log's checkpoints after "
        "checking they extend the last one it cosigned.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    init = commands.add_parser("init", help="make the witness key and store; print its public key")
    init.add_argument("--state", required=True, type=Path, help="the witness's directory")
    init.add_argument("--name", required=True, help="the witness's name, e.g. witness.example.org/w1")
    key = commands.add_parser("key", help="print the witness's public key")
    key.add_argument("--state", required=True, type=Path)
    serve = commands.add_parser("serve", help="serve add-checkpoint over HTTP")
    serve.add_argument("--state", required=True, type=Path)
    serve.add_argument("--listen", default="127.0.0.1:7380", help="host:port (default 127.0.0.1:7380)")
    serve.add_argument("--prefix", default="/", help="URL prefix of the calls (default /)")
    serve.add_argument(
        "--log",
        action="append",
        required=True,
        metavar="KEY",
        help="a log to witness: its verifier key (repeat for each log, or each key of a log)",
    )
    status = commands.add_parser("status", help="what the witness cosigned last, per log, and refused forks")
    status.add_argument("--state", required=True, type=Path)
    latest = commands.add_parser(
        "latest",
        help="print the last checkpoint a witness (any C2SP tlog-witness: its URL) cosigned for a log, "
        "checked with the log's key and the witness's",
    )
    latest.add_argument("url", help="the witness's URL prefix, as in REGISTRY_LOG_WITNESSES")
    latest.add_argument("--log", required=True, metavar="KEY", help="the log's verifier key (its name is the origin)")
    latest.add_argument("--witness", required=True, metavar="KEY", help="the witness's public key")
    args = parser.parse_args(argv)

    if args.command == "init":
        try:
            cosigner = witness_init(args.state, args.name)
        except FileExistsError:
            print(f"{args.state / KEY_FILE} exists: a witness key is never overwritten.", file=sys.stderr)
            return 1
        except NoteError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"Witness key written to {args.state / KEY_FILE} (keep it secret; back up the directory).")
        print(f"Witness public key (give it to the log and to readers): {cosigner.verifier()}")
        return 0
    if args.command == "key":
        print(witness_load(args.state).verifier())
        return 0
    if args.command == "latest":
        return _latest(args)
    if args.command == "status":
        store = WitnessStore(args.state / STORE_FILE)
        with store._connect() as connection:
            rows = connection.execute("SELECT origin, size, cosigned_at FROM logs ORDER BY origin").fetchall()
        for origin, size, at in rows:
            print(f"{origin}: size {size}, cosigned at {at}")
        for origin, at, reason, _ in store.evidence():
            print(f"REFUSED {origin} at {at}: {reason}")
        return 0
    try:
        logs = [Verifier.parse(text) for text in args.log]
    except NoteError as exc:
        print(f"--log: {exc}", file=sys.stderr)
        return 2
    server = witness_server(args.state, logs, args.listen, args.prefix)
    host, port = server.server_address[:2]
    print(
        f"Witness {witness_load(args.state).verifier().name} serving http://{host}:{port}{args.prefix} "
        f"for {', '.join(sorted({key.name for key in logs}))}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
