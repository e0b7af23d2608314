//! Syntax errors: the first place where the text stops making sense, in words a game author
//! reads (pest's rule names become "a statement", "`{`", ...), with a hint for common
//! mistakes.

use super::grammar::Rule;
use super::Fault;
use crate::source::{printable, Listing};
use miette::{Diagnostic, LabeledSpan, SourceCode};
use std::fmt;
use std::sync::Arc;

/// What stopped a file before its tree was built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxKind {
    /// The text does not parse (`rulebook::syntax`).
    Syntax,
    /// The file is too large or nests too deeply (`rulebook::check::limit`).
    Limit,
    /// A number does not fit in 64 bits (`rulebook::check::number`).
    Number,
}

/// A syntax error: the first place where the text stops making sense, or the first limit it
/// breaks before its tree is built.
#[derive(Debug)]
pub struct SyntaxError {
    /// A syntax error, a limit, or a number too large.
    pub kind: SyntaxKind,
    /// What was found, e.g. ``unexpected `}` ``.
    pub message: String,
    /// The file, with its name, that the span points into, as diagnostics show it.
    pub src: Arc<Listing>,
    /// Where the text stops making sense (its last character, for an unexpected end of file).
    pub span: miette::SourceSpan,
    /// What was expected there, e.g. ``expected a name or `{` ``.
    pub label: String,
    /// A hint for common mistakes (an unclosed brace, a reserved word used as a name, ...).
    pub help: Option<String>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            SyntaxKind::Syntax => write!(f, "syntax error: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SyntaxError {}

impl Diagnostic for SyntaxError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(match self.kind {
            SyntaxKind::Syntax => "rulebook::syntax",
            SyntaxKind::Limit => "rulebook::check::limit",
            SyntaxKind::Number => "rulebook::check::number",
        }))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.src.as_ref())
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(self.label.clone()), self.span),
        )))
    }
}

/// The error of a fault found before or while the tree was built.
pub(super) fn fault_error(name: &str, text: &str, f: Fault) -> Box<SyntaxError> {
    let end = f.end.max(f.start).min(text.len());
    let start = f.start.min(end);
    Box::new(SyntaxError {
        kind: f.kind,
        message: f.message,
        src: Arc::new(Listing::new(name, text)),
        span: (start, end - start).into(),
        label: f.label,
        help: f.help,
    })
}

pub(super) fn syntax_error(
    name: &str,
    text: &str,
    e: pest::error::Error<Rule>,
) -> Box<SyntaxError> {
    use pest::error::{ErrorVariant, InputLocation};
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((a, b)) => (a, b),
    };
    let mut kind = SyntaxKind::Syntax;
    let (message, label, help) = match &e.variant {
        ErrorVariant::ParsingError {
            positives,
            negatives,
        } => {
            let mut want: Vec<&str> = positives.iter().map(|r| rule_words(*r)).collect();
            want.sort_unstable();
            want.dedup();
            let found = text[start..]
                .chars()
                .next()
                .map_or("end of file".to_string(), |c| {
                    let word: String = text[start..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if word.is_empty() {
                        format!("`{}`", printable(&c.to_string()))
                    } else {
                        format!("`{}`", crate::source::quote(&word, 40))
                    }
                });
            let label = if want.is_empty() {
                format!("unexpected {found}")
            } else {
                format!("expected {}", join_or(&want))
            };
            let _ = negatives;
            let help = hint(text, start, &want);
            (format!("unexpected {found}"), label, help)
        }
        ErrorVariant::CustomError { message } if message.contains("limit reached") => {
            // pest's own guard against running out of stack: a text nested too deeply in a
            // way the scan before parsing does not count.
            kind = SyntaxKind::Limit;
            (
                "nested too deeply to parse".to_string(),
                "the parser gave up here".to_string(),
                Some(
                    "see \"Limits\" in the language reference: give inner parts names with \
                     `let` or `def`"
                        .into(),
                ),
            )
        }
        ErrorVariant::CustomError { message } => (message.clone(), message.clone(), None),
    };
    let (start, end) = if start >= text.len() {
        (
            text.trim_end().len().saturating_sub(1),
            text.trim_end().len(),
        )
    } else if end == start {
        (start, (start + 1).min(text.len()))
    } else {
        (start, end)
    };
    Box::new(SyntaxError {
        kind,
        message,
        src: Arc::new(Listing::new(name, text)),
        span: (start, end.saturating_sub(start)).into(),
        label,
        help,
    })
}

