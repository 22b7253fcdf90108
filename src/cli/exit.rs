//! The exit-code policy (SPEC section 8), owned by one function.
//!
//! 0 success; 1 findings (validate at or above --fail-on) or, for filter, no record
//! selected; 2 usage or I/O error. An I/O error wins over findings, as in grep.

/// What a command's run came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report (validate clean, filter selected something).
    Success,
    /// Findings at or above --fail-on, or nothing selected by filter.
    Findings,
}

/// Exit status 2: usage or I/O error.
pub const EXIT_ERROR: i32 = 2;

/// The process exit code for an outcome, given whether an I/O error happened on the way.
pub fn exit_code(outcome: Outcome, had_errors: bool) -> i32 {
    match (had_errors, outcome) {
        (true, _) => EXIT_ERROR,
        (false, Outcome::Success) => 0,
        (false, Outcome::Findings) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_win_then_findings() {
        assert_eq!(exit_code(Outcome::Success, false), 0);
        assert_eq!(exit_code(Outcome::Findings, false), 1);
        assert_eq!(exit_code(Outcome::Success, true), 2);
        assert_eq!(exit_code(Outcome::Findings, true), 2);
    }
}
