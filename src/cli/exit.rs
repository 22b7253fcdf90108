//! The exit-code policy (docs/REFERENCE.md, "Exit status"), owned by one function.
//!
//! 0 success; 1 findings (validate at or above --fail-on) or, for filter, no record
//! selected; 2 usage or I/O error. An I/O error wins over findings, as in grep.

use ndjq::supervisor::Ended;

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

/// The exit code when a wrapped command may have run: its failure (its own status, 128+N,
/// 124, 126/127, ...) wins over everything, as with timeout(1); else [`exit_code`].
pub fn exit_code_with_child(outcome: Outcome, had_errors: bool, child: Option<Ended>) -> i32 {
    match child {
        Some(Ended::Failed(code)) => code,
        Some(Ended::Success) | None => exit_code(outcome, had_errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_child_wins_over_the_commands_verdict() {
        assert_eq!(
            exit_code_with_child(Outcome::Success, false, Some(Ended::Failed(3))),
            3
        );
        assert_eq!(
            exit_code_with_child(Outcome::Findings, true, Some(Ended::Failed(139))),
            139
        );
        assert_eq!(
            exit_code_with_child(Outcome::Findings, false, Some(Ended::Success)),
            1
        );
        assert_eq!(exit_code_with_child(Outcome::Success, false, None), 0);
        assert_eq!(exit_code_with_child(Outcome::Success, true, None), 2);
    }

    #[test]
    fn errors_win_then_findings() {
        assert_eq!(exit_code(Outcome::Success, false), 0);
        assert_eq!(exit_code(Outcome::Findings, false), 1);
        assert_eq!(exit_code(Outcome::Success, true), 2);
        assert_eq!(exit_code(Outcome::Findings, true), 2);
    }
}
