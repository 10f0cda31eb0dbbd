"""Emulated network out of Linux network namespaces.

Hosts are namespaces with one or more veth interfaces; routers are namespaces holding a Linux bridge
with IGMPv3 snooping and a querier, so a group reaches only the ports whose hosts joined it. All
hosts share one IPv4 subnet (the routers are layer-2 switches). A link may carry, per direction,
a bottleneck (tbf: rate + drop-tail byte queue, on the egress of the sending end) and a one-way
propagation delay (the user-space delay line <build>/tools/testbed/delayline, run in a namespace
of its own between the two ends, because this kernel has no netem).

    with Topology() as t:
        t.add_router("r1"); t.add_host("a"); t.add_host("b")
        t.link("a", "r1"); t.link("r1", "b", rate=1_500_000, queue="50p", delay_ms=10)
        t.build()
        p = t.run("b", ["iperf3", "-s", "-1"])
        ...
    # every process started here is stopped and every namespace deleted, even on failure

Per-direction values: rate, queue, delay_ms and loss_pct take either one value (both
directions) or a pair (a->b, b->a). loss_pct drops frames at random in the delay line
(Bernoulli, seeded: repeatable); loss_port limits it to UDP datagrams to that port (e.g. RTCP). Only processes started through run() are ever signalled, by PID.
"""
import atexit
import json
import os
import shutil
import signal
import subprocess
import time

MTU_FRAME = 1514          # bytes of an Ethernet frame carrying a full 1500-byte IP packet
SUBNET = "10.77"          # hosts get 10.77.X.Y/16; nothing outside the namespaces uses it
SNOOP_DELAY_S = 1.5        # > mcast_query_response_interval (1 s): bridges flood until then
_live = []                # topologies not yet torn down (for atexit / signal cleanup)


def _sh(argv, check=True):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip() or r.returncode}")
    return r.stdout


def _pair(v):
    """One value for both directions, or an (a->b, b->a) pair."""
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError(f"expected one value or a pair, got {v!r}")
        return v[0], v[1]
    return v, v


def queue_bytes(q, rate):
    """Drop-tail queue size in bytes: int = bytes, "Np" = N full-size frames, None = 100 ms at rate."""
    if q is None:
        return max(4 * MTU_FRAME, int(rate / 8 * 0.1))
    if isinstance(q, str) and q.endswith("p"):
        return int(q[:-1]) * MTU_FRAME
    return int(q)


def tbf_burst(rate):
    """Token bucket depth: two full frames, or 2 ms of the rate when that is larger."""
    return max(2 * MTU_FRAME, int(rate / 8 * 0.002))


def find_built_tool(name, env_var):
    """A binary of tools/testbed: $ENV_VAR, $AMCAST_BUILD/tools/testbed/NAME, then PATH; None if
    none is executable."""
    cands = [os.environ.get(env_var)]
    if os.environ.get("AMCAST_BUILD"):
        cands.append(os.path.join(os.environ["AMCAST_BUILD"], "tools/testbed", name))
    cands.append(shutil.which(name))
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    return None


def find_delayline():
    """The delay line binary: $AMCAST_DELAYLINE, $AMCAST_BUILD/tools/testbed, then PATH."""
    path = find_built_tool("delayline", "AMCAST_DELAYLINE")
    if not path:
        raise RuntimeError("delay line binary not found: build it (ninja) and set AMCAST_BUILD "
                           "or AMCAST_DELAYLINE")
    return path


