#!/usr/bin/env bash
# bench/compare-builds.sh - runs two ndjq binaries over the same inputs with a broad matrix of
# commands, flags and formats, and reports every difference in stdout, stderr, exit code and the
# files a command writes (report -o, --rejects). For a change that must not change any output.
#
# Usage: bench/compare-builds.sh OLD_BIN NEW_BIN [DATA_DIR]
#
#   OLD_BIN   the reference build, e.g. main before the change:
#               git worktree add /tmp/ndjq-old 8c6748d
#               cargo build --release --manifest-path /tmp/ndjq-old/Cargo.toml
#             then OLD_BIN=/tmp/ndjq-old/target/release/ndjq
#             (git worktree remove /tmp/ndjq-old when done)
#   NEW_BIN   the build under test, e.g. target/release/ndjq of this tree
#   DATA_DIR  where the generated inputs go (default: a new temporary folder, removed at the end).
#             Inputs already there are reused when made with the same arguments (ndjq-gen is
#             deterministic from its seed; remove DATA_DIR/gen when the generator changed), so
#             give a DATA_DIR to run again without generating ~2 GB again.
#
# Inputs: every file and every folder under testdata/, each alone, and testdata/ whole; then
# what this tree's generator (ndjq-gen, built with `cargo build --release --locked --example
# ndjq-gen` unless NDJQ_GEN names it) makes with seed 1: the trees bench/run.sh times (the five
# `ndjq-gen tree` shapes at their default sizes, among them the 3,000-file claude-projects), two
# small trees with forks, one big clean Claude stream, a corrupted one, a --seq one with damage,
# Codex, Claude-log and Codex-log streams, and 300,000 tool calls opened and never closed.
#
# Commands: every file gets a core set (validate, filter, events, stats, gaps, report, stdin);
# every folder, testdata/ whole and the generated streams get the full matrix: validate (text,
# json, csv, github, --gaps, -j, --recover, --rejects), filter (--type, --tool for the tools the
# input holds, --grep, --where, --invalid, --count, --print, --normalize, --since), events (json,
# csv, text, -j), stats (text, json, csv, --mergeable, --by every key in every format, --cost,
# --timezone, --since, --cache), stats --merge, gaps (every format), report -o FILE, --dialect
# forced; the generated trees a large subset of it (no per-key text/csv stats, no --recover).
# Plus --help of every command, `man`, `completions` and a few usage errors. Every run gets
# stdin /dev/null (or the file, for the stdin cases), TZ=UTC, LC_ALL=C, no colour variables,
# and a fresh HOME and XDG_CACHE_HOME inside its own working folder; OLD and NEW run one after
# the other in the same folder path, so paths in the output are the same.
#
# Masked: nothing. Two release builds of one commit gave identical bytes on all 17,339 cases
# (stats has no elapsed-time figure, report -o writes no date, no temporary path reaches the
# output, -j and scheduling change no order). A case
# whose outputs differ is run again on both builds: if the two runs of one build disagree, the
# case is reported as NONDETERMINISTIC rather than as a difference. `statusline` is left out:
# its figures depend on the current time. The MASKS list in the Python part below is where a
# mask would go, with its reason.
#
# Environment:
#   NDJQ_GEN                  the ndjq-gen binary to use (skips its cargo build)
#   NDJQ_COMPARE_STREAM_MB    size of the big clean Claude stream in MiB (default 256)
#   NDJQ_COMPARE_TREES        tree shapes to generate and compare (default: all five, as
#                             bench/run.sh; `none` for none)
#   NDJQ_COMPARE_SKIP_GEN=1   testdata/ only: no generator, no generated inputs
#   NDJQ_COMPARE_PER_FILE     matrix for each single file: core (default) or full
#   NDJQ_COMPARE_JOBS         cases run at the same time (default 2)
#   NDJQ_COMPARE_TIMEOUT      seconds one run may take (default 900)
#   NDJQ_COMPARE_ONLY         a Python regex: only the cases whose label matches
#
# Output: progress on stderr; on stdout every differing case (its label: command and input),
# which of stdout, stderr, exit code or an output file differ, and the first differing lines,
# then a summary. Both sides of each difference are kept under DATA_DIR/diffs/.
# Exit status: 0 if every output is identical, 1 if any differs, 2 on a usage or setup error.

