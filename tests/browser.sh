#!/usr/bin/env bash
# The page of `ndjq report` in a real browser: headless Chromium (Debian's `chromium`)
# opens the page of testdata/report from disk and this script checks that
#   - its script ran (it marks <html data-ready="1"> and makes the table's headers
#     sortable) and the charts and the session table are there;
#   - the hostile strings of the logs are inert: no <img> and no script but the page's two
#     (the stats JSON and its own), the strings shown as text;
#   - nothing was logged on the console (a CSP refusal, a script error);
#   - the page made no network request (Chromium's net log holds no request whose
#     network-isolation key is the page's file:// origin: an <img src="http://…"> in a
#     page without the policy shows there).
# Then it saves a screenshot of a generated tree's page (docs/report.png in the README).
#
#   tests/browser.sh [--screenshot FILE]   (default: a temporary file, size checked)
#
# Environment: NDJQ (the binary; default: cargo build, target/debug/ndjq), CHROMIUM (the
# browser; default: chromium on PATH). Exit 0 when every check passes, 1 when one fails,
# 2 when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

shot=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --screenshot) shot="$2"; shift 2 ;;
        *) echo "browser.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [[ -z "$CHROMIUM" ]]; then
    echo "browser.sh: no chromium on PATH (apt-get install chromium)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "browser.sh: python3 is needed to read the net log" >&2; exit 2; }
if [[ -z "${NDJQ:-}" ]]; then
    cargo build --locked --quiet --bin ndjq --example ndjq-gen
    NDJQ=target/debug/ndjq
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
    local what="$1"; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what" >&2; fail=1; fi
}

chrome() {
    # No first-run, sync, update or extension traffic of the browser's own: the net log
    # then holds the page's requests and little else.
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$work/profile" --no-first-run --no-default-browser-check \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-default-apps --disable-extensions "$@"
}

"$NDJQ" report -q --timezone UTC --transcripts -o "$work/page.html" \
    testdata/report testdata/claude/gleam-basic_query.ndjson testdata/codex/codex-tool.ndjson

chrome --enable-logging=stderr --v=0 --log-net-log="$work/net.json" \
    --virtual-time-budget=5000 --dump-dom "file://$work/page.html" \
    >"$work/dom.html" 2>"$work/chrome.log" || true

dom="$work/dom.html"
check "the page loaded (DOM dumped)" test -s "$dom"
check "its script ran (data-ready)" grep -q '<html lang="en" data-ready="1"' "$dom"
check "the table's headers were made sortable by the script" \
    grep -q '<th data-sort="num" class="n" tabindex="0">tokens</th>' "$dom"
for chart in chart-day-cost chart-day-tokens chart-project-cost chart-agent-cost \
    chart-block-tokens chart-tool-calls; do
    check "chart $chart is there" grep -q "<svg class=\"chart\" id=\"$chart\"" "$dom"
done
count() { grep -o "$1" "$dom" | wc -l | tr -d ' '; }
check "one bar per day from 2025-06-01 to 2025-06-05 in the cost chart" \
    test "$(count '<g class="bar" tabindex="0" data-key="2025-06-0[1-5]"')" -ge 10
check "a table row per session (7)" test "$(count '<tr><td')" -eq 7
check "no <img> element" test "$(count '<img')" -eq 0
check "only the page's two scripts" test "$(count '<script')" -eq 2
check "the hostile strings are text" \
    grep -qF 'Please print &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt;' "$dom"
check "no console message (CSP refusal, script error)" \
    bash -c "! grep -q 'CONSOLE' '$work/chrome.log'"
if grep -q 'CONSOLE' "$work/chrome.log"; then grep 'CONSOLE' "$work/chrome.log" >&2; fi
check "no network request from the page" python3 - "$work/net.json" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
events = {v: k for k, v in log["constants"]["logEventTypes"].items()}
# A request the page makes has the page's origin (file://) in its network-isolation key;
# the browser's own (updates, time) have none.
other = []
for e in log["events"]:
    p = e.get("params") or {}
    if events.get(e["type"]) == "URL_REQUEST_START_JOB" and "file://" in str(
        p.get("network_isolation_key", "")
    ) and not p.get("url", "").startswith("file:"):
        other.append(p.get("url"))
for u in other:
    print("request:", u, file=sys.stderr)
sys.exit(0 if log["events"] and not other else 1)
PY

# The screenshot: a generated tree of 60 sessions over three months (ndjq-gen).
gen=${NDJQ_GEN:-$(dirname "$NDJQ")/examples/ndjq-gen}
out=${shot:-$work/report.png}
if [[ -x "$gen" ]]; then
    "$gen" tree --shape claude-projects --files 60 --total-mb 6 "$work/tree" 2>/dev/null
    "$NDJQ" report -q --timezone UTC -o "$work/demo.html" "$work/tree"
    chrome --window-size=1200,1400 --screenshot="$out" "file://$work/demo.html" \
        >/dev/null 2>&1 || true
    size=$(stat -c %s "$out" 2>/dev/null || echo 0)
    check "screenshot $out written, under 300 KB ($size bytes)" \
        test "$size" -gt 10000 -a "$size" -lt 307200
else
    echo "skip screenshot: no ndjq-gen beside $NDJQ" >&2
fi

if [[ $fail -ne 0 ]]; then
    echo "browser.sh: some checks failed" >&2
    exit 1
fi
echo "browser.sh: all checks passed"
