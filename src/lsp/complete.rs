//! Completion: after `.`, the fields of the value's component type or the values of an enum;
//! inside the braces of `choose { }`, the actions; elsewhere the names in scope, the keywords
//! and the built-ins. The context is read from the tokens before the cursor, and the names
//! from the last check of a version that parsed, since the text being typed seldom does.

use super::analysis::Analysis;
use super::{reference, Answer, Server};
use crate::fmt::lex::{self, Tok, Token};
use lsp_types::{CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse};
use std::collections::BTreeSet;

pub(crate) fn completion(s: &Server, p: CompletionParams) -> Answer<Option<CompletionResponse>> {
    let at = p.text_document_position;
    let doc = s.doc(&at.text_document.uri)?;
    let text = doc.text();
    let offset = doc.analysis.doc.offset(at.position);
    let mut toks = lex::tokens(&text[..offset]);
    // Inside a comment or an unterminated string (both end at the line's end): nothing.
    let on_its_line = |t: &Token| !text[t.end..offset].contains('\n');
    match toks.last() {
        Some(t) if t.kind == Tok::Comment && on_its_line(t) => return Ok(None),
        Some(t)
            if t.kind == Tok::Str
                && on_its_line(t)
                && (t.end - t.start < 2 || !t.text(text).ends_with('"')) =>
        {
            return Ok(None)
        }
        Some(t) if t.kind == Tok::Word && t.end == offset => {
            toks.pop(); // the word being typed
        }
        _ => {}
    }
    let names = doc.names();
    let items = if toks.last().is_some_and(|t| t.text(text) == ".") {
        members(names, text, &toks, offset)
    } else if in_choose_arms(text, &toks) {
        kinds(names, &["action"], "1")
    } else {
        everything(names, text, &toks, offset)
    };
    Ok(Some(CompletionResponse::Array(items)))
}

fn item(
    label: &str,
    kind: CompletionItemKind,
    detail: Option<String>,
    rank: &str,
) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        sort_text: Some(format!("{rank}{label}")),
        ..Default::default()
    }
}

/// The completion kind of a kind of name.
fn kind_of(kind: &str) -> CompletionItemKind {
    match kind {
        "constant" => CompletionItemKind::CONSTANT,
        "enum" => CompletionItemKind::ENUM,
        "enum value" | "space" => CompletionItemKind::ENUM_MEMBER,
        "component type" | "set kind" => CompletionItemKind::STRUCT,
        "field" => CompletionItemKind::FIELD,
        "function" => CompletionItemKind::FUNCTION,
        "action" => CompletionItemKind::METHOD,
        "variant" => CompletionItemKind::MODULE,
        _ => CompletionItemKind::VARIABLE,
    }
}

/// Whether a kind of name is local to a declaration.
fn is_local(kind: &str) -> bool {
    matches!(kind, "local" | "parameter" | "binding")
}

/// The declared names of some kinds, once each, with `rank` first in their sort text.
fn kinds(a: &Analysis, wanted: &[&str], rank: &str) -> Vec<CompletionItem> {
    let mut seen = BTreeSet::new();
    a.decls()
        .filter(|(u, _)| wanted.contains(&u.kind))
        .filter_map(|(u, file)| {
            let name = file.snippet(u.span);
            seen.insert(name.to_string()).then(|| {
                let detail = Some(match &u.ty {
                    Some(ty) => format!("{} · {ty}", u.kind),
                    None => u.kind.to_string(),
                });
                item(name, kind_of(u.kind), detail, rank)
            })
        })
        .collect()
}

