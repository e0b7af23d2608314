//! The one place outside the engine that builds or reads a [`RunError`].
//!
//! Runners, the line protocol and the command line go through these functions only, so that
//! a change in how the engine represents its errors touches this file alone.

use crate::engine::RunError;
use crate::syntax::ast::Span;

/// What went wrong, in words.
pub fn message(e: &RunError) -> &str {
    &e.message
}

/// Where in the rules file, when a rule failed while running.
pub fn span(e: &RunError) -> Option<Span> {
    e.span
}

/// Whether a rule failed while running (the error has a place in the rules file), as opposed
/// to a refused request (an illegal action, a bad configuration, a bad save).
pub fn is_rule_error(e: &RunError) -> bool {
    e.span.is_some()
}

/// The line protocol's code for an error: `rules_error` when a rule failed while running,
/// otherwise `refused`, the code of the request that was refused (`illegal_action`,
/// `bad_config`, `bad_save`, `nothing_to_undo`).
pub fn code(e: &RunError, refused: &'static str) -> &'static str {
    if is_rule_error(e) {
        "rules_error"
    } else {
        refused
    }
}

/// A limit of the runner was reached (too many decisions).
pub(crate) fn limit(message: String) -> RunError {
    RunError {
        message,
        span: None,
    }
}

/// A request the runner cannot carry out with this configuration (a depth beyond the limit).
pub(crate) fn config(message: String) -> RunError {
    RunError {
        message,
        span: None,
    }
}

/// The game waits on a decision that has no legal action.
pub(crate) fn no_legal_action() -> RunError {
    RunError {
        message: "no legal action".into(),
        span: None,
    }
}

/// Something went wrong in the runner itself (a worker thread panicked).
pub(crate) fn internal(message: String) -> RunError {
    RunError {
        message,
        span: None,
    }
}