set -euo pipefail
export LC_ALL=C

die() { printf 'bench/compare-builds.sh: %s\n' "$*" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }
usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2; exit 2; }

[[ $# -ge 2 && $# -le 3 ]] || usage
abs_bin() {
    local b="$1"
    if [[ $b != */* ]]; then b="$(command -v "$b")" || die "not found on PATH: $1"; fi
    [[ -f $b && -x $b ]] || die "not an executable file: $1"
    printf '%s/%s' "$(cd "$(dirname "$b")" && pwd)" "$(basename "$b")"
}
OLD="$(abs_bin "$1")"
NEW="$(abs_bin "$2")"
command -v python3 >/dev/null || die "python3 is required"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
[[ -d $REPO_ROOT/testdata ]] || die "no testdata/ in $REPO_ROOT"

TEMP_DATA=0
if [[ $# -eq 3 ]]; then
    mkdir -p "$3" || die "cannot make $3"
    DATA_DIR="$(cd "$3" && pwd)"
else
    DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ndjq-compare.XXXXXX")"
    TEMP_DATA=1
fi
log "OLD: $OLD ($("$OLD" --version 2>/dev/null | head -n1))"
log "NEW: $NEW ($("$NEW" --version 2>/dev/null | head -n1))"
log "data: $DATA_DIR"
START=$SECONDS

# --- generated inputs -------------------------------------------------------------------------
# gen NAME ARGS...: runs `ndjq-gen ARGS... DATA_DIR/gen/NAME` once; NAME.args records the
# arguments, and the output is made again when they change.
GEN_DIR="$DATA_DIR/gen"
mkdir -p "$GEN_DIR"
gen() {
    local name="$1" kind="$2"
    shift 2
    local out="$GEN_DIR/$name" stamp="$GEN_DIR/$name.args" args="$kind $*"
    if [[ -e $out && -f $stamp && $(cat "$stamp") == "$args" ]]; then
        log "cached: $out"
        return
    fi
    rm -rf "$out" "$out.tmp" "$stamp"
    log "generating $out: ndjq-gen $args"
    case $kind in
        stream) "$GEN" stream "$@" -o "$out.tmp" ;;
        tree) "$GEN" tree "$@" "$out.tmp" >&2 ;;
        open-calls)
            # Tool calls opened and never closed (bench/run.sh's gaps case, 300,000 of them:
            # past the 100,000 tracked calls ndjq keeps).
            python3 -c '
import sys
w = sys.stdout.write
for i in range(int(sys.argv[1])):
    w("{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{\"id\":\"msg_%d\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Bash\",\"input\":{}}]}}\n" % (i, i))
' "$1" >"$out.tmp" ;;
    esac || die "generating $name failed"
    mv "$out.tmp" "$out"
    printf '%s' "$args" >"$stamp"
}

if [[ ${NDJQ_COMPARE_SKIP_GEN:-0} != 1 ]]; then
    if [[ -n ${NDJQ_GEN:-} ]]; then
        GEN="$(abs_bin "$NDJQ_GEN")"
    else
        log "building the generator: cargo build --release --locked --example ndjq-gen"
        (cd "$REPO_ROOT" && cargo build --release --locked --example ndjq-gen >&2) ||
            die "cargo build of ndjq-gen failed"
        gen_target="${CARGO_TARGET_DIR:-target}"
        [[ $gen_target = /* ]] || gen_target="$REPO_ROOT/$gen_target"
        GEN="$gen_target/release/examples/ndjq-gen"
    fi
    [[ -x $GEN ]] || die "generator not found: $GEN"
    MB="${NDJQ_COMPARE_STREAM_MB:-256}"
    [[ $MB =~ ^[1-9][0-9]*$ ]] || die "NDJQ_COMPARE_STREAM_MB must be a positive integer"
    gen "stream-claude-clean-$MB.ndjson" stream --dialect claude --seed 1 --size-mb "$MB"
    gen stream-claude-corrupt-64.ndjson stream --dialect claude --seed 1 --size-mb 64 --corrupt-rate 0.001
    gen stream-claude-seq-corrupt-16.ndjson stream --dialect claude --seed 2 --size-mb 16 --seq --corrupt-rate 0.01
    gen stream-codex-16.jsonl stream --dialect codex --seed 1 --size-mb 16 --corrupt-rate 0.001
    gen stream-claude-log-16.jsonl stream --dialect claude-log --seed 1 --size-mb 16
    gen stream-codex-log-16.jsonl stream --dialect codex-log --seed 1 --size-mb 16 --corrupt-rate 0.001
    gen open-tool-calls-300k.ndjson open-calls 300000
    SHAPES="${NDJQ_COMPARE_TREES:-claude-projects claude-large claude-bimodal claude-long-lines codex-sessions}"
    [[ $SHAPES == none ]] && SHAPES=""
    for shape in $SHAPES; do
        gen "tree-$shape" tree --shape "$shape" --seed 1
    done
    gen tree-claude-forks tree --shape claude-projects --seed 3 --files 300 --total-mb 30 --forks 40
    gen tree-codex-forks tree --shape codex-sessions --seed 3 --files 200 --total-mb 20 --forks 40
    log "inputs ready after $((SECONDS - START)) s"
fi

# --- the comparison -----------------------------------------------------------------------------
set +e
python3 - "$OLD" "$NEW" "$DATA_DIR" "$REPO_ROOT" <<'PYEOF'
import concurrent.futures as cf
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

OLD, NEW, DATA, REPO = sys.argv[1:5]

def crashed(kind, value, tb):
    sys.__excepthook__(kind, value, tb)
    os._exit(2)  # a failure of this script, not a difference
sys.excepthook = crashed
JOBS = int(os.environ.get("NDJQ_COMPARE_JOBS", "2"))
TIMEOUT = float(os.environ.get("NDJQ_COMPARE_TIMEOUT", "900"))
PER_FILE = os.environ.get("NDJQ_COMPARE_PER_FILE", "core")
ONLY = re.compile(os.environ["NDJQ_COMPARE_ONLY"]) if os.environ.get("NDJQ_COMPARE_ONLY") else None
WORK = os.path.join(DATA, "work")
DIFFS = os.path.join(DATA, "diffs")
shutil.rmtree(WORK, ignore_errors=True)
shutil.rmtree(DIFFS, ignore_errors=True)
os.makedirs(WORK)

# Masks: (regex on the case label, stream name, byte regex, replacement, why). Applied line by
# line to both sides before they are compared. None are needed today (see the header).
MASKS = []

def log(msg):
    print(msg, file=sys.stderr, flush=True)

def rel(p):
    return os.path.relpath(p, REPO) if p.startswith(REPO + "/") or p == REPO else p

# --- inputs ---
TD = os.path.join(REPO, "testdata")
files = []
dirs = [TD]
for root, ds, fs in os.walk(TD):
    ds.sort()
    for d in ds:
        dirs.append(os.path.join(root, d))
    for f in sorted(fs):
        files.append(os.path.join(root, f))
gen_dir = os.path.join(DATA, "gen")
streams, trees = [], []
if os.path.isdir(gen_dir):
    for name in sorted(os.listdir(gen_dir)):
        p = os.path.join(gen_dir, name)
        if name.endswith(".args") or name.endswith(".tmp"):
            continue
        (trees if os.path.isdir(p) else streams).append(p)

def tools_of(path, limit):
    """The tool names the input holds, most called first, as the OLD build counts them."""
    try:
        out = subprocess.run([OLD, "stats", "-q", "-f", "json", "--by", "tool", path],
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT,
                             env=base_env(WORK)).stdout
        groups = json.loads(out).get("groups", [])
    except Exception:
        return []
    names = [g["key"] for g in sorted(groups, key=lambda g: -g.get("tool_calls", 0))
             if g.get("key") and not g["key"].startswith("(")]
    return names[:limit]

def base_env(cwd):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": "UTC", "LC_ALL": "C",
           "HOME": os.path.join(cwd, "home"), "XDG_CACHE_HOME": os.path.join(cwd, "cache"),
           "TMPDIR": os.path.join(cwd, "tmp")}
    return env

BY = ["session", "model", "tool", "type", "file", "day", "week", "month", "project", "block"]

# A case: (label, argv after the binary, stdin path or None, output files to compare).
def core_cases(p):
    r = rel(p)
    c = [
        ("validate -f json", ["validate", "-f", "json", p]),
        ("validate -f text", ["validate", "-f", "text", p]),
        ("validate --gaps -f github", ["validate", "--gaps", "-f", "github", p]),
        ("filter --type assistant", ["filter", "--type", "assistant", p]),
        ("filter -i --grep error", ["filter", "-i", "--grep", "error", p]),
        ("events -f json", ["events", "-f", "json", p]),
        ("events -f text", ["events", "-f", "text", p]),
        ("stats -f json --mergeable", ["stats", "-f", "json", "--mergeable", p]),
        ("stats -f text", ["stats", "-f", "text", p]),
        ("gaps -f json", ["gaps", "-f", "json", p]),
    ]
    out = [(f"{l}  <{r}>", a, None, []) for l, a in c]
    out.append((f"report -o out.html  <{r}>", ["report", "-o", "out.html", p], None, ["out.html"]))
    if os.path.isfile(p):
        out.append((f"validate -f json - (stdin)  <{r}>", ["validate", "-f", "json", "-"], p, []))
    return out

def full_cases(p, tree=False):
    r = rel(p)
    tools = tools_of(p, 3 if tree or p != TD else 100)
    c = [
        ("validate -f text", ["validate", "-f", "text", p]),
        ("validate -f json", ["validate", "-f", "json", p]),
        ("validate -f csv", ["validate", "-f", "csv", p]),
        ("validate -f github", ["validate", "-f", "github", p]),
        ("validate --gaps -f json", ["validate", "--gaps", "-f", "json", p]),
        ("validate -f json -j 1", ["validate", "-f", "json", "-j", "1", p]),
        ("validate -f json -j 4 --fail-on info", ["validate", "-f", "json", "-j", "4", "--fail-on", "info", p]),
        ("validate -f text --color always", ["validate", "-f", "text", "--color", "always", p]),
        ("validate -f json --max-errors 5", ["validate", "-f", "json", "--max-errors", "5", p]),
        ("validate -f json --rejects rejects.out", ["validate", "-f", "json", "--rejects", "rejects.out", p], ["rejects.out"]),
        ("filter --type assistant", ["filter", "--type", "assistant", p]),
        ("filter --type assistant -j 1", ["filter", "--type", "assistant", "-j", "1", p]),
        ("filter --type user,system/init -j 4", ["filter", "--type", "user,system/init", "-j", "4", p]),
        ("filter -i --grep 'error|fail'", ["filter", "-i", "--grep", "error|fail", p]),
        ("filter --grep TODO --grep README", ["filter", "--grep", "TODO", "--grep", "README", p]),
        ("filter --where 'message.usage.output_tokens>100'", ["filter", "--where", "message.usage.output_tokens>100", p]),
        ("filter --where 'type~^(user|assistant)$' --count", ["filter", "--where", "type~^(user|assistant)$", "--count", p]),
        ("filter --invalid", ["filter", "--invalid", p]),
        ("filter --valid --count", ["filter", "--valid", "--count", p]),
        ("filter --diagnostic PROTO_UNKNOWN_TYPE", ["filter", "--diagnostic", "PROTO_UNKNOWN_TYPE", p]),
        ("filter -v --type assistant --count", ["filter", "-v", "--type", "assistant", "--count", p]),
        ("filter --type assistant --normalize -f text", ["filter", "--type", "assistant", "--normalize", "-f", "text", p]),
        ("filter --type user --normalize -f csv", ["filter", "--type", "user", "--normalize", "-f", "csv", p]),
        ("filter -p type,session_id,message.model", ["filter", "-p", "type,session_id,message.model", p]),
        ("filter --since 2025-06-01 --until 2026-06-30 --count", ["filter", "--since", "2025-06-01", "--until", "2026-06-30", "--count", p]),
        ("events -f json", ["events", "-f", "json", p]),
        ("events -f csv", ["events", "-f", "csv", p]),
        ("events -f text", ["events", "-f", "text", p]),
        ("events -f json -j 4", ["events", "-f", "json", "-j", "4", p]),
        ("stats -f text", ["stats", "-f", "text", p]),
        ("stats -f json", ["stats", "-f", "json", p]),
        ("stats -f csv", ["stats", "-f", "csv", p]),
        ("stats -f json --mergeable", ["stats", "-f", "json", "--mergeable", p]),
        ("stats -f json --mergeable -j 1", ["stats", "-f", "json", "--mergeable", "-j", "1", p]),
        ("stats -f text --color always", ["stats", "-f", "text", "--color", "always", p]),
        ("stats -f json --cost estimated", ["stats", "-f", "json", "--cost", "estimated", p]),
        ("stats -f json --cost reported", ["stats", "-f", "json", "--cost", "reported", p]),
        ("stats -f json --by day --timezone Asia/Tokyo", ["stats", "-f", "json", "--by", "day", "--timezone", "Asia/Tokyo", p]),
        ("stats -f json --since 2025-06-01 --until 2026-06-30", ["stats", "-f", "json", "--since", "2025-06-01", "--until", "2026-06-30", p]),
        ("stats -f json --cache (cold)", ["stats", "-f", "json", "--cache", p]),
        ("gaps -f text", ["gaps", "-f", "text", p]),
        ("gaps -f json", ["gaps", "-f", "json", p]),
        ("gaps -f csv", ["gaps", "-f", "csv", p]),
        ("gaps -f github", ["gaps", "-f", "github", p]),
        ("gaps -f json --fail-on info", ["gaps", "-f", "json", "--fail-on", "info", p]),
        ("report -o out.html", ["report", "-o", "out.html", p], ["out.html"]),
        ("report --no-transcripts --cost estimated -o out.html", ["report", "--no-transcripts", "--cost", "estimated", "-o", "out.html", p], ["out.html"]),
        ("validate --dialect generic -f json", ["validate", "--dialect", "generic", "-f", "json", p]),
        ("validate --dialect codex -f text", ["validate", "--dialect", "codex", "-f", "text", p]),
        ("stats --dialect claude-log -f json", ["stats", "--dialect", "claude-log", "-f", "json", p]),
        ("events --dialect codex-log -f json", ["events", "--dialect", "codex-log", "-f", "json", p]),
        ("filter --dialect generic --type-field message.role --type assistant", ["filter", "--dialect", "generic", "--type-field", "message.role", "--type", "assistant", p]),
        ("gaps --dialect claude -f json", ["gaps", "--dialect", "claude", "-f", "json", p]),
    ]
    for k in BY:
        c.append((f"stats -f json --by {k}", ["stats", "-f", "json", "--by", k, p]))
        if not tree or k in ("model", "day"):
            c.append((f"stats -f text --by {k}", ["stats", "-f", "text", "--by", k, p]))
            c.append((f"stats -f csv --by {k}", ["stats", "-f", "csv", "--by", k, p]))
    for t in tools:
        c.append((f"filter --tool {t}", ["filter", "--tool", t, p]))
    if tools:
        c.append((f"filter --tool {','.join(tools[:3])} -p type", ["filter", "--tool", ",".join(tools[:3]), "-p", "type", p]))
    if not tree:
        c.append(("validate --recover -f json", ["validate", "--recover", "-f", "json", p]))
        c.append(("report --transcripts -o out.html", ["report", "--transcripts", "-o", "out.html", p], ["out.html"]))
    out = []
    for item in c:
        label, argv = item[0], item[1]
        outs = item[2] if len(item) > 2 else []
        out.append((f"{label}  <{r}>", argv, None, outs))
    return out

cases = []
for sub in ["validate", "filter", "events", "stats", "gaps", "report", "run", "statusline", "man", "completions"]:
    cases.append((f"{sub} --help", [sub, "--help"], None, []))
    cases.append((f"{sub} -h", [sub, "-h"], None, []))
cases += [
    ("--help", ["--help"], None, []),
    ("--version", ["--version"], None, []),
    ("(no command)", [], None, []),
    ("man", ["man"], None, []),
    ("man --dir man", ["man", "--dir", "man"], None, ["man"]),
    ("completions bash", ["completions", "bash"], None, []),
    ("completions zsh", ["completions", "zsh"], None, []),
    ("completions fish", ["completions", "fish"], None, []),
    ("completions elvish", ["completions", "elvish"], None, []),
    ("completions powershell", ["completions", "powershell"], None, []),
    ("completions --dir comp", ["completions", "--dir", "comp"], None, ["comp"]),
    ("run -- cat <testdata/claude/claude-tool.ndjson>", ["run", "--", "cat", os.path.join(TD, "claude/claude-tool.ndjson")], None, []),
    ("validate -f json -- cat <testdata/edge/mixed.ndjson>", ["validate", "-f", "json", "--", "cat", os.path.join(TD, "edge/mixed.ndjson")], None, []),
    ("stats -f text -- cat <testdata/stats/wide-tools.ndjson>", ["stats", "-f", "text", "--", "cat", os.path.join(TD, "stats/wide-tools.ndjson")], None, []),
    ("usage error: stats --by nope", ["stats", "--by", "nope", TD], None, []),
    ("usage error: filter --bogus", ["filter", "--bogus", TD], None, []),
    ("usage error: validate -f nope", ["validate", "-f", "nope", TD], None, []),
    ("missing path: validate", ["validate", "-f", "json", os.path.join(TD, "no-such-file.ndjson")], None, []),
    ("missing path: stats", ["stats", "-f", "text", os.path.join(TD, "no-such-dir")], None, []),
    ("stdin empty: stats -f json", ["stats", "-f", "json"], None, []),
]
# stats --merge: both builds merge the same mergeable JSON, written by the OLD build.
merge_parts = []
for part in ("corpus", "other-agents", "stats"):
    if os.path.isdir(os.path.join(TD, part)):
        merge_parts.append(os.path.join(DATA, f"merge-{part}.json"))
        with open(merge_parts[-1], "wb") as f:
            subprocess.run([OLD, "stats", "-q", "-f", "json", "--mergeable", os.path.join(TD, part)],
                           stdin=subprocess.DEVNULL, stdout=f, env=base_env(WORK), timeout=TIMEOUT)
for fmt in ("json", "text", "csv"):
    cases.append((f"stats --merge -f {fmt} <OLD's --mergeable JSON of testdata/corpus, other-agents, stats>",
                  ["stats", "--merge", "-f", fmt] + merge_parts, None, []))
cases.append(("stats --merge -f json --by model <the same>", ["stats", "--merge", "-f", "json", "--by", "model"] + merge_parts, None, []))

for d in dirs:
    cases += full_cases(d)
for f in files:
    cases += full_cases(f) if PER_FILE == "full" else core_cases(f)
for s in streams:
    cases += full_cases(s, tree=os.path.getsize(s) > 64 << 20)
for t in trees:
    cases += full_cases(t, tree=True)
if ONLY:
    cases = [c for c in cases if ONLY.search(c[0])]

# --- running ---
def digest(path, label, stream):
    masks = [m for m in MASKS if re.search(m[0], label) and m[1] == stream]
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        if masks:
            for line in f:
                for m in masks:
                    line = re.sub(m[2], m[3], line)
                h.update(line)
                size += len(line)
        else:
            while True:
                b = f.read(1 << 20)
                if not b:
                    break
                h.update(b)
                size += len(b)
    return h.hexdigest(), size

def tree_digest(path, label, stream):
    """A file, a folder (every file under it, by relative path) or its absence."""
    if os.path.isdir(path):
        parts = []
        for root, ds, fs in os.walk(path):
            ds.sort()
            for f in sorted(fs):
                p = os.path.join(root, f)
                parts.append(f"{os.path.relpath(p, path)}:{digest(p, label, stream)[0]}")
        return hashlib.sha256("\n".join(parts).encode()).hexdigest(), len(parts)
    if os.path.exists(path):
        return digest(path, label, stream)
    return "absent", -1

def run_side(binary, case, cwd):
    label, argv, stdin_path, outs = case
    shutil.rmtree(cwd, ignore_errors=True)
    for sub in ("", "home", "cache", "tmp"):
        os.makedirs(os.path.join(cwd, sub), exist_ok=True)
    fin = open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb")
    t0 = time.monotonic()
    with fin, open(os.path.join(cwd, "stdout"), "wb") as fo, open(os.path.join(cwd, "stderr"), "wb") as fe:
        try:
            code = subprocess.run([binary] + argv, stdin=fin, stdout=fo, stderr=fe, cwd=cwd,
                                  env=base_env(cwd), timeout=TIMEOUT).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    wall = time.monotonic() - t0
    res = {"exit code": (str(code), 0)}
    res["stdout"] = digest(os.path.join(cwd, "stdout"), label, "stdout")
    res["stderr"] = digest(os.path.join(cwd, "stderr"), label, "stderr")
    for o in outs:
        res[o] = tree_digest(os.path.join(cwd, o), label, o)
    return res, wall

def first_diff(a, b, ctx=2, width=240):
    """The first differing line of two files, with a little context, as text lines."""
    def show(tag, n, line):
        s = line.decode("utf-8", "backslashreplace").rstrip("\n")
        if len(s) > width:
            s = s[:width] + f"... ({len(line)} bytes)"
        return f"    {tag} {n:>7}: {s}"
    if os.path.isdir(a) or os.path.isdir(b):
        return ["    (output folders differ; compare them with diff -r)"]
    if not os.path.exists(a) or not os.path.exists(b):
        return [f"    old {'exists' if os.path.exists(a) else 'absent'}, new {'exists' if os.path.exists(b) else 'absent'}"]
    before = []
    with open(a, "rb") as fa, open(b, "rb") as fb:
        n = 0
        while True:
            la, lb = fa.readline(), fb.readline()
            n += 1
            if la != lb:
                lines = [show(" ", n - len(before) + i, l) for i, l in enumerate(before)]
                lines.append(show("-old", n, la) if la else f"    -old {n:>7}: (end of output)")
                lines.append(show("+new", n, lb) if lb else f"    +new {n:>7}: (end of output)")
                for _ in range(ctx):
                    la, lb = fa.readline(), fb.readline()
                    n += 1
                    if la:
                        lines.append(show("-old", n, la))
                    if lb:
                        lines.append(show("+new", n, lb))
                return lines
            if not la:
                return ["    (same bytes once masked)"]
            before = (before + [la])[-ctx:]

lock = threading.Lock()
done = 0
differences = []
nondeterministic = []
total_wall = {"old": 0.0, "new": 0.0}

def run_case(idx, case):
    global done
    cwd = os.path.join(WORK, f"c{idx}")
    old_res, old_wall = run_side(OLD, case, cwd)
    keep = os.path.join(DIFFS, f"c{idx}")
    old_keep = keep + "/old"
    def stash(dest):
        os.makedirs(dest, exist_ok=True)
        for n in ["stdout", "stderr"] + case[3]:
            src = os.path.join(cwd, n)
            if os.path.exists(src):
                shutil.move(src, os.path.join(dest, n))
    stash_dir = os.path.join(WORK, f"c{idx}.old")
    stash(stash_dir)
    new_res, new_wall = run_side(NEW, case, cwd)
    status, lines = "same", []
    if old_res != new_res:
        # Run both again: a build that disagrees with itself is nondeterministic.
        stash(keep + "/new")
        shutil.move(stash_dir, old_keep)
        old2, _ = run_side(OLD, case, cwd)
        new2, _ = run_side(NEW, case, cwd)
        diff_keys = [k for k in old_res if old_res[k] != new_res.get(k)]
        diff_keys += [k for k in new_res if k not in old_res]
        if old2 != old_res or new2 != new_res:
            status = "nondeterministic"
            lines.append(f"  run again: old {'same' if old2 == old_res else 'DIFFERENT'} as its first run, "
                         f"new {'same' if new2 == new_res else 'DIFFERENT'} as its first run")
        else:
            status = "differs"
        for k in diff_keys:
            if k == "exit code":
                lines.append(f"  exit code: old {old_res[k][0]}, new {new_res[k][0]}")
                continue
            lines.append(f"  {k}: old {old_res[k][1]} bytes, new {new_res[k][1]} bytes")
            lines += first_diff(os.path.join(old_keep, k), os.path.join(keep, "new", k))
        with open(os.path.join(keep, "case.txt"), "w") as f:
            f.write(f"{case[0]}\nargv: {json.dumps(case[1])}\nstdin: {case[2]}\n")
    else:
        shutil.rmtree(stash_dir, ignore_errors=True)
    shutil.rmtree(cwd, ignore_errors=True)
    with lock:
        done += 1
        total_wall["old"] += old_wall
        total_wall["new"] += new_wall
        if status != "same":
            block = [f"{'DIFFERS' if status == 'differs' else 'NONDETERMINISTIC'}: {case[0]}",
                     f"  argv: ndjq {' '.join(case[1])}" + (f" < {case[2]}" if case[2] else ""),
                     f"  kept: {keep}/"] + lines
            (differences if status == "differs" else nondeterministic).append(block)
            print("\n".join(block) + "\n", flush=True)
        if done % 200 == 0 or done == len(cases) or max(old_wall, new_wall) > 5:
            log(f"  [{done}/{len(cases)}] {time.strftime('%H:%M:%S')} {len(differences)} differ"
                f"  (last: {case[0][:100]}: {old_wall:.2f} s / {new_wall:.2f} s)")

t0 = time.monotonic()
log(f"{len(cases)} cases ({len(files)} files, {len(dirs)} folders under testdata/, "
    f"{len(streams)} generated streams, {len(trees)} generated trees), {JOBS} at a time")
with cf.ThreadPoolExecutor(max_workers=JOBS) as ex:
    futs = [ex.submit(run_case, i, c) for i, c in enumerate(cases)]
    for fu in futs:
        fu.result()
shutil.rmtree(WORK, ignore_errors=True)
elapsed = time.monotonic() - t0
print(f"compared {len(cases)} cases in {elapsed:.0f} s (ndjq time: old {total_wall['old']:.0f} s, "
      f"new {total_wall['new']:.0f} s): {len(differences)} differ, {len(nondeterministic)} nondeterministic")
if not differences and not nondeterministic:
    print("every stdout, stderr, exit code and output file is identical")
    shutil.rmtree(DIFFS, ignore_errors=True)
sys.exit(1 if differences or nondeterministic else 0)
PYEOF
rc=$?
set -e
log "total $((SECONDS - START)) s"
if [[ $TEMP_DATA == 1 ]]; then
    if [[ $rc == 0 ]]; then rm -rf "$DATA_DIR"; else log "kept $DATA_DIR (see diffs/)"; fi
fi
exit "$rc"
