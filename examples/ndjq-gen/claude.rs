//! `--dialect claude`: Claude Code `--output-format stream-json --verbose` sessions, as
//! `gen_stream.py` made them before this generator replaced it:
//!
//! ```text
//! {"type":"system","subtype":"init",...}                       one per session
//! {"type":"user","message":{"role":"user","content":"<prompt>"},...}
//! {"type":"assistant","message":{"id":...,"content":[<block>],"usage":{...}},...}
//!     one API message with several content blocks is usually written as several lines
//!     sharing message.id and the SAME usage object (summing every line double counts)
//! {"type":"user","message":{"content":[{"type":"tool_result",...}]},...}
//!     ... Task sub-agents write lines whose parent_tool_use_id is the Task tool_use id
//! {"type":"result","subtype":"success",...,"total_cost_usd":...,"usage":{...}}  one
//! ```
//!
//! The tool inputs and outputs are shared with the transcripts (`claude_log`).

use crate::session::{Gen, Out, Totals};
use crate::text::{self, fill_one, json_str};
use crate::words::{CLAUDE_MODELS, CLAUDE_PRICES, PROSE_TEMPLATES, TOOLS, TOOL_MIX, USER_PROMPTS};

/// A model index into [`CLAUDE_MODELS`]: mostly the first.
pub fn model(g: &mut Gen) -> usize {
    if g.rng.one_in(3) {
        g.rng.index(CLAUDE_MODELS.len())
    } else {
        0
    }
}

/// A tool name, drawn by [`TOOL_MIX`] weight.
pub fn tool_name(g: &mut Gen) -> &'static str {
    let total: u32 = TOOL_MIX.iter().map(|(_, w)| w).sum();
    let mut k = g.rng.below(u64::from(total)) as u32;
    for (name, w) in TOOL_MIX {
        if k < *w {
            return name;
        }
        k -= w;
    }
    TOOL_MIX[0].0
}

/// A Claude id: `prefix` + 22 base-62 characters (`msg_01...`, `toolu_01...`, `req_011C...`).
pub fn id(g: &mut Gen, prefix: &str) -> String {
    format!("{prefix}{}", text::b62(&mut g.rng, 22))
}

fn path(g: &mut Gen, cwd: &str) -> String {
    let ext = *g.rng.pick(&["rs", "py", "ts", "go", "md"]);
    format!("{cwd}/src/{}/{}.{ext}", g.word(), g.word())
}

