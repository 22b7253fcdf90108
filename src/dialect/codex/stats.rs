//! `stats`: the `codex exec --json` stream (threads, turns and items) into the stats store,
//! through its narrow API ([`Ingest`]).

use crate::dialect::stats_reader::TopFields;
use crate::json::Json;
use crate::stats::{Ingest, Key, Tokens, NONE};

/// One record. Codex exec has no turn or call ids that survive a second process, so a turn
/// is keyed by (thread, process, turn number, its usage) and an item by (thread, process,
/// item id, a digest of the item): the same stream given twice counts once, while a
/// resumed run (same thread, new process) is a turn of its own. A turn's usage is the
/// thread's cumulative usage, so the store counts what each turn adds to the one before.
pub(crate) fn read(v: Json<'_>, top: &TopFields<'_>, s: &mut Ingest<'_>) {
    let ty = top.ty();
    if ty == Some("thread.started") {
        if let Some(t) = v.str("thread_id") {
            let thread = s.session(t);
            let input = &mut s.input;
            input.process = if thread == input.session {
                input.process + 1
            } else {
                1
            };
            input.session = thread;
            input.turn = 0;
        }
    }
    let session = s.input.session;
    s.count_record(session);
    let attr = s.attr(session, NONE);
    // Shared with the string table, not copied per record.
    let thread = s.name_of(session);
    let thread: &str = thread.as_deref().unwrap_or("");
    match ty {
        Some("turn.completed") | Some("turn.failed") => {
            s.input.turn += 1;
            let usage = v.get("usage").filter(|u| u.is_object()).map(tokens);
            let t = usage.unwrap_or_default();
            let turn = format!(
                "{}/{}/{}/{}/{}/{}",
                s.input.process, s.input.turn, t.input, t.output, t.cache_creation, t.cache_read
            );
            let key = Key::of(&["codex turn", thread, &turn]);
            if let Some(tokens) = usage {
                // Cumulative over the thread: a resumed run's turn repeats the runs
                // before it (docs/REFERENCE.md "Lineage").
                s.cumulative_turn(session, key, tokens, attr);
            }
            s.turn_ended(key, attr);
        }
        Some("item.completed") => {
            let Some(item) = v.get("item") else { return };
            let Some(name) = super::tool_name(item) else {
                return;
            };
            let Some(id) = item.str("id") else {
                return;
            };
            let digest = fnv1a(item.to_compact_string().as_bytes());
            let key = Key::of(&[
                "codex item",
                thread,
                &s.input.process.to_string(),
                id,
                &format!("{digest:016x}"),
            ]);
            if super::item_failed(item) {
                s.tool_error(key);
            }
            s.tool_call(key, name, attr);
        }
        _ => {}
    }
}

/// FNV-1a, 64 bits: a digest that stays the same across versions and machines, since it
/// travels in partial stats.
pub(in crate::dialect) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Codex usage: `input_tokens` includes its `cached_input_tokens`, so non-cached input
/// is the difference; `cache_write_input_tokens` are cache writes, and
/// `reasoning_output_tokens` the reasoning part of `output_tokens`.
pub(in crate::dialect) fn tokens(usage: Json<'_>) -> Tokens {
    let [cached, input, output, cache_creation, reasoning_output] = usage.get_many([
        "cached_input_tokens",
        "input_tokens",
        "output_tokens",
        "cache_write_input_tokens",
        "reasoning_output_tokens",
    ]);
    let n = |v: Option<Json<'_>>| v.and_then(|v| v.as_count()).unwrap_or(0);
    let cached = n(cached);
    Tokens {
        input: n(input).saturating_sub(cached),
        output: n(output),
        cache_creation: n(cache_creation),
        cache_read: cached,
        reasoning_output: n(reasoning_output),
        cache_creation_1h: 0,
    }
}
