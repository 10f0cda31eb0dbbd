#!/usr/bin/python3
"""Tiny multicast probes for plumbing tests (run inside a namespace, always bounded in time).

  mcprobe.py send GROUP PORT COUNT INTERVAL_S          send COUNT datagrams, TTL 1, no loopback
  mcprobe.py join GROUP PORT IFACE SECONDS             join, count datagrams received, print count
  mcprobe.py sniff GROUP IFACE SECONDS                 count UDP frames to GROUP seen on IFACE
                                                       (AF_PACKET: sees what the bridge forwards,
                                                       joined or not), print count
"""
import socket
import struct
import sys
import time


def send(group, port, count, interval):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    for i in range(count):
        s.sendto(struct.pack("!I", i) + b"x" * 996, (group, port))
        time.sleep(interval)
    print(count)


def join(group, port, iface, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((group, port))
    ifindex = socket.if_nametoindex(iface)
    mreqn = socket.inet_aton(group) + socket.inet_aton("0.0.0.0") + struct.pack("@i", ifindex)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreqn)
    print("joined", flush=True)
    n = 0
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        s.settimeout(left)
        try:
            s.recv(2048)
            n += 1
        except socket.timeout:
            break
    print(n)


def sniff(group, iface, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    s.bind((iface, 0))
    want = socket.inet_aton(group)
    print("sniffing", flush=True)
    n = 0
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        s.settimeout(left)
        try:
            frame = s.recv(2048)
        except socket.timeout:
            break
        # UDP only (IGMP group-specific queries also go to the group): 14-byte Ethernet header,
        # then IPv4 protocol at offset 9 and destination at 16
        if len(frame) >= 34 and frame[23] == 17 and frame[30:34] == want:
            n += 1
    print(n)


def main(a):
    if len(a) == 5 and a[0] == "send":
        send(a[1], int(a[2]), int(a[3]), float(a[4]))
    elif len(a) == 5 and a[0] == "join":
        join(a[1], int(a[2]), a[3], float(a[4]))
    elif len(a) == 4 and a[0] == "sniff":
        sniff(a[1], a[2], float(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