/// The `input` object of a tool_use block, as JSON.
pub fn tool_input(g: &mut Gen, name: &str, cwd: &str) -> String {
    let t = g.texts;
    match name {
        "Read" => {
            let mut s = format!("{{\"file_path\":{}", json_str(&path(g, cwd)));
            if g.rng.one_in(4) {
                let offset = g.rng.range(1, 2000);
                let limit = *g.rng.pick(&[50, 100, 200, 500]);
                s.push_str(&format!(",\"offset\":{offset},\"limit\":{limit}"));
            }
            s.push('}');
            s
        }
        "Bash" => {
            let w = g.word();
            let cmd = match g.rng.below(8) {
                0 => "cargo test --all 2>&1 | tail -50".to_string(),
                1 => "git status --short".to_string(),
                2 => "ls -la src/".to_string(),
                3 => format!("rg -n \"{w}\" src/ | head -20"),
                4 => format!("python -m pytest -x -q tests/test_{w}.py"),
                5 => "git diff HEAD~1 -- src/ | head -200".to_string(),
                6 => "npm run build && npm test".to_string(),
                _ => "cat <<'EOF' > /tmp/x.json\n{\"a\": \"b\\\\n\"}\nEOF".to_string(),
            };
            let d = g.word();
            format!(
                "{{\"command\":{},\"description\":{}}}",
                json_str(&cmd),
                json_str(&format!("Run {d}"))
            )
        }
        "Edit" => {
            let p = path(g, cwd);
            let (a, b) = (g.len(30, 3000), g.len(30, 3000));
            let old = t.code.piece(&mut g.rng, a);
            let new = t.code.piece(&mut g.rng, b);
            format!(
                "{{\"file_path\":{},\"old_string\":{},\"new_string\":{}}}",
                json_str(&p),
                json_str(old),
                json_str(new)
            )
        }
        "Write" => {
            let p = path(g, cwd);
            let n = g.len(300, 30_000);
            let body = t.code.piece(&mut g.rng, n);
            format!(
                "{{\"file_path\":{},\"content\":{}}}",
                json_str(&p),
                json_str(body)
            )
        }
        "Grep" => {
            let (a, b) = (g.word(), g.word());
            format!(
                "{{\"pattern\":{},\"path\":\"src\",\"output_mode\":\"content\",\"-n\":true}}",
                json_str(&format!("fn {a}|{b}\\("))
            )
        }
        "Glob" => {
            let ext = *g.rng.pick(&["rs", "py", "ts"]);
            format!("{{\"pattern\":\"**/*.{ext}\"}}")
        }
        "TodoWrite" => {
            let n = g.rng.range(1, 8);
            let todos: Vec<String> = (0..n)
                .map(|_| {
                    let content: String = fill_one(&mut g.rng, PROSE_TEMPLATES)
                        .chars()
                        .take(80)
                        .collect();
                    let status = *g.rng.pick(&["pending", "in_progress", "completed"]);
                    let w = g.word();
                    format!(
                        "{{\"content\":{},\"status\":\"{status}\",\"activeForm\":{}}}",
                        json_str(&content),
                        json_str(&format!("Working on {w}"))
                    )
                })
                .collect();
            format!("{{\"todos\":[{}]}}", todos.join(","))
        }
        "Task" => {
            let w = g.word();
            let n = g.len(200, 3000);
            let prompt = t.prose.piece(&mut g.rng, n);
            format!(
                "{{\"description\":{},\"prompt\":{},\"subagent_type\":\"general-purpose\"}}",
                json_str(&format!("Investigate {w}")),
                json_str(prompt)
            )
        }
        "WebFetch" => {
            let (a, b, c) = (g.word(), g.word(), g.word());
            format!(
                "{{\"url\":\"https://docs.rs/{a}/latest/{b}/\",\"prompt\":{}}}",
                json_str(&format!("Summarize the API of {c}"))
            )
        }
        "WebSearch" => {
            let (a, b) = (g.word(), g.word());
            format!("{{\"query\":\"rust {a} {b} 2025\"}}")
        }
        "BashOutput" => format!("{{\"bash_id\":\"bash_{}\"}}", g.rng.range(1, 9)),
        _ => {
            let repo = g.word();
            let title: String = fill_one(&mut g.rng, PROSE_TEMPLATES)
                .chars()
                .take(70)
                .collect();
            let n = g.len(100, 2000);
            let body = t.prose.piece(&mut g.rng, n);
            format!(
                "{{\"owner\":\"acme\",\"repo\":\"{repo}\",\"title\":{},\"body\":{}}}",
                json_str(&title),
                json_str(body)
            )
        }
    }
}

/// A tool result: (content as JSON, is_error, Bash's `tool_use_result` object as JSON).
pub fn tool_output(g: &mut Gen, name: &str, cwd: &str) -> (String, bool, Option<String>) {
    let t = g.texts;
    if let Some(len) = g.take_long() {
        // A whole large file read back: the one long line of its transcript.
        return (json_str(t.listing.piece(&mut g.rng, len)), false, None);
    }
    if g.rng.one_in(25) {
        let msg = *g.rng.pick(&[
            "File does not exist.",
            "String to replace not found in file.\nString: \t\"x\"",
            "File has not been read yet. Read it first before writing to it.",
        ]);
        return (
            json_str(&format!("<tool_use_error>{msg}</tool_use_error>")),
            true,
            None,
        );
    }
    let len = g.result_len();
    match name {
        "Read" => (json_str(t.listing.piece(&mut g.rng, len)), false, None),
        "Bash" => {
            let c = json_str(t.shell.piece(&mut g.rng, len));
            // Newer CLIs repeat the output in a top-level tool_use_result.
            let tur = g.rng.one_in(3).then(|| {
                format!("{{\"stdout\":{c},\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}}")
            });
            (c, false, tur)
        }
        "Grep" => (json_str(t.grep.piece(&mut g.rng, len)), false, None),
        "Edit" | "Write" => {
            let p = path(g, cwd);
            let snippet = t.listing.piece(&mut g.rng, len.min(4000));
            (
                json_str(&format!(
                    "The file {p} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}"
                )),
                false,
                None,
            )
        }
        "Glob" => {
            let n = g.rng.range(1, 60);
            let paths: Vec<String> = (0..n).map(|_| path(g, cwd)).collect();
            (json_str(&paths.join("\n")), false, None)
        }
        "TodoWrite" => (
            json_str("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"),
            false,
            None,
        ),
        "WebFetch" | "Task" | "WebSearch" => (
            format!(
                "[{{\"type\":\"text\",\"text\":{}}}]",
                json_str(t.prose.piece(&mut g.rng, len))
            ),
            false,
            None,
        ),
        _ => (
            json_str(t.shell.piece(&mut g.rng, len.min(3000))),
            false,
            None,
        ),
    }
}

