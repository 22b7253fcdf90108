//! `--dialect claude-log`: Claude Code session transcripts
//! (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Each record carries `parentUuid` (the chain), `isSidechain`, `userType`, `cwd`,
//! `sessionId`, `version`, `gitBranch`, `type`, `uuid` and an ISO `timestamp`; assistant
//! records also `requestId` and `message.{id,model,usage}`. As in real transcripts, an
//! API message with several content blocks is written one block per line, every line
//! repeating the message's id, request id and the SAME usage, so a reader that keeps one
//! snapshot per (message id, request id) counts it once (ndjq stats and ccusage both do).

use crate::claude::{self, blocks, tool_output, usage};
use crate::session::{Gen, Out, Totals};
use crate::text::{fill_one, json_str};
use crate::words::{CLAUDE_MODELS, USER_PROMPTS};

/// Where a transcript's session lives: its project folder's working directory.
#[derive(Debug, Clone)]
pub struct Place {
    pub cwd: String,
    pub session_id: String,
}

/// One transcript session. With `until_full`, it goes on until `out` is full (one session
/// per file, for trees); otherwise it has a random number of messages.
pub fn session(g: &mut Gen, out: &mut dyn Out, place: &Place, until_full: bool) {
    let m = claude::model(g);
    let model = CLAUDE_MODELS[m];
    let version = format!("2.0.{}", g.rng.range(1, 40));
    let branch = *g
        .rng
        .pick(&["main", "main", "dev", "fix/parser", "feat/stats"]);
    let common = format!(
        "\"isSidechain\":false,\"userType\":\"external\",\"cwd\":{},\"sessionId\":\"{}\",\"version\":\"{version}\",\"gitBranch\":\"{branch}\"",
        json_str(&place.cwd),
        place.session_id
    );
    let n_msgs = if until_full {
        u64::MAX
    } else {
        g.rng.log_uniform(3, 250)
    };
    if g.rng.one_in(5) {
        let leaf = g.uuid();
        let title: String = fill_one(&mut g.rng, USER_PROMPTS)
            .chars()
            .take(60)
            .collect();
        out.record(
            "summary",
            &format!(
                "{{\"type\":\"summary\",\"summary\":{},\"leafUuid\":\"{leaf}\"}}",
                json_str(&title)
            ),
        );
    }
    let mut parent = "null".to_string();
    let mut sums = [0u64; 4];
    let mut ctx = g.rng.range(8000, 20_000);
    let mut i = 0u64;
    while i < n_msgs {
        if i > 0 && out.full() && !g.long_pending() {
            break;
        }
        // A user prompt opens the session and, now and then, a new turn.
        if i == 0 || g.rng.one_in(12) {
            let prompt = fill_one(&mut g.rng, USER_PROMPTS);
            let u = g.uuid();
            let ts = g.tick(5_000, 600_000);
            out.record(
                "user",
                &format!(
                    "{{\"parentUuid\":{parent},{common},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{}}},\"uuid\":\"{u}\",\"timestamp\":\"{ts}\"}}",
                    json_str(&prompt)
                ),
            );
            parent = format!("\"{u}\"");
        }
        let mid = claude::id(g, "msg_01");
        let rid = claude::id(g, "req_011C");
        let (it, ot, cc, cr) = usage(g, ctx);
        ctx += cc + g.rng.below(3000);
        if ctx > 180_000 {
            ctx = g.rng.range(20_000, 40_000);
        }
        sums[0] += it;
        sums[1] += ot;
        sums[2] += cc;
        sums[3] += cr;
        let usage = format!(
            "{{\"input_tokens\":{it},\"cache_creation_input_tokens\":{cc},\"cache_read_input_tokens\":{cr},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{cc},\"ephemeral_1h_input_tokens\":0}},\"output_tokens\":{ot},\"service_tier\":\"standard\"}}"
        );
        let last = i + 1 == n_msgs;
        let (blocks, calls) = blocks(g, last, &place.cwd);
        let stop = if calls.is_empty() {
            "\"end_turn\""
        } else {
            "\"tool_use\""
        };
        for b in &blocks {
            let u = g.uuid();
            let ts = g.tick(50, 4000);
            out.record(
                "assistant",
                &format!(
                    "{{\"parentUuid\":{parent},{common},\"message\":{{\"id\":\"{mid}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"{model}\",\"content\":[{b}],\"stop_reason\":{stop},\"stop_sequence\":null,\"usage\":{usage}}},\"requestId\":\"{rid}\",\"type\":\"assistant\",\"uuid\":\"{u}\",\"timestamp\":\"{ts}\"}}"
                ),
            );
            parent = format!("\"{u}\"");
        }
        for (name, tid) in calls {
            let (content, err, tur) = tool_output(g, name, &place.cwd);
            let u = g.uuid();
            let ts = g.tick(200, 30_000);
            let result = match tur {
                Some(tur) => format!(",\"toolUseResult\":{tur}"),
                None => String::new(),
            };
            out.record(
                "user",
                &format!(
                    "{{\"parentUuid\":{parent},{common},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{tid}\",\"type\":\"tool_result\",\"content\":{content}{}}}]}},\"uuid\":\"{u}\",\"timestamp\":\"{ts}\"{result}}}",
                    if err { ",\"is_error\":true" } else { "" }
                ),
            );
            parent = format!("\"{u}\"");
        }
        i += 1;
    }
    if g.rng.one_in(4) {
        let u = g.uuid();
        let ts = g.tick(10, 100);
        let ms = g.rng.range(2_000, 600_000);
        out.record(
            "system",
            &format!(
                "{{\"parentUuid\":{parent},{common},\"type\":\"system\",\"subtype\":\"turn_duration\",\"durationMs\":{ms},\"uuid\":\"{u}\",\"timestamp\":\"{ts}\",\"isMeta\":false}}"
            ),
        );
    }
    g.totals.add(&Totals {
        sessions: 1,
        input: sums[0],
        output: sums[1],
        cache_creation: sums[2],
        cache_read: sums[3],
        cost_usd: claude::cost(m, sums[0], sums[1], sums[2], sums[3]),
    });
}
