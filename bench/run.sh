#!/usr/bin/env bash
# bench/run.sh - throughput and peak-memory benchmark of ndjq against jq (and jaq, gojq when they
# are on PATH) and plain Unix floors: validate, filter, events, stats and gaps, on one thread
# (-j 1) and on every core, on a clean and a corrupted stream.
#
# Usage: bench/run.sh [SIZE_MB]          (default 1024; see bench/README.md)
#
# Environment:
#   NDJQ_BENCH_DIR         where generated data and logs go    (default /tmp/ndjq-bench)
#   NDJQ_BENCH_RUNS        runs per command, best wall is kept (default 3)
#   NDJQ_BENCH_SCALE=1     also run ndjq on a clean file 4x larger, to check RSS stays flat
#   NDJQ_BENCH_GAPS=0      skip the gaps run on 10 million open tool calls
#   NDJQ_BENCH_SCALE_RUNS  runs per command in the scaling check (default 1)
#   NDJQ_BIN               use this ndjq binary and skip `cargo build`
#   NDJQ_BENCH_TREES=0     skip the session-tree cases (ndjq-gen trees, ccusage when found)
#   NDJQ_BENCH_TREE_RUNS   runs per command on the trees, the median is kept (default 5)
#   NDJQ_BENCH_CCUSAGE     the ccusage binary to compare with (default: ccusage on PATH)
#   NDJQ_BENCH_PAIRS       interleaved pairs behind each ratio line (default 11)
#   NDJQ_BENCH_ONLY_TREES=1  run only the session-tree cases (a few minutes; no --follow cases)
#   NDJQ_BENCH_TREE_SHAPES which trees, by ndjq-gen shape (default: all five)
#   NDJQ_BENCH_STATUSLINE=0  skip `statusline` cold and warm (with NDJQ_BENCH_ONLY_TREES=1
#                          NDJQ_BENCH_TREES=0: only it)
#   NDJQ_BENCH_STATUSLINE_RUNS  runs of each statusline case, the median is kept (default 11)
#   NDJQ_BENCH_BASELINE    another ndjq binary (say, main's) timed against this one, every command
#   NDJQ_BENCH_JQ=0        skip jq, jaq and gojq (their rows and the stats-vs-jq table)
#   NDJQ_BENCH_CORRUPT=0   skip the corrupted stream
#   NDJQ_BENCH_FOLLOW=0    skip the --follow cases (bench/follow.sh: append-to-output delay,
#                          idle CPU on 3,000 files; about 3 minutes)
#
# Writes the markdown tables to stdout and to bench/results-YYYY-MM-DD.md, the run's date (UTC;
# -b, -c, ... after it when that file exists; NDJQ_BENCH_RESULTS names another file). Progress
# goes to stderr.
# Exit status: 0 if every command exited with an expected code, 1 otherwise (the tables are
# still written), 2 on a usage or setup error.

set -euo pipefail
export LC_NUMERIC=C

die() { printf 'bench/run.sh: %s\n' "$*" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }

