//! Codex's records: the `codex exec --json` stream (turns and items) and session rollouts
//! (cumulative token counts, function calls and their outputs).

use super::InputContext;
use crate::json::Json;
use crate::stats::intern::{Attr, NONE};
use crate::stats::tokens::Tokens;
use crate::stats::{Key, Stats, ToolEntry};

impl Stats {
    /// Codex exec has no turn or call ids that survive a second process, so a turn is keyed
    /// by (thread, process, turn number, its usage) and an item by (thread, process, item
    /// id, a digest of the item): the same stream given twice counts once, while a resumed
    /// run (same thread, new process, other usage) counts on its own.
    pub(super) fn add_codex(
        &mut self,
        v: Json<'_>,
        ty: Option<&str>,
        ctx: &mut InputContext,
        day: u32,
    ) {
        if ty == Some("thread.started") {
            if let Some(t) = v.get("thread_id").and_then(|t| t.as_str()) {
                let thread = self.session_id(t);
                ctx.process = if thread == ctx.session {
                    ctx.process + 1
                } else {
                    1
                };
                ctx.session = thread;
                ctx.turn = 0;
            }
        }
        self.count_session_record(ctx.session);
        let attr = self.attrs.id(Attr {
            session: ctx.session,
            model: NONE,
            file: ctx.file,
            day,
        });
        let thread = self.strings.get(ctx.session).unwrap_or("").to_string();
        match ty {
            Some("turn.completed") | Some("turn.failed") => {
                ctx.turn += 1;
                let usage = v
                    .get("usage")
                    .filter(|u| u.is_object())
                    .map(Tokens::from_codex);
                let t = usage.unwrap_or_default();
                let turn = format!(
                    "{}/{}/{}/{}/{}/{}",
                    ctx.process, ctx.turn, t.input, t.output, t.cache_creation, t.cache_read
                );
                let key = Key::of(&["codex turn", &thread, &turn]);
                if let Some(tokens) = usage {
                    self.add_usage(key, tokens, attr);
                }
                self.codex_turns.insert(key, attr);
            }
            Some("item.completed") => {
                let Some(item) = v.get("item") else { return };
                let Some(name) = crate::dialect::codex_tool_name(item) else {
                    return;
                };
                let Some(id) = item.get("id").and_then(|i| i.as_str()) else {
                    return;
                };
                let digest = fnv1a(item.to_compact_string().as_bytes());
                let key = Key::of(&[
                    "codex item",
                    &thread,
                    &ctx.process.to_string(),
                    id,
                    &format!("{digest:016x}"),
                ]);
                let failed = crate::dialect::codex_item_failed(item);
                let name = self.strings.id(name);
                if failed {
                    self.tool_errors.push(key);
                }
                self.tool_calls.push(ToolEntry(key, name, attr));
            }
            _ => {}
        }
    }

    pub(super) fn add_codex_log(
        &mut self,
        v: Json<'_>,
        ty: Option<&str>,
        ctx: &mut InputContext,
        day: u32,
    ) {
        let payload = v.get("payload");
        // The payload's fields, found in one walk over it.
        let [ptype, id, model, cwd, info, name, call_id, output] = match payload {
            Some(p) => p.get_many([
                "type", "id", "model", "cwd", "info", "name", "call_id", "output",
            ]),
            None => [None; 8],
        };
        fn str_of(v: Option<Json<'_>>) -> Option<&str> {
            v.and_then(|v| v.as_str())
        }
        match ty {
            Some("session_meta") => {
                if let Some(id) = str_of(id) {
                    ctx.session = self.session_id(id);
                }
            }
            Some("turn_context") => {
                if let Some(m) = str_of(model) {
                    ctx.model = self.strings.id(m);
                }
            }
            _ => {}
        }
        if matches!(ty, Some("session_meta" | "turn_context")) && ctx.session != NONE {
            if let Some(cwd) = str_of(cwd) {
                self.set_cwd(ctx.session, cwd);
            }
        }
        self.count_session_record(ctx.session);
        if payload.is_none() {
            return;
        }
        let attr = self.attrs.id(Attr {
            session: ctx.session,
            model: ctx.model,
            file: ctx.file,
            day,
        });
        let ptype = str_of(ptype);
        match (ty, ptype) {
            (Some("event_msg"), Some("token_count")) => {
                // The cumulative total: the last one of a session is its usage, however
                // often a count is re-emitted.
                if let Some(total) = info.and_then(|i| i.get("total_token_usage")) {
                    let tokens = Tokens::from_codex(total);
                    self.codex_totals.insert(ctx.session, (tokens, attr));
                }
            }
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call"),
            ) => {
                let name = crate::dialect::codex_log_tool_name(ptype.unwrap_or(""), str_of(name))
                    .unwrap_or("(unknown)");
                // A web search has no call id (at most its item id, as `events` shows it;
                // else the record itself is its key).
                let key = match (str_of(call_id), ptype) {
                    (Some(id), _) => Some(Key::of(&[id])),
                    (None, Some("web_search_call")) => Some(match str_of(id) {
                        Some(id) => Key::of(&[id]),
                        None => {
                            Key::of(&[&format!("{:016x}", fnv1a(v.to_compact_string().as_bytes()))])
                        }
                    }),
                    (None, _) => None,
                };
                if let Some(key) = key {
                    let name = self.strings.id(name);
                    self.tool_calls.push(ToolEntry(key, name, attr));
                }
            }
            (
                Some("response_item"),
                Some(
                    "function_call_output" | "custom_tool_call_output" | "local_shell_call_output",
                ),
            ) => {
                let Some(id) = str_of(call_id) else {
                    return;
                };
                if output.is_some_and(crate::dialect::codex_tool_failed) {
                    self.tool_errors.push(Key::of(&[id]));
                }
            }
            _ => {}
        }
    }
}

/// FNV-1a, 64 bits: a digest that stays the same across versions and machines, since it
/// travels in partial stats.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
