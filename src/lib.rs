//! ndjq: validate, filter and summarise the NDJSON streams AI coding agents write.
//!
//! Bytes flow one way, in one pass, through these stations:
//!
//! ```text
//! input (files, folders, stdin; gzip/zstd)            input
//!   → framing (records, line numbers, offsets, caps)  framing
//!   → decoding (UTF-8 + JSON verdict, tape)           decode, tape, json
//!   → dialect (detect, known types, schema)           dialect
//!   → consumers (filter predicates, tallies, gaps)    filter, timestamp, summary, gaps
//!   → sinks (json | csv | text | github)              sink
//! ```
//!
//! [`pipeline::Pipeline`] drives one input through framing, decoding and the dialect and
//! pushes each record to a [`pipeline::Consumer`]. Nothing holds more than one record at a
//! time; memory is bounded by the longest line, never by the input. This library knows
//! nothing of the command line: the `ndjq` binary chooses consumers and sinks.

pub mod cache;
pub(crate) mod capped;
pub mod decode;
pub mod diagnostic;
pub mod dialect;
pub mod error;
pub mod event;
pub mod filter;
pub mod framing;
pub mod gaps;
pub mod input;
pub mod json;
pub mod parallel;
pub mod pipeline;
pub mod pricing;
pub mod recover;
pub mod report;
pub mod sink;
pub mod stats;
pub mod summary;
pub mod supervisor;
pub mod tape;
#[cfg(test)]
mod test_rng;
pub mod timestamp;

pub use error::Error;