fn hint(text: &str, at: usize, want: &[&str]) -> Option<String> {
    if at >= text.len() {
        let open = text.matches('{').count();
        let close = text.matches('}').count();
        if open > close {
            return Some(format!(
                "{} `{{` never closed: add the missing `}}`",
                if open - close == 1 {
                    "a".to_string()
                } else {
                    (open - close).to_string()
                }
            ));
        }
        return None;
    }
    let before = text[..at].trim_end();
    if before.ends_with('=') && !before.ends_with("==") && want.contains(&"an expression") {
        return Some("an assignment needs a value after `=`".into());
    }
    if text[at..].starts_with('}') && want.iter().any(|w| w.contains("expression")) {
        return Some("the expression before this brace is incomplete".into());
    }
    let word: String = text[at..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if [
        "let", "if", "else", "then", "for", "in", "repeat", "while", "break", "do", "end", "win",
        "true", "false", "none", "where", "and", "or", "not",
    ]
    .contains(&word.as_str())
    {
        return Some(format!(
            "`{word}` is a reserved word and cannot be used as a name"
        ));
    }
    if before.ends_with("==") || before.ends_with('<') || before.ends_with('>') {
        return Some("a comparison needs a value on both sides".into());
    }
    None
}

fn join_or(words: &[&str]) -> String {
    match words.len() {
        0 => String::new(),
        1 => words[0].to_string(),
        _ => {
            let (last, rest) = words.split_last().expect("non-empty");
            format!("{} or {}", rest.join(", "), last)
        }
    }
}

/// Human words for grammar rules, used in syntax errors.
fn rule_words(r: Rule) -> &'static str {
    match r {
        Rule::EOI => "the end of the file",
        Rule::decl
        | Rule::game_decl
        | Rule::players_decl
        | Rule::const_decl
        | Rule::variant_decl
        | Rule::enum_decl
        | Rule::component_decl
        | Rule::components_decl
        | Rule::board_decl
        | Rule::zone_decl
        | Rule::var_decl
        | Rule::def_decl
        | Rule::action_decl
        | Rule::setup_decl
        | Rule::flow_decl
        | Rule::end_when_decl
        | Rule::trigger_decl
        | Rule::memory_decl
        | Rule::score_decl
        | Rule::tiebreak_decl
        | Rule::heuristic_decl
        | Rule::ties_decl
        | Rule::set_decl => "a declaration",
        Rule::stmt
        | Rule::let_stmt
        | Rule::assign_stmt
        | Rule::if_stmt
        | Rule::for_stmt
        | Rule::repeat_stmt
        | Rule::while_stmt
        | Rule::break_stmt
        | Rule::turn_stmt
        | Rule::simultaneous_stmt
        | Rule::choose_stmt
        | Rule::move_stmt
        | Rule::deal_stmt
        | Rule::shuffle_stmt
        | Rule::roll_stmt
        | Rule::do_stmt
        | Rule::end_stmt
        | Rule::win_stmt
        | Rule::reveal_stmt
        | Rule::hide_stmt
        | Rule::remember_stmt
        | Rule::forget_stmt => "a statement",
        Rule::expr | Rule::term | Rule::primary | Rule::paren | Rule::coll | Rule::range => {
            "an expression"
        }
        Rule::aggregate | Rule::call => "a call",
        Rule::if_expr => "`if`",
        Rule::let_expr => "`let ... in`",
        Rule::after_expr => "`after`",
        Rule::list => "a list",
        Rule::ident => "a name",
        Rule::int | Rule::signed_int => "a number",
        Rule::string | Rule::string_inner => "a string",
        Rule::block => "`{`",
        Rule::index => "`[`",
        Rule::field => "`.`",
        Rule::assign_op => "`=`",
        Rule::type_expr | Rule::range_type => "a type",
        Rule::binding => "`name in collection`",
        Rule::arm => "an action name",
        Rule::else_block => "`else`",
        Rule::op_or => "`or`",
        Rule::op_and => "`and`",
        Rule::op_not => "`not`",
        Rule::op_eq => "`==`",
        Rule::op_ne => "`!=`",
        Rule::op_le => "`<=`",
        Rule::op_ge => "`>=`",
        Rule::op_lt => "`<`",
        Rule::op_gt => "`>`",
        Rule::op_add => "`+`",
        Rule::op_sub | Rule::op_neg => "`-`",
        Rule::op_mul => "`*`",
        Rule::op_div => "`/`",
        Rule::op_mod => "`%`",
        Rule::op_pow => "`^`",
        Rule::kw_in => "`in`",
        Rule::kw_to => "`to`",
        Rule::kw_from => "`from`",
        Rule::kw_then => "`then`",
        Rule::kw_else => "`else`",
        Rule::kw_when => "`when`",
        Rule::kw_where => "`where`",
        Rule::step
        | Rule::sc_players
        | Rule::sc_seed
        | Rule::sc_variant
        | Rule::sc_set
        | Rule::sc_chance
        | Rule::sc_setup
        | Rule::sc_apply
        | Rule::sc_expect
        | Rule::sc_expect_legal
        | Rule::sc_expect_not_legal
        | Rule::sc_expect_illegal_apply
        | Rule::sc_expect_finished
        | Rule::sc_expect_not_finished
        | Rule::sc_expect_winners
        | Rule::sc_expect_actor
        | Rule::sc_expect_sees => "a scenario step",
        Rule::scenario => "`scenario`",
        _ => "a keyword",
    }
}
