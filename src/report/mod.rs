//! `ndjq report`: one self-contained HTML page of what the agents did and spent (totals,
//! charts, sessions, transcripts), its figures computed by [`crate::stats`] like `ndjq
//! stats`'. See docs/DESIGN.md, "The HTML report".
//!
//! - [`escape`]: the one escape every string from a log goes through;
//! - [`svg`]: bar charts as inline SVG;
//! - [`sessions`]: each session's times, agent, ending and transcript, from the
//!   normalized events;
//! - [`page`]: the document, its Content-Security-Policy and the embedded stats JSON.

pub mod escape;
pub mod page;
pub mod sessions;
pub mod svg;

pub use page::{render, Options};
pub use sessions::SessionLog;
