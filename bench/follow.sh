#!/usr/bin/env bash
# bench/follow.sh - `--follow`: the delay from an append to its output line
# (median and p99 over NDJQ_BENCH_FOLLOW_APPENDS appends; goal: p99 under 0.3 s), and the CPU
# `ndjq filter --follow` uses on an idle tree of 3,000 files over NDJQ_BENCH_FOLLOW_IDLE_SECS
# seconds (utime + stime from /proc/PID/stat; goal: under 1% of a core), with notifications
# and with `--poll 1`. Also the open file handles and the RSS while idle.
#
# Usage: bench/follow.sh [NDJQ_BINARY]    (default: target/release/ndjq, built if missing)
#
# Environment:
#   NDJQ_BENCH_DIR                 scratch folder (default /tmp/ndjq-bench)
#   NDJQ_BENCH_FOLLOW_APPENDS      appends timed (default 300)
#   NDJQ_BENCH_FOLLOW_IDLE_SECS    idle measurement (default 60)
#
# Writes a markdown table on stdout (bench/run.sh appends it to its results). Linux only
# (/proc). Exit status 0, or 2 on a setup error.

set -euo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
NDJQ="${1:-$REPO_ROOT/target/release/ndjq}"
if [[ ! -x $NDJQ ]]; then
    (cd "$REPO_ROOT" && cargo build --release --locked --bin ndjq >&2)
fi
[[ -x $NDJQ ]] || { echo "bench/follow.sh: no ndjq binary at $NDJQ" >&2; exit 2; }
[[ -d /proc/self ]] || { echo "bench/follow.sh: needs /proc (Linux)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/follow.sh: python3 is required" >&2; exit 2; }

export NDJQ BENCH_DIR="${NDJQ_BENCH_DIR:-/tmp/ndjq-bench}/follow"
export APPENDS="${NDJQ_BENCH_FOLLOW_APPENDS:-300}" IDLE="${NDJQ_BENCH_FOLLOW_IDLE_SECS:-60}"
rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR"

python3 - <<'PY'
import os, select, shutil, subprocess, sys, time

ndjq, root = os.environ["NDJQ"], os.environ["BENCH_DIR"]
appends, idle = int(os.environ["APPENDS"]), float(os.environ["IDLE"])
tick = os.sysconf("SC_CLK_TCK")

def log(*a):
    print(*a, file=sys.stderr, flush=True)

def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime

def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

def record(i):
    return ('{"type":"assistant","session_id":"bench","message":{"id":"m%d","role":"assistant",'
            '"content":[{"type":"text","text":"line %d"}]}}\n' % (i, i))

def latency(extra):
    d = os.path.join(root, "latency")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log_file = os.path.join(d, "live.jsonl")
    open(log_file, "w").close()
    p = subprocess.Popen([ndjq, "filter", "--follow", *extra, d], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    delays, buf = [], b""
    with open(log_file, "ab", buffering=0) as f:
        for i in range(appends):
            t0 = time.monotonic()
            f.write(record(i).encode())
            while b"\n" not in buf:
                r, _, _ = select.select([p.stdout], [], [], 10)
                if not r:
                    raise SystemExit(f"no output 10 s after append {i}")
                buf += os.read(p.stdout.fileno(), 65536)
            delays.append(time.monotonic() - t0)
            buf = buf.split(b"\n", 1)[1]
            time.sleep(0.01)
    p.terminate()
    p.wait()
    delays.sort()
    return delays[len(delays) // 2], delays[min(len(delays) - 1, int(len(delays) * 0.99))]

def tree(files=3000, folders=100):
    d = os.path.join(root, "tree")
    if not os.path.isdir(d):
        for i in range(files):
            sub = os.path.join(d, "project-%03d" % (i % folders))
            os.makedirs(sub, exist_ok=True)
            with open(os.path.join(sub, "session-%05d.jsonl" % i), "w") as f:
                for j in range(20):
                    f.write(record(i * 100 + j))
    return d

def idle_cpu(extra):
    d = tree()
    p = subprocess.Popen([ndjq, "filter", "--follow", *extra, d], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    # Wait for the first pass over the tree to end: CPU time (nearly) stops growing (with
    # --poll it grows a little at every look), or 30 s.
    last = -100
    for _ in range(30):
        time.sleep(1.0)
        now = cpu_ticks(p.pid)
        if now - last <= 2:
            break
        last = now
    before, t0 = cpu_ticks(p.pid), time.monotonic()
    time.sleep(idle)
    after, t1 = cpu_ticks(p.pid), time.monotonic()
    fds = len(os.listdir(f"/proc/{p.pid}/fd"))
    rss = rss_kb(p.pid)
    p.terminate()
    p.wait()
    return 100.0 * (after - before) / tick / (t1 - t0), fds, rss

rows = []
log(f"follow: timing {appends} appends (notifications) ...")
med, p99 = latency([])
rows.append(("append → output, notifications", f"median {med*1000:.1f} ms, p99 {p99*1000:.1f} ms", "p99 < 300 ms", p99 < 0.3))
log(f"follow: timing {appends} appends (--poll 0.1) ...")
med, p99 = latency(["--poll", "0.1"])
rows.append(("append → output, `--poll 0.1`", f"median {med*1000:.1f} ms, p99 {p99*1000:.1f} ms", "p99 < 300 ms", p99 < 0.3))
for label, extra in (("notifications", []), ("`--poll 1`", ["--poll", "1"])):
    log(f"follow: idle CPU over {idle:.0f} s on 3,000 files ({label}) ...")
    cpu, fds, rss = idle_cpu(extra)
    # Polling looks at every file at every look: its cost is shown, the goal is the
    # notifications' (no CPU while nothing changes).
    goal, ok = ("< 1% of a core", cpu < 1.0) if not extra else ("(a look per second)", None)
    rows.append((f"idle, 3,000 files, {label}", f"{cpu:.2f}% of a core; {fds} open fds; RSS {rss/1024:.1f} MB", goal, ok))

print("### `--follow` (bench/follow.sh)")
print()
print("| case | measured | goal | met |")
print("|---|---|---|---|")
for case, got, goal, ok in rows:
    met = "-" if ok is None else ("yes" if ok else "NO")
    print(f"| {case} | {got} | {goal} | {met} |")
PY
