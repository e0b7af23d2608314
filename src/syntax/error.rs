//! Syntax errors: the first place where the text stops making sense, in words a game author
//! reads (pest's rule names become "a statement", "`{`", ...), with a hint for common
//! mistakes.

use super::grammar::Rule;
use miette::{Diagnostic, NamedSource};
use thiserror::Error;

/// A syntax error: the first place where the text stops making sense.
#[derive(Debug, Error, Diagnostic)]
#[error("syntax error: {message}")]
#[diagnostic(code(rulebook::syntax))]
pub struct SyntaxError {
    /// What was found, e.g. ``unexpected `}` ``.
    pub message: String,
    /// The file, with its name, that the span points into.
    #[source_code]
    pub src: NamedSource<String>,
    /// Where the text stops making sense (its last character, for an unexpected end of file).
    #[label("{label}")]
    pub span: miette::SourceSpan,
    /// What was expected there, e.g. ``expected a name or `{` ``.
    pub label: String,
    /// A hint for common mistakes (an unclosed brace, a reserved word used as a name, ...).
    #[help]
    pub help: Option<String>,
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
                        format!("`{c}`")
                    } else {
                        format!("`{word}`")
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
        message,
        src: NamedSource::new(name, text.to_string()),
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
        | Rule::score_decl
        | Rule::tiebreak_decl
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
        | Rule::choose_stmt
        | Rule::move_stmt
        | Rule::deal_stmt
        | Rule::shuffle_stmt
        | Rule::roll_stmt
        | Rule::do_stmt
        | Rule::end_stmt
        | Rule::win_stmt
        | Rule::reveal_stmt
        | Rule::hide_stmt => "a statement",
        Rule::expr | Rule::term | Rule::primary | Rule::paren | Rule::coll | Rule::range => {
            "an expression"
        }
        Rule::aggregate | Rule::call => "a call",
        Rule::if_expr => "`if`",
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
