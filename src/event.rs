//! Normalized events (SPEC section 4): being written.
