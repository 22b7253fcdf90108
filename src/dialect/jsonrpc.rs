//! `jsonrpc`: JSON-RPC 2.0 over stdio (Codex `app-server`), where the `jsonrpc` member may
//! be absent on the wire (SCHEMA-NOTES.md section 4). Messages have no `type`.

use crate::json::Json;

pub(super) const KNOWN_TYPES: &[&str] = &[];

/// Decisive: no `type`, and the shape of a request, response or notification.
pub(super) fn recognises(obj: Json<'_>, ty: Option<&str>) -> bool {
    ty.is_none()
        && !obj.has("type")
        && (obj.has("jsonrpc")
            || obj.has("method")
            || (obj.has("id") && (obj.has("result") || obj.has("error"))))
}
