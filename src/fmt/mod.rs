//! The formatter: one canonical layout for rules and scenario files (`rulebook fmt`, and
//! formatting in the language server).
//!
//! It works on tokens ([`lex`]), not on the syntax tree, so it keeps every comment where it
//! was and lays out syntax it was never told about: the tokens are re-emitted with canonical
//! spaces, indentation and line breaks ([`layout`]: one space around binary operators and
//! after commas, none inside brackets or before the `(` of a call; blocks indented by 4
//! spaces per level; the author's line breaks, except that a `{` ends its line and a block
//! that spans lines has its `}` on a line of its own; at most one blank line).
//!
//! [`format`] refuses a file that does not parse, and checks its own work: the formatted text
//! must parse to the same syntax tree (spans aside) and hold the same tokens, comments
//! included. So formatting never changes what a file means, and formatting twice changes
//! nothing more.

mod layout;
pub mod lex;
mod markdown;

pub use markdown::format_markdown;

use crate::syntax::{self, SyntaxError};
use std::fmt;

/// Which grammar a file follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A rules file (`.rules`).
    Rules,
    /// A scenario file (`.scenarios`): `rules "path"`, then scenarios.
    Scenarios,
}

impl Kind {
    /// The kind of a file from its name: `.scenarios` files are scenarios, others rules.
    pub fn of_name(name: &str) -> Kind {
        if name.ends_with(".scenarios") {
            Kind::Scenarios
        } else {
            Kind::Rules
        }
    }

    /// The kind of a text from its first word: a scenario file starts with `rules "path"`.
    pub fn of_text(text: &str) -> Kind {
        let toks = lex::tokens(text);
        let first = toks.iter().find(|t| t.kind != lex::Tok::Comment);
        match first {
            Some(t) if t.text(text) == "rules" => Kind::Scenarios,
            _ => Kind::Rules,
        }
    }
}

/// Why a file was not formatted.
#[derive(Debug)]
pub enum FmtError {
    /// The file does not parse: it is left as it is.
    Syntax(Box<SyntaxError>),
    /// The layout would have changed the file's meaning or lost a token (a bug in the
    /// formatter): it is left as it is.
    Unsafe(String),
}

impl fmt::Display for FmtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FmtError::Syntax(e) => write!(f, "{e}"),
            FmtError::Unsafe(name) => write!(
                f,
                "{name}: not formatted: the layout would change what the file says (a bug in \
                 the formatter; please report it with the file)"
            ),
        }
    }
}

impl std::error::Error for FmtError {}

/// The text of a file in the canonical layout. `name` is used in messages only.
pub fn format(name: &str, text: &str, kind: Kind) -> Result<String, FmtError> {
    let before = tree(name, text, kind).map_err(FmtError::Syntax)?;
    let out = layout(text);
    let unsafe_ = || FmtError::Unsafe(name.to_string());
    let after = tree(name, &out, kind).map_err(|_| unsafe_())?;
    if before != after || words(text) != words(&out) {
        return Err(unsafe_());
    }
    Ok(out)
}

/// The canonical layout of a text, without the checks of [`format`]: for fragments that do
/// not parse on their own (the examples of the language reference), whose meaning the caller
/// checks in context. Files go through [`format`].
pub fn layout(text: &str) -> String {
    layout::layout(text, &lex::tokens(text))
}

/// The syntax tree of a file, printed without its spans.
fn tree(name: &str, text: &str, kind: Kind) -> Result<String, Box<SyntaxError>> {
    let printed = match kind {
        Kind::Rules => format!("{:?}", syntax::parse_file(name, text)?),
        Kind::Scenarios => format!("{:?}", syntax::parse_scenarios(name, text)?),
    };
    Ok(without_spans(&printed))
}

/// A printed syntax tree without its `Span { .. }` parts.
fn without_spans(printed: &str) -> String {
    let mut out = String::with_capacity(printed.len());
    let mut rest = printed;
    while let Some(at) = rest.find("Span {") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('}').map_or("", |end| &rest[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The tokens of a text (comments without their trailing spaces).
fn words(text: &str) -> Vec<&str> {
    lex::tokens(text)
        .iter()
        .map(|t| t.text(text).trim_end())
        .collect()
}

#[cfg(test)]
mod tests;
