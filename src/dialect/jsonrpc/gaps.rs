//! What a JSON-RPC message tells the gap trackers: requests and responses by id, matched
//! as JSON values (their compact text: `"1"` and `1` differ), whichever side sent them.

use crate::gaps::{put, Op};
use crate::json::Json;

/// JSON-RPC: requests and responses by id.
pub(in crate::dialect) fn ops(value: Json<'_>, ops: &mut Vec<Op>, text: &mut String) {
    let Some(id) = value.get("id") else { return };
    let key = put(text, &id.to_compact_string());
    if let Some(method) = value.get("method") {
        ops.push(Op::Request {
            key,
            method: put(text, method.as_str().unwrap_or("?")),
        });
    } else if value.has("result") || value.has("error") {
        ops.push(Op::Response { key });
    }
}
