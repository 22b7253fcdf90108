#!/usr/bin/env bash
# bench/pairs.sh - times two ndjq builds against each other in interleaved pairs (old, new, new,
# old, old, new, ...: the order alternates from pair to pair) on the benchmark shapes, and prints
# a markdown table: per command the median wall time of each build and the median of the per-pair
# ratios new/old, with their spread. This VM's speed drifts by up to 2x over minutes; the two
# runs of a pair are seconds apart and see the same machine, so the drift does not bias the
# ratio the way it biases two medians taken minutes apart (bench/run.sh's pair_ratio does the
# same).
#
# Usage: bench/pairs.sh OLD_BIN NEW_BIN [ROUNDS]      (ROUNDS: pairs per command, default 11)
#
#   OLD_BIN, NEW_BIN  two release builds, e.g. main before the change:
#                       git worktree add /tmp/ndjq-old 8c6748d
#                       cargo build --release --manifest-path /tmp/ndjq-old/Cargo.toml
#                     OLD_BIN=/tmp/ndjq-old/target/release/ndjq, NEW_BIN=target/release/ndjq
#
# Shapes: one big clean Claude stream (clean-SIZE.ndjson) and the tree of 3,000 transcripts
# (`ndjq-gen tree --shape claude-projects`), made by this tree's generator with bench/run.sh's
# arguments and file names (seed 1), so a bench/run.sh data folder is reused as it is.
# Commands on each: validate --format json, filter --type assistant, events --format json,
# stats --format json, stats --format json --mergeable, gaps --format json.
#
# Environment:
#   NDJQ_BENCH_DIR      where the inputs are, or are generated (default /tmp/ndjq-bench)
#   NDJQ_PAIRS_MB       size of the big stream in MiB (default 256; bench/run.sh's is 1024)
#   NDJQ_PAIRS_TREES    tree shapes (default claude-projects; `none` for none)
#   NDJQ_PAIRS_ONLY     a regex: only the commands whose label matches
#   NDJQ_GEN            the ndjq-gen binary (skips its cargo build)
#   NDJQ_PAIRS_AA=1     time OLD_BIN against itself instead of NEW_BIN: how far the ratios of
#                       this machine stray from 1 with no change at all
#   NDJQ_PAIRS_HYPERFINE=1  also run hyperfine (when on PATH) on each command, both builds,
#                       ROUNDS runs each, and append its table. hyperfine runs all the runs of
#                       one command before the next (not interleaved): a cross-check only.
#
# Output: the markdown table on stdout (paste it into bench/results-YYYY-MM-DD-<name>.md);
# progress on stderr. Exit status: 0, 1 if a run exited other than 0 or 1 (that row says
# FAILED), 2 on a usage or setup error.

set -euo pipefail
export LC_ALL=C

die() { printf 'bench/pairs.sh: %s\n' "$*" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }

