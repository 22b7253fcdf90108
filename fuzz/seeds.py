#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus-work/seeds/TARGET/.

The seeds are made at run time from the repository's testdata/ (the hand-made files, the
corpus of real captures under testdata/corpus, the JSONTestSuite under
testdata/conformance): real lines and pieces of real files, every JSONTestSuite case,
pretty-printed records and records inside text for --recover. The `.zst` captures are
read decompressed (with the `zstd` command; skipped, with a note, when it is missing).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCES = [
    os.path.join(ROOT, "testdata"),
]
OUT = os.path.join(HERE, "corpus-work", "seeds")
MAX_SEED = 8192
# `ndjq stats -f json` of testdata/claude/claude-tool.ndjson + testdata/stats/codex-exec-tools.jsonl,
# and of testdata/codex-log/codex-tool.session-log.jsonl with --by session.
REPORTS = [
    '{"schema":"ndjq.stats/1","files":2,"lines":27,"bytes":10088,"valid":27,"invalid":0,"empty":0,"dialects":{"claude":6,"codex":21},"types":{"assistant":3,"error":1,"item.completed":10,"item.started":1,"result/success":1,"system/init":1,"thread.started":3,"turn.completed":2,"turn.failed":1,"turn.started":3,"user":1},"diagnostics":{},"sessions":3,"tokens":{"input":4137,"output":62,"cache_creation":2656,"cache_read":20896},"result_tokens":{"input":2637,"output":62,"cache_creation":2636,"cache_read":19696},"cost_usd":0.0289072,"turns":5,"duration_ms":603,"tools":{"Bash":{"calls":1,"errors":0},"command_execution":{"calls":4,"errors":1},"fetch":{"calls":1,"errors":0},"file_change":{"calls":1,"errors":1},"search":{"calls":1,"errors":1},"web_search":{"calls":1,"errors":0}},"models":{"(none)":{"input":1500,"output":60,"cache_creation":20,"cache_read":1200},"claude-opus-5-5":{"input":2637,"output":2,"cache_creation":2636,"cache_read":19696}},"state":{"strings":["testdata/claude/claude-tool.ndjson","beb1e36d-2b5a-4ad9-afa5-1c75cd61d484","2026-11-22","claude-opus-5-5","Bash","testdata/stats/codex-exec-tools.jsonl","th-a","command_execution","search","fetch","web_search","file_change","th-b"],"sessions":[1,6,12],"messages":[["739d22c50338ba392ee31b8699e078d8",{"input":1000,"output":50,"cache_creation":20,"cache_read":800},{"session":6,"model":4294967295,"file":5,"day":4294967295}],["c94462a41cd97de412042ff0703ae99b",{"input":1343,"output":1,"cache_creation":1343,"cache_read":9848},{"session":1,"model":3,"file":0,"day":2}],["cd22752b9d34cabaca7083bfef67eaaa",{"input":1294,"output":1,"cache_creation":1293,"cache_read":9848},{"session":1,"model":3,"file":0,"day":2}],["d3880cdbf9e782fdec213a0c371324d4",{"input":500,"output":10,"cache_creation":0,"cache_read":400},{"session":6,"model":4294967295,"file":5,"day":4294967295}]],"extra_usage":[],"codex_totals":[],"results":[[1,{"tokens":{"input":2637,"output":62,"cache_creation":2636,"cache_read":19696},"cost_usd":0.0289072,"turns":2,"duration_ms":603,"file":0,"day":4294967295}]],"codex_turns":[["739d22c50338ba392ee31b8699e078d8",{"session":6,"model":4294967295,"file":5,"day":4294967295}],["8d56053f68acdacabb2039e7cb6c7741",{"session":12,"model":4294967295,"file":5,"day":4294967295}],["d3880cdbf9e782fdec213a0c371324d4",{"session":6,"model":4294967295,"file":5,"day":4294967295}]],"tool_calls":[["0660e374322b6e7345b98217d56b16b3",{"name":7,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["09fe011c972124fa5bf61eab9b704f04",{"name":10,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["1334a667cff7beb221b90ee75e13b995",{"name":7,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["35fa944fc34f95cd0c5dd9455bbae494",{"name":8,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["49d30a1942df87769d24668ff62670d8",{"name":7,"attr":{"session":12,"model":4294967295,"file":5,"day":4294967295}}],["4a96163a9a56e5bac1753f1ef3399041",{"name":11,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["6b3277993266eba26e841ff69311911c",{"name":4,"attr":{"session":1,"model":3,"file":0,"day":2}}],["77c434f9bffcd5628202e560e00c20ad",{"name":7,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}],["f185ab1e86cf754f7cb1fee7375c4539",{"name":9,"attr":{"session":6,"model":4294967295,"file":5,"day":4294967295}}]],"tool_errors":["35fa944fc34f95cd0c5dd9455bbae494","4a96163a9a56e5bac1753f1ef3399041","77c434f9bffcd5628202e560e00c20ad"],"records_by":[["Session",1,6],["Session",6,17],["Session",12,4],["File",0,6],["File",5,21],["Day",2,4]]}}',
    '{"schema":"ndjq.stats/1","files":1,"lines":21,"bytes":45400,"valid":21,"invalid":0,"empty":0,"dialects":{"codex-log":21},"types":{"event_msg":9,"response_item":7,"session_meta":1,"token_usage_record":2,"turn_context":1,"world_state":1},"diagnostics":{},"sessions":1,"tokens":{"input":18672,"output":52,"cache_creation":0,"cache_read":9344},"result_tokens":null,"cost_usd":null,"turns":0,"duration_ms":0,"tools":{"exec_command":{"calls":1,"errors":0}},"models":{"gpt-5.5":{"input":18672,"output":52,"cache_creation":0,"cache_read":9344}},"by":"session","groups":[{"key":"01a202bb-3450-7250-b216-ee5b94b6ae28","records":21,"tokens":{"input":18672,"output":52,"cache_creation":0,"cache_read":9344},"cost_usd":null,"tool_calls":1,"tool_errors":0}],"state":{"strings":["testdata/codex-log/codex-tool.session-log.jsonl","2026-11-22","01a202bb-3450-7250-b216-ee5b94b6ae28","gpt-5.5","exec_command"],"sessions":[2],"messages":[],"extra_usage":[],"codex_totals":[[2,{"input":18672,"output":52,"cache_creation":0,"cache_read":9344},{"session":2,"model":3,"file":0,"day":1}]],"results":[],"codex_turns":[],"tool_calls":[["861c3a78f1ac7d50c5afeda2bd0aed50",{"name":4,"attr":{"session":2,"model":3,"file":0,"day":1}}]],"tool_errors":[],"records_by":[["Session",2,21],["File",0,21],["Day",1,21]]}}',
]


