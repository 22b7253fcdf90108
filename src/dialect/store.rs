//! Stores: agent sessions kept in a database rather than written as NDJSON, read as records
//! of their agent's dialect (docs/REFERENCE.md, "OpenCode's store"). The input layer, the
//! follow and the command line reach them here, by neutral names; the reader itself is its
//! agent's (OpenCode's, in src/dialect/opencode/store/).

pub use super::opencode::store::{
    companion_of, default_stores, is_legacy_storage, is_sqlite, is_store_name, open, open_live,
    record_label, StoreReader, NOT_A_STREAM, SQLITE_MAGIC,
};