[[ $# -ge 2 && $# -le 3 ]] || { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2; exit 2; }
abs_bin() {
    local b="$1"
    if [[ $b != */* ]]; then b="$(command -v "$b")" || die "not found on PATH: $1"; fi
    [[ -f $b && -x $b ]] || die "not an executable file: $1"
    printf '%s/%s' "$(cd "$(dirname "$b")" && pwd)" "$(basename "$b")"
}
OLD="$(abs_bin "$1")"
NEW="$(abs_bin "$2")"
ROUNDS="${3:-11}"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
MB="${NDJQ_PAIRS_MB:-256}"
[[ $MB =~ ^[1-9][0-9]*$ ]] || die "NDJQ_PAIRS_MB must be a positive integer"
command -v python3 >/dev/null || die "python3 is required"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
BENCH_DIR="${NDJQ_BENCH_DIR:-/tmp/ndjq-bench}"
mkdir -p "$BENCH_DIR"
BENCH_DIR="$(cd "$BENCH_DIR" && pwd)"
START=$SECONDS

# --- inputs (bench/run.sh's names and generator arguments) ----------------------------------------
if [[ -n ${NDJQ_GEN:-} ]]; then
    GEN="$(abs_bin "$NDJQ_GEN")"
else
    log "building the generator: cargo build --release --locked --example ndjq-gen"
    (cd "$REPO_ROOT" && cargo build --release --locked --example ndjq-gen >&2) || die "cargo build of ndjq-gen failed"
    gen_target="${CARGO_TARGET_DIR:-target}"
    [[ $gen_target = /* ]] || gen_target="$REPO_ROOT/$gen_target"
    GEN="$gen_target/release/examples/ndjq-gen"
fi
[[ -x $GEN ]] || die "generator not found: $GEN"
CLEAN="$BENCH_DIR/clean-$MB.ndjson"
if [[ ! -s $CLEAN ]]; then
    log "generating $CLEAN ($MB MiB) ..."
    "$GEN" stream --dialect claude --size-mb "$MB" -o "$CLEAN.tmp" >&2 || die "ndjq-gen stream failed"
    mv "$CLEAN.tmp" "$CLEAN"
fi
INPUTS=("$CLEAN")
TREES="${NDJQ_PAIRS_TREES:-claude-projects}"
[[ $TREES == none ]] && TREES=""
for shape in $TREES; do
    tree="$BENCH_DIR/tree-$shape"
    if [[ ! -d $tree ]]; then
        log "generating $tree (ndjq-gen tree --shape $shape) ..."
        rm -rf "$tree.tmp"
        "$GEN" tree --shape "$shape" "$tree.tmp" >&2 || die "ndjq-gen tree --shape $shape failed"
        mv "$tree.tmp" "$tree"
    fi
    INPUTS+=("$tree")
done

# --- the pairs ----------------------------------------------------------------------------------
set +e
python3 - "$OLD" "$NEW" "$ROUNDS" "${NDJQ_PAIRS_ONLY:-}" "${INPUTS[@]}" <<'PYEOF'
import os, re, statistics, subprocess, sys, time

OLD, NEW, ROUNDS, ONLY = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
AA = os.environ.get("NDJQ_PAIRS_AA") == "1"  # old against old: the noise floor of this machine
INPUTS = sys.argv[5:]
COMMANDS = [
    "validate --format json",
    "filter --type assistant",
    "events --format json",
    "stats --format json",
    "stats --format json --mergeable",
    "gaps --format json",
]
OK = {0, 1}

def log(m):
    print(m, file=sys.stderr, flush=True)

def size_of(p):
    if os.path.isfile(p):
        return os.path.getsize(p), 1
    total = n = 0
    for root, _, fs in os.walk(p):
        for f in fs:
            total += os.path.getsize(os.path.join(root, f))
            n += 1
    return total, n

def run(argv):
    """Wall seconds from spawn to exit, user+system CPU seconds, exit code (stdout to /dev/null)."""
    with open(os.devnull, "rb") as fin, open(os.devnull, "wb") as fout, open(os.devnull, "wb") as ferr:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, fin.fileno(), 0),
            (os.POSIX_SPAWN_DUP2, fout.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, ferr.fileno(), 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)

def version(b):
    try:
        return subprocess.run([b, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"

def q(xs, f):
    xs = sorted(xs)
    k = (len(xs) - 1) * f
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

def loadavg():
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return ["?"]

load0 = loadavg()
rows, failed = [], 0
t_start = time.monotonic()
for inp in INPUTS:
    # Read every input once, so both builds find it in the page cache.
    for root, _, fs in os.walk(inp) if os.path.isdir(inp) else [(os.path.dirname(inp), [], [os.path.basename(inp)])]:
        for f in fs:
            with open(os.path.join(root, f), "rb") as fh:
                while fh.read(1 << 22):
                    pass
    nbytes, nfiles = size_of(inp)
    shape = os.path.basename(inp)
    shape_label = f"{shape} ({nbytes / 1e6:.0f} MB" + (f", {nfiles} files)" if nfiles > 1 else ")")
    for cmd in COMMANDS:
        label = f"ndjq {cmd}"
        if ONLY and not re.search(ONLY, f"{shape} {label}"):
            continue
        words = cmd.split()
        argvs = ([OLD] + words + [inp], [OLD if AA else NEW] + words + [inp])
        run(argvs[0]); run(argvs[1])  # one warm-up run each
        walls, cpus, ratios, bad = ([], []), ([], []), [], None
        for n in range(ROUNDS):
            order = (0, 1) if n % 2 == 0 else (1, 0)
            t = [0.0, 0.0]
            for k in order:
                w, c, code = run(argvs[k])
                if code not in OK:
                    bad = f"{'old' if k == 0 else 'new'} exited {code}"
                t[k] = w
                walls[k].append(w)
                cpus[k].append(c)
            ratios.append(t[1] / t[0])
        if bad:
            failed += 1
            rows.append(f"| {shape_label} | `{label}` | FAILED: {bad} | | | | | |")
            log(f"  {shape} {label}: FAILED ({bad})")
            continue
        mo, mn, r = statistics.median(walls[0]), statistics.median(walls[1]), statistics.median(ratios)
        lo, hi = q(ratios, 0.25), q(ratios, 0.75)
        cpu_ratios = [b / a if a > 0 else 1.0 for a, b in zip(cpus[0], cpus[1])]
        cr = statistics.median(cpu_ratios)
        # A slowdown beyond noise: the median ratio over 1.03 and three pairs in four slower.
        if ROUNDS < 7:
            verdict = "- (under 7 pairs)"
        else:
            verdict = "slower" if r > 1.03 and lo > 1.0 else ("faster" if r < 0.97 and hi < 1.0 else "same")
            if verdict != "same" and 0.97 <= cr <= 1.03:
                verdict += " (wall only, CPU the same: the load?)"
        rows.append(f"| {shape_label} | `{label}` | {mo:.3f} | {mn:.3f} | **{r:.3f}** | {lo:.3f} - {hi:.3f} | {cr:.3f} | {verdict} |")
        log(f"  {shape} {label}: old {mo:.3f} s, new {mn:.3f} s, new/old {r:.3f} (IQR {lo:.3f}-{hi:.3f}), {verdict}")

elapsed = time.monotonic() - t_start
load = loadavg()
if AA:
    print(f"### Interleaved pairs: old build / old build, the noise floor (NDJQ_PAIRS_AA=1; {ROUNDS} pairs per command)")
else:
    print(f"### Interleaved pairs: new build / old build ({ROUNDS} pairs per command)")
print()
print(f"- old: `{OLD}` ({version(OLD)})")
print(f"- new: `{OLD if AA else NEW}` ({version(OLD if AA else NEW)})")
print(f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, load average at the start {' '.join(load0)}, at the end {' '.join(load)}, "
      f"{elapsed:.0f} s; every run after one warm-up run of each, the inputs in the page cache, stdout to /dev/null")
print("- ratio: median of the per-pair ratios new wall / old wall (below 1: new is faster); IQR: their 25th to 75th "
      "percentile; CPU new/old: median of the per-pair ratios of user+system time (steadier than wall time "
      "on a loaded machine); verdict `slower` when the wall ratio is over 1.03 and its 25th percentile over 1 "
      "(three pairs in four slower), none under 7 pairs")
print()
print("| input | command | old median s | new median s | new/old | IQR of ratios | CPU new/old | verdict |")
print("|---|---|---:|---:|---:|---|---:|---|")
for r in rows:
    print(r)
sys.exit(1 if failed else 0)
PYEOF
rc=$?
set -e

# --- hyperfine, when asked and installed: not interleaved, a cross-check ----------------------------
if [[ ${NDJQ_PAIRS_HYPERFINE:-0} == 1 ]]; then
    if command -v hyperfine >/dev/null; then
        md="$(mktemp)"
        echo
        echo "### hyperfine ($(hyperfine --version)), $ROUNDS runs of each, one warm-up (not interleaved)"
        for inp in "${INPUTS[@]}"; do
            for cmd in "validate --format json" "filter --type assistant" "events --format json" "stats --format json"; do
                [[ -z ${NDJQ_PAIRS_ONLY:-} || "$(basename "$inp") ndjq $cmd" =~ ${NDJQ_PAIRS_ONLY} ]] || continue
                hyperfine -N --style none --warmup 1 --runs "$ROUNDS" -i --export-markdown "$md" \
                    -n "old $cmd $(basename "$inp")" "$OLD $cmd $inp" \
                    -n "new $cmd $(basename "$inp")" "$NEW $cmd $inp" >/dev/null 2>&1 || { rc=1; continue; }
                echo
                cat "$md"
            done
        done
        rm -f "$md"
    else
        log "NDJQ_PAIRS_HYPERFINE=1 but hyperfine is not on PATH: skipped"
    fi
fi
log "total $((SECONDS - START)) s"
exit "$rc"
