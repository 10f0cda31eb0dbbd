#!/usr/bin/python3
"""The testbed's protocol registry (tools/testbed/amcast_testbed/protocols.py) agrees with the
elements (no root, no namespaces): every registered protocol's sender and receiver elements
exist, the fixed properties that select it are accepted by them (lib/cc's registry names are the
elements' `protocol` enum nicks), every protocol the elements offer is registered, `both` is ASMP and TFMCC, and an unknown
name is an error that lists the known ones."""
import os
import sys

import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tools", "testbed"))
from amcast_testbed import protocols  # noqa: E402

checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def enum_nicks(el, prop):
    spec = el.find_property(prop)
    if spec is None:
        return set()
    cls = spec.default_value.__class__
    return {v.value_nick for v in cls.__enum_values__.values()}


def main():
    Gst.init(None)
    offered = set()
    check(len(protocols.names()) >= 2, f"registered: {protocols.names()}")
    # `--protocol both` is the seeds' comparison (amcast-scenario, amcast-sim): ASSP ran in it
    # too, half again the time of run-full-scenarios, in a column no table asked for
    check(protocols.pair() == ["asmp", "tfmcc"], f"--protocol both runs {protocols.pair()}")
    for name in protocols.names():
        p = protocols.get(name)
        for factory, props in ((p.sender, p.sender_props), (p.receiver, p.receiver_props)):
            el = Gst.ElementFactory.make(factory, None)
            check(el is not None, f"{name}: element {factory} exists")
            if el is None:
                continue
            offered |= enum_nicks(el, "protocol")
            try:
                for k, v in props.items():
                    el.set_property(k, v)
                ok = all(el.get_property(k).value_nick == v if hasattr(el.get_property(k), "value_nick")
                         else el.get_property(k) == v for k, v in props.items())
            except (TypeError, ValueError) as e:
                ok = False
                print(f"#   {e}")
            check(ok, f"{name}: {factory} accepts {props}")
        pipe = Gst.parse_launch(f"fakesrc ! {p.sender_desc()}")
        check(pipe.get_by_name("net") is not None, f"{name}: sender fragment parses")
    missing = offered - set(protocols.names())
    check(not missing, f"every protocol the elements offer is registered (missing: {sorted(missing)})")
    try:
        protocols.get("nope")
        check(False, "unknown name rejected")
    except KeyError as e:
        check("asmp" in str(e), f"unknown name rejected: {e}")
    print(f"# amtest: checks={checks} failures={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
