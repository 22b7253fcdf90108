//! What the engine keeps between an input's records: the held usage and the joined text.

use super::*;

/// A usage snapshot waiting for the end of its message.
#[derive(Debug, Clone, PartialEq)]
struct PendingUsage {
    file: Arc<str>,
    line: u64,
    session: Option<String>,
    message_id: String,
    model: Option<String>,
    input: Option<u64>,
    output: Option<u64>,
    cache_creation: Option<u64>,
    cache_read: Option<u64>,
}

/// Text arriving in chunks (Gemini's assistant deltas, Cursor's thinking), joined into one
/// event per turn.
#[derive(Debug, Clone, PartialEq)]
struct PendingText {
    file: Arc<str>,
    line: u64,
    session: Option<String>,
    thinking: bool,
    text: String,
}

/// What the engine remembers between one input's records, for every agent: the held
/// usage and joined text (emitted here, at the end of a message, a turn or the input).
/// What an agent keeps is in its own reader ([`EventReader`]). All of it is bounded, and
/// forgotten when the input ends.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Context {
    /// The usage snapshot of the message being read (Claude-shaped messages).
    pending: Option<PendingUsage>,
    /// Text being joined from its chunks.
    pending_text: Option<PendingText>,
}

impl Context {
    /// Whether a usage snapshot of a message other than `id` is held.
    pub(crate) fn holds_usage_other_than(&self, id: Option<&str>) -> bool {
        self.pending
            .as_ref()
            .is_some_and(|p| Some(p.message_id.as_str()) != id)
    }

    /// Holds `usage`, the latest snapshot of message `id`, until the message ends: the
    /// last snapshot of a message wins.
    pub(crate) fn hold_usage(&mut self, o: Origin<'_>, id: &str, usage: &Usage<'_>) {
        self.pending = Some(PendingUsage {
            file: o.file.clone(),
            line: o.line,
            session: o.session.map(str::to_string),
            message_id: id.to_string(),
            model: usage.model.map(str::to_string),
            input: usage.input,
            output: usage.output,
            cache_creation: usage.cache_creation,
            cache_read: usage.cache_read,
        });
    }

    /// Emits the held usage snapshot, if any.
    pub(crate) fn flush_usage(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        emit(&Event {
            line: p.line,
            file: &p.file,
            session: p.session.as_deref(),
            body: Body::Usage(Usage {
                message_id: Some(&p.message_id),
                model: p.model.as_deref(),
                input: p.input,
                output: p.output,
                cache_creation: p.cache_creation,
                cache_read: p.cache_read,
            }),
        })
    }

    /// Emits the text being joined, if any.
    pub(crate) fn flush_text(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(p) = self.pending_text.take() else {
            return Ok(());
        };
        let body = if p.thinking {
            Body::Thinking {
                text: Text::from(p.text),
            }
        } else {
            Body::Text {
                uuid: None,
                message_id: None,
                text: Text::from(p.text),
            }
        };
        emit(&Event {
            line: p.line,
            file: &p.file,
            session: p.session.as_deref(),
            body,
        })
    }

    /// Adds a chunk to the text being joined (a chunk of the other kind ends it first); the
    /// joined event is at the line of its first chunk.
    pub(crate) fn push_text(
        &mut self,
        o: Origin<'_>,
        thinking: bool,
        chunk: &str,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        if self
            .pending_text
            .as_ref()
            .is_some_and(|p| p.thinking != thinking)
        {
            self.flush_text(emit)?;
        }
        match &mut self.pending_text {
            Some(p) => p.text.push_str(chunk),
            None => {
                self.pending_text = Some(PendingText {
                    file: o.file.clone(),
                    line: o.line,
                    session: o.session.map(str::to_string),
                    thinking,
                    text: chunk.to_string(),
                })
            }
        }
        Ok(())
    }
}
