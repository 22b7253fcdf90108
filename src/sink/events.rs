//! Event writers: being written.
