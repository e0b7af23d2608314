//! The tokens of a rules or scenario file, following the lexical rules of
//! `grammar/rules.pest`: names, numbers, strings, operators, brackets, comments. Every byte of
//! the text is in a token or in the whitespace between two tokens, so a formatter can re-emit
//! the tokens with other whitespace, and an editor can colour them.
//!
//! The lexer knows no construct: a character it does not know is a token of its own
//! ([`Tok::Other`]), so text written in syntax added after it still lexes.

use std::sync::OnceLock;

/// The kind of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name or a keyword: a letter or `_`, then letters, digits and `_`.
    Word,
    /// Digits.
    Number,
    /// A string in double quotes, quotes included (an unterminated one ends at the line end).
    Str,
    /// `//` to the end of the line.
    Comment,
    /// An operator or punctuation of one or two characters: `==`, `..`, `+=`, `(`, `,`, ...
    Punct,
    /// Any other character.
    Other,
}

/// One token: its kind, where it is, and the line breaks before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What kind of token.
    pub kind: Tok,
    /// Its first byte in the text.
    pub start: usize,
    /// Just past its last byte.
    pub end: usize,
    /// How many line breaks the whitespace before it holds.
    pub breaks: usize,
    /// Whether any whitespace comes before it (on its own line).
    pub space_before: bool,
    /// Its column, in characters from 0, in the text.
    pub column: usize,
}

impl Token {
    /// Its text.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

/// Operators of two characters; the lexer takes the longest (`<=` before `<`).
const TWO: [&str; 7] = ["==", "!=", "<=", ">=", "+=", "-=", ".."];
/// Operators and punctuation of one character.
const ONE: &str = "+-*/%^<>=()[]{},.:";

/// The tokens of `src`, in order.
pub fn tokens(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut breaks, mut space, mut column) = (0, 0, false, 0);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                breaks += 1;
                space = false;
                column = 0;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                space = true;
                column += 1;
                i += 1;
                continue;
            }
            _ => {}
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Tok::Word
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            Tok::Number
        } else if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'"' {
                i += 1;
            }
            Tok::Str
        } else if src[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            Tok::Comment
        } else if TWO.iter().any(|t| src[i..].starts_with(t)) {
            i += 2;
            Tok::Punct
        } else if ONE.as_bytes().contains(&c) {
            i += 1;
            Tok::Punct
        } else {
            i += src[i..].chars().next().map_or(1, char::len_utf8);
            Tok::Other
        };
        out.push(Token {
            kind,
            start,
            end: i,
            breaks,
            space_before: space,
            column,
        });
        column += src[start..i].chars().count();
        breaks = 0;
        space = false;
    }
    out
}

/// The words of the language, read from `grammar/rules.pest`: every word in quotes there is
/// a keyword (`kw_*` rules, visibility words, board flags), so a keyword added to the grammar
/// is known here without a change.
pub fn keywords() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words = quoted_words(GRAMMAR);
        words.sort();
        words.dedup();
        words
    })
}

/// The reserved words, which can never be names: the words of the grammar's `keyword` rule.
pub fn reserved() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let body = GRAMMAR
            .find("\nkeyword")
            .and_then(|at| {
                let rest = &GRAMMAR[at..];
                Some(&rest[rest.find('{')?..=rest.find('}')?])
            })
            .unwrap_or_default();
        quoted_words(body)
    })
}

/// Whether `word` is a keyword of the grammar.
pub fn is_keyword(word: &str) -> bool {
    keywords()
        .binary_search_by(|k| k.as_str().cmp(word))
        .is_ok()
}

/// Whether `word` is reserved (can never be a name).
pub fn is_reserved(word: &str) -> bool {
    reserved().iter().any(|k| k == word)
}

const GRAMMAR: &str = include_str!("../../grammar/rules.pest");

/// The word-shaped string literals of a piece of pest grammar, outside `//` comments.
fn quoted_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut parts = line.split('"');
        let mut code = parts.next().unwrap_or_default();
        // Alternate: code, literal, code, literal, ...; a comment in code ends the line.
        loop {
            if code.contains("//") {
                break;
            }
            let Some(literal) = parts.next() else { break };
            let word = literal.starts_with(|c: char| c.is_ascii_alphabetic())
                && literal
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if word {
                out.push(literal.to_string());
            }
            code = parts.next().unwrap_or_default();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        tokens(src).iter().map(|t| (t.kind, t.text(src))).collect()
    }

    #[test]
    fn every_byte_outside_whitespace_is_in_a_token() {
        let src = "a.b[1..3] -= \"{x} y\" // c\n x<=y ; ü";
        assert_eq!(
            kinds(src),
            [
                (Tok::Word, "a"),
                (Tok::Punct, "."),
                (Tok::Word, "b"),
                (Tok::Punct, "["),
                (Tok::Number, "1"),
                (Tok::Punct, ".."),
                (Tok::Number, "3"),
                (Tok::Punct, "]"),
                (Tok::Punct, "-="),
                (Tok::Str, "\"{x} y\""),
                (Tok::Comment, "// c"),
                (Tok::Word, "x"),
                (Tok::Punct, "<="),
                (Tok::Word, "y"),
                (Tok::Other, ";"),
                (Tok::Other, "ü"),
            ]
        );
        let t = tokens(src);
        assert_eq!(
            (t[11].breaks, t[11].space_before, t[11].column),
            (1, true, 1)
        );
    }

    #[test]
    fn keywords_come_from_the_grammar() {
        for w in ["action", "choose", "where", "owner", "diagonal", "expect"] {
            assert!(is_keyword(w), "{w}");
        }
        assert!(!is_keyword("count"));
        assert!(is_reserved("where") && is_reserved("none") && !is_reserved("move"));
    }
}
