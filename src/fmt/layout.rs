//! The canonical layout of a token stream: where lines break, how deep each is indented, and
//! the spaces between the tokens of a line. It knows brackets, operators and a few words,
//! never a construct: a new statement or declaration is laid out by the same rules.

use super::lex::{is_keyword, is_reserved, Tok, Token};

/// The width of one level of indentation.
const INDENT: usize = 4;

/// The text of `toks` (the tokens of `src`) in the canonical layout.
pub(super) fn layout(src: &str, toks: &[Token]) -> String {
    let text = |i: usize| toks[i].text(src);
    let (brk, blank) = line_breaks(src, toks);
    let lines: Vec<(usize, usize)> = {
        let mut starts: Vec<usize> = (0..toks.len()).filter(|&i| brk[i]).collect();
        starts.push(toks.len());
        starts.windows(2).map(|w| (w[0], w[1])).collect()
    };

    // The indentation of each line that holds code; comment lines are placed afterwards.
    let mut indents: Vec<Option<usize>> = Vec::with_capacity(lines.len());
    let (mut depth, mut paren) = (0usize, 0usize);
    let mut last_code: Option<usize> = None;
    // The first token of the line that started the current statement.
    let mut statement = 0;
    for &(s, e) in &lines {
        if toks[s].kind == Tok::Comment {
            indents.push(None);
        } else {
            let d = depth.saturating_sub(usize::from(text(s) == "}"));
            let p = paren.saturating_sub(usize::from(matches!(text(s), ")" | "]")));
            // An `else` after a block's `}` (and a comment) starts no continuation.
            let after_block = last_code.is_some_and(|l| text(l) == "}");
            let continued = starts_continued(text(s)) && !(text(s) == "else" && after_block);
            // After a `,`, a statement that a keyword starts goes on (`edges a - b,`,
            // `choose each p in players,`); a list of names in braces does not.
            let listed = last_code.is_some_and(|l| text(l) == ",")
                && toks[statement].kind == Tok::Word
                && is_keyword(text(statement))
                && toks.get(statement + 1).is_some_and(|t| t.text(src) != ",");
            let cont =
                p > 0 || continued || listed || last_code.is_some_and(|l| ends_open(text(l)));
            if !cont {
                statement = s;
            }
            indents.push(Some(INDENT * d + if cont { INDENT } else { 0 }));
        }
        for (i, t) in toks.iter().enumerate().take(e).skip(s) {
            match t.text(src) {
                "{" => depth += 1,
                "}" => depth = depth.saturating_sub(1),
                "(" | "[" => paren += 1,
                ")" | "]" => paren = paren.saturating_sub(1),
                _ => {}
            }
            if t.kind != Tok::Comment {
                last_code = Some(i);
            }
        }
    }
    // A comment alone on its line goes where the next line of code goes (one level deeper
    // when that line closes a block: the comment is still inside it).
    let mut next_code: Option<usize> = None;
    for l in (0..lines.len()).rev() {
        match indents[l] {
            Some(n) => next_code = Some(n),
            None => {
                let (_, e) = lines[l];
                let closes = toks[e..]
                    .iter()
                    .find(|t| t.kind != Tok::Comment)
                    .is_some_and(|t| matches!(t.text(src), "}" | ")" | "]"));
                indents[l] = Some(next_code.unwrap_or(0) + if closes { INDENT } else { 0 });
            }
        }
    }

    let mut out = String::with_capacity(src.len() + src.len() / 8);
    for (l, &(s, e)) in lines.iter().enumerate() {
        if blank[s] {
            out.push('\n');
        }
        let mut line = " ".repeat(indents[l].unwrap_or(0));
        for i in s..e {
            let t = &toks[i];
            if i > s {
                if t.kind == Tok::Comment {
                    // A comment after code keeps its column (so aligned comments stay aligned)
                    // while the code leaves room for it; else it follows one space after.
                    let width = line.chars().count();
                    line.push_str(&" ".repeat(t.column.saturating_sub(width).max(1)));
                } else if i == s + 1 && toks[s].kind == Tok::Str && t.breaks == 0 {
                    // The rows of a table (`"red-7" { ... }`) keep their alignment.
                    let end = toks[s].column + toks[s].text(src).chars().count();
                    line.push_str(&" ".repeat(t.column.saturating_sub(end).max(1)));
                } else if space_between(src, toks, i - 1, i) {
                    line.push(' ');
                }
            }
            let word = t.text(src);
            line.push_str(if t.kind == Tok::Comment {
                word.trim_end()
            } else {
                word
            });
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Which tokens start a line, and which lines have a blank line before them.
///
/// The author's line breaks stay, except: a `{` that starts a line joins the line before; an
/// `else` that starts a line joins the `}` before it; a block that spans lines has its first
/// statement on a new line after `{` and its `}` on a line of its own. At most one blank
/// line separates two lines, and none opens or closes a block or the file.
fn line_breaks(src: &str, toks: &[Token]) -> (Vec<bool>, Vec<bool>) {
    let is = |i: usize, s: &str| toks[i].kind == Tok::Punct && toks[i].text(src) == s;
    let mut brk: Vec<bool> = toks
        .iter()
        .enumerate()
        .map(|(i, t)| i == 0 || t.breaks > 0)
        .collect();
    let mut blank: Vec<bool> = toks.iter().map(|t| t.breaks > 1).collect();

    // Blocks that span lines, as the author wrote them.
    let mut open = Vec::new();
    let mut spanning = Vec::new();
    for i in 0..toks.len() {
        if is(i, "{") {
            open.push(i);
        } else if is(i, "}") {
            if let Some(o) = open.pop() {
                if brk[o + 1..=i].iter().any(|b| *b) {
                    spanning.push((o, i));
                }
            }
        }
    }

    for i in 1..toks.len() {
        let prev_is_code = toks[i - 1].kind != Tok::Comment;
        let joins_brace = is(i, "{") && prev_is_code && !is(i - 1, "{") && !is(i - 1, "}");
        let joins_else = toks[i].kind == Tok::Word && toks[i].text(src) == "else" && is(i - 1, "}");
        if brk[i] && (joins_brace || joins_else) {
            brk[i] = false;
        }
    }
    for (o, c) in spanning {
        // A comment on the line of `{` stays there.
        let first = o + 1;
        let trailing_comment = toks[first].kind == Tok::Comment && !brk[first];
        if first < c && !trailing_comment {
            brk[first] = true;
        }
        brk[c] = true;
    }
    for i in 0..toks.len() {
        blank[i] = blank[i] && brk[i] && i > 0 && !is(i, "}") && !is(i - 1, "{");
    }
    (brk, blank)
}

/// Binary operators: one space on each side.
const BINARY: [&str; 15] = [
    "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "^", "=", "+=", "-=",
];

/// Whether a line starting with this token continues the line before (an operator, or a word
/// that cannot start a statement).
fn starts_continued(t: &str) -> bool {
    BINARY.contains(&t)
        || matches!(
            t,
            "." | ".." | "," | ":" | "and" | "or" | "where" | "then" | "else" | "in"
        )
}

/// Whether a line ending with this token leaves its statement open. (Not a `,`: inside
/// brackets the line is continued anyway, and inside braces a list of enum values or fields
/// goes on at the level of the block.)
fn ends_open(t: &str) -> bool {
    BINARY.contains(&t)
        || matches!(
            t,
            "." | ".." | ":" | "(" | "[" | "and" | "or" | "not" | "where" | "then" | "else" | "in"
        )
}

/// Whether the `-` at `i` is a sign (its left is no operand) rather than a subtraction.
fn is_sign(src: &str, toks: &[Token], i: usize) -> bool {
    if toks[i].text(src) != "-" {
        return false;
    }
    let Some(prev) = toks[..i].iter().rev().find(|t| t.kind != Tok::Comment) else {
        return true;
    };
    let p = prev.text(src);
    match prev.kind {
        Tok::Punct => !matches!(p, ")" | "]" | "}"),
        // `expect` starts a scenario's condition (it is not reserved: a rules file may use
        // the word as a name, where only the spacing of a `-` after it would differ)
        Tok::Word => (is_reserved(p) && !matches!(p, "true" | "false" | "none")) || p == "expect",
        Tok::Number | Tok::Str => false,
        Tok::Comment | Tok::Other => true,
    }
}

/// Whether one space goes between the tokens `a` and `b` (`a` just before `b`, on one line).
fn space_between(src: &str, toks: &[Token], a: usize, b: usize) -> bool {
    let (ta, tb) = (&toks[a], &toks[b]);
    let (x, y) = (ta.text(src), tb.text(src));
    let punct = |t: &Token, s: &str| t.kind == Tok::Punct && t.text(src) == s;
    let author = tb.space_before;
    if punct(ta, "(") || punct(ta, "[") || punct(tb, ")") || punct(tb, "]") || punct(tb, ",") {
        return false;
    }
    if punct(ta, ",") {
        return true;
    }
    if [".", ".."].iter().any(|s| punct(ta, s) || punct(tb, s)) {
        return false;
    }
    if punct(tb, ":") {
        return false;
    }
    if punct(ta, ":") || ["{", "}"].iter().any(|s| punct(ta, s) || punct(tb, s)) {
        return true;
    }
    if is_sign(src, toks, a) {
        return false;
    }
    if punct(tb, "(") || punct(tb, "[") {
        // A call or an index sticks to its name; after a keyword (`deal (n) from`, a word of
        // syntax this formatter does not know), the author decides.
        return match ta.kind {
            Tok::Word if is_reserved(x) => true,
            Tok::Word if is_keyword(x) => author,
            Tok::Word => false,
            Tok::Punct if BINARY.contains(&x) => true,
            _ => author,
        };
    }
    let operator = |t: &Token, s: &str| t.kind == Tok::Punct && BINARY.contains(&s);
    if operator(ta, x) || operator(tb, y) {
        return true;
    }
    let wordish = |t: &Token| matches!(t.kind, Tok::Word | Tok::Number | Tok::Str);
    let closer = punct(ta, ")") || punct(ta, "]");
    if (wordish(ta) || closer) && wordish(tb) {
        return true;
    }
    author
}
