//! The events of Gemini CLI's stream-json and its `-o json` document (docs/REFERENCE.md,
//! "Normalized events").
//!
//! Assistant `delta` chunks are joined into one `text` per turn (held, and emitted at the
//! next other record or the end of the input, at the line of the first chunk);
//! `tool_result` is an error when its status says so or its output reports a non-zero exit
//! code ([`super::tool_result_failed`]: Gemini says `success` for a failed command);
//! `result` gives one `usage` per model of `stats.models` and a `result`. The `-o json`
//! document gives its `response` as text, its models' usage and a result.

use crate::event::{sum_some, Body, Context, Emit};
use crate::event::{Nested, Origin, Outcome, Text, Usage};
use crate::json::Json;
use std::borrow::Cow;
use std::io;

/// The events of one record (the agent's reader, as [`crate::event::MapFn`]).
pub(in crate::dialect) fn map(
    cx: &mut Context,
    o: Origin<'_>,
    v: Json<'_>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = v.str("type");
    if ty == Some("message")
        && v.str("role") == Some("assistant")
        && v.get("delta").and_then(|d| d.as_bool()) == Some(true)
    {
        let chunk = v.str("content").unwrap_or_default();
        return cx.push_text(o, false, chunk, emit);
    }
    cx.flush_text(emit)?;
    match ty {
        None if super::is_document(v) => {
            if let Some(text) = v.str("response") {
                emit(&o.event(Body::Text {
                    uuid: None,
                    message_id: None,
                    text: Text::from(text),
                }))?;
            }
            model_usage(o, v.path(&["stats", "models"]), emit)?;
            // The document names its tool calls only by count (`stats.tools.byName`): one
            // `tool_use` per call and a failed `tool_result` per failure, without ids, so
            // `events` shows the calls and errors `stats` counts.
            let mut tools = Vec::new();
            if let Some(by_name) = v.path(&["stats", "tools", "byName"]) {
                by_name.for_each_entry(|name, t| {
                    let calls = crate::dialect::facts::at(t, &["count"]);
                    let fails = crate::dialect::facts::at(t, &["fail"]).min(calls);
                    tools.push((name, calls, fails));
                });
            }
            for (name, calls, fails) in tools {
                for i in 0..calls {
                    emit(&o.event(Body::ToolUse {
                        id: None,
                        name: Some(name),
                        input: None,
                    }))?;
                    if i < fails {
                        emit(&o.event(Body::ToolResult {
                            tool_use_id: None,
                            is_error: true,
                            content: None,
                        }))?;
                    }
                }
            }
            let error = v.get("error").filter(Json::is_object);
            let (input, output) = document_totals(v);
            emit(&o.event(Body::Result(Outcome {
                success: error.is_none(),
                is_error: error.is_some(),
                subtype: Some(if error.is_some() { "error" } else { "success" }),
                input,
                output,
                text: error.and_then(|e| e.str("message")).map(Cow::Borrowed),
                ..Outcome::default()
            })))
        }
        Some("init") => emit(&o.event(Body::Init {
            model: v.str("model"),
            cwd: None,
            tools: None,
            permission_mode: None,
        })),
        Some("message") => {
            let text = Text::of(v.get("content"));
            emit(&o.event(match v.str("role") {
                Some("assistant") => Body::Text {
                    uuid: None,
                    message_id: None,
                    text,
                },
                _ => Body::User { uuid: None, text },
            }))
        }
        Some("tool_use") => emit(&o.event(Body::ToolUse {
            id: v.str("tool_id"),
            name: v.str("tool_name"),
            input: v.get("parameters").map(Nested::Json),
        })),
        Some("tool_result") => emit(
            &o.event(Body::ToolResult {
                tool_use_id: v.str("tool_id"),
                is_error: super::tool_result_failed(v),
                content: v
                    .path(&["error", "message"])
                    .or_else(|| v.get("output"))
                    .map(Nested::Json),
            }),
        ),
        Some("error") => emit(&o.event(Body::System {
            subtype: Some("error"),
            message: v.str("message"),
            model: None,
        })),
        Some("result") => {
            let stats = v.get("stats");
            let at = |k: &str| stats.and_then(|s| s.count(k));
            match stats.and_then(|s| s.get("models")) {
                Some(models) => model_usage(o, Some(models), emit)?,
                None if stats.is_some() => {
                    let (input, cached) = stream_input(stats);
                    emit(&o.event(Body::Usage(Usage {
                        input,
                        output: at("output_tokens"),
                        cache_read: cached,
                        ..Usage::default()
                    })))?
                }
                None => {}
            }
            let status = v.str("status");
            let failed = status != Some("success");
            emit(
                &o.event(Body::Result(Outcome {
                    success: !failed,
                    is_error: failed,
                    subtype: status,
                    duration_ms: at("duration_ms"),
                    input: stream_input(stats).0,
                    output: at("output_tokens"),
                    text: v
                        .path(&["error", "message"])
                        .and_then(|m| m.as_str())
                        .map(Cow::Borrowed),
                    ..Outcome::default()
                })),
            )
        }
        _ => Ok(()),
    }
}