SIZE="${1:-1024}"
[[ $# -le 1 ]] || die "usage: bench/run.sh [SIZE_MB]"
[[ $SIZE =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive integer, got '$SIZE'"
RUNS="${NDJQ_BENCH_RUNS:-3}"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "NDJQ_BENCH_RUNS must be a positive integer, got '$RUNS'"
SCALE_RUNS="${NDJQ_BENCH_SCALE_RUNS:-1}"
[[ $SCALE_RUNS =~ ^[1-9][0-9]*$ ]] || die "NDJQ_BENCH_SCALE_RUNS must be a positive integer"
BENCH_DIR="${NDJQ_BENCH_DIR:-/tmp/ndjq-bench}"
SCALE="${NDJQ_BENCH_SCALE:-0}"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
# NDJQ_BIN: a path relative to the caller's cwd, or a command name on PATH.
if [[ -n ${NDJQ_BIN:-} ]]; then
    if [[ $NDJQ_BIN != */* ]]; then
        NDJQ_BIN="$(command -v "$NDJQ_BIN")" || die "NDJQ_BIN not found on PATH: $NDJQ_BIN"
    fi
    [[ -f $NDJQ_BIN && -x $NDJQ_BIN ]] || die "NDJQ_BIN is not an executable file: $NDJQ_BIN"
    NDJQ_BIN="$(cd "$(dirname "$NDJQ_BIN")" && pwd)/$(basename "$NDJQ_BIN")"
fi
cd "$REPO_ROOT"

# The data generator: this package's ndjq-gen (examples/ndjq-gen/), deterministic from its
# seed, built in release mode (also when NDJQ_BIN skips the build of ndjq).
log "building the generator: cargo build --release --locked --example ndjq-gen"
cargo build --release --locked --example ndjq-gen >&2 || die "cargo build of ndjq-gen failed"
gen_dir="${CARGO_TARGET_DIR:-target}"
[[ $gen_dir = /* ]] || gen_dir="$REPO_ROOT/$gen_dir"
GEN="$gen_dir/release/examples/ndjq-gen"
[[ -x $GEN ]] || die "generator not found after build: $GEN"
command -v python3 >/dev/null || die "python3 is required"
command -v jq >/dev/null || die "jq is required"

mkdir -p "$BENCH_DIR/logs"
BENCH_DIR="$(cd "$BENCH_DIR" && pwd)"
# The results are filed by the date of the run; a second run that day gets -b, a third -c.
if [[ -n ${NDJQ_BENCH_RESULTS:-} ]]; then
    RESULTS="$NDJQ_BENCH_RESULTS"
else
    RUN_DATE="$(date -u +%Y-%m-%d)"
    RESULTS="$SCRIPT_DIR/results-$RUN_DATE.md"
    if [[ -e $RESULTS || -e $SCRIPT_DIR/results-$RUN_DATE-a.md ]]; then
        for suffix in b c d e f g h i j k l m n o p q r s t u v w x y z; do
            RESULTS="$SCRIPT_DIR/results-$RUN_DATE-$suffix.md"
            [[ -e $RESULTS ]] || break
        done
    fi
fi

# --- build ------------------------------------------------------------------------------------
if [[ -n ${NDJQ_BIN:-} ]]; then
    NDJQ="$NDJQ_BIN"
    log "using NDJQ_BIN=$NDJQ (build skipped)"
else
    log "building: cargo build --release --locked"
    cargo build --release --locked >&2 || die "cargo build failed"
    target_dir="${CARGO_TARGET_DIR:-target}"
    [[ $target_dir = /* ]] || target_dir="$REPO_ROOT/$target_dir"
    NDJQ="$target_dir/release/ndjq"
    [[ -x $NDJQ ]] || die "binary not found after build: $NDJQ"
fi

# --- measuring helper -------------------------------------------------------------------------
# Peak RSS: GNU time's %M when /usr/bin/time is GNU time (override with NDJQ_BENCH_TIME_BIN; set
# it empty to force the fallback). Fallback: os.wait4's ru_maxrss. On Linux, exec copies the
# forking process's high-water mark into ru_maxrss, so the fallback reads at least the Python
# helper's own RSS (~10-13 MiB); GNU time forks from a ~1 MiB process. The header of the results
# records which method ran and the floor it reports for `true`.
TIME_BIN="${NDJQ_BENCH_TIME_BIN-/usr/bin/time}"
if [[ -n $TIME_BIN ]] && ! { [[ -x $TIME_BIN ]] && [[ $("$TIME_BIN" --version 2>&1) == *GNU* ]]; }; then
    log "note: $TIME_BIN is not GNU time; measuring peak RSS with os.wait4 instead"
    TIME_BIN=""
fi
if [[ -n $TIME_BIN ]]; then
    RSS_METHOD="GNU time %M ($TIME_BIN)"
else
    RSS_METHOD="os.wait4 ru_maxrss (includes the Python helper's own RSS as a floor)"
fi

# Runs a command RUNS times with stdin=/dev/null and stdout/stderr to the given files; prints
# "best_wall_seconds peak_rss_kib last_exit_code ok|fail". Wall time is perf_counter from
# posix_spawnp to os.wait4. Peak RSS is the max over the runs. Stops at the first run whose
# exit code is not in the allowed list; a negative code is a signal.
MEASURE_PY=$(cat <<'PYEOF'
import os, sys, time
runs = int(sys.argv[1])
ok = {int(c) for c in sys.argv[2].split(",")}
out_path, err_path, time_bin, argv = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
rss_path = err_path + ".rss"
if time_bin:
    argv = [time_bin, "-q", "-f", "%M", "-o", rss_path, "--"] + argv
best, peak, code = float("inf"), 0, 0
for _ in range(runs):
    fin = os.open(os.devnull, os.O_RDONLY)
    fout = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    ferr = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, fin, 0),
            (os.POSIX_SPAWN_DUP2, fout, 1),
            (os.POSIX_SPAWN_DUP2, ferr, 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    finally:
        for fd in (fin, fout, ferr):
            os.close(fd)
    code = os.waitstatus_to_exitcode(status)
    if time_bin:
        if code > 128:  # GNU time exits 128+N when the command was killed by signal N
            code = 128 - code
        try:
            with open(rss_path) as f:
                rss = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            rss = 0
    else:
        rss = ru.ru_maxrss  # KiB on Linux
    best, peak = min(best, wall), max(peak, rss)
    if code not in ok:
        break
print(f"{best:.6f} {peak} {code} {'ok' if code in ok else 'fail'}")
PYEOF
)
# measure RUNS OKCODES STDOUT STDERR cmd...
measure() {
    local runs="$1" okc="$2" out="$3" err="$4"
    shift 4
    python3 -c "$MEASURE_PY" "$runs" "$okc" "$out" "$err" "$TIME_BIN" "$@"
}

# Ratios between two commands are taken from interleaved pairs: A, then B, repeated (the order
# alternates from pair to pair), and the median of the per-pair ratios A/B is reported. This VM's
# speed drifts by up to 2x over minutes; two runs seconds apart see the same machine, so drift
# does not bias the ratio the way it can bias a ratio of two medians taken minutes apart.
# Prints "median_ratio median_a_s median_b_s pairs ok|fail".
PAIR_PY=$(cat <<'PYEOF'
import os, sys, time, statistics
pairs = int(sys.argv[1])
ok = {int(c) for c in sys.argv[2].split(",")}
err_path = sys.argv[3]
rest = sys.argv[4:]
cut = rest.index("--vs")
cmds = (rest[:cut], rest[cut + 1:])
def run(argv):
    fin = os.open(os.devnull, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    ferr = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, fin, 0),
            (os.POSIX_SPAWN_DUP2, fout, 1),
            (os.POSIX_SPAWN_DUP2, ferr, 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    finally:
        for fd in (fin, fout, ferr):
            os.close(fd)
    return wall, ru.ru_stime, os.waitstatus_to_exitcode(status) in ok
a, b, r, sa, sb = [], [], [], [], []
for n in range(pairs):
    order = (0, 1) if n % 2 == 0 else (1, 0)
    t, st = [0.0, 0.0], [0.0, 0.0]
    for k in order:
        t[k], st[k], good = run(cmds[k])
        if not good:
            print(f"0 0 0 {n} fail 0 0")
            sys.exit(0)
    a.append(t[0]); b.append(t[1]); r.append(t[0] / t[1]); sa.append(st[0]); sb.append(st[1])
print(f"{statistics.median(r):.4f} {statistics.median(a):.6f} {statistics.median(b):.6f} {pairs} ok "
      f"{statistics.median(sa):.6f} {statistics.median(sb):.6f}")
PYEOF
)
PAIRS="${NDJQ_BENCH_PAIRS:-11}"
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || die "NDJQ_BENCH_PAIRS must be a positive integer, got '$PAIRS'"
# pair_ratio LABEL OKCODES cmdA... --vs cmdB...: one "- LABEL: R" line for the results (A's time
# over B's, median of PAIRS interleaved pairs, with each side's median wall and system time)
# and a progress line.
pair_ratio() {
    local label="$1" okc="$2" res r ta tb n status sa sb
    shift 2
    printf '  %-52s ' "$label" >&2
    res=$(python3 -c "$PAIR_PY" "$PAIRS" "$okc" "$BENCH_DIR/logs/pair.stderr" "$@") || res="0 0 0 0 fail 0 0"
    read -r r ta tb n status sa sb <<<"$res"
    if [[ $status != ok ]]; then
        log "FAILED (see $BENCH_DIR/logs/pair.stderr)"
        FAILURES=$((FAILURES + 1))
        md "- $label: FAILED"
        return
    fi
    log "$(printf '%.2fx  (%.3f s / %.3f s, medians; system %.3f s / %.3f s)' "$r" "$ta" "$tb" "$sa" "$sb")"
    md "$(printf -- '- %s: %.2fx (%.3f s / %.3f s; system time %.3f s / %.3f s; median of %d interleaved pairs)' "$label" "$r" "$ta" "$tb" "$sa" "$sb" "$n")"
}

# --- data -------------------------------------------------------------------------------------
# gen_file SIZE OUT [generator args...]: generate OUT unless it already exists and is non-empty.
gen_file() {
    local size="$1" out="$2"
    shift 2
    if [[ -s $out ]]; then
        log "cached: $out"
        return
    fi
    log "generating $out (${size} MiB) ..."
    if ! "$GEN" stream --dialect claude --size-mb "$size" "$@" -o "$out.tmp" 2>>"$BENCH_DIR/gen.log"; then
        rm -f "$out.tmp"
        tail -n 20 "$BENCH_DIR/gen.log" >&2 || true
        die "generator failed (log: $BENCH_DIR/gen.log)"
    fi
    mv "$out.tmp" "$out"
}

CLEAN="$BENCH_DIR/clean-${SIZE}.ndjson"
CORRUPT="$BENCH_DIR/corrupt-${SIZE}.ndjson"
# NDJQ_BENCH_ONLY_TREES=1: the session trees only (no stream, jq, gaps or scaling cases).
ONLY_TREES="${NDJQ_BENCH_ONLY_TREES:-0}"
WITH_JQ="${NDJQ_BENCH_JQ:-1}"
WITH_CORRUPT="${NDJQ_BENCH_CORRUPT:-1}"
if [[ $ONLY_TREES != 1 ]]; then
    gen_file "$SIZE" "$CLEAN"
    [[ $WITH_CORRUPT != 1 ]] || gen_file "$SIZE" "$CORRUPT" --corrupt-rate 0.001
fi

# --- helpers ----------------------------------------------------------------------------------
fsize() { stat -c %s "$1"; }
fmt_mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# Result rows of the file being benchmarked (reset per file).
declare -a R_LABEL R_KEY R_BASE R_TIME R_RSS R_CODE R_STATUS R_NOTE
declare -A R_IDX    # key -> row index
declare -A KEEP     # "<file>:<key>" -> "time rss" for the scaling table
FAILURES=0
MD="$BENCH_DIR/results.md.tmp"
: >"$MD"
md() { printf '%s\n' "$*" >>"$MD"; }

# run_row KEY BASE OKCODES RUNS STDOUT LABEL -- cmd...
#   KEY identifies the row. BASE names the rows it is compared with: "JQKEY" or
#   "JQKEY:JAQKEY" (the jq row, then the jaq row), or "-".
run_row() {
    local key="$1" base="$2" okc="$3" runs="$4" out="$5" label="$6"
    shift 7
    local i=${#R_LABEL[@]} res t rss code status
    local errf="$BENCH_DIR/logs/${CUR_TAG}-${key}.stderr"
    printf '  %-44s ' "$label" >&2
    if ! res=$(measure "$runs" "$okc" "$out" "$errf" "$@"); then
        res="0 0 127 fail"
    fi
    read -r t rss code status <<<"$res"
    R_LABEL[i]="$label" R_KEY[i]="$key" R_BASE[i]="$base" R_TIME[i]="$t" R_RSS[i]="$rss"
    R_CODE[i]="$code" R_STATUS[i]="$status" R_NOTE[i]=""
    R_IDX[$key]=$i
    if [[ $status = ok ]]; then
        printf '%8.3f s  %7.1f MiB  exit %s\n' "$t" "$(awk -v k="$rss" 'BEGIN{printf "%.1f", k/1024}')" "$code" >&2
    else
        if ((code < 0)); then code="signal $((-code))"; else code="exit $code"; fi
        printf 'FAILED (%s, stderr: %s)\n' "$code" "$errf" >&2
        FAILURES=$((FAILURES + 1))
    fi
}

# note_early_stop KEY: for a jq-like row that exited non-zero on the corrupted file.
note_early_stop() {
    local i=${R_IDX[$1]:-}
    [[ -n $i && ${R_STATUS[i]} = ok && ${R_CODE[i]} != 0 ]] || return 0
    local errf="$BENCH_DIR/logs/${CUR_TAG}-$1.stderr" where
    where=$(grep -o -m1 'at line [0-9]*' "$errf" 2>/dev/null | head -n1 | tr -dc 0-9 || true)
    R_NOTE[i]="(stops at first error${where:+, line $where of $CUR_LINES})"
}

# ratio I BASEKEY: the time of row BASEKEY divided by the time of row I ("-" without a base).
ratio() {
    local i="$1" b="$2" j
    if [[ -z $b || $b == - ]]; then
        printf -- '-'
        return
    fi
    j=${R_IDX[$b]:-}
    if [[ -z $j ]]; then
        printf -- '-'              # that tool is not installed
    elif [[ ${R_STATUS[j]} != ok ]]; then
        printf 'n/a'
    elif [[ ${R_CODE[j]} != 0 || -n ${R_NOTE[i]} ]]; then
        printf 'n/a*'              # jq (or a jq-like tool) stopped early: not the same work
    elif [[ $j == "$i" ]]; then
        printf '1.00x'
    else
        awk -v a="${R_TIME[j]}" -v c="${R_TIME[i]}" 'BEGIN { printf "%.2fx", a / c }'
    fi
}

emit_table() {
    local bytes="$1" i t mbs rss exitc note base jqb jaqb
    md "| command | best s | MB/s | peak RSS MiB | vs jq | vs jaq | exit | notes |"
    md "|---|---:|---:|---:|---:|---:|---:|---|"
    for i in "${!R_LABEL[@]}"; do
        t="${R_TIME[i]}"
        exitc="${R_CODE[i]}"
        ((exitc < 0)) && exitc="signal $((-exitc))"
        note="${R_NOTE[i]}"
        if [[ ${R_STATUS[i]} != ok ]]; then
            md "| \`${R_LABEL[i]}\` | FAILED | - | - | - | - | $exitc | see ${BENCH_DIR}/logs/${CUR_TAG}-${R_KEY[i]}.stderr |"
            continue
        fi
        rss=$(awk -v k="${R_RSS[i]}" 'BEGIN { printf "%.1f", k / 1024 }')
        if [[ $note == "(stops at first error"* ]]; then
            mbs="n/a"
        else
            mbs=$(awk -v b="$bytes" -v t="$t" 'BEGIN { printf "%.0f", b / 1e6 / t }')
        fi
        base="${R_BASE[i]}"
        jqb="${base%%:*}"
        jaqb=""
        [[ $base == *:* ]] && jaqb="${base#*:}"
        md "| \`${R_LABEL[i]}\` | $(printf '%.3f' "$t") | $mbs | $rss | $(ratio "$i" "$jqb") | $(ratio "$i" "$jaqb") | $exitc | $note |"
    done
}

# bench_file TAG FILE
bench_file() {
    local tag="$1" file="$2" bytes lines alt
    CUR_TAG="$tag"
    R_LABEL=() R_KEY=() R_BASE=() R_TIME=() R_RSS=() R_CODE=() R_STATUS=() R_NOTE=()
    R_IDX=()
    bytes=$(fsize "$file")
    lines=$(wc -l <"$file")
    CUR_LINES="$lines"
    log ""
    log "== $tag: $file ($(fmt_mb "$bytes") MB, $lines lines), best of $RUNS =="
    cat "$file" >/dev/null   # warm the page cache so the first timed command is not penalised

    local jqok=0 altok=0
    # jq 1.6 exits 2 or 4 on a parse error, 5 on other errors; jaq and gojq use other codes.
    if [[ $tag == corrupt ]]; then jqok=0,1,2,3,4,5; altok=0,1,2,3,4,5; fi
    local pat='"type":"assistant"' sel='select(.type=="assistant")'
    local gout="$BENCH_DIR/logs/${tag}-grep.stdout"

    local v=jq_empty:jaq_empty f=jq_sel:jaq_sel
    run_row wc        -        0   "$RUNS" /dev/null "wc -l"                     -- wc -l "$file"
    # -c and a regular-file stdout: with stdout on /dev/null GNU grep quits at the first match.
    run_row grep      -        0,1 "$RUNS" "$gout"   "grep -cF '$pat'"           -- grep -cF "$pat" "$file"
    run_row cat       -        0   "$RUNS" /dev/null "cat"                       -- cat "$file"
    run_row validate  "$v" 0,1 "$RUNS" /dev/null "ndjq validate --format json" -- "$NDJQ" validate --format json "$file"
    run_row validate1 "$v" 0,1 "$RUNS" /dev/null "ndjq validate --format json -j 1" -- "$NDJQ" validate --format json -j 1 "$file"
    run_row filter    "$f" 0,1 "$RUNS" /dev/null "ndjq filter --type assistant" -- "$NDJQ" filter --type assistant "$file"
    run_row filter1   "$f" 0,1 "$RUNS" /dev/null "ndjq filter --type assistant -j 1" -- "$NDJQ" filter --type assistant -j 1 "$file"
    # --- filter predicates, each against its jq program (rows jq_where, jq_grep) ---
    local wexpr='message.usage.output_tokens>100' wprog='select(.message.usage.output_tokens > 100)'
    # jq's program reads the same human text as --grep (src/filter/grep.rs, claude dialect).
    local gre='panic' gprog='select(any((.message.content | if type == "string" then . elif type == "array" then .[] | objects | (.text, .thinking, (.input | ..), (.content | if type == "string" then . elif type == "array" then .[] | objects | .text else empty end)) else empty end), .result | strings; test("panic")))'
    run_row filter_where jq_where 0,1 "$RUNS" /dev/null "ndjq filter --where '$wexpr'" -- "$NDJQ" filter --where "$wexpr" "$file"
    run_row filter_grep  jq_grep  0,1 "$RUNS" /dev/null "ndjq filter --grep '$gre'"    -- "$NDJQ" filter --grep "$gre" "$file"
    if [[ $WITH_JQ == 1 ]]; then
    run_row jq_where     jq_where "$jqok" "$RUNS" /dev/null "jq -c '$wprog'"           -- jq -c "$wprog" "$file"
    run_row jq_grep      jq_grep  "$jqok" "$RUNS" /dev/null "jq -c '<--grep program>'" -- jq -c "$gprog" "$file"
    fi
    # --- end of the filter predicates ---
    # events reads blocks on every core (each checked against the context before it); gaps
    # and validate --gaps too (workers take each record's gap facts, the merge applies them).
    run_row events    -    0,1 "$RUNS" /dev/null "ndjq events --format json"   -- "$NDJQ" events --format json "$file"
    run_row validate_gaps - 0,1 "$RUNS" /dev/null "ndjq validate --gaps --format json" -- "$NDJQ" validate --gaps --format json "$file"
    run_row stats     -    0   "$RUNS" /dev/null "ndjq stats --format json --mergeable"   -- "$NDJQ" stats --format json --mergeable "$file"
    run_row stats1    -    0   "$RUNS" /dev/null "ndjq stats --format json --mergeable -j 1" -- "$NDJQ" stats --format json --mergeable -j 1 "$file"
    run_row gaps      -    0,1 "$RUNS" /dev/null "ndjq gaps --format json"    -- "$NDJQ" gaps --format json "$file"
    if [[ $WITH_JQ == 1 ]]; then
    run_row jq_sel    "$f" "$jqok" "$RUNS" /dev/null "jq -c '$sel'"          -- jq -c "$sel" "$file"
    run_row jq_empty  "$v" "$jqok" "$RUNS" /dev/null "jq empty"              -- jq empty "$file"
    fi
    for alt in jaq gojq; do
        [[ $WITH_JQ == 1 ]] || continue
        command -v "$alt" >/dev/null || continue
        run_row "${alt}_sel"   "$f" "$altok" "$RUNS" /dev/null "$alt -c '$sel'" -- "$alt" -c "$sel" "$file"
        run_row "${alt}_empty" "$v" "$altok" "$RUNS" /dev/null "$alt empty"     -- "$alt" empty "$file"
    done

    if [[ $tag == corrupt ]]; then
        for alt in jq jaq gojq; do
            note_early_stop "${alt}_sel"
            note_early_stop "${alt}_empty"
        done
        note_early_stop jq_where
        note_early_stop jq_grep
    fi
    local k i
    i=${R_IDX[validate]}
    if [[ $tag == clean && ${R_STATUS[i]} == ok && ${R_CODE[i]} != 0 ]]; then
        R_NOTE[i]="reports problems in the clean file"
    fi
    for k in validate filter events stats gaps; do
        i=${R_IDX[$k]}
        [[ ${R_STATUS[i]} = ok ]] && KEEP["$tag:$k"]="${R_TIME[i]} ${R_RSS[i]}"
    done

    md ""
    md "### ${tag} input: \`$(basename "$file")\` - $(fmt_mb "$bytes") MB, $lines lines"
    md ""
    emit_table "$bytes"
    # The ratios of docs/PERFORMANCE.md: one thread against every core, events and the gap checks
    # against validate, each from interleaved pairs (see pair_ratio).
    md ""
    log "  ratios, median of $PAIRS interleaved pairs:"
    pair_ratio "validate: -j 1 time / default time" 0,1 "$NDJQ" validate --format json -j 1 "$file" --vs "$NDJQ" validate --format json "$file"
    pair_ratio "filter: -j 1 time / default time" 0,1 "$NDJQ" filter --type assistant -j 1 "$file" --vs "$NDJQ" filter --type assistant "$file"
    pair_ratio "stats: -j 1 time / default time" 0 "$NDJQ" stats --format json --mergeable -j 1 "$file" --vs "$NDJQ" stats --format json --mergeable "$file"
    pair_ratio "events time / validate time" 0,1 "$NDJQ" events --format json "$file" --vs "$NDJQ" validate --format json "$file"
    pair_ratio "validate --gaps time / validate time" 0,1 "$NDJQ" validate --gaps --format json "$file" --vs "$NDJQ" validate --format json "$file"
    pair_ratio "gaps time / validate time" 0,1 "$NDJQ" gaps --format json "$file" --vs "$NDJQ" validate --format json "$file"
    pair_ratio "validate time / cat time" 0,1 "$NDJQ" validate --format json "$file" --vs cat "$file"
    pair_ratio "filter time / cat time" 0,1 "$NDJQ" filter --type assistant "$file" --vs cat "$file"
    if [[ -n $BASELINE ]]; then
        for cmd in "${BASELINE_CMDS[@]}"; do
            read -r -a words <<<"$cmd"
            pair_ratio "${cmd% --format json}: baseline time / this build's time" 0,1 "$BASELINE" "${words[@]}" "$file" --vs "$NDJQ" "${words[@]}" "$file"
        done
    fi
}

# NDJQ_BENCH_BASELINE: another build (say, main's), timed against this one in the same run,
# on the stream and on the trees: every command, baseline time / this build's time.
BASELINE="${NDJQ_BENCH_BASELINE:-}"
if [[ -n $BASELINE ]]; then
    [[ -x $BASELINE ]] || die "NDJQ_BENCH_BASELINE is not an executable file: $BASELINE"
    BASELINE="$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")"
fi
BASELINE_CMDS=("validate --format json" "filter --type assistant" "stats --format json --mergeable" "events --format json" "gaps --format json" "validate --gaps --format json")

# --- header -----------------------------------------------------------------------------------
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
ndjq_ver=$("$NDJQ" --version 2>/dev/null | head -n1 || true)
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || rev="$rev, working tree modified"
else
    rev="no commit yet"
fi
if [[ $ONLY_TREES == 1 ]]; then
    md "## ndjq benchmark - session trees only (NDJQ_BENCH_ONLY_TREES=1)"
else
    md "## ndjq benchmark - ${SIZE} MiB inputs"
fi
md ""
md "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
md "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, $(awk '/^MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
md "- ndjq: ${ndjq_ver:-unknown version} (\`$NDJQ\`, git $rev)"
md "- jq: $(jq --version 2>&1)$(for a in jaq gojq; do command -v "$a" >/dev/null && printf ', %s: %s' "$a" "$("$a" --version 2>&1 | head -n1)"; done)"
floor=$(measure 1 0 /dev/null "$BENCH_DIR/logs/true.stderr" true | awk '{ printf "%.1f", $2 / 1024 }')
md "- method: best wall time of $RUNS runs, stdout to /dev/null, page cache warm; data in \`$BENCH_DIR\` ($(stat -f -c %T "$BENCH_DIR" 2>/dev/null || echo '?'))"
md "- peak RSS: max over the runs, $RSS_METHOD; reads ${floor} MiB for \`true\`"
md "- MB = 10^6 bytes; MB/s = input size / best time; \`vs jq\` (\`vs jaq\`) = jq's (jaq's) time / this time: filter vs \`-c select\`, validate vs \`empty\`, stats vs the jq \`reduce\` program in bench/run.sh; \`-j 1\`: one worker thread, otherwise one per core"
md "- load average when the run started: $(cut -d' ' -f1-3 /proc/loadavg) (other work on this machine shows in the times)"

if [[ $ONLY_TREES != 1 ]]; then
bench_file clean "$CLEAN"
[[ $WITH_CORRUPT != 1 ]] || bench_file corrupt "$CORRUPT"
if [[ $WITH_JQ == 1 ]]; then

# --- stats against jq -------------------------------------------------------------------------
# The jq program that computes what `ndjq stats` reports for these files: records by type
# (type/subtype), distinct sessions, and tokens counted once per message id keeping the last
# usage snapshot. Written with flat keys, the fastest form found for jq 1.6; still, jq's time
# grows faster than the input (here: 7.5 s for 64 MiB, 309 s for 256 MiB), so it runs on a
# 64 MiB prefix of the clean file (whole lines), and ndjq on the same prefix.
JQ_STATS='reduce (inputs | [((.type // "(none)") + (if (.subtype | type) == "string" then "/" + .subtype else "" end)),
    (if (.session_id | type) == "string" then .session_id else "" end),
    (if .type == "assistant" and (.message.id | type) == "string" then .message.id + "/" + (.request_id // "") else "" end),
    .message.usage]) as [$t, $s, $m, $u]
  ({}; .["t " + $t] += 1 | .["s " + $s] = 1 | .["m " + $m] = $u)
| to_entries
| {types: (map(select(.key | startswith("t "))) | map({key: .key[2:], value}) | from_entries),
   sessions: (map(select(.key | startswith("s ")) | select(.key != "s ")) | length),
   tokens: (map(select(.key | startswith("m ")) | select(.key != "m ") | .value)
            | {input: (map(.input_tokens) | add), output: (map(.output_tokens) | add),
               cache_creation: (map(.cache_creation_input_tokens) | add),
               cache_read: (map(.cache_read_input_tokens) | add)})}'
SLICE="$BENCH_DIR/clean-64mib-prefix.ndjson"
head -c $((64 << 20)) "$CLEAN" | head -n -1 >"$SLICE"
slice_bytes=$(fsize "$SLICE")
log ""
log "== stats vs jq: $SLICE ($(fmt_mb "$slice_bytes") MB) =="
CUR_TAG=stats
R_LABEL=() R_KEY=() R_BASE=() R_TIME=() R_RSS=() R_CODE=() R_STATUS=() R_NOTE=()
R_IDX=()
run_row stats    jq_stats 0 "$RUNS" /dev/null "ndjq stats --format json --mergeable" -- "$NDJQ" stats --format json --mergeable "$SLICE"
run_row jq_stats jq_stats 0 1 /dev/null "jq -n 'reduce inputs …' (same figures)" -- jq -n "$JQ_STATS" "$SLICE"
md ""
md "### stats against jq: 64 MiB prefix of the clean file - $(fmt_mb "$slice_bytes") MB"
md ""
md "jq's time grows faster than its input on this program (7.5 s for 64 MiB, 309 s for 256 MiB here), so the comparison runs on a prefix; the jq program is in bench/run.sh."
md ""
emit_table "$slice_bytes"
md ""
md "\`n/a*\`: jq stops at the first parse error on the corrupted file, so it did not process the same input and no ratio is given."
md "grep runs with \`-c\` and stdout on a regular file: with stdout on /dev/null GNU grep exits at the first match."
fi # WITH_JQ

fi # ONLY_TREES

# --- gaps: 10 million tool calls opened and never closed -----------------------------------------
# The tracked set is capped, so memory must stay flat however many calls stay open.
if [[ $ONLY_TREES != 1 && ${NDJQ_BENCH_GAPS:-1} == 1 ]]; then
    OPEN="$BENCH_DIR/open-tool-calls-10m.ndjson"
    if [[ ! -s $OPEN ]]; then
        log "generating $OPEN (10,000,000 tool calls, no results) ..."
        python3 -c '
import sys
w = sys.stdout.write
for i in range(10_000_000):
    w("{\"type\":\"assistant\",\"session_id\":\"s\",\"message\":{\"id\":\"msg_%d\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Bash\",\"input\":{}}]}}\n" % (i, i))
' >"$OPEN"
    fi
    open_bytes=$(fsize "$OPEN")
    log ""
    log "== gaps: $OPEN ($(fmt_mb "$open_bytes") MB) =="
    CUR_TAG=gaps
    R_LABEL=() R_KEY=() R_BASE=() R_TIME=() R_RSS=() R_CODE=() R_STATUS=() R_NOTE=()
    R_IDX=()
    run_row gaps - 1 1 /dev/null "ndjq gaps --format json" -- "$NDJQ" gaps --format json "$OPEN"
    md ""
    md "### gaps: 10,000,000 tool calls opened, never closed - $(fmt_mb "$open_bytes") MB"
    md ""
    md "The tracked set is capped at 100,000 open calls (one diagnostic says so, the oldest are dropped), so memory stays bounded."
    md ""
    emit_table "$open_bytes"
fi

# --- session trees: many files, one worker pool ---------------------------------------------------
# Folders shaped like ~/.claude/projects (3,000 transcripts, 2 KB to 5 MB), a heavier one (400
# larger files) and ~/.codex/sessions, made by the project's generator (`ndjq-gen tree`; a
# folder already at $BENCH_DIR/tree-SHAPE is reused). Each command runs NDJQ_BENCH_TREE_RUNS
# times; the table gives the median and the ratios of medians. ccusage 20 runs on the same
# trees when it is found (NDJQ_BENCH_CCUSAGE, else `ccusage` on PATH), and its token totals are
# compared with those of `ndjq stats`.
if [[ ${NDJQ_BENCH_TREES:-1} == 1 ]]; then
    TREE_RUNS="${NDJQ_BENCH_TREE_RUNS:-5}"
    GEN_BIN="${NDJQ_GEN:-$GEN}"
    CCUSAGE="${NDJQ_BENCH_CCUSAGE:-$(command -v ccusage || true)}"
    # median_of RUNS OKCODES cmd...: "median_s peak_rss_kib code ok|fail" over RUNS single runs.
    median_of() {
        local runs="$1" okc="$2" n res t rss code status times=() peak=0
        shift 2
        for ((n = 0; n < runs; n++)); do
            res=$(measure 1 "$okc" /dev/null "$BENCH_DIR/logs/tree.stderr" "$@") || res="0 0 127 fail"
            read -r t rss code status <<<"$res"
            [[ $status == ok ]] || { echo "0 0 $code fail"; return; }
            times+=("$t")
            ((rss > peak)) && peak=$rss
        done
        printf '%s %s %s ok\n' "$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')" "$peak" "$code"
    }
    # tree_row LABEL OKCODES cmd...: one table row; sets TREE_T (the median).
    tree_row() {
        local label="$1" okc="$2" t rss code status
        shift 2
        printf '  %-52s ' "$label" >&2
        read -r t rss code status <<<"$(median_of "$TREE_RUNS" "$okc" "$@")"
        TREE_T="$t"
        if [[ $status != ok ]]; then
            log "FAILED (exit $code)"
            FAILURES=$((FAILURES + 1))
            md "| \`$label\` | FAILED | - | - | $code |"
            return
        fi
        log "$(printf '%8.3f s  %7.1f MiB' "$t" "$(awk -v k="$rss" 'BEGIN{printf "%.1f", k/1024}')")"
        md "| \`$label\` | $(printf '%.3f' "$t") | $(awk -v b="$TREE_BYTES" -v t="$t" 'BEGIN { printf "%.0f", b / 1e6 / t }') | $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') | $code |"
    }
    # tokens_of JSON-FILE: "input output cache_creation cache_read" (ndjq stats or ccusage).
    ndjq_tokens() { jq -r '.tokens | "\(.input) \(.output) \(.cache_creation) \(.cache_read)"' "$1"; }
    ccusage_tokens() { jq -r '.totals | "\(.inputTokens) \(.outputTokens) \(.cacheCreationTokens) \(.cacheReadTokens)"' "$1"; }
    if [[ -n $BASELINE ]]; then
        md ""
        md "- baseline (\`NDJQ_BENCH_BASELINE\`): \`$BASELINE\`, $("$BASELINE" --version 2>/dev/null | head -n1), timed in the same run"
    fi
    for shape in ${NDJQ_BENCH_TREE_SHAPES:-claude-projects claude-large claude-bimodal claude-long-lines codex-sessions}; do
        TREE="$BENCH_DIR/tree-$shape"
        if [[ ! -d $TREE ]]; then
            if [[ -x $GEN_BIN ]]; then
                log "generating $TREE (ndjq-gen tree --shape $shape) ..."
                "$GEN_BIN" tree --shape "$shape" "$TREE.tmp" >&2 || die "ndjq-gen tree --shape $shape failed"
                mv "$TREE.tmp" "$TREE"
            else
                log "skipping the $shape tree: no $TREE and no ndjq-gen at $GEN_BIN"
                continue
            fi
        fi
        TREE_BYTES=$(du -sb "$TREE" | cut -f1)
        files=$(find "$TREE" -type f -name '*.jsonl' | wc -l)
        log ""
        log "== tree $shape: $TREE ($files files, $(fmt_mb "$TREE_BYTES") MB), median of $TREE_RUNS =="
        find "$TREE" -type f -exec cat {} + >/dev/null   # page cache
        md ""
        md "### tree \`$shape\`: $files files, $(fmt_mb "$TREE_BYTES") MB (median of $TREE_RUNS runs)"
        md ""
        md "| command | median s | MB/s | peak RSS MiB | exit |"
        md "|---|---:|---:|---:|---:|"
        # The floor: every file read once, one open each (no JSON tool does less).
        tree_row "cat (every file once: find -exec cat {} +)" 0 find "$TREE" -type f -exec cat {} +
        for cmd in "validate --format json" "filter --type assistant" "stats --format json --mergeable" "events --format json" "gaps --format json" "validate --gaps --format json"; do
            read -r -a words <<<"$cmd"
            tree_row "ndjq $cmd" 0,1 "$NDJQ" "${words[@]}" "$TREE"
            case $cmd in validate\ --format* | filter* | stats*)
                tree_row "ndjq $cmd -j 1" 0,1 "$NDJQ" "${words[@]}" -j 1 "$TREE"
                if [[ -n $BASELINE ]]; then
                    tree_row "baseline $cmd" 0,1 "$BASELINE" "${words[@]}" "$TREE"
                    tree_row "baseline $cmd -j 1" 0,1 "$BASELINE" "${words[@]}" -j 1 "$TREE"
                fi ;;
            esac
        done
        ccu=""
        if [[ -n $CCUSAGE ]]; then
            case $shape in
                codex-*) ccu_env="CODEX_HOME=$TREE" ccu_cmd=codex ;;
                *) ccu_env="CLAUDE_CONFIG_DIR=$TREE" ccu_cmd=claude ;;
            esac
            tree_row "ccusage $ccu_cmd session --json --offline" 0 env "$ccu_env" "$CCUSAGE" "$ccu_cmd" session --json --offline
            ccu="$TREE_T"
        fi
        md ""
        log "  ratios, median of $PAIRS interleaved pairs:"
        pair_ratio "validate: -j 1 time / default time" 0,1 "$NDJQ" validate --format json -j 1 "$TREE" --vs "$NDJQ" validate --format json "$TREE"
        pair_ratio "filter: -j 1 time / default time" 0,1 "$NDJQ" filter --type assistant -j 1 "$TREE" --vs "$NDJQ" filter --type assistant "$TREE"
        pair_ratio "stats: -j 1 time / default time" 0,1 "$NDJQ" stats --format json --mergeable -j 1 "$TREE" --vs "$NDJQ" stats --format json --mergeable "$TREE"
        pair_ratio "validate --gaps time / validate time" 0,1 "$NDJQ" validate --gaps --format json "$TREE" --vs "$NDJQ" validate --format json "$TREE"
        pair_ratio "events time / validate time" 0,1 "$NDJQ" events --format json "$TREE" --vs "$NDJQ" validate --format json "$TREE"
        pair_ratio "validate time / cat time (the floor)" 0,1 "$NDJQ" validate --format json "$TREE" --vs find "$TREE" -type f -exec cat {} +
        if [[ -n $BASELINE ]]; then
            for cmd in "${BASELINE_CMDS[@]}"; do
                read -r -a words <<<"$cmd"
                pair_ratio "${cmd% --format json}: baseline time / this build's time" 0,1 "$BASELINE" "${words[@]}" "$TREE" --vs "$NDJQ" "${words[@]}" "$TREE"
            done
        fi
        if [[ -n $ccu ]]; then
            # Like for like: the report alone, as ccusage writes one (`--mergeable` adds the
            # merge state, a megabyte or two that ccusage has no counterpart of).
            pair_ratio "ccusage time / ndjq stats time" 0 env "$ccu_env" "$CCUSAGE" "$ccu_cmd" session --json --offline --vs "$NDJQ" stats --format json "$TREE"
            # The most any `stats` could reach here: ndjq reading, framing and parsing every
            # line with no schema check and no stats (the generic dialect). A ratio below
            # 2.5 means the stats goal (docs/PERFORMANCE.md) is out of reach on this tree and machine.
            pair_ratio "ccusage time / ndjq's floor (validate --dialect generic)" 0,1 env "$ccu_env" "$CCUSAGE" "$ccu_cmd" session --json --offline --vs "$NDJQ" validate --dialect generic --format json "$TREE"
            "$NDJQ" stats --format json "$TREE" >"$BENCH_DIR/logs/tree-$shape.ndjq.json" 2>/dev/null || true
            env "$ccu_env" "$CCUSAGE" "$ccu_cmd" session --json --offline >"$BENCH_DIR/logs/tree-$shape.ccusage.json" 2>/dev/null || true
            case $shape in codex-*)
                # What ccusage 20.0.24 reads of a rollout: only the lines that carry its
                # markers (tests/it/stats_ccusage.rs shows it never sees damage elsewhere);
                # ndjq parses and checks every line.
                read -r ccu_lines all_lines ccu_bytes all_bytes < <(find "$TREE" -type f -name '*.jsonl' -exec cat {} + |
                    LC_ALL=C awk '{ t++; tb += length($0) + 1 }
                        index($0, "\"type\":\"token_count\"") || index($0, "\"type\":\"turn_context\"") { n++; b += length($0) + 1 }
                        END { print n + 0, t + 0, b + 0, tb + 0 }')
                md "- lines ccusage parses (\`\"type\":\"token_count\"\` or \`\"type\":\"turn_context\"\` in them): $ccu_lines of $all_lines ($(awk -v a="$ccu_lines" -v b="$all_lines" 'BEGIN { printf "%.1f", 100 * a / b }')%), $(awk -v a="$ccu_bytes" -v b="$all_bytes" 'BEGIN { printf "%.1f", 100 * a / b }')% of the bytes; ndjq parses and checks all of them" ;;
            esac
            mine=$(ndjq_tokens "$BENCH_DIR/logs/tree-$shape.ndjq.json" 2>/dev/null || echo "?")
            theirs=$(ccusage_tokens "$BENCH_DIR/logs/tree-$shape.ccusage.json" 2>/dev/null || echo "?")
            if [[ $mine == "$theirs" ]]; then
                md "- token totals (input output cache_creation cache_read): equal, $mine"
            else
                md "- token totals (input output cache_creation cache_read): ndjq $mine, ccusage $theirs (DIFFER)"
            fi
            mine=$(jq -r '.cost_usd | . * 100 | round / 100' "$BENCH_DIR/logs/tree-$shape.ndjq.json" 2>/dev/null || echo "?")
            theirs=$(jq -r '.totals | (.totalCost // .costUSD) | . * 100 | round / 100' "$BENCH_DIR/logs/tree-$shape.ccusage.json" 2>/dev/null || echo "?")
            if [[ $mine == "$theirs" ]]; then
                md "- cost, to the cent: equal, \$$mine"
            else
                md "- cost, to the cent: ndjq \$$mine, ccusage \$$theirs (DIFFER)"
            fi
        fi
    done
fi

# --- the status line: cold and warm, against ccusage statusline ---------------------------------
# `ndjq statusline` over the 400-transcript tree (CLAUDE_CONFIG_DIR pointing at it, an empty
# HOME, the cache in a folder of its own): cold (the cache removed before each run), after one
# message (a line appended to the session's transcript before each run) and warm (nothing
# changed), each the median of NDJQ_BENCH_STATUSLINE_RUNS single runs with Claude Code's JSON
# on stdin, beside a plain `stats --format json` of the tree. ccusage's `statusline`
# (NDJQ_BENCH_CCUSAGE, else `ccusage` on PATH) the same way, its cache (in its HOME and
# TMPDIR) removed before each cold run.
# NDJQ_BENCH_STATUSLINE=0 skips it; NDJQ_BENCH_ONLY_TREES=1 NDJQ_BENCH_TREES=0 runs only it.
STATUSLINE_PY=$(cat <<'PYEOF'
import os, sys, time, statistics, shutil
runs, mode, stdin_path, err_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
rest = sys.argv[5:]
cut = rest.index("--")
extra, argv = rest[:cut], rest[cut + 1:]
# extra: for cold, folders to remove before each run; for append, FILE LINE-FILE.
walls, peak, ok = [], 0, True
for n in range(runs):
    if mode == "cold":
        for d in extra:
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d, exist_ok=True)
    elif mode == "append":
        with open(extra[1], "rb") as f:
            line = f.read().replace(b"@N@", str(n).encode())
        with open(extra[0], "ab") as f:
            f.write(line)
    fin = os.open(stdin_path, os.O_RDONLY)
    fout = os.open(os.devnull, os.O_WRONLY)
    ferr = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, fin, 0), (os.POSIX_SPAWN_DUP2, fout, 1),
            (os.POSIX_SPAWN_DUP2, ferr, 2)])
        _, status, ru = os.wait4(pid, 0)
        walls.append(time.perf_counter() - t0)
    finally:
        for fd in (fin, fout, ferr):
            os.close(fd)
    peak = max(peak, ru.ru_maxrss)
    if os.waitstatus_to_exitcode(status) != 0:
        ok = False
        break
print(f"{statistics.median(walls):.6f} {peak} {'ok' if ok else 'fail'}")
PYEOF
)
if [[ ${NDJQ_BENCH_STATUSLINE:-1} == 1 ]]; then
    SL_RUNS="${NDJQ_BENCH_STATUSLINE_RUNS:-11}"
    TREE="$BENCH_DIR/tree-claude-large"
    if [[ ! -d $TREE ]]; then
        log "generating $TREE (ndjq-gen tree --shape claude-large) ..."
        "${NDJQ_GEN:-$GEN}" tree --shape claude-large "$TREE.tmp" >&2 || die "ndjq-gen tree failed"
        mv "$TREE.tmp" "$TREE"
    fi
    SL="$BENCH_DIR/statusline"
    rm -rf "$SL" && mkdir -p "$SL/home" "$SL/cache" "$SL/ccu-home" "$SL/ccu-tmp"
    # A copy of the tree, so the appended lines never touch the shared one.
    cp -r "$TREE" "$SL/tree"
    session_file=$(find "$SL/tree/projects" -name "*.jsonl" | sort | sed -n 1p)
    session=$(basename "$session_file" .jsonl)
    # Claude Code's status line JSON, every field it sends (ccusage needs them all).
    printf '{"hook_event_name":"Status","session_id":"%s","transcript_path":"%s","cwd":"/home/dev","model":{"id":"claude-opus-4-5","display_name":"Opus 4.5"},"workspace":{"current_dir":"/home/dev","project_dir":"/home/dev"},"version":"2.1.30","output_style":{"name":"default"},"cost":{"total_cost_usd":1.25,"total_duration_ms":45000,"total_api_duration_ms":2300,"total_lines_added":156,"total_lines_removed":23},"context_window":{"total_input_tokens":15234,"total_output_tokens":4521,"context_window_size":200000,"used_percentage":37,"remaining_percentage":63,"current_usage":{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":2000}}}\n' \
        "$session" "$session_file" >"$SL/status.json"
    # One more assistant message, like the session's own lines (a fresh id for each run).
    grep -m1 '"type":"assistant"' "$session_file" |
        sed -E 's/"id":"msg_[^"]*"/"id":"msg_bench_@N@"/; s/"requestId":"[^"]*"/"requestId":"req_bench_@N@"/' >"$SL/line.jsonl"
    tree_bytes=$(du -sb "$SL/tree" | cut -f1)
    files=$(find "$SL/tree" -type f -name '*.jsonl' | wc -l)
    log ""
    log "== statusline: $files files, $(fmt_mb "$tree_bytes") MB, median of $SL_RUNS =="
    md ""
    md "### \`statusline\`: the $files-transcript tree, $(fmt_mb "$tree_bytes") MB (median of $SL_RUNS runs)"
    md ""
    md "| command | median ms | peak RSS MiB |"
    md "|---|---:|---:|"
    # sl_row LABEL MODE EXTRA... -- cmd...: one row.
    sl_row() {
        local label="$1" mode="$2" t rss status
        shift 2
        printf '  %-52s ' "$label" >&2
        read -r t rss status <<<"$(python3 -c "$STATUSLINE_PY" "$SL_RUNS" "$mode" "$SL/status.json" "$BENCH_DIR/logs/statusline.stderr" "$@")"
        if [[ $status != ok ]]; then
            log "FAILED (see $BENCH_DIR/logs/statusline.stderr)"
            FAILURES=$((FAILURES + 1))
            md "| \`$label\` | FAILED | - |"
            return
        fi
        log "$(awk -v t="$t" -v k="$rss" 'BEGIN { printf "%8.1f ms  %7.1f MiB", t * 1000, k / 1024 }')"
        md "| \`$label\` | $(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1000 }') | $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') |"
    }
    SL_HOME="$HOME"
    export HOME="$SL/home" CLAUDE_CONFIG_DIR="$SL/tree" XDG_CACHE_HOME="$SL/cache"
    sl_row "ndjq stats --format json (no cache)" plain -- "$NDJQ" stats --format json "$SL/tree/projects"
    sl_row "ndjq statusline, cold (cache removed)" cold "$SL/cache" -- "$NDJQ" statusline
    sl_row "ndjq statusline --no-cache" plain -- "$NDJQ" statusline --no-cache
    "$NDJQ" statusline <"$SL/status.json" >/dev/null 2>&1
    sl_row "ndjq statusline, after one message appended" append "$session_file" "$SL/line.jsonl" -- "$NDJQ" statusline
    sl_row "ndjq statusline, warm (nothing appended)" plain -- "$NDJQ" statusline
    sl_row "ndjq stats --cache --format json, warm" plain -- "$NDJQ" stats --cache --format json "$SL/tree/projects"
    CCU="${NDJQ_BENCH_CCUSAGE:-$(command -v ccusage || true)}"
    if [[ -n $CCU ]]; then
        export HOME="$SL/ccu-home" TMPDIR="$SL/ccu-tmp"
        sl_row "ccusage statusline --offline, cold (cache removed)" cold "$SL/ccu-home" "$SL/ccu-tmp" -- "$CCU" statusline --offline
        "$CCU" statusline --offline <"$SL/status.json" >/dev/null 2>&1
        sl_row "ccusage statusline --offline, after one message appended" append "$session_file" "$SL/line.jsonl" -- "$CCU" statusline --offline
        sl_row "ccusage statusline --offline, warm" plain -- "$CCU" statusline --offline
        unset TMPDIR
        export HOME="$SL/home"
        md ""
        md "- ccusage: \`$CCU\`, $("$CCU" --version 2>/dev/null | head -n1), with a HOME and TMPDIR of its own (its cache)"
        md "- its line: \`$(HOME="$SL/ccu-home" TMPDIR="$SL/ccu-tmp" "$CCU" statusline --offline <"$SL/status.json" 2>/dev/null)\`"
    fi
    # The machine's speed drifts over the minutes the rows take: the ratios are taken from
    # interleaved pairs (see pair_ratio).
    md ""
    log "  ratios, median of $PAIRS interleaved pairs:"
    pair_ratio "statusline cold (cache removed) time / stats time" 0 sh -c "rm -rf '$SL/cache'; exec '$NDJQ' statusline <'$SL/status.json'" --vs "$NDJQ" stats --format json "$SL/tree/projects"
    pair_ratio "statusline --no-cache time / stats time" 0 sh -c "exec '$NDJQ' statusline --no-cache <'$SL/status.json'" --vs "$NDJQ" stats --format json "$SL/tree/projects"
    "$NDJQ" statusline <"$SL/status.json" >/dev/null 2>&1
    pair_ratio "statusline after one message appended time / stats time" 0 sh -c "cat '$SL/line.jsonl' >>'$session_file'; exec '$NDJQ' statusline <'$SL/status.json'" --vs "$NDJQ" stats --format json "$SL/tree/projects"
    "$NDJQ" statusline <"$SL/status.json" >/dev/null 2>&1
    pair_ratio "statusline warm time / stats time" 0 sh -c "exec '$NDJQ' statusline <'$SL/status.json'" --vs "$NDJQ" stats --format json "$SL/tree/projects"
    export HOME="$SL/home"
    md ""
    md "- the line: \`$("$NDJQ" statusline --color never <"$SL/status.json" 2>/dev/null)\`"
    export HOME="$SL_HOME"
    unset CLAUDE_CONFIG_DIR XDG_CACHE_HOME
fi

# --- memory scaling check ---------------------------------------------------------------------
if [[ $ONLY_TREES != 1 && $SCALE == 1 ]]; then
    SIZE4=$((SIZE * 4))
    BIG="$BENCH_DIR/clean-${SIZE4}.ndjson"
    gen_file "$SIZE4" "$BIG"
    big_bytes=$(fsize "$BIG")
    small_bytes=$(fsize "$CLEAN")
    log ""
    log "== scale: $BIG ($(fmt_mb "$big_bytes") MB), best of $SCALE_RUNS =="
    CUR_TAG=scale
    R_LABEL=() R_KEY=() R_BASE=() R_TIME=() R_RSS=() R_CODE=() R_STATUS=() R_NOTE=()
    R_IDX=()
    run_row validate - 0,1 "$SCALE_RUNS" /dev/null "ndjq validate --format json" -- "$NDJQ" validate --format json "$BIG"
    run_row filter   - 0,1 "$SCALE_RUNS" /dev/null "ndjq filter --type assistant" -- "$NDJQ" filter --type assistant "$BIG"
    run_row events   - 0,1 "$SCALE_RUNS" /dev/null "ndjq events --format json" -- "$NDJQ" events --format json "$BIG"
    run_row stats    - 0   "$SCALE_RUNS" /dev/null "ndjq stats --format json --mergeable" -- "$NDJQ" stats --format json --mergeable "$BIG"
    run_row gaps     - 0,1 "$SCALE_RUNS" /dev/null "ndjq gaps --format json" -- "$NDJQ" gaps --format json "$BIG"
    md ""
    md "### Memory scaling: clean ${SIZE} MiB vs ${SIZE4} MiB"
    md ""
    md "| command | peak RSS MiB @ $(fmt_mb "$small_bytes") MB | peak RSS MiB @ $(fmt_mb "$big_bytes") MB | RSS growth | best s @ 4x | MB/s @ 4x |"
    md "|---|---:|---:|---:|---:|---:|"
    for k in validate filter events stats gaps; do
        i=${R_IDX[$k]}
        small="${KEEP["clean:$k"]:-}"
        if [[ ${R_STATUS[i]} != ok || -z $small ]]; then
            md "| \`${R_LABEL[i]}\` | - | FAILED | - | - | - |"
            continue
        fi
        read -r _ small_rss <<<"$small"
        md "$(awk -v l="${R_LABEL[i]}" -v s="$small_rss" -v b="${R_RSS[i]}" -v t="${R_TIME[i]}" -v n="$big_bytes" \
            'BEGIN { printf "| `%s` | %.1f | %.1f | %.2fx | %.3f | %.0f |", l, s/1024, b/1024, b/s, t, n/1e6/t }')"
    done
fi

# ---- ccusage comparison: runs when ccusage is installed ------------------------------------------
# The corpus transcripts and rollouts under testdata/corpus as ccusage reads them
# (CLAUDE_CONFIG_DIR/projects, CODEX_HOME/sessions), ndjq stats over the same files: token
# totals must be equal and the cost within 1% (tests/it/stats_ccusage.rs checks the same
# against ccusage's committed output).
# The same ccusage as the tree cases: NDJQ_BENCH_CCUSAGE, else `ccusage` on PATH.
CCUSAGE="${NDJQ_BENCH_CCUSAGE:-$(command -v ccusage || true)}"
if [[ $ONLY_TREES != 1 && -n $CCUSAGE ]] && command -v jq >/dev/null && command -v zstd >/dev/null; then
    log ""
    log "== ccusage comparison ($CCUSAGE) =="
    CC_DIR="$BENCH_DIR/ccusage"
    rm -rf "$CC_DIR"
    C="$REPO_ROOT/testdata/corpus"
    # copy SRC_DIR DEST_DIR: the *.jsonl files, .zst ones decompressed, subfolders kept.
    cc_copy() {
        (cd "$1" && find . -name '*.jsonl' -o -name '*.jsonl.zst') | while read -r f; do
            mkdir -p "$2/$(dirname "$f")"
            case $f in
                *.zst) zstd -q -d -c "$1/$f" >"$2/${f%.zst}" ;;
                *) cp "$1/$f" "$2/$f" ;;
            esac
        done
    }
    cc_copy "$C/spotter" "$CC_DIR/claude/projects/spotter"
    for d in "$C"/claudeless/*/; do cc_copy "$d" "$CC_DIR/claude/projects/claudeless-$(basename "$d")"; done
    cc_copy "$C/agentcmd/claude-transcript" "$CC_DIR/claude/projects/agentcmd"
    mkdir -p "$CC_DIR/codex/sessions/2025/09/24" "$CC_DIR/codex/sessions/2026/11/22"
    cc_copy "$C/agentcmd/codex-rollout" "$CC_DIR/codex/sessions/2025/09/24"
    cp "$C/real-client/codex-tool.session-log.jsonl" \
        "$CC_DIR/codex/sessions/2026/11/22/rollout-2026-11-22T10-09-12-codex-tool.jsonl"
    CLAUDE_CONFIG_DIR="$CC_DIR/claude" "$CCUSAGE" claude session --json --offline >"$CC_DIR/cc-claude.json"
    CODEX_HOME="$CC_DIR/codex" "$CCUSAGE" codex session --json --offline >"$CC_DIR/cc-codex.json"
    "$NDJQ" stats -q -f json "$CC_DIR/claude/projects" >"$CC_DIR/ndjq-claude.json"
    "$NDJQ" stats -q -f json "$CC_DIR/codex/sessions" >"$CC_DIR/ndjq-codex.json"
    md ""
    md "### ndjq stats vs ccusage ($("$CCUSAGE" --version 2>/dev/null | head -1)), corpus transcripts and rollouts"
    md ""
    md "| agent | figure | ndjq | ccusage | equal / within 1% |"
    md "|---|---|---:|---:|---|"
    cc_row() { # agent figure ndjq ccusage tolerance
        local verdict
        verdict=$(awk -v a="$3" -v b="$4" -v t="$5" 'BEGIN { d = a - b; if (d < 0) d = -d;
            m = (b < 0 ? -b : b); print (d <= m * t ? "yes" : "NO") }')
        [[ $verdict == yes ]] || FAILURES=$((FAILURES + 1))
        md "| $1 | $2 | $3 | $4 | $verdict |"
    }
    for f in "input:inputTokens" "output:outputTokens" "cache_creation:cacheCreationTokens" "cache_read:cacheReadTokens"; do
        cc_row claude "${f%%:*}" "$(jq ".tokens.${f%%:*}" "$CC_DIR/ndjq-claude.json")" \
            "$(jq ".totals.${f#*:}" "$CC_DIR/cc-claude.json")" 0
    done
    cc_row claude "cost USD" "$(jq '.cost_usd' "$CC_DIR/ndjq-claude.json")" \
        "$(jq '.totals.totalCost' "$CC_DIR/cc-claude.json")" 0.01
    for f in "input:inputTokens" "output:outputTokens" "cache_read:cacheReadTokens" "reasoning_output:reasoningOutputTokens"; do
        cc_row codex "${f%%:*}" "$(jq ".tokens.${f%%:*}" "$CC_DIR/ndjq-codex.json")" \
            "$(jq "[.sessions[].${f#*:}] | add" "$CC_DIR/cc-codex.json")" 0
    done
    cc_row codex "cost USD" "$(jq '.cost_usd' "$CC_DIR/ndjq-codex.json")" \
        "$(jq '[.sessions[].costUSD] | add' "$CC_DIR/cc-codex.json")" 0.01
else
    log "ccusage (or jq, zstd) not found: skipping the ccusage comparison"
fi

# --- --follow: delay from append to output, idle CPU --------------------------------------------
if [[ $ONLY_TREES != 1 && ${NDJQ_BENCH_FOLLOW:-1} == 1 ]]; then
    log "== --follow (bench/follow.sh) =="
    md ""
    if ! "$SCRIPT_DIR/follow.sh" "$NDJQ" >>"$MD"; then
        log "bench/follow.sh failed"
        FAILURES=$((FAILURES + 1))
    fi
fi

cat "$MD"
cp "$MD" "$RESULTS"
rm -f "$MD"
log ""
log "tables written to $RESULTS"
if ((FAILURES > 0)); then
    log "$FAILURES command(s) failed (unexpected exit code or signal); see $BENCH_DIR/logs/"
    exit 1
fi