/// Usage of one API message: (input, output, cache_creation, cache_read).
pub fn usage(g: &mut Gen, context: u64) -> (u64, u64, u64, u64) {
    let cc = if g.rng.one_in(3) {
        0
    } else {
        g.rng.below(4000)
    };
    let it = if g.rng.one_in(10) {
        g.rng.range(100, 20_000)
    } else {
        g.rng.range(1, 12)
    };
    let ot = g.rng.log_uniform(1, 3000);
    (it, ot, cc, context)
}

/// The content blocks of one assistant message (thinking, text, tool_use) and its calls.
pub fn blocks(g: &mut Gen, last: bool, cwd: &str) -> (Vec<String>, Vec<(&'static str, String)>) {
    let t = g.texts;
    let mut blocks = Vec::new();
    if g.rng.one_in(4) {
        let n = g.len(80, 6000);
        let thinking = json_str(t.prose.piece(&mut g.rng, n));
        let sig = g.rng.pick(&t.blobs);
        blocks.push(format!(
            "{{\"type\":\"thinking\",\"thinking\":{thinking},\"signature\":\"{sig}\"}}"
        ));
    }
    if g.rng.one_in(2) {
        let n = g.len(20, 2000);
        blocks.push(format!(
            "{{\"type\":\"text\",\"text\":{}}}",
            json_str(t.prose.piece(&mut g.rng, n))
        ));
    }
    let mut calls = Vec::new();
    if !last {
        let k = if g.rng.one_in(6) {
            g.rng.range(2, 5)
        } else {
            1
        };
        for _ in 0..k {
            let name = tool_name(g);
            let tid = id(g, "toolu_01");
            let input = tool_input(g, name, cwd);
            blocks.push(format!(
                "{{\"type\":\"tool_use\",\"id\":\"{tid}\",\"name\":\"{name}\",\"input\":{input}}}"
            ));
            calls.push((name, tid));
        }
    }
    if blocks.is_empty() {
        let n = g.len(20, 800);
        blocks.push(format!(
            "{{\"type\":\"text\",\"text\":{}}}",
            json_str(t.prose.piece(&mut g.rng, n))
        ));
    }
    (blocks, calls)
}

/// Cost in USD of the given token sums for model index `m`.
pub fn cost(m: usize, input: u64, output: u64, cache_creation: u64, cache_read: u64) -> f64 {
    let (pi, po, pw, pr) = CLAUDE_PRICES[m];
    (input as f64 * pi + output as f64 * po + cache_creation as f64 * pw + cache_read as f64 * pr)
        / 1e6
}

/// One stream-json session, from `system/init` to `result`.
pub fn session(g: &mut Gen, out: &mut dyn Out) {
    let t = g.texts;
    let sid = g.uuid();
    let m = model(g);
    let model = CLAUDE_MODELS[m];
    let cwd = format!("/home/dev/{}-{}", g.word(), g.word());
    let tail = format!(",\"session_id\":\"{sid}\",\"uuid\":\"");
    let mode = *g.rng.pick(&["default", "acceptEdits", "bypassPermissions"]);
    let version = g.rng.range(1, 40);
    let init_uuid = g.uuid();
    let tools: Vec<String> = TOOLS.iter().map(|t| json_str(t)).collect();
    out.record(
        "system",
        &format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":{},\"session_id\":\"{sid}\",\"tools\":[{}],\"mcp_servers\":[{{\"name\":\"github\",\"status\":\"connected\"}}],\"model\":\"{model}\",\"permissionMode\":\"{mode}\",\"slash_commands\":[\"compact\",\"context\",\"cost\",\"init\",\"review\",\"security-review\"],\"apiKeySource\":\"none\",\"claude_code_version\":\"2.0.{version}\",\"output_style\":\"default\",\"agents\":[\"general-purpose\",\"statusline-setup\"],\"uuid\":\"{init_uuid}\"}}",
            json_str(&cwd),
            tools.join(",")
        ),
    );
    let prompt = fill_one(&mut g.rng, USER_PROMPTS);
    let u = g.uuid();
    out.record(
        "user",
        &format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{}}},\"parent_tool_use_id\":null{tail}{u}\"}}",
            json_str(&prompt)
        ),
    );
    let n_msgs = g.rng.log_uniform(3, 250);
    let mut sums = [0u64; 4];
    let mut ctx = g.rng.range(8000, 20_000);
    let mut turns = 0u64;
    let mut duration_ms = 1000u64;
    let mut parent = "null".to_string();
    let mut sub_left = 0u64;
    for i in 0..n_msgs {
        if out.full() {
            break;
        }
        turns += 1;
        let mid = id(g, "msg_01");
        let (it, ot, cc, cr) = usage(g, ctx);
        ctx += cc + g.rng.below(3000);
        if ctx > 180_000 {
            ctx = g.rng.range(20_000, 40_000); // auto-compact
        }
        sums[0] += it;
        sums[1] += ot;
        sums[2] += cc;
        sums[3] += cr;
        let usage = format!(
            "{{\"input_tokens\":{it},\"cache_creation_input_tokens\":{cc},\"cache_read_input_tokens\":{cr},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{cc},\"ephemeral_1h_input_tokens\":0}},\"output_tokens\":{ot},\"service_tier\":\"standard\"}}"
        );
        let (blocks, calls) = blocks(g, i == n_msgs - 1, &cwd);
        let head = format!(
            "{{\"type\":\"assistant\",\"message\":{{\"model\":\"{model}\",\"id\":\"{mid}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
        );
        let foot = format!(
            "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{usage},\"context_management\":null}},\"parent_tool_use_id\":{parent}{tail}"
        );
        if g.rng.one_in(7) {
            let u = g.uuid();
            out.record(
                "assistant",
                &format!("{head}{}{foot}{u}\"}}", blocks.join(",")),
            );
        } else {
            // One line per content block, same message id and usage, as Claude Code writes.
            for b in &blocks {
                let u = g.uuid();
                out.record("assistant", &format!("{head}{b}{foot}{u}\"}}"));
            }
        }
        for (name, tid) in calls {
            let (content, err, tur) = tool_output(g, name, &cwd);
            let u = g.uuid();
            let mut line = format!(
                "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{tid}\",\"type\":\"tool_result\",\"content\":{content}{}}}]}},\"parent_tool_use_id\":{parent}{tail}{u}\"",
                if err { ",\"is_error\":true" } else { "" }
            );
            if let Some(tur) = tur {
                line.push_str(",\"tool_use_result\":");
                line.push_str(&tur);
            }
            line.push('}');
            out.record("user", &line);
            if name == "Task" && sub_left == 0 {
                parent = format!("\"{tid}\"");
                sub_left = g.rng.range(3, 20);
            }
        }
        if sub_left > 0 {
            sub_left -= 1;
            if sub_left == 0 {
                parent = "null".to_string();
            }
        }
        duration_ms += g.rng.range(800, 30_000);
    }
    if g.rng.one_in(50) {
        let u = g.uuid();
        out.record(
            "system",
            &format!(
                "{{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"session_id\":\"{sid}\",\"uuid\":\"{u}\",\"compact_metadata\":{{\"trigger\":\"auto\",\"pre_tokens\":{ctx}}}}}"
            ),
        );
    }
    let cost = cost(m, sums[0], sums[1], sums[2], sums[3]);
    g.totals.add(&Totals {
        sessions: 1,
        input: sums[0],
        output: sums[1],
        cache_creation: sums[2],
        cache_read: sums[3],
        cost_usd: cost,
    });
    let r = g.rng.unit();
    let subtype = if r < 0.96 {
        "success"
    } else if r < 0.98 {
        "error_max_turns"
    } else {
        "error_during_execution"
    };
    let res_usage = format!(
        "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"output_tokens\":{},\"server_tool_use\":{{\"web_search_requests\":0,\"web_fetch_requests\":0}},\"service_tier\":\"standard\",\"cache_creation\":{{\"ephemeral_1h_input_tokens\":0,\"ephemeral_5m_input_tokens\":{}}}}}",
        sums[0], sums[2], sums[3], sums[1], sums[2]
    );
    let model_usage = format!(
        "{{\"{model}\":{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadInputTokens\":{},\"cacheCreationInputTokens\":{},\"webSearchRequests\":0,\"costUSD\":{cost:?},\"contextWindow\":200000}}}}",
        sums[0], sums[1], sums[3], sums[2]
    );
    let result_text = if subtype == "success" {
        let n = g.len(50, 3000);
        format!(",\"result\":{}", json_str(t.prose.piece(&mut g.rng, n)))
    } else {
        String::new()
    };
    let u = g.uuid();
    out.record(
        "result",
        &format!(
            "{{\"type\":\"result\",\"subtype\":\"{subtype}\",\"is_error\":{},\"duration_ms\":{duration_ms},\"duration_api_ms\":{},\"num_turns\":{turns}{result_text},\"session_id\":\"{sid}\",\"total_cost_usd\":{cost:?},\"usage\":{res_usage},\"modelUsage\":{model_usage},\"permission_denials\":[],\"uuid\":\"{u}\"}}",
            subtype != "success",
            duration_ms * 4 / 5
        ),
    );
}
