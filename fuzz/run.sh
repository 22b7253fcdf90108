#!/bin/sh
# Fuzzes every target (or the ones named) for SECONDS each, niced so it only takes idle
# CPU, and prints per target: CPU seconds, executions, corpus size, crashes.
#
#   fuzz/run.sh SECONDS [TARGET...]       one target after another
#   JOBS=2 fuzz/run.sh SECONDS            two targets at a time
#
# The corpus grows in fuzz/corpus-work/TARGET (kept between runs, not committed), seeded
# by seeds.py from testdata/ (corpus and JSONTestSuite included). A crash or a
# timeout is saved in fuzz/artifacts/TARGET/; reproduce it with
# `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/FILE` and turn it into a test in
# tests/it/regression.rs named after what it found. Needs `cargo install cargo-fuzz` and a
# nightly toolchain.
set -eu
cd "$(dirname "$0")"
secs=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=${*:-framing_decode dialect_stats recover stats_merge}
jobs=${JOBS:-1}

[ -d corpus-work/seeds ] || python3 seeds.py
nice -n 19 cargo +nightly fuzz build >/dev/null 2>&1 || nice -n 19 cargo +nightly fuzz build
mkdir -p logs

max_len() {
    case $1 in
        framing_decode | recover) echo 16384 ;;
        *) echo 4096 ;;
    esac
}

fuzz_one() {
    t=$1
    mkdir -p "corpus-work/$t" "artifacts/$t"
    # -timeout: an input taking 10 s is a hang; -rss_limit_mb: ASan's overhead included.
    /usr/bin/time -f '%U %S' -o "logs/$t.time" \
        nice -n 19 cargo +nightly fuzz run "$t" "corpus-work/$t" "corpus-work/seeds/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -print_final_stats=1 >"logs/$t.log" 2>&1 || true
}

set -- $targets
while [ $# -gt 0 ]; do
    n=0
    while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
        fuzz_one "$1" &
        shift
        n=$((n + 1))
    done
    wait
done

printf '%-16s %10s %14s %8s %8s\n' target cpu_s executions corpus crashes
status=0
for t in $targets; do
    cpu=$(tail -1 "logs/$t.time" 2>/dev/null | awk '{printf "%.0f", $1 + $2}')
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "logs/$t.log" | tail -1)
    corpus=$(find "corpus-work/$t" -type f | wc -l)
    crashes=$(find "artifacts/$t" -type f | wc -l)
    printf '%-16s %10s %14s %8s %8s\n' "$t" "${cpu:-?}" "${execs:-?}" "$corpus" "$crashes"
    # Every run is appended to logs/history.tsv, for the table in README.md.
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "${cpu:-?}" \
        "${execs:-?}" "$corpus" "$crashes" >>logs/history.tsv
    if [ "$crashes" -gt 0 ]; then
        status=1
        find "artifacts/$t" -type f | sed 's/^/    /'
        grep -m1 -E 'panicked|ERROR: libFuzzer|SUMMARY' "logs/$t.log" | sed 's/^/    /' || true
    fi
done
exit $status
