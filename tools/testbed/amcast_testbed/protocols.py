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
    # simulcast (ASSP): the ladder, lowest first, as Stream entries; () = one stream
    streams: tuple = ()
    # receiver-driven layers (AVMRC): no feedback, the receiver joins the layers' groups; run by
    # amcast_testbed/layered.py and tools/testbed/amcast-layered-node, not by amcast-node
    layered: bool = False

    def sender_desc(self, name="net"):
        """gst-launch fragment of the sending end, linked after the payloader."""
        return f"{self.sender} name={name}"

    def receiver_desc(self, name="net"):
        return f"{self.receiver} name={name}"


@dataclass(frozen=True)
class Stream:
    """One stream of a simulcast: picture size and the sender's rate limits (bit/s)."""
    width: int
    height: int
    min_bps: int
    max_bps: int


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


def single_stream_names():
    """The protocols with one stream (not simulcast, not layered): what `all` runs."""
    return [n for n, p in _REGISTRY.items() if not p.streams and not p.layered]


def node_names():
    """The protocols amcast-node (and so amcast-demo) runs: all but the layered ones."""
    return [n for n, p in _REGISTRY.items() if not p.layered]


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


# ASSP (papers/001): the paper's three rate ranges (100-200, 200-500, 600-1000 kbit/s) on the
# testbed's 640x360 picture scaled by 1/2, 3/4 and 1 (the display size is the top stream's)
register(Protocol("assp", "ASSP (papers/001): simulcast, each receiver on the highest stream its "
                  "TCP-friendly rate supports",
                  sender="asspsimulcast", receiver="asspsrc",
                  stats=("asmpsink-stats", "asmpsrc-stats"), pair=False,
                  streams=(Stream(320, 180, 100000, 200000), Stream(480, 270, 200000, 500000),
                           Stream(640, 360, 600000, 1000000))))


# AVMRC and its baselines (papers/003): cumulative layers on their own groups, receiver-driven;
# the scenarios send the paper's synthetic channels (avmrcsynth, rates from the file's [layers])
for _n, _what in (("avmrc", "AVMRC (papers/003): layered, receiver-driven, TCP Vegas model"),
                  ("rmrc", "RMRC: AVMRC's rules with the TCP Reno model (papers/003 4.1)"),
                  ("vmrc", "VMRC: AVMRC with static Vegas thresholds 6 (papers/003 5.4)"),
                  ("vmrc30", "VMRC: AVMRC with static Vegas thresholds 30 (papers/003 5.4)")):
    register(Protocol(_n, _what, sender="avmrclayers", receiver="avmrcsrc",
                      receiver_props={"protocol": _n}, pair=False, layered=True))


def stats_names():
    """Every protocol's stats message names (a node watches these)."""
    return {n for p in _REGISTRY.values() for n in p.stats}
