"""The testbed's protocol registry: protocol name -> how to build its sender and receiver.

amcast-node, amcast-demo and amcast-scenario know protocols only through this table, so a new
protocol (a new lib/cc file and its element) is one entry here. The names are lib/cc's registry
names (amcc_protocol_find), which the elements also take as their `protocol` property;
tests/evalvid/test_protocols.py checks the two registries agree.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Protocol:
    name: str               # lib/cc registry name
    summary: str
    sender: str             # element factory of the sending end (after the payloader)
    receiver: str           # element factory of the receiving end (before the depayloader)
    sender_props: dict = field(default_factory=dict)    # fixed properties that select it
    receiver_props: dict = field(default_factory=dict)
    stats: tuple = ()       # names of the element messages with the ends' statistics
    pair: bool = True       # one of the seeds' ASMP/TFMCC pair (`--protocol both`)

    def sender_desc(self, name="net"):
        """gst-launch fragment of the sending end, linked after the payloader."""
        return f"{self.sender} name={name}"

    def receiver_desc(self, name="net"):
        return f"{self.receiver} name={name}"


_REGISTRY = {}


def register(p):
    if p.name in _REGISTRY:
        raise ValueError(f"protocol {p.name!r} registered twice")
    _REGISTRY[p.name] = p
    return p


def names():
    return list(_REGISTRY)


def pair():
    """The seeds' comparison (ASMP and TFMCC): what `--protocol both` runs."""
    return [n for n, p in _REGISTRY.items() if p.pair]


def get(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown protocol {name!r} (known: {', '.join(_REGISTRY)})") from None


_ASMP_ELEMENTS = dict(sender="asmpsink", receiver="asmpsrc", stats=("asmpsink-stats", "asmpsrc-stats"))
register(Protocol("asmp", "ASMP (papers/000): delay-sensitive alone, TCP-fair against loss-based flows",
                  sender_props={"protocol": "asmp"}, receiver_props={"protocol": "asmp"},
                  **_ASMP_ELEMENTS))
register(Protocol("tfmcc", "TFMCC (RFC 4654), the comparator",
                  sender_props={"protocol": "tfmcc"}, receiver_props={"protocol": "tfmcc"},
                  **_ASMP_ELEMENTS))
register(Protocol("pgmcc", "PGMCC (Rizzo 2000), window-based comparator followed as a rate "
                  "(docs/pgmcc.md)", sender_props={"protocol": "pgmcc"},
                  receiver_props={"protocol": "pgmcc"}, pair=False, **_ASMP_ELEMENTS))


def stats_names():
    """Every protocol's stats message names (a node watches these)."""
    return {n for p in _REGISTRY.values() for n in p.stats}
