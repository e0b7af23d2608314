//! What can go wrong while a game runs, as a typed error that is also a diagnostic.

use crate::source::Span;
use miette::{Diagnostic, LabeledSpan};
use std::fmt;

/// An error while running a game: an action refused, a rule that failed, a configuration the
/// game does not take, a limit reached. Each kind has a stable [`code`](RunError::code); rule
/// errors and limits carry the span of the rule in the rules file, so that a front end can
/// render them with the source ([`RunError`] is a [`Diagnostic`]; attach the game's source to
/// show the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The action is not legal now, or no legal action has this text.
    Illegal {
        /// What was refused, and what is legal instead.
        message: String,
    },
    /// A rule did something impossible (a value out of its range, a field of `none`, ...).
    Rule {
        /// What went wrong, in words.
        message: String,
        /// The rule, when known.
        span: Option<Span>,
    },
    /// The match cannot start with this configuration (player count, variant).
    Config {
        /// What is wrong with it.
        message: String,
    },
    /// The rules spent more work than a limit allows without reaching a decision.
    Limit {
        /// Which limit, and how much.
        message: String,
        /// The construct that was running when the limit was reached.
        span: Option<Span>,
    },
    /// The game is over: no action can be applied.
    Finished,
    /// There is no decision to undo.
    NothingToUndo,
    /// A save that cannot be replayed (another version, another rules file, a bad log).
    Save {
        /// Why it was refused.
        message: String,
    },
}

impl RunError {
    /// A rule error at a place in the rules.
    pub fn rule(message: impl Into<String>, span: Option<Span>) -> Self {
        RunError::Rule {
            message: message.into(),
            span,
        }
    }
    /// A refused action.
    pub fn illegal(message: impl Into<String>) -> Self {
        RunError::Illegal {
            message: message.into(),
        }
    }
    /// A refused configuration.
    pub fn config(message: impl Into<String>) -> Self {
        RunError::Config {
            message: message.into(),
        }
    }

    /// The stable code of this kind of error, as the line protocol names it.
    pub fn code(&self) -> &'static str {
        match self {
            RunError::Illegal { .. } => "illegal_action",
            RunError::Rule { .. } => "rules_error",
            RunError::Config { .. } => "bad_config",
            RunError::Limit { .. } => "limit_reached",
            RunError::Finished => "finished",
            RunError::NothingToUndo => "nothing_to_undo",
            RunError::Save { .. } => "bad_save",
        }
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        match self {
            RunError::Illegal { message }
            | RunError::Rule { message, .. }
            | RunError::Config { message }
            | RunError::Limit { message, .. }
            | RunError::Save { message } => message,
            RunError::Finished => "the game is over",
            RunError::NothingToUndo => "nothing to undo",
        }
    }

    /// The place in the rules the error comes from, when it comes from a rule.
    pub fn span(&self) -> Option<Span> {
        match self {
            RunError::Rule { span, .. } | RunError::Limit { span, .. } => *span,
            _ => None,
        }
    }

    /// Blames `span` when the error has no place yet (an expression failed inside a rule).
    pub fn or_span(mut self, at: Option<Span>) -> Self {
        if let RunError::Rule { span, .. } | RunError::Limit { span, .. } = &mut self {
            if span.is_none() {
                *span = at;
            }
        }
        self
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RunError {}

impl From<Box<RunError>> for RunError {
    fn from(b: Box<RunError>) -> Self {
        *b
    }
}

impl Diagnostic for RunError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("rulebook::run::{}", self.code())))
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span()?;
        let label = match self {
            RunError::Limit { .. } => "still running here",
            _ => "this rule failed",
        };
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(label.into()), span),
        )))
    }
}
