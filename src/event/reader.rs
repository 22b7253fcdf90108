//! How an agent's events reader is called: where a record comes from, where its events go,
//! and the reader made for each input.

use super::*;

/// Receives the events of a record.
pub type Emit<'e> = dyn FnMut(&Event<'_>) -> io::Result<()> + 'e;

/// Where an event comes from: the record's place and its session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    pub(crate) line: u64,
    pub(crate) file: &'a Arc<str>,
    pub(crate) session: Option<&'a str>,
}

impl<'a> Origin<'a> {
    /// The event of `body`, at this record.
    pub(crate) fn event(&self, body: Body<'a>) -> Event<'a> {
        Event {
            line: self.line,
            file: self.file,
            session: self.session,
            body,
        }
    }
}

/// One agent's mapping of its records to events (each agent's `events` module; the
/// registry, [`crate::dialect::Dialect::events`], names the constructor of each dialect's).
/// A reader is a value made for one input, holding what the agent keeps between that
/// input's records (Codex's open items, a rollout's model, JSON-RPC's pending requests,
/// the Gemini log's entries seen), and dropped when the input ends; what the engine keeps
/// for every agent (held usage, joined text) is in the [`Context`] it is handed.
pub(crate) trait EventReader: ReaderState {
    /// Emits the events of one valid record of a type the dialect knows.
    fn map<'a>(
        &mut self,
        cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()>;

    /// Takes in what a record not mapped says of the records after it (their model), so
    /// that the events of those still know it; most agents need nothing.
    fn observe(&mut self, _cx: &mut Context, _ty: Option<&str>, _v: Json<'_>) {}
}

/// Makes a fresh reader for one input (an agent descriptor's `events`).
pub(crate) type NewReader = fn() -> Box<dyn EventReader>;

/// What batch mode asks of a reader's state: a copy of it, and whether two readers hold
/// the same (a block's guessed context is checked against the one it follows). Every
/// reader that is `Clone + PartialEq` has it.
pub(crate) trait ReaderState: std::fmt::Debug + Send {
    fn boxed_clone(&self) -> Box<dyn EventReader>;
    /// Whether `other` is a reader of the same type holding the same state.
    fn same_state(&self, other: &dyn EventReader) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T> ReaderState for T
where
    T: EventReader + Clone + PartialEq + std::fmt::Debug + Send + 'static,
{
    fn boxed_clone(&self) -> Box<dyn EventReader> {
        Box::new(self.clone())
    }

    fn same_state(&self, other: &dyn EventReader) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Clone for Box<dyn EventReader> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The events of a record as one function of it: most agents' readers, which keep
/// nothing between records beyond the [`Context`]
/// (`events: Some(|| Box::new(Stateless(events::map)))`).
pub(crate) type MapFn = fn(&mut Context, Origin<'_>, Json<'_>, &mut Emit<'_>) -> io::Result<()>;

/// The reader of an agent whose events are a [`MapFn`]: it holds no state, so any two
/// are alike.
#[derive(Clone, Copy)]
pub(crate) struct Stateless(pub(crate) MapFn);

impl std::fmt::Debug for Stateless {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stateless")
    }
}

impl PartialEq for Stateless {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl EventReader for Stateless {
    fn map<'a>(
        &mut self,
        cx: &mut Context,
        o: Origin<'a>,
        v: Json<'a>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        (self.0)(cx, o, v, emit)
    }
}
