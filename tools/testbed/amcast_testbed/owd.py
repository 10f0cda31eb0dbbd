#!/usr/bin/python3
"""One-way delay probe between two namespaces of one machine (they share CLOCK_REALTIME).

  owd.py send ADDR PORT RATE_BPS SIZE SECONDS    paced UDP; each datagram carries its send time
  owd.py recv PORT SECONDS                       prints one-way delays (s), one per line; the
                                                 arrival time is the kernel's (SO_TIMESTAMPNS), so
                                                 this process's own scheduling is not measured
measure(topo, src, dst, rate, seconds) runs both and returns the list of delays.
"""
import os
import socket
import struct
import subprocess
import sys
import time

HDR = struct.Struct("!Qq")          # sequence, send time (ns, CLOCK_REALTIME)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def send(addr, port, rate, size, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    gap = size * 8 / rate
    pad = b"\0" * max(0, size - HDR.size)
    start = time.monotonic()
    i = 0
    while True:
        due = start + i * gap
        if due - start >= seconds:
            break
        d = due - time.monotonic()
        if d > 0:
            time.sleep(d)
        s.sendto(HDR.pack(i, time.time_ns()) + pad, (addr, port))
        i += 1
    print(i)


def recv(port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    print("listening", flush=True)
    out = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        s.settimeout(left)
        try:
            data, anc, _, _ = s.recvmsg(65536, 64)
        except socket.timeout:
            break
        if len(data) < HDR.size:
            continue
        _, sent = HDR.unpack_from(data)
        arr = None
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(val) >= 16:
                sec, nsec = struct.unpack("@qq", val[:16])
                arr = sec * 1_000_000_000 + nsec
        if arr is None:
            arr = time.time_ns()
        out.append((arr - sent) / 1e9)
    sys.stdout.write("".join(f"{d:.9f}\n" for d in out))


def measure(topo, src, dst, rate, seconds, size=1200, port=7007):
    """Paced UDP from src to dst for `seconds`; returns (sent, [one-way delays in s])."""
    me = os.path.abspath(__file__)
    rx = subprocess.Popen(["ip", "netns", "exec", topo.ns(dst), "/usr/bin/python3", me, "recv",
                           str(port), str(seconds + 2)], stdout=subprocess.PIPE, text=True)
    try:
        rx.stdout.readline()
        tx = subprocess.run(["ip", "netns", "exec", topo.ns(src), "/usr/bin/python3", me, "send",
                             topo.addr(dst), str(port), str(rate), str(size), str(seconds)],
                            stdout=subprocess.PIPE, text=True, timeout=seconds + 10)
        out, _ = rx.communicate(timeout=seconds + 10)
    finally:
        if rx.poll() is None:
            rx.kill()
            rx.wait()
    sent = int(tx.stdout.split()[-1]) if tx.stdout.strip() else 0
    return sent, [float(x) for x in out.split()]


def percentile(xs, p):
    """Nearest-rank percentile of a non-empty list."""
    ys = sorted(xs)
    k = max(0, min(len(ys) - 1, int(round(p / 100 * len(ys) + 0.5)) - 1))
    return ys[k]


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == "send":
        send(a[1], int(a[2]), float(a[3]), int(a[4]), float(a[5]))
    elif len(a) == 3 and a[0] == "recv":
        recv(int(a[1]), float(a[2]))
    else:
        sys.exit(__doc__)