class Topology:
    def __init__(self, prefix=None, delayline=None, log_dir=None):
        if not Topology._count:
            sweep_stale()
        self.prefix = prefix or f"amt{os.getpid()}-"
        if Topology._count:
            self.prefix += f"{Topology._count}-"
        Topology._count += 1
        self.delayline = delayline
        self.log_dir = log_dir    # delay line counters go to LOG_DIR/delayline-A-B.log
        self.nodes = {}           # name -> {"kind", "ns", "ifaces": {peer: ifname}, "addr"}
        self.links = []           # dicts describing each link
        self.procs = []           # Popen objects started by run()
        self.namespaces = []      # every namespace created, in creation order
        self.built = False
        self._nhosts = 0
        _live.append(self)

    _count = 0

    # ---- description -------------------------------------------------------------------------
    def add_host(self, name):
        self._add(name, "host")

    def add_router(self, name):
        self._add(name, "router")

    def _add(self, name, kind):
        if name in self.nodes:
            raise ValueError(f"node {name!r} defined twice")
        if not name.replace("_", "").isalnum() or len(self.prefix + name) > 40:
            raise ValueError(f"bad node name {name!r}")
        node = {"kind": kind, "ns": self.prefix + name, "ifaces": {}, "addr": None}
        if kind == "host":
            self._nhosts += 1
            n = self._nhosts
            node["addr"] = f"{SUBNET}.{n // 250}.{n % 250 + 1}"
        self.nodes[name] = node
        if self.built:
            self._create_node(name)

    def link(self, a, b, rate=None, queue=None, delay_ms=0, loss_pct=0, loss_port=None):
        for n in (a, b):
            if n not in self.nodes:
                raise ValueError(f"link {a}-{b}: unknown node {n!r}")
        if b in self.nodes[a]["ifaces"]:
            raise ValueError(f"link {a}-{b} defined twice")
        rate_ab, rate_ba = _pair(rate)
        q_ab, q_ba = _pair(queue)
        d_ab, d_ba = _pair(delay_ms)
        l_ab, l_ba = _pair(loss_pct)
        for v in (l_ab, l_ba):
            if not 0 <= float(v or 0) <= 100:
                raise ValueError(f"link {a}-{b}: loss_pct {v} not in 0..100")
        ln = {"a": a, "b": b, "rate": (rate_ab, rate_ba), "queue": (q_ab, q_ba),
              "delay_ms": (float(d_ab or 0), float(d_ba or 0)),
              "loss_pct": (float(l_ab or 0), float(l_ba or 0)), "loss_port": loss_port,
              "index": len(self.links)}
        for x, y in ((a, b), (b, a)):
            node = self.nodes[x]
            node["ifaces"][y] = "eth%d" % len(node["ifaces"]) if node["kind"] == "host" \
                else "p%d" % len(node["ifaces"])
        self.links.append(ln)
        if self.built:
            self._create_link(ln)
        return ln

    # ---- queries -----------------------------------------------------------------------------
    def ns(self, name):
        return self.nodes[name]["ns"]

    def addr(self, name):
        return self.nodes[name]["addr"]

    def iface(self, name, peer=None):
        """A host's interface (toward peer, or its first one)."""
        ifs = self.nodes[name]["ifaces"]
        return ifs[peer] if peer else next(iter(ifs.values()))

    def route_hosts(self, name, toward, hosts):
        """Reach each of `hosts` from host `name` out of its interface toward `toward` (after
        build()): that interface gets the host's own address as a /32 (a host with a second
        link has no address on it, and multicast it sends there would leave from 0.0.0.0, which
        receivers drop) and a /32 route per host. So a host on two segments (an
        application-level relay between two bridges that are not linked) answers the far
        segment through the right interface; ARP works unchanged, no IP forwarding."""
        ns, ifn = self.ns(name), self.nodes[name]["ifaces"][toward]
        if self.addr(name) + "/" not in self._ip(ns, "-4", "addr", "show", "dev", ifn):
            self._ip(ns, "addr", "add", self.addr(name) + "/32", "dev", ifn)
        for h in hosts:
            self._ip(ns, "route", "add", self.addr(h) + "/32", "dev", ifn)

    def describe(self):
        """Plain dict for RUN/meta.json."""
        return {"prefix": self.prefix,
                "nodes": {n: {"kind": v["kind"], "addr": v["addr"]} for n, v in self.nodes.items()},
                "links": [{"a": l["a"], "b": l["b"], "rate_bps": list(l["rate"]),
                           "queue_bytes": [queue_bytes(q, r) if r else None
                                           for q, r in zip(l["queue"], l["rate"])],
                           "delay_ms": list(l["delay_ms"]), "loss_pct": list(l["loss_pct"]),
                           "loss_port": l["loss_port"]} for l in self.links]}

    # ---- building ----------------------------------------------------------------------------
    def build(self):
        try:
            for name in self.nodes:
                self._create_node(name)
            for ln in self.links:
                self._create_link(ln)
            self.built = True
        except BaseException:
            self.teardown()
            raise
        return self

    def _ip(self, ns, *args):
        return _sh(["ip", "-n", ns, *args])

    def exec(self, name, argv, check=True):
        """Run a short command inside a node's namespace and return its stdout."""
        return _sh(["ip", "netns", "exec", self.ns(name), *argv], check=check)

    def _sysctl(self, ns, key, val):
        _sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={val}"])

    def _new_ns(self, ns):
        _sh(["ip", "netns", "add", ns])
        self.namespaces.append(ns)
        self._ip(ns, "link", "set", "lo", "up")
        # no IPv6 chatter (router solicitations, MLD) on the emulated links
        self._sysctl(ns, "net.ipv6.conf.all.disable_ipv6", 1)
        self._sysctl(ns, "net.ipv6.conf.default.disable_ipv6", 1)

    def _create_node(self, name):
        node = self.nodes[name]
        ns = node["ns"]
        self._new_ns(ns)
        if node["kind"] == "router":
            self._ip(ns, "link", "add", "br0", "type", "bridge", "mcast_snooping", "1",
                     "mcast_igmp_version", "3", "mcast_query_interval", "1000",
                     "mcast_query_response_interval", "100", "mcast_startup_query_interval", "100")
            # the querier only after the intervals: enabling it arms a "no querier yet" delay of
            # one response interval (10 s by default), during which the bridge floods every group
            self._ip(ns, "link", "set", "br0", "type", "bridge", "mcast_querier", "1")
            # snooping starts filtering one response interval (1 s) after the bridge comes up
            self._snoop_ready = time.monotonic() + SNOOP_DELAY_S
            self._ip(ns, "link", "set", "br0", "up")
        else:
            # IGMPv3: no report suppression, so the bridge learns every receiver's port
            self._sysctl(ns, "net.ipv4.conf.all.force_igmp_version", 3)
            self._sysctl(ns, "net.ipv4.conf.default.force_igmp_version", 3)

    def _create_link(self, ln):
        a, b = ln["a"], ln["b"]
        na, nb = self.nodes[a], self.nodes[b]
        ia, ib = na["ifaces"][b], nb["ifaces"][a]
        delayed = any(d > 0 for d in ln["delay_ms"] + ln["loss_pct"])   # the delay line does both
        if not delayed:
            self._ip(na["ns"], "link", "add", ia, "type", "veth", "peer", "name", ib,
                     "netns", nb["ns"])
        else:
            dns = f"{self.prefix}dl{ln['index']}"
            self._new_ns(dns)
            ln["dl_ns"] = dns
            self._ip(na["ns"], "link", "add", ia, "type", "veth", "peer", "name", "da",
                     "netns", dns)
            self._ip(nb["ns"], "link", "add", ib, "type", "veth", "peer", "name", "db",
                     "netns", dns)
            for d in ("da", "db"):
                self._ip(dns, "link", "set", d, "promisc", "on", "up")
                self._offloads_off(dns, d)
        for node, ifn, peer in ((na, ia, b), (nb, ib, a)):
            ns = node["ns"]
            self._offloads_off(ns, ifn)
            if node["kind"] == "router":
                self._ip(ns, "link", "set", ifn, "master", "br0")
                if self.nodes[peer]["kind"] == "router":
                    # snooping bridges do not send reports upstream: mark router-facing ports
                    _sh(["ip", "netns", "exec", ns, "bridge", "link", "set", "dev", ifn,
                         "mcast_router", "2"])
            self._ip(ns, "link", "set", ifn, "up")
            if node["kind"] == "host":
                if not self._has_addr(ns, node["addr"]):
                    self._ip(ns, "addr", "add", node["addr"] + "/16", "dev", ifn)
                    self._ip(ns, "route", "add", "224.0.0.0/4", "dev", ifn)
                self._sysctl(ns, f"net.ipv4.conf.{ifn}.force_igmp_version", 3)
        for (node, ifn), rate, q in zip(((na, ia), (nb, ib)), ln["rate"], ln["queue"]):
            if rate:
                rate = int(rate)
                self._ip(node["ns"], "link", "set", ifn, "txqueuelen", "1000")
                _sh(["tc", "-n", node["ns"], "qdisc", "replace", "dev", ifn, "root", "tbf",
                     "rate", f"{rate}bit", "burst", str(tbf_burst(rate)),
                     "limit", str(queue_bytes(q, rate))])
        if delayed:
            binary = self.delayline or find_delayline()
            d_ab, d_ba = ln["delay_ms"]
            # frames entering "da" come from a and leave toward b after d_ab, and vice versa
            log = os.path.join(self.log_dir, f"delayline-{a}-{b}.log") if self.log_dir else None
            argv = [binary, "-r"]
            if any(ln["loss_pct"]):
                argv += ["-l", "%g,%g" % ln["loss_pct"], "-s", str(ln["index"] + 1)]
                if ln["loss_port"]:
                    argv += ["-p", str(int(ln["loss_port"]))]
            ln["dl_proc"] = self.run_ns(dns, argv + ["da", "db", f"{d_ab}", f"{d_ba}"],
                                        log=log, pipe_stdout=True)
            self._wait_delayline(ln["dl_proc"])

    def _wait_delayline(self, proc):
        # the delay line prints "ready" once both sockets are bound
        line = proc.stdout.readline() if proc.stdout else ""
        if "ready" not in line:
            raise RuntimeError(f"delay line did not start: {line.strip() or proc.poll()}")

    def wait_snooping(self):
        """Sleep until every bridge filters by membership (before that it floods all groups)."""
        left = getattr(self, "_snoop_ready", 0) - time.monotonic()
        if left > 0:
            time.sleep(left)

    def _has_addr(self, ns, addr):
        # the host's own address (lo's 127.0.0.1 made a host with two links never get one)
        return f"inet {addr}/" in self._ip(ns, "-4", "addr", "show")

    def _offloads_off(self, ns, ifn):
        # GSO/TSO super-frames would pass a delay line or shaper as one 64 KB "packet"
        _sh(["ip", "netns", "exec", ns, "ethtool", "-K", ifn, "tx", "off", "tso", "off",
             "gso", "off", "gro", "off"], check=False)

    # ---- processes ---------------------------------------------------------------------------
    def run(self, name, argv, log=None, env=None):
        """Start argv inside node `name`'s namespace; output goes to the file `log` (or DEVNULL)."""
        return self.run_ns(self.ns(name), argv, log=log, env=env)

    def run_ns(self, ns, argv, log=None, env=None, pipe_stdout=False):
        """Start argv in namespace ns; stdout+stderr to the file `log`, else DEVNULL/inherited.
        pipe_stdout: stdout is a text pipe (stderr still goes to `log`)."""
        logf = open(log, "ab") if log else None
        if pipe_stdout:
            out, err = subprocess.PIPE, logf
        else:
            out, err = (logf, subprocess.STDOUT) if logf else (subprocess.DEVNULL, None)
        try:
            p = subprocess.Popen(["ip", "netns", "exec", ns, *map(str, argv)], stdout=out,
                                 stderr=err, env=env, text=pipe_stdout)
        finally:
            if logf:
                logf.close()
        self.procs.append(p)
        return p

    @staticmethod
    def stop(proc, grace=5.0):
        """SIGINT, wait `grace` s, then SIGTERM, then SIGKILL; by PID only. Returns the exit code."""
        if proc.poll() is not None:
            return proc.returncode
        for sig, wait in ((signal.SIGINT, grace), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                break
            try:
                return proc.wait(wait)
            except subprocess.TimeoutExpired:
                continue
        return proc.poll()

    @classmethod
    def finish(cls, proc, timeout):
        """Waits up to `timeout` s for proc to end by itself, else stops it (stop()). Returns
        the exit code."""
        try:
            return proc.wait(max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return cls.stop(proc)

    def qdisc_stats(self):
        """{"A>B": tbf counters (tc -s: sent packets/bytes, drops, overlimits)} of every shaped
        direction: what the shapers dropped, to set against the receivers' losses."""
        out = {}
        for ln in self.links:
            for (x, y), rate in zip(((ln["a"], ln["b"]), (ln["b"], ln["a"])), ln["rate"]):
                if not rate:
                    continue
                node = self.nodes[x]
                p = subprocess.run(["tc", "-s", "-j", "-n", node["ns"], "qdisc", "show", "dev",
                                    node["ifaces"][y]], capture_output=True, text=True)
                try:
                    q = next(q for q in json.loads(p.stdout) if q.get("kind") == "tbf")
                    out[f"{x}>{y}"] = {k: q.get(k) for k in ("packets", "bytes", "drops",
                                                             "overlimits", "backlog")}
                except (ValueError, StopIteration):
                    out[f"{x}>{y}"] = None
        return out

    def teardown(self):
        """Stop every process started here and delete every namespace created. Idempotent."""
        for p in reversed(self.procs):
            try:
                self.stop(p, grace=2.0)
            except Exception:
                pass
        self.procs = []
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        self.namespaces = []
        self.built = False
        if self in _live:
            _live.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.teardown()
        return False


def leftover_namespaces(prefix="amt"):
    """Namespaces whose name starts with prefix (for tests: none may remain after a run)."""
    out = _sh(["ip", "netns", "list"], check=False)
    return [l.split()[0] for l in out.splitlines() if l.startswith(prefix)]


def sweep_stale(prefix="amt"):
    """Delete namespaces named PREFIX<pid>-... whose creating process is gone: a test killed
    with SIGKILL (meson's timeout, a killed runner) never runs its teardown. Namespaces of a
    live PID, or named otherwise, are left alone. Returns the names deleted."""
    gone = []
    for ns in leftover_namespaces(prefix):
        pid = ns[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            gone.append(ns)
    return gone


def _teardown_all():
    for t in list(_live):
        t.teardown()


def _on_signal(signum, frame):
    _teardown_all()
    raise SystemExit(128 + signum)


atexit.register(_teardown_all)
for _s in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_s, _on_signal)
# SIGINT raises KeyboardInterrupt, which unwinds through `with Topology()` and atexit
