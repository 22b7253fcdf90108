//! The mergeable stats accumulator: being written.