/// Non-cached input and cache reads of Gemini stream stats (or one of its models): `input`
/// is the non-cached part where the CLI gives it, else `input_tokens - cached`.
fn stream_input(stats: Option<Json<'_>>) -> (Option<u64>, Option<u64>) {
    let at = |k: &str| stats.and_then(|s| s.count(k));
    let cached = at("cached");
    let input =
        at("input").or_else(|| at("input_tokens").map(|i| i.saturating_sub(cached.unwrap_or(0))));
    (input, cached)
}

/// Non-cached input and cache reads of a session-log `tokens` (or `-o json` model
/// tokens): `input` there is the whole prompt.
pub(in crate::dialect) fn log_input(tokens: Json<'_>) -> (Option<u64>, Option<u64>) {
    let cached = tokens.count("cached");
    let prompt = tokens.count("input").or_else(|| tokens.count("prompt"));
    (
        prompt.map(|p| p.saturating_sub(cached.unwrap_or(0))),
        cached,
    )
}

/// Output tokens of a session-log `tokens`: the answer and the thoughts.
pub(in crate::dialect) fn log_output(tokens: Json<'_>) -> Option<u64> {
    sum_some(
        tokens
            .count("output")
            .or_else(|| tokens.count("candidates")),
        tokens.count("thoughts"),
    )
}

/// One `usage` per model of Gemini stats (`stats.models`), stream or document shape.
fn model_usage(o: Origin<'_>, models: Option<Json<'_>>, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(models) = models else { return Ok(()) };
    let mut result = Ok(());
    models.for_each_entry(|model, m| {
        if result.is_err() {
            return;
        }
        let usage = match m.get("tokens").filter(Json::is_object) {
            // -o json: {tokens{input (whole prompt), candidates, cached, thoughts}}
            Some(t) => {
                let (input, cached) = log_input(t);
                Usage {
                    model: Some(model),
                    input,
                    output: log_output(t),
                    cache_read: cached,
                    ..Usage::default()
                }
            }
            None => {
                let (input, cached) = stream_input(Some(m));
                Usage {
                    model: Some(model),
                    input,
                    output: m.count("output_tokens"),
                    cache_read: cached,
                    ..Usage::default()
                }
            }
        };
        result = emit(&o.event(Body::Usage(usage)));
    });
    result
}

/// Non-cached input and output (thoughts included) totals of an `-o json` document, over
/// its models.
fn document_totals(v: Json<'_>) -> (Option<u64>, Option<u64>) {
    let Some(models) = v.path(&["stats", "models"]) else {
        return (None, None);
    };
    let (mut input, mut output) = (0u64, 0u64);
    models.for_each_entry(|_, m| {
        if let Some(t) = m.get("tokens") {
            input = input.saturating_add(log_input(t).0.unwrap_or(0));
            output = output.saturating_add(log_output(t).unwrap_or(0));
        }
    });
    (Some(input), Some(output))
}
