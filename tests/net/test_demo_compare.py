#!/usr/bin/python3
"""tools/testbed/demo-compare on a hand-made run directory (no namespaces, no root): the row's
numbers against values computed by hand from the files, MOS classes on their boundaries, the
second-half windows, and a clear failure for a directory without a run."""
import os
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(TOP, "tools", "testbed", "demo-compare")
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    failures += 0 if ok else 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_run(d):
    write(os.path.join(d, "meta.json"), '{"intra_refresh": true, "fec": "auto", '
          '"loss_pct_slow": 1}\n')
    # the nodes' summaries (their last JSON line): 900 bytes of media, 100 of parity (10 % of
    # what was sent), 7 + 0 rebuilt
    write(os.path.join(d, "logs", "sender.log"), '{"bytes_sent": 800}\nstopping\n'
          '{"bytes_sent": 900, "fec_bytes_sent": 100}\n')
    write(os.path.join(d, "logs", "rx-slow.log"), '{"fec_recovered": 7}\n')
    # parity over its need: (0.1 + 0.3 + 0.2) / (0 + 0.25 + 0.25) = 1.2
    write(os.path.join(d, "sender", "fec.csv"), "time_s,worst_loss,packet_rate,columns,rows,"
          "share,byte_share,need\n1,0,50,0,0,0,0.1,0\n2,0.01,50,4,0,0.2,0.3,0.25\n"
          "3,0.01,50,4,0,0.2,0.2,0.25\n")
    write(os.path.join(d, "logs", "rx-fast1.log"), '{"fec_recovered": 0}\n')
    cols = ("receiver,packet_loss_pct,frames_lost,frames_lost_I,frames_lost_P,freeze_max_s,"
            "freeze_p95_s,freeze_max_decoded_s,psnr_mean_db_y,mos_mean,psnr_ec_db,mos_ec,"
            "freeze_max_ec_s,freeze_p95_ec_s\n")
    write(os.path.join(d, "report", "receivers.csv"), cols
          + "fast1,0,0,0,0,0,0,0,40,5,40,5,0,0\n"
          + "slow,1.5,10,0,10,0.2,0.08,1.24,30.5,3.4,31,3.5,0.04,0.04\n")
    # slot by slot the frame shown: slow's first picture at slot 2 (the two before are its
    # start-up, no freeze), then slots 3-4 frozen on frame 2: 2 x 40 ms after the first picture
    frames = "frame,send_s,shown\n"
    write(os.path.join(d, "report", "slow.frames.csv"), frames + "".join(
        f"{k},{k * 0.04:.2f},{s}\n" for k, s in enumerate((-1, -1, 2, 2, 2, 5, 6, 7))))
    write(os.path.join(d, "report", "fast1.frames.csv"), frames + "".join(
        f"{k},{k * 0.04:.2f},{k}\n" for k in range(8)))
    # 38 -> 5, 31 (on the boundary) -> 3, 25.5 -> 3, 21.1 -> 2: mean 28.90 dB, MOS 3.25
    write(os.path.join(d, "report", "encoded.psnr.csv"),
          "frame,psnr_y\n0,38\n1,31\n2,25.5\n3,21.1\n")
    # second half (t >= 1.5): 600 and 400 kbit/s -> mean 500, CoV 100/500 = 0.2
    write(os.path.join(d, "sender", "rate.csv"), "time_s,target_bps\n0,400000\n1,500000\n"
          "2,600000\n3,400000\n")
    # sending from 0 to 2 s: second half 1-2 s in 250 ms bins: 1000, 1000, 3000, 3000 bytes
    # -> mean 2000, pstdev 1000, CoV 0.5 (the packets at 0 s and 2 s fall outside)
    write(os.path.join(d, "sender", "sd.txt"),
          "0.0 id 1 udp 500 0 I\n1.0 id 2 udp 1000 1 P\n1.3 id 3 udp 1000 2 P\n"
          "1.6 id 4 udp 3000 3 P\n1.9 id 5 udp 3000 4 P\n2.0 id 6 udp 9999 5 P\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "l1ir")
        make_run(run)
        p = subprocess.run([sys.executable, TOOL, "--bin-ms", "250", run],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 0, f"demo-compare exits 0 ({p.stderr.strip()})")
        lines = p.stdout.strip().splitlines()
        check(len(lines) == 3, "a header, a rule and one row")
        row = [c.strip() for c in lines[-1].strip("|").split("|")] if lines else []
        want = ["l1ir", "intra-refresh, fec auto, loss 1 %", "1.50", "10 (0/10)", "200 / 80",
                "1240 (80)", "30.50 / 3.40", "40 / 40", "31.00 / 3.50", "28.90 / 3.25",
                "500 / 0.200", "0.500", "10.0 % / 7 / 1.20"]
        check(row == want, f"row {row}\n     want {want}")
        p = subprocess.run([sys.executable, TOOL, "--receiver", "fast1", "--bin-ms", "250", run],
                           capture_output=True, text=True, timeout=30)
        row = [c.strip() for c in p.stdout.strip().splitlines()[-1].strip("|").split("|")]
        check(row[2:6] == ["0.00", "0 (0/0)", "0 / 0", "0 (0)"] and row[-1] == "10.0 % / 0 / 1.20",
              f"--receiver fast1: {row[2:6]}, {row[-1]}")
        # all: means (loss 0.75, 5 frames, PSNR 35.25, MOS 4.2), the freezes' maxima, the sum
        p = subprocess.run([sys.executable, TOOL, "--receiver", "all", "--bin-ms", "250", run],
                           capture_output=True, text=True, timeout=30)
        row = [c.strip() for c in p.stdout.strip().splitlines()[-1].strip("|").split("|")]
        want = ["0.75", "5 (0/5)", "200 / 80", "1240 (80)", "35.25 / 4.20", "40 / 40"]
        check(row[2:8] == want and row[-1] == "10.0 % / 7 / 1.20",
              f"--receiver all: {row[2:8]}, {row[-1]}\n     want {want}, 10.0 % / 7 / 1.20")
        p = subprocess.run([sys.executable, TOOL, os.path.join(tmp, "nothing")],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 1 and "nothing" in p.stderr, "a directory without a run: exit 1")
    print(f"{checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
