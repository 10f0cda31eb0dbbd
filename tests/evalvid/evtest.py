"""Shared helpers of the Python evalvid tests: checks counted as amtest does, tool paths, CSVs."""
import csv, os, subprocess, sys

checks = 0
failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        print(f'FAIL {what}', file=sys.stderr, flush=True)
    return cond


def near(a, b, tol, what):
    return check(a is not None and b is not None and abs(a - b) <= tol, f'{what}: {a} vs {b} (tol {tol})')


def summary():
    print(f'# amtest: checks={checks} failures={failures}')
    return 1 if failures else 0


def tool(build, name):
    return os.path.join(build, 'tools', 'evalvid', name)


def run(cmd, ok=True):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise RuntimeError(f'{cmd[0]} failed ({r.returncode}): {r.stderr}')
    return r


def read_csv(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def frames_of(path, frame_bytes):
    with open(path, 'rb') as f:
        data = f.read()
    return [data[i:i + frame_bytes] for i in range(0, len(data), frame_bytes)]


def ffmpeg_log(path):
    """FFmpeg psnr/ssim stats_file -> list of {key: float}."""
    out = []
    for line in open(path):
        d = {}
        for tok in line.split():
            k, sep, v = tok.partition(':')
            if sep:
                try:
                    d[k] = float(v)
                except ValueError:
                    pass
        out.append(d)
    return out
