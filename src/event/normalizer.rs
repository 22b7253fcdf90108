//! The normalizer: each input's records handed to its agent's events reader.

use super::*;

/// Maps records to events. Feed it the records of each input in order, then call
/// [`Normalizer::end_input`].
///
/// Two normalizers that compare equal emit the same events for the same records: batch
/// mode relies on it to check a block's guessed context (`Clone`, `PartialEq`).
#[derive(Debug, Default, Clone)]
pub struct Normalizer {
    /// The session of the current input, carried to records that do not name it.
    session: Option<String>,
    /// What the engine remembers between the input's records.
    cx: Context,
    /// The reader of the input's agent, made at its first record of that dialect (an
    /// input's dialect changes at most from Claude's stream to an agent of its shape) and
    /// dropped when the input ends, with what it keeps.
    reader: Option<(Dialect, Box<dyn EventReader>)>,
}

impl PartialEq for Normalizer {
    /// A reader that holds what a fresh one holds is as good as none.
    fn eq(&self, other: &Self) -> bool {
        fn kept(
            r: &Option<(Dialect, Box<dyn EventReader>)>,
        ) -> Option<&(Dialect, Box<dyn EventReader>)> {
            r.as_ref().filter(|(d, r)| {
                !d.events()
                    .is_some_and(|fresh| r.same_state(fresh().as_ref()))
            })
        }
        self.session == other.session
            && self.cx == other.cx
            && match (kept(&self.reader), kept(&other.reader)) {
                (None, None) => true,
                (Some((d, r)), Some((e, q))) => d == e && r.same_state(q.as_ref()),
                _ => false,
            }
    }
}

/// The reader of `dialect` for the input being read: the one held, or a fresh one when
/// the input's dialect is new (`None` for a dialect whose records are all `unknown`).
fn reader_for(
    held: &mut Option<(Dialect, Box<dyn EventReader>)>,
    dialect: Option<Dialect>,
) -> Option<&mut (dyn EventReader + 'static)> {
    let d = dialect?;
    if held.as_ref().is_none_or(|(h, _)| *h != d) {
        *held = d.events().map(|new| (d, new()));
    }
    held.as_mut().map(|(_, r)| r.as_mut())
}

impl Normalizer {
    pub fn new() -> Self {
        Normalizer::default()
    }

    /// Emits the events of one record.
    pub fn record(&mut self, record: &Record<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if record.status != Status::Valid {
            return Ok(());
        }
        let Some(value) = record.value else {
            return Ok(());
        };
        let carried = self.take_session(record.info.dialect, value);
        let result = self.map(record, value, carried.as_deref(), emit);
        self.session = carried;
        result
    }

    /// Takes in the context of a record without emitting anything (`filter --normalize`
    /// passes the records it does not select here, so the events of those it selects still
    /// know their session and model).
    pub fn observe(&mut self, record: &Record<'_>) {
        if let (Status::Valid, Some(value)) = (record.status, record.value) {
            self.session = self.take_session(record.info.dialect, value);
            if let Some(reader) = reader_for(&mut self.reader, record.info.dialect) {
                reader.observe(&mut self.cx, record.info.ty, value);
            }
        }
    }

    /// The input ended: emits the usage and text still held and forgets the input's
    /// context.
    pub fn end_input(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let cx = &mut self.cx;
        let result = cx.flush_text(emit).and(cx.flush_usage(emit));
        self.session = None;
        self.reader = None;
        result
    }

    /// The carried session, updated from a record that names its own (allocating only when
    /// the session changes).
    fn take_session(&mut self, dialect: Option<Dialect>, value: Json<'_>) -> Option<String> {
        let carried = self.session.take();
        // Sessions of JSON-RPC and generic inputs are read per record, never carried.
        let d = dialect.filter(|d| d.carries_session())?;
        let own = d.named_session(value);
        match own {
            Some(s) if carried.as_deref() != Some(s) => Some(s.to_string()),
            _ => carried,
        }
    }

    fn map(
        &mut self,
        record: &Record<'_>,
        value: Json<'_>,
        carried: Option<&str>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let mut origin = Origin {
            line: record.line,
            file: record.file,
            session: carried,
        };
        let known = value.is_object() && !record.has_code(Code::UnknownType);
        let reader = match known {
            true => reader_for(&mut self.reader, record.info.dialect),
            false => None,
        };
        match reader {
            Some(reader) => reader.map(&mut self.cx, origin, value, emit),
            // Generic, an undecided dialect, a type the dialect does not know, or a value
            // that is not an object: shown whole.
            _ => {
                if origin.session.is_none() {
                    origin.session = ["session_id", "sessionId", "thread_id"]
                        .iter()
                        .find_map(|k| value.str(k));
                }
                emit(&origin.event(Body::Unknown {
                    ty: record.info.ty,
                    raw: value,
                }))
            }
        }
    }
}