def files():
    for src in SOURCES:
        if not os.path.isdir(src):
            sys.exit(f"seeds.py: {src} is missing")
        for dirpath, _, names in sorted(os.walk(src)):
            for name in sorted(names):
                yield os.path.join(dirpath, name)


def read(path):
    """The bytes ndjq would read: a .zst file decompressed; None if that cannot be done."""
    if path.endswith(".zst"):
        if shutil.which("zstd") is None:
            print(f"seeds.py: no zstd command, skipping {path}", file=sys.stderr)
            return None
        return subprocess.run(["zstd", "-dcq", path], check=True, stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        return f.read()


def write(target, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    n = 0
    for path in files():
        data = read(path)
        if data is None:
            continue
        lines = data.split(b"\n")
        # A piece of the file, and its first lines one by one (bounded).
        piece = data[:MAX_SEED]
        write("framing_decode", b"\x00\x00\x0f\x07" + piece)
        write("framing_decode", b"\x01\x30\x03\x02" + piece[:2048])
        write("recover", b"\x00\x05" + piece)
        for line in lines[:8]:
            if 0 < len(line) <= MAX_SEED:
                write("framing_decode", b"\x00\x00\x40\x01" + line + b"\n")
                # `arbitrary` picks the enum variant from the first 4 bytes.
                write("stats_merge", b"\x00\x00\x00\x80" + line)
        # Pretty-printed records, and records inside text, for --recover.
        for line in lines[:4]:
            try:
                value = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue
            pretty = json.dumps(value, indent=2).encode()
            if len(pretty) <= MAX_SEED:
                write("recover", b"\x00\x05" + pretty + b"\n" + line + b"\n")
                write("recover", b"\x00\x05Warning: x " + line + b" done\n" + pretty[:200] + b"\n")
        n += 1
    # The structure-aware targets read their bytes through `arbitrary`: any bytes are
    # valid input; a few varied ones give the fuzzer a start.
    for i in range(32):
        blob = hashlib.sha256(str(i).encode()).digest() * 8
        write("dialect_stats", blob[: 16 + 7 * i])
        write("stats_merge", b"\x00\x00\x00\x00" + blob[: 16 + 7 * i])
    # Real partial stats, as `ndjq stats -f json` writes them (the Raw variant).
    for report in REPORTS:
        write("stats_merge", b"\x00\x00\x00\x80" + report.encode())
    print(f"seeds from {n} files in {OUT}")


main()
