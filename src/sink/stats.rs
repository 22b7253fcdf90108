//! Stats writers: being written.
