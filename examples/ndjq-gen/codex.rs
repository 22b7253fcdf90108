//! `--dialect codex`: `codex exec --json` threads.
//!
//! ```text
//! {"type":"thread.started","thread_id":"..."}
//! {"type":"turn.started"}                                    per turn
//! {"type":"item.started"|"item.completed","item":{"id":"item_N","type":...}}
//!     reasoning, command_execution (started, then completed), file_change,
//!     mcp_tool_call (started, then completed), agent_message last
//! {"type":"turn.completed","usage":{"input_tokens",...}}    the thread's usage so far, or
//!     now and then
//! {"type":"error","message":"Reconnecting... n/5"} ... {"type":"turn.failed",...}
//! ```

use crate::session::{Gen, Out, Totals};
use crate::text::{json_str, uuid7};

/// Models a Codex session is run with.
pub const CODEX_MODELS: &[&str] = &["gpt-5-codex", "gpt-5", "gpt-5-codex-mini"];

/// The usage of one turn: (input incl. cached, cached, output, reasoning output).
pub fn turn_usage(g: &mut Gen, context: u64) -> (u64, u64, u64, u64) {
    let input = context + g.rng.range(200, 6000);
    let cached = if g.rng.one_in(5) {
        0
    } else {
        context * g.rng.range(50, 95) / 100
    };
    let output = g.rng.log_uniform(20, 4000);
    let reasoning = output * g.rng.below(70) / 100;
    (input, cached.min(input), output, reasoning)
}

/// A shell command as a Codex item writes it.
pub fn command(g: &mut Gen) -> String {
    let w = g.word();
    match g.rng.below(6) {
        0 => "bash -lc 'cargo test 2>&1 | tail -40'".to_string(),
        1 => format!("bash -lc 'rg -n \"{w}\" src'"),
        2 => "bash -lc 'git status --short'".to_string(),
        3 => format!("bash -lc 'sed -n 1,200p src/{w}.rs'"),
        4 => "bash -lc 'ls -la'".to_string(),
        _ => format!("bash -lc 'python -m pytest -q tests/test_{w}.py'"),
    }
}

/// One exec thread.
pub fn session(g: &mut Gen, out: &mut dyn Out) {
    let t = g.texts;
    let thread = uuid7(&mut g.rng, g.clock);
    out.record(
        "thread.started",
        &format!("{{\"type\":\"thread.started\",\"thread_id\":\"{thread}\"}}"),
    );
    let turns = g.rng.log_uniform(1, 12);
    let mut item = 0u64;
    let mut ctx = g.rng.range(3000, 12_000);
    let mut sums = [0u64; 4];
    for turn in 0..turns {
        if turn > 0 && out.full() {
            break;
        }
        out.record("turn.started", "{\"type\":\"turn.started\"}");
        if g.rng.one_in(60) {
            // The API stream fails: retry notices, then turn.failed, no usage.
            let n = g.rng.range(1, 6);
            for k in 1..=n {
                out.record(
                    "error",
                    &format!("{{\"type\":\"error\",\"message\":\"Reconnecting... {k}/5\"}}"),
                );
            }
            out.record(
                "turn.failed",
                "{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected before completion\"}}",
            );
            continue;
        }
        let steps = g.rng.log_uniform(1, 25);
        for _ in 0..steps {
            if g.rng.one_in(2) {
                let n = g.len(30, 600);
                let text = json_str(t.prose.piece(&mut g.rng, n));
                out.record(
                    "item.completed",
                    &format!("{{\"type\":\"item.completed\",\"item\":{{\"id\":\"item_{item}\",\"type\":\"reasoning\",\"text\":{text}}}}}"),
                );
                item += 1;
            }
            let id = format!("item_{item}");
            item += 1;
            match g.rng.below(10) {
                0..=6 => {
                    let cmd = json_str(&command(g));
                    out.record(
                        "item.started",
                        &format!("{{\"type\":\"item.started\",\"item\":{{\"id\":\"{id}\",\"type\":\"command_execution\",\"command\":{cmd},\"aggregated_output\":\"\",\"exit_code\":null,\"status\":\"in_progress\"}}}}"),
                    );
                    let len = g.result_len();
                    let output = json_str(t.shell.piece(&mut g.rng, len));
                    let code = if g.rng.one_in(8) { 1 } else { 0 };
                    let status = if code == 0 { "completed" } else { "failed" };
                    out.record(
                        "item.completed",
                        &format!("{{\"type\":\"item.completed\",\"item\":{{\"id\":\"{id}\",\"type\":\"command_execution\",\"command\":{cmd},\"aggregated_output\":{output},\"exit_code\":{code},\"status\":\"{status}\"}}}}"),
                    );
                }
                7 | 8 => {
                    let (a, b) = (g.word(), g.word());
                    let kind = *g.rng.pick(&["update", "update", "add", "delete"]);
                    out.record(
                        "item.completed",
                        &format!("{{\"type\":\"item.completed\",\"item\":{{\"id\":\"{id}\",\"type\":\"file_change\",\"changes\":[{{\"path\":\"src/{a}/{b}.rs\",\"kind\":\"{kind}\"}}],\"status\":\"completed\"}}}}"),
                    );
                }
                _ => {
                    let tool = *g.rng.pick(&["get_issue", "create_issue", "search_code"]);
                    out.record(
                        "item.started",
                        &format!("{{\"type\":\"item.started\",\"item\":{{\"id\":\"{id}\",\"type\":\"mcp_tool_call\",\"server\":\"github\",\"tool\":\"{tool}\",\"status\":\"in_progress\"}}}}"),
                    );
                    let status = if g.rng.one_in(10) {
                        "failed"
                    } else {
                        "completed"
                    };
                    out.record(
                        "item.completed",
                        &format!("{{\"type\":\"item.completed\",\"item\":{{\"id\":\"{id}\",\"type\":\"mcp_tool_call\",\"server\":\"github\",\"tool\":\"{tool}\",\"status\":\"{status}\"}}}}"),
                    );
                }
            }
        }
        let n = g.len(20, 2000);
        let text = json_str(t.prose.piece(&mut g.rng, n));
        out.record(
            "item.completed",
            &format!("{{\"type\":\"item.completed\",\"item\":{{\"id\":\"item_{item}\",\"type\":\"agent_message\",\"text\":{text}}}}}"),
        );
        item += 1;
        let (input, cached, output, reasoning) = turn_usage(g, ctx);
        ctx = (ctx + g.rng.range(500, 8000)).min(250_000);
        sums[0] += input;
        sums[1] += cached;
        sums[2] += output;
        sums[3] += reasoning;
        // As Codex prints it: the thread's usage so far, every turn before included.
        let [input, cached, output, reasoning] = sums;
        out.record(
            "turn.completed",
            &format!("{{\"type\":\"turn.completed\",\"usage\":{{\"input_tokens\":{input},\"cached_input_tokens\":{cached},\"output_tokens\":{output},\"reasoning_output_tokens\":{reasoning}}}}}"),
        );
    }
    g.totals.add(&Totals {
        sessions: 1,
        input: sums[0],
        output: sums[2],
        cache_creation: 0,
        cache_read: sums[1],
        cost_usd: 0.0,
    });
}
