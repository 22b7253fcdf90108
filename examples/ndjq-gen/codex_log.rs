//! `--dialect codex-log`: Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Every record is `{"timestamp":...,"type":...,"payload":{...}}`: one `session_meta`, then
//! per turn a user message (`event_msg/user_message` and `response_item/message`), a
//! `turn_context` (cwd, model), steps of reasoning, `function_call` and
//! `function_call_output`, each API call followed by an `event_msg/token_count` whose
//! `info.total_token_usage` is cumulative over the session and `info.last_token_usage` is
//! that call's; the turn ends with the agent's message.

use crate::codex::{command, turn_usage, CODEX_MODELS};
use crate::session::{Gen, Out, Totals};
use crate::text::{fill_one, json_str};
use crate::words::USER_PROMPTS;

/// Where a rollout's session lives.
#[derive(Debug, Clone)]
pub struct Place {
    pub cwd: String,
    pub session_id: String,
    /// A fork: its parent's session id and the parent's cumulative totals (input, cached,
    /// output, reasoning), where the fork's `total_token_usage` starts, as Codex forks do.
    pub forked_from: Option<(String, [u64; 4])>,
}

fn usage_json(input: u64, cached: u64, output: u64, reasoning: u64) -> String {
    format!(
        "{{\"input_tokens\":{input},\"cached_input_tokens\":{cached},\"output_tokens\":{output},\"reasoning_output_tokens\":{reasoning},\"total_tokens\":{}}}",
        input + output
    )
}

/// One rollout session. With `until_full`, it goes on until `out` is full (one session per
/// file, for trees); otherwise it has a random number of turns. Gives its cumulative totals
/// (input, cached, output, reasoning) at its end.
pub fn session(g: &mut Gen, out: &mut dyn Out, place: &Place, until_full: bool) -> [u64; 4] {
    let t = g.texts;
    let model = *g.rng.pick(CODEX_MODELS);
    let cwd = json_str(&place.cwd);
    let sid = &place.session_id;
    let ts = g.tick(0, 1000);
    let commit = format!(
        "{:016x}{:016x}{:08x}",
        g.rng.next_u64(),
        g.rng.next_u64(),
        g.rng.below(1 << 32)
    );
    let repo = g.word();
    let (fork, base) = match &place.forked_from {
        Some((parent, base)) => (
            format!("\"forked_from_id\":\"{parent}\",\"forked_from_ordinal_exclusive\":0,"),
            *base,
        ),
        None => (String::new(), [0; 4]),
    };
    out.record(
        "session_meta",
        &format!("{{\"timestamp\":\"{ts}\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{sid}\",{fork}\"timestamp\":\"{ts}\",\"cwd\":{cwd},\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.46.0\",\"instructions\":null,\"git\":{{\"commit_hash\":\"{commit}\",\"branch\":\"main\",\"repository_url\":\"git@github.com:acme/{repo}.git\"}}}}}}"),
    );
    out.record(
        "response_item",
        &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":{}}}]}}}}",
            json_str(&format!("<environment_context>\n  <cwd>{}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>", place.cwd))),
    );
    let turns = if until_full {
        u64::MAX
    } else {
        g.rng.log_uniform(1, 12)
    };
    let mut total = base;
    let mut ctx = g.rng.range(3000, 12_000);
    let mut turn = 0u64;
    while turn < turns {
        if turn > 0 && out.full() {
            break;
        }
        turn += 1;
        let prompt = json_str(&fill_one(&mut g.rng, USER_PROMPTS));
        let ts = g.tick(5_000, 600_000);
        out.record(
            "response_item",
            &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":{prompt}}}]}}}}"),
        );
        out.record(
            "event_msg",
            &format!("{{\"timestamp\":\"{ts}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"user_message\",\"message\":{prompt},\"kind\":\"plain\"}}}}"),
        );
        out.record(
            "turn_context",
            &format!("{{\"timestamp\":\"{ts}\",\"type\":\"turn_context\",\"payload\":{{\"cwd\":{cwd},\"approval_policy\":\"on-request\",\"sandbox_policy\":{{\"mode\":\"workspace-write\"}},\"model\":\"{model}\",\"effort\":\"medium\",\"summary\":\"auto\"}}}}"),
        );
        let steps = g.rng.log_uniform(1, 25);
        for step in 0..=steps {
            // A file of a tree that is full ends the turn now, with the agent's message.
            let last = step == steps || (until_full && out.full());
            if g.rng.one_in(2) {
                let n = g.len(30, 400);
                let summary = json_str(t.prose.piece(&mut g.rng, n));
                let ts = g.tick(500, 8000);
                out.record(
                    "event_msg",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"agent_reasoning\",\"text\":{summary}}}}}"),
                );
                let blob = g.rng.pick(&t.blobs);
                out.record(
                    "response_item",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":{summary}}}],\"content\":null,\"encrypted_content\":\"gAAAAA{blob}\"}}}}"),
                );
            }
            let ts = g.tick(100, 3000);
            let call = if last {
                let n = g.len(20, 2000);
                let text = json_str(t.prose.piece(&mut g.rng, n));
                out.record(
                    "event_msg",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"agent_message\",\"message\":{text}}}}}"),
                );
                out.record(
                    "response_item",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":{text}}}]}}}}"),
                );
                None
            } else {
                let call_id = format!("call_{}", crate::text::b62(&mut g.rng, 24));
                let args = json_str(&format!(
                    "{{\"command\":[\"bash\",\"-lc\",{}],\"workdir\":\".\",\"timeout_ms\":120000}}",
                    json_str(&command(g))
                ));
                out.record(
                    "response_item",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":{args},\"call_id\":\"{call_id}\"}}}}"),
                );
                Some(call_id)
            };
            let (input, cached, output, reasoning) = turn_usage(g, ctx);
            ctx = (ctx + g.rng.range(200, 4000)).min(250_000);
            total[0] += input;
            total[1] += cached;
            total[2] += output;
            total[3] += reasoning;
            let ts = g.tick(10, 200);
            out.record(
                "event_msg",
                &format!("{{\"timestamp\":\"{ts}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{},\"last_token_usage\":{},\"model_context_window\":272000}},\"rate_limits\":{{\"primary_used_percent\":{}.0,\"secondary_used_percent\":{}.0,\"primary_window_minutes\":299,\"secondary_window_minutes\":10079}}}}}}",
                    usage_json(total[0], total[1], total[2], total[3]),
                    usage_json(input, cached, output, reasoning),
                    g.rng.below(100),
                    g.rng.below(100)),
            );
            if let Some(call_id) = call {
                let len = g.result_len();
                let exit = if g.rng.one_in(8) { 1 } else { 0 };
                let output = json_str(&format!(
                    "{{\"output\":{},\"metadata\":{{\"exit_code\":{exit},\"duration_seconds\":{}.{}}}}}",
                    json_str(t.shell.piece(&mut g.rng, len)),
                    g.rng.below(30),
                    g.rng.below(10)
                ));
                let ts = g.tick(100, 20_000);
                out.record(
                    "response_item",
                    &format!("{{\"timestamp\":\"{ts}\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"{call_id}\",\"output\":{output}}}}}"),
                );
            }
            if last {
                break;
            }
        }
    }
    // A fork's own usage: what it adds to its parent's totals.
    g.totals.add(&Totals {
        sessions: 1,
        input: total[0] - base[0],
        output: total[2] - base[2],
        cache_creation: 0,
        cache_read: total[1] - base[1],
        cost_usd: 0.0,
    });
    total
}
