//! The events of JSON-RPC messages (docs/REFERENCE.md, "Normalized events"): one `rpc`
//! event per message; a response takes the `method` of the request it answers (requests
//! waiting for an answer are remembered, at most [`MAX_PENDING_REQUESTS`]); the session is
//! the thread the message names ([`super::session`]: `params.threadId`,
//! `params.thread.id`, `result.thread.id`, or the legacy `params.conversationId`).

use crate::event::MAX_PENDING_REQUESTS;
use crate::event::{Body, Context, Direction, Emit, EventReader, Origin};
use crate::json::{Json, Kind};
use std::collections::HashMap;
use std::io;

/// JSON-RPC messages, with the requests of the input waiting for a response.
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::dialect) struct Rpc {
    /// Requests waiting for a response: id (compact JSON) → method.
    requests: HashMap<String, String>,
}

impl EventReader for Rpc {
    fn map<'a>(
        &mut self,
        _cx: &mut Context,
        mut o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        o.session = super::session(v);
        let id = v.get("id");
        let error = v.get("error").filter(|e| e.kind() != Kind::Null);
        if let Some(method) = v.str("method") {
            let direction = match id {
                Some(id) => {
                    if self.requests.len() >= MAX_PENDING_REQUESTS {
                        self.requests.clear();
                    }
                    self.requests
                        .insert(id.to_compact_string(), method.to_string());
                    Direction::Request
                }
                None => Direction::Notification,
            };
            return emit(&o.event(Body::Rpc {
                id,
                method: Some(method),
                direction,
                error,
            }));
        }
        match id {
            Some(id) if v.has("result") || error.is_some() => {
                let method = self.requests.remove(&id.to_compact_string());
                emit(&o.event(Body::Rpc {
                    id: Some(id),
                    method: method.as_deref(),
                    direction: Direction::Response,
                    error,
                }))
            }
            // Neither a request, a notification nor a response: shown whole.
            _ => emit(&o.event(Body::Unknown { ty: None, raw: v })),
        }
    }
}