/// After `x.`: the fields of `x`'s component type, or the values of the enum `x`.
fn members(a: &Analysis, text: &str, toks: &[Token], offset: usize) -> Vec<CompletionItem> {
    let base = toks
        .len()
        .checked_sub(2)
        .map(|i| toks[i])
        .filter(|t| t.kind == Tok::Word)
        .map(|t| t.text(text));
    let named = |kind: &str| {
        a.decls()
            .any(|(u, f)| u.kind == kind && Some(f.snippet(u.span)) == base)
    };
    let of = |parent: &str, kind: &str| -> Vec<CompletionItem> {
        let mut seen = BTreeSet::new();
        a.decls()
            .filter(|(u, _)| u.kind == kind && u.parent.as_deref() == Some(parent))
            .filter_map(|(u, f)| {
                let name = f.snippet(u.span);
                seen.insert(name)
                    .then(|| item(name, kind_of(kind), u.ty.clone(), "0"))
            })
            .collect()
    };
    if let Some(e) = base.filter(|_| named("enum")) {
        return of(e, "enum value");
    }
    // The type of the nearest use of that name before the cursor (or the first after it).
    let ty = base.and_then(|b| {
        let typed = a
            .uses
            .iter()
            .filter(|u| a.in_doc(u.span) && a.text_of(u) == b && u.ty.is_some());
        let (before, after): (Vec<_>, Vec<_>) = typed.partition(|u| u.span.start < offset);
        before.last().or(after.first()).and_then(|u| u.ty.clone())
    });
    match ty {
        Some(ty) if a.decls().any(|(u, _)| u.parent.as_deref() == Some(&ty)) => of(&ty, "field"),
        _ => kinds(a, &["field"], "0"),
    }
}

/// Whether the cursor is right inside the braces of `choose { ... }` (the arms form), where
/// actions are named.
fn in_choose_arms(text: &str, toks: &[Token]) -> bool {
    let is = |t: &Token, s: &str| t.text(text) == s && t.kind != Tok::Str;
    // The innermost `{` still open.
    let mut depth = 0;
    let mut open = None;
    for (i, t) in toks.iter().enumerate().rev() {
        if is(t, "}") {
            depth += 1;
        } else if is(t, "{") {
            if depth == 0 {
                open = Some(i);
                break;
            }
            depth -= 1;
        }
    }
    let Some(open) = open else { return false };
    let Some(choose) = toks[..open]
        .iter()
        .rposition(|t| is(t, "choose") || is(t, "{") || is(t, "}"))
        .filter(|&c| is(&toks[c], "choose"))
    else {
        return false;
    };
    let mut head = &toks[choose + 1..open];
    if head.first().is_some_and(|t| is(t, "each")) {
        // `each p in C,`: the rest decides, as after `by`.
        let end = head
            .iter()
            .position(|t| is(t, ","))
            .map_or(head.len(), |c| c + 1);
        head = &head[end..];
    }
    !head.iter().any(|t| is(t, "in"))
}

/// The names in scope, the keywords and the built-ins.
fn everything(a: &Analysis, text: &str, toks: &[Token], offset: usize) -> Vec<CompletionItem> {
    // Locals: those declared earlier in the same top-level declaration.
    let mut depth = 0usize;
    let mut top = 0;
    for t in toks {
        if depth == 0 && (t.breaks > 0 || t.start == 0) && t.kind == Tok::Word {
            top = t.start;
        }
        match t.text(text) {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut locals: Vec<_> = a
        .uses
        .iter()
        .filter(|u| {
            u.is_decl()
                && is_local(u.kind)
                && a.in_doc(u.span)
                && u.span.start >= top
                && u.span.end <= offset
        })
        .collect();
    locals.reverse(); // the nearest first
    let mut seen = BTreeSet::new();
    let mut items: Vec<CompletionItem> = locals
        .into_iter()
        .filter(|u| seen.insert(a.text_of(u).to_string()))
        .map(|u| item(a.text_of(u), kind_of(u.kind), u.ty.clone(), "0"))
        .collect();
    let globals = [
        "constant",
        "enum",
        "enum value",
        "component type",
        "board",
        "zone",
        "variable",
        "function",
        "action",
        "set kind",
        "variant",
    ];
    items.extend(kinds(a, &globals, "1"));
    for f in reference::functions() {
        items.push(item(
            f,
            CompletionItemKind::FUNCTION,
            Some("built-in".into()),
            "2",
        ));
    }
    for v in ["me", "current", "players", "player_count"] {
        items.push(item(
            v,
            CompletionItemKind::VARIABLE,
            Some("built-in".into()),
            "2",
        ));
    }
    for k in lex::keywords() {
        items.push(item(k, CompletionItemKind::KEYWORD, None, "3"));
    }
    let mut labels = BTreeSet::new();
    items.retain(|i| labels.insert(i.label.clone()));
    items
}
