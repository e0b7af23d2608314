//! Hover: a name's declaration (its line, the comments above it) and type; a keyword's or
//! built-in's entry in the language reference.

use super::analysis::{Analysis, FileText};
use super::{reference, Answer, Server};
use crate::check::NameUse;
use crate::fmt::lex::{self, Tok};
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub(crate) fn hover(s: &Server, p: HoverParams) -> Answer<Option<Hover>> {
    let at = p.text_document_position_params;
    let a = &s.doc(&at.text_document.uri)?.analysis;
    let offset = a.doc.offset(at.position);
    if let Some(u) = a.use_at(offset) {
        return Ok(Some(markdown(name(a, u), a.doc.range(u.span))));
    }
    let Some(t) = word_at(&a.doc.text, offset) else {
        return Ok(None);
    };
    let word = t.text(&a.doc.text);
    let span = crate::source::Span::new(t.start, t.end);
    Ok(reference::entry(word).map(|text| markdown(text, a.doc.range(span))))
}

/// The word token at an offset (the cursor just after a word counts).
pub(crate) fn word_at(text: &str, offset: usize) -> Option<lex::Token> {
    lex::tokens(text)
        .into_iter()
        .find(|t| t.kind == Tok::Word && t.start <= offset && offset <= t.end)
}

fn markdown(value: String, range: lsp_types::Range) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}

/// What a name is: the line that declares it, what kind of thing it is and its type, and
/// the comments just above its declaration.
fn name(a: &Analysis, u: &NameUse) -> String {
    let file = a.file(u.decl);
    let (line, notes) = declaration(file, u.decl.start);
    let mut out = format!("```rules\n{line}\n```\n\n{} `{}`", u.kind, a.text_of(u));
    if let Some(ty) = &u.ty {
        out += &format!(": `{ty}`");
    }
    if let Some(parent) = u.parent.as_ref().filter(|p| u.ty.as_ref() != Some(*p)) {
        out += &format!(" (of `{parent}`)");
    }
    if !notes.is_empty() {
        out += &format!("\n\n{}", notes.join("\n"));
    }
    out
}

/// The line holding an offset, trimmed, and the comment lines right above it, without `//`.
fn declaration(file: &FileText, offset: usize) -> (String, Vec<String>) {
    let text = &file.text;
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut notes = vec![];
    for line in text[..start].lines().rev() {
        let Some(comment) = line.trim().strip_prefix("//") else {
            break;
        };
        notes.push(comment.trim().to_string());
    }
    notes.reverse();
    (text[start..end].trim().to_string(), notes)
}
