"""What an expert reads in the published registrations under tests/seeds/ (the RFCs of the first set):
exact examples, grammar rules, top rule, registrant. Data for the document tests."""

from pathlib import Path

SEEDS = Path(__file__).resolve().parent / "seeds"
# The documents of the first set (their sources: tests/seeds/README.md), by prefix.
SEED_FILES = {
    "000": "img-registration.txt",
    "001": "rfc4198-fdc.txt",
    "002": "rfc3085-newsml-ocr.txt",
    "003": "urn-5-registration.txt",
    "004": "gfd191.tex",
}


def seed(prefix: str) -> str:
    return (SEEDS / SEED_FILES[prefix]).read_text(encoding="utf-8")


UUID_RULES = [
    "UUID",
    "time-low",
    "time-mid",
    "time-high-and-version",
    "clock-seq-and-reserved",
    "clock-seq-low",
    "node",
    "hexOctet",
    "hexDigit",
]
UUID_EXAMPLE = ["urn:ogf:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"]
JTC1 = ("", "JTC 1/SC6 (ASN.1 Rapporteur Group)", "", "")
IALA = "International Association of Marine Aids to Navigation and Lighthouse Authorities (IALA)"

# file -> snid, (valid, invalid) examples, grammar rule names, top rule, (name, organisation, e-mail, address)
PUBLISHED = {
    "img-registration.txt": (
        "",
        ([], []),
        [
            "NSS",
            "ProviderId",
            "DateId",
            "IMGRootId",
            "FragmentId",
            "label",
            "toplabel",
            "CCYY",
            "MM",
            "DD",
            "alphanum",
            "symbol",
        ],
        "NSS",
        ("", "", "", ""),
    ),
    "rfc4198-fdc.txt": (
        "fdc",
        (
            [
                "urn:ogf:fdc:example.com:2002:A572007",
                "urn:ogf:fdc:example.net:200406:ivr:51089",
                "urn:ogf:fdc:example.org:20010527:img089322-038",
            ],
            [],
        ),
        ["NSS", "ProviderId", "DateId", "ResourceId", "label", "toplabel", "CCYY"],
        "NSS",
        (
            "Dave Tessman",
            "Zelestra",
            "dtessman@zelestra.com",
            "2314 Henrietta Avenue\nLa Crescenta, CA 91214-3007\nUSA",
        ),
    ),
    "rfc3085-newsml-ocr.txt": (
        "newsm",
        (["urn:ogf:newsm:iptc.org:20001006:NewsM_v1.0:1", "urn:ogf:newsm:reuters.com20000206"], []),
        ["NSS", "Providerld", "Dateld", "Update", "date", "century", "year", "string", "char", "posint"],
        "NSS",
        ("", "", "", ""),
    ),
    "urn-5-registration.txt": (
        "urn-5",
        (
            [
                "urn:ogf:urn-5:-URS6S2A3+chjjHVlTkQ9KT5nu2",
                "urn:ogf:urn-5:JtTCacwJ1e1N0yqTULRG7C1GLq8:4",
                "urn:ogf:urn-5:Od4rB2QNOLt1e5wITWSJ+9U2Ve+Zon6N3d:17",
            ],
            [],
        ),
        ["nss", "random-number", "urn-string", "base64", "other"],
        "nss",
        (
            "B. Fallenstein",
            "University of Jyvskyl Hyperstructure Group",
            "b.fallenstein&gmx.de",
            "Dept. of Mathematical Information Technology\nUniversity of Jyvskyl\nPO. Box 35 (Agora)\n"
            "FIN-40014 Jyvskyl\nFinland",
        ),
    ),
    "gfd191.tex": (
        "example",
        (
            [
                "urn:ogf:example:cluster:2009:example.net:42",
                "urn:ogf:example:cluster:2010:example.net:00784505476220484608",
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:1",
                "urn:ogf:example:supercomputer:2011:xn--tcklt4eq6h7d1cbe.example.org:1",
            ],
            [
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk:mark1",
                "urn:ogf:example:supercomputer:2011:colossus.bletchleypark.org.uk",
                "urn:ogf:example:supercomputer:1949:colossus.bletchleypark.org.uk:1",
                "urn:ogf:example:supercomputer:2000:%e3%82%b9%e3%83%bc%e3%83%91%e3%83%bc%e3%82%b3%e3%83%b3"
                "%e3%83%94%e3%83%a5%e3%83%bc%e3%82%bf.example.org:1",
            ],
        ),
        ["EXAMPLE-URN", "SNID", "TYPE", "YEAR", "DOMAIN", "LDH-LABEL", "INDEX", "QUERY", "FRAGMENT"],
        "EXAMPLE-URN",
        ("", "", "", ""),
    ),
    "rfc4122-uuid-kramdown.md": ("uuid", (UUID_EXAMPLE, []), UUID_RULES, "UUID", JTC1),
    "rfc4122bis-uuid-rfc8141-template.md": ("uuid", (UUID_EXAMPLE, []), UUID_RULES, "UUID", JTC1),
    "adi-trustframe.md": (
        "adi",
        (
            [
                "urn:ogf:adi:DmJFiNCt6qKBqL5TX9cofWkVA27wDQp4eXfaJh13XUwa",
                "urn:ogf:adi:DmJFiNCt6qKBqL5TX9cofWkVA27wDQp4eXfaJh13XUwa:2:"
                "64MAzrPhKLBHFRy25uC82Eo5MU1FC1XLdM2Jvsx2tTMv",
            ],
            [],
        ),
        [],
        "",
        ("Technical Program Manager", "TrustFrame, Inc.", "info@trustframe.com", ""),
    ),
    "mrn-iala.md": (
        "mrn",
        ([], []),
        [],
        "",
        (IALA, IALA, "info@mrnregistry.org", "10 rue des Gaudines\n78100\nSt Germain en Laye\nFrance"),
    ),
    "whip-ietf-subnamespace.md": (
        "whip",
        ([], []),
        [],
        "",
        (
            "",  # "A designated expert will monitor the WHIP public mailing list.": no one's name
            "The Internet Engineering Task Force.",
            "wish@ietf.org",
            "",
        ),
    ),
}


def published(name: str) -> str:
    return (SEEDS / name).read_text(encoding="utf-8")
