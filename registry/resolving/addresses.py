"""Where the registry's own requests may go: the IANA special-purpose address registries, as a table.

The health checker and the editors' probe (``health.checked_address``) connect only to
addresses outside every block of the IANA IPv4 and IPv6 Special-Purpose Address
Registries (RFC 6890, RFC 8190), of the multicast blocks, and — for IPv6 — outside what
the IPv6 Address Space registry does not allocate as Global Unicast (everything outside
2000::/3: site-local fec0::/10, unique-local, link-local, multicast, the reserved
blocks). A table, not a few ad-hoc tests: a block is refused because the registry lists
it, whatever it is for, including blocks that are reachable in principle but are never
where a resolver lives (AS112, AMT, 6to4 relays, NAT64 prefixes that carry an IPv4
address of any kind, IPv4-mapped addresses, 6to4 and Teredo).

No Django here; ``health`` adds the operator's exceptions (``REGISTRY_RESOLVER_ALLOW_PRIVATE``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Block:
    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    name: str
    reference: str
    registry: str

    def describe(self) -> str:
        return f"{self.network} ({self.name}, {self.reference}) of the {self.registry}"


_V4 = "IANA IPv4 Special-Purpose Address Registry"
_V6 = "IANA IPv6 Special-Purpose Address Registry"
_V4_MULTICAST = "IANA IPv4 Multicast Address Space Registry"
_V6_SPACE = "IANA IPv6 Address Space registry"

#: (block, name, reference, registry), as the registries list them.
_TABLE = [
    ("0.0.0.0/8", '"This network"', "RFC 791", _V4),
    ("0.0.0.0/32", '"This host on this network"', "RFC 1122", _V4),
    ("10.0.0.0/8", "Private-Use", "RFC 1918", _V4),
    ("100.64.0.0/10", "Shared Address Space", "RFC 6598", _V4),
    ("127.0.0.0/8", "Loopback", "RFC 1122", _V4),
    ("169.254.0.0/16", "Link Local", "RFC 3927", _V4),
    ("172.16.0.0/12", "Private-Use", "RFC 1918", _V4),
    ("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890", _V4),
    ("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", _V4),
    ("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", _V4),
    ("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", _V4),
    ("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", _V4),
    ("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880", _V4),
    ("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880", _V4),
    ("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", _V4),
    ("192.31.196.0/24", "AS112-v4", "RFC 7535", _V4),
    ("192.52.193.0/24", "AMT", "RFC 7450", _V4),
    ("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", _V4),
    ("192.168.0.0/16", "Private-Use", "RFC 1918", _V4),
    ("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", _V4),
    ("198.18.0.0/15", "Benchmarking", "RFC 2544", _V4),
    ("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", _V4),
    ("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", _V4),
    ("240.0.0.0/4", "Reserved", "RFC 1112", _V4),
    ("255.255.255.255/32", "Limited Broadcast", "RFC 919", _V4),
    ("224.0.0.0/4", "Multicast", "RFC 5771", _V4_MULTICAST),
    ("::1/128", "Loopback Address", "RFC 4291", _V6),
    ("::/128", "Unspecified Address", "RFC 4291", _V6),
    ("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", _V6),
    ("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", _V6),
    ("64:ff9b:1::/48", "IPv4-IPv6 Translat.", "RFC 8215", _V6),
    ("100::/64", "Discard-Only Address Block", "RFC 6666", _V6),
    ("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", _V6),
    ("2001::/23", "IETF Protocol Assignments", "RFC 2928", _V6),
    ("2001::/32", "TEREDO", "RFC 4380", _V6),
    ("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", _V6),
    ("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", _V6),
    ("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", _V6),
    ("2001:2::/48", "Benchmarking", "RFC 5180", _V6),
    ("2001:3::/32", "AMT", "RFC 7450", _V6),
    ("2001:4:112::/48", "AS112-v6", "RFC 7535", _V6),
    ("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", _V6),
    ("2001:20::/28", "ORCHIDv2", "RFC 7343", _V6),
    ("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", _V6),
    ("2001:db8::/32", "Documentation", "RFC 3849", _V6),
    ("2002::/16", "6to4", "RFC 3056", _V6),
    ("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", _V6),
    ("3fff::/20", "Documentation", "RFC 9637", _V6),
    ("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", _V6),
    ("fc00::/7", "Unique-Local", "RFC 4193", _V6),
    ("fe80::/10", "Link-Local Unicast", "RFC 4291", _V6),
    ("fec0::/10", "Site-local (deprecated)", "RFC 3879", _V6_SPACE),
    ("ff00::/8", "Multicast", "RFC 4291", _V6_SPACE),
]
SPECIAL_PURPOSE: tuple[Block, ...] = tuple(
    Block(ipaddress.ip_network(block), name, reference, registry) for block, name, reference, registry in _TABLE
)
#: IPv6 addresses are allocated for the public Internet only from here (IPv6 Address Space registry).
GLOBAL_UNICAST = Block(ipaddress.ip_network("2000::/3"), "Global Unicast", "RFC 4291", _V6_SPACE)


def special_block(address) -> Block | None:
    """The registry block ``address`` (text or ipaddress object) lies in, most specific first;
    for an IPv6 address outside 2000::/3, a block naming that; None for a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0]) if isinstance(address, str) else address
    found = [block for block in SPECIAL_PURPOSE if block.network.version == ip.version and ip in block.network]
    if found:
        return max(found, key=lambda block: block.network.prefixlen)
    if ip.version == 6 and ip not in GLOBAL_UNICAST.network:
        return Block(ipaddress.ip_network(f"{ip}/128"), "not in Global Unicast 2000::/3", "RFC 4291", _V6_SPACE)
    return None
