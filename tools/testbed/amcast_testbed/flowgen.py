#!/usr/bin/python3
"""Competing traffic, one process per flow end, run inside a namespace; always bounded in time.

  flowgen.py sink tcp|udp PORT CSV --t0 EPOCH --until S [--interval S]
      counts the bytes received (all connections / datagrams on PORT) and appends one row
      "time_s,bytes" per interval to CSV (time_s: CLOCK_REALTIME at the interval's start, as in
      the elements' traces); a row is written for every interval, idle ones too.
  flowgen.py tcp ADDR PORT --t0 EPOCH --on A:B [--on C:D ...] [--cc reno|cubic]
      one TCP connection per on-period [t0+A, t0+B), sending as fast as the network allows,
      congestion control chosen per socket (TCP_CONGESTION; the namespace default is bbr).
  flowgen.py udp ADDR PORT --t0 EPOCH --on A:B [...] --rate BPS [--size BYTES]
      paced UDP at BPS (payload bits) during each on-period: CBR, or a square wave when given
      alternating on-periods.
"""
import argparse
import socket
import sys
import time

CHUNK = b"\0" * 65536


def wait_until(t):
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def periods(ons, t0):
    out = []
    for s in ons:
        a, b = (float(x) for x in s.split(":"))
        if b <= a:
            raise SystemExit(f"flowgen: empty on-period {s}")
        out.append((t0 + a, t0 + b))
    return sorted(out)


def sink(proto, port, path, t0, until, interval, window=None):
    import selectors
    sel = selectors.DefaultSelector()
    if proto == "tcp":
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if window:
            # the receiver-imposed window of the papers' ns-2 runs; accepted sockets inherit
            # both. A set SO_RCVBUF locks the buffer: receive autotuning would raise the clamp
            # with it (tcp_rcv_space_adjust), and did (8000 bytes let 2.8 Mbit/s through at 40 ms)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, window)
            ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, window)
        ls.bind(("0.0.0.0", port))
        ls.listen(16)
    else:
        ls = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        ls.bind(("0.0.0.0", port))
    ls.setblocking(False)
    sel.register(ls, selectors.EVENT_READ, "listen")
    end = t0 + until
    f = open(path, "w")
    f.write("time_s,bytes\n")
    f.flush()
    print("listening", flush=True)
    start = max(t0, time.time())
    k, nbytes = 0, 0
    while True:
        now = time.time()
        tick = start + (k + 1) * interval
        if now >= tick:
            f.write(f"{start + k * interval:.6f},{nbytes}\n")
            f.flush()
            k, nbytes = k + 1, 0
            if tick >= end:
                break
            continue
        for key, _ in sel.select(timeout=tick - now):
            s = key.fileobj
            if key.data == "listen" and proto == "tcp":
                c, _ = s.accept()
                c.setblocking(False)
                sel.register(c, selectors.EVENT_READ, "conn")
                continue
            try:
                data = s.recv(1 << 16)
            except (BlockingIOError, ConnectionError):
                continue
            if proto == "tcp" and not data:
                sel.unregister(s)
                s.close()
            nbytes += len(data)
    f.close()


def tcp(addr, port, t0, ons, cc):
    sent = 0
    for a, b in periods(ons, t0):
        wait_until(a)
        if time.time() >= b:
            continue
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        s.settimeout(max(0.1, b - time.time()))
        try:
            s.connect((addr, port))
            s.settimeout(0.2)                  # so the period's end is never overrun by > 0.2 s
            while time.time() < b:
                try:
                    sent += s.send(CHUNK)
                except socket.timeout:
                    pass
        except OSError as e:
            print(f"flowgen tcp: {e}", file=sys.stderr)
        finally:
            s.close()
    print(sent)


def udp(addr, port, t0, ons, rate, size):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = b"\0" * size
    gap = size * 8 / rate
    n = 0
    for a, b in periods(ons, t0):
        i = 0
        while True:
            due = a + i * gap
            if due >= b:
                break
            wait_until(due)
            try:
                s.sendto(payload, (addr, port))
                n += 1
            except OSError:
                pass                           # a full local queue drops, as CBR over UDP would
            i += 1
    print(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=["sink", "tcp", "udp"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--t0", type=float, required=True, help="scenario start, CLOCK_REALTIME s")
    ap.add_argument("--until", type=float, help="sink: stop at t0 + UNTIL")
    ap.add_argument("--interval", type=float, default=1.0, help="sink: row interval, s (1)")
    ap.add_argument("--on", action="append", default=[], help="on-period A:B, s after t0")
    ap.add_argument("--cc", default="reno", help="TCP congestion control (reno)")
    ap.add_argument("--rate", type=float, help="UDP rate, bit/s of payload")
    ap.add_argument("--size", type=int, default=1200, help="UDP payload bytes (1200)")
    ap.add_argument("--window", type=int, help="sink tcp: the receiver's window clamp, bytes")
    a = ap.parse_args()
    if a.mode == "sink":
        if len(a.args) != 3 or a.args[0] not in ("tcp", "udp") or a.until is None:
            ap.error("sink tcp|udp PORT CSV --until S")
        sink(a.args[0], int(a.args[1]), a.args[2], a.t0, a.until, a.interval, a.window)
    elif len(a.args) != 2 or not a.on:
        ap.error(f"{a.mode} ADDR PORT --on A:B")
    elif a.mode == "tcp":
        tcp(a.args[0], int(a.args[1]), a.t0, a.on, a.cc)
    else:
        if not a.rate or a.rate <= 0:
            ap.error("udp needs --rate")
        udp(a.args[0], int(a.args[1]), a.t0, a.on, a.rate, a.size)


if __name__ == "__main__":
    main()
