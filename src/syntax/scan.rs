//! A linear scan of the text, before it is parsed, that bounds how deeply it nests: the parser
//! recurses on brackets and `if`s (and the Pratt parser on prefix operators), so a text
//! nested thousands deep would overflow the stack before any tree exists.
//!
//! The scan sees tokens only, not the grammar, and counts conservatively: an open bracket
//! (`(`, `[`, `{`) until it closes; an `if` until its frame's expression or statement can no
//! longer continue (a `,`, an `=`, a statement keyword, or a `}` that no `else` follows); a
//! `let ... in` expression (a `let` where a value is expected) likewise, but through `=`; a
//! prefix operator (`not`, `-`) until the next token that is not one.

use super::limits::MAX_NESTING;
use super::{Fault, SyntaxKind};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    Open,
    /// A closing bracket; `true` for `}`.
    Close(bool),
    /// `not` or `-`.
    Prefix,
    If,
    /// `let` where an expression is expected (after an operator, `=`, `(`, `,`, ...): a
    /// `let ... in` expression, open until a statement or declaration keyword, or a `}`
    /// that ends a statement (its frame), as `=` belongs to it.
    Let,
    Else,
    /// What no `if` expression can span: `,`, `=`, `+=`, `-=`.
    Boundary,
    /// Reserved words that start statements or declarations: no `if` or `let` expression
    /// spans them.
    Statement,
    Other,
}

fn word(w: &[u8]) -> Tok {
    match w {
        b"not" => Tok::Prefix,
        b"if" => Tok::If,
        b"else" => Tok::Else,
        b"let" | b"for" | b"repeat" | b"while" | b"break" | b"do" | b"end" | b"win" | b"def"
        | b"action" | b"var" | b"zone" | b"const" => Tok::Statement,
        _ => Tok::Other,
    }
}

/// Whether a word ends a value (a name, a number, `break`, ...), so that a `let` after it
/// starts a statement; operators written as words expect a value after them.
fn ends_value(w: &[u8]) -> bool {
    !matches!(
        w,
        b"and" | b"or" | b"not" | b"if" | b"then" | b"else" | b"in" | b"where" | b"until"
    )
}

/// Checks that the text nests at most [`MAX_NESTING`] deep; the fault points at the token
/// that goes deeper.
pub(super) fn nesting(text: &str) -> Result<(), Fault> {
    let b = text.as_bytes();
    // Open `if`s per open bracket (the first entry: the file itself).
    let mut ifs: Vec<usize> = vec![0];
    let mut open_ifs = 0usize;
    // Open `let ... in` expressions per open bracket, as `ifs`.
    let mut lets: Vec<usize> = vec![0];
    let mut open_lets = 0usize;
    // Whether the last token ended a value or opened a block: a `let` then starts a
    // statement, else it is an expression.
    let mut statement_next = true;
    let mut prefixes = 0usize;
    let mut after_brace = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && !matches!(b[i], b'\n' | b'\r') {
                i += 1;
            }
            continue;
        }
        let start = i;
        let next_is_eq = b.get(i + 1) == Some(&b'=');
        let let_is_statement = statement_next;
        let tok = if c == b'"' {
            i += 1;
            while i < b.len() && !matches!(b[i], b'"' | b'\n' | b'\r') {
                i += 1;
            }
            i = (i + 1).min(b.len());
            statement_next = true;
            Tok::Other
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &b[start..i];
            statement_next = ends_value(w);
            match word(w) {
                Tok::Statement if w == b"let" && !let_is_statement => Tok::Let,
                // `after a(x): body` nests as a `let ... in` does.
                Tok::Other if w == b"after" && !let_is_statement => Tok::Let,
                t => t,
            }
        } else {
            statement_next = matches!(c, b')' | b']' | b'{' | b'}');
            i += 1;
            match c {
                b'(' | b'[' | b'{' => Tok::Open,
                b')' | b']' | b'}' => Tok::Close(c == b'}'),
                b',' => Tok::Boundary,
                b'=' | b'+' | b'-' | b'!' | b'<' | b'>' if next_is_eq => {
                    i += 1;
                    if matches!(c, b'+' | b'-') {
                        Tok::Boundary
                    } else {
                        Tok::Other
                    }
                }
                b'=' => Tok::Boundary,
                b'-' => Tok::Prefix,
                _ => Tok::Other,
            }
        };
        // A `}` ends a statement or a declaration unless an `else` goes on with it.
        if after_brace && tok != Tok::Else {
            let top = ifs.last_mut().expect("the file's entry");
            open_ifs -= *top;
            *top = 0;
            let top = lets.last_mut().expect("the file's entry");
            open_lets -= *top;
            *top = 0;
        }
        after_brace = false;
        if tok != Tok::Prefix {
            prefixes = 0;
        }
        match tok {
            Tok::Open => {
                ifs.push(0);
                lets.push(0);
            }
            Tok::Close(brace) => {
                if ifs.len() > 1 {
                    open_ifs -= ifs.pop().expect("an open bracket");
                    open_lets -= lets.pop().expect("an open bracket");
                }
                after_brace = brace;
            }
            Tok::Let => {
                *lets.last_mut().expect("the file's entry") += 1;
                open_lets += 1;
            }
            Tok::Prefix => prefixes += 1,
            Tok::If => {
                *ifs.last_mut().expect("the file's entry") += 1;
                open_ifs += 1;
            }
            Tok::Boundary => {
                let top = ifs.last_mut().expect("the file's entry");
                open_ifs -= *top;
                *top = 0;
            }
            Tok::Statement => {
                let top = ifs.last_mut().expect("the file's entry");
                open_ifs -= *top;
                *top = 0;
                let top = lets.last_mut().expect("the file's entry");
                open_lets -= *top;
                *top = 0;
            }
            Tok::Else | Tok::Other => {}
        }
        let depth = (ifs.len() - 1) + open_ifs + open_lets + prefixes;
        if depth > MAX_NESTING {
            let what = match tok {
                Tok::Open => "this bracket",
                Tok::If => "this `if`",
                Tok::Let => "this `let` or `after`",
                _ => "this prefix operator",
            };
            return Err(Fault {
                kind: SyntaxKind::Limit,
                start,
                end: i,
                message: format!("nested deeper than {MAX_NESTING} levels"),
                label: format!("{what} opens level {depth}"),
                help: Some(format!(
                    "brackets, blocks, `if`s and prefix operators (`not`, `-`) nest at most \
                     {MAX_NESTING} deep: give inner parts names with `let` or `def` (see \
                     \"Limits\" in the language reference)"
                )),
            });
        }
    }
    Ok(())
}
