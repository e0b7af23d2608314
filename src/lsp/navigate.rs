//! Go to definition, find references and rename, from the checker's record of names: every
//! use of a name carries the span of its declaration, and two names are the same thing when
//! they share a declaration and a spelling (the spelling tells a board from its spaces).

use super::analysis::Analysis;
use super::{Answer, Server};
use crate::check::NameUse;
use crate::fmt::lex;
use lsp_server::ErrorCode;
use lsp_types::{
    GotoDefinitionParams, GotoDefinitionResponse, Location, PrepareRenameResponse, ReferenceParams,
    RenameParams, TextDocumentPositionParams, TextEdit, Url, WorkspaceEdit,
};
use std::collections::{BTreeSet, HashMap};

pub(crate) fn definition(
    s: &Server,
    p: GotoDefinitionParams,
) -> Answer<Option<GotoDefinitionResponse>> {
    let Some((a, u)) = name_at(s, &p.text_document_position_params)? else {
        return Ok(None);
    };
    Ok(Some(GotoDefinitionResponse::Scalar(
        a.file(u.decl).location(u.decl),
    )))
}

pub(crate) fn references(s: &Server, p: ReferenceParams) -> Answer<Option<Vec<Location>>> {
    let Some((a, u)) = name_at(s, &p.text_document_position)? else {
        return Ok(None);
    };
    let with_decl = p.context.include_declaration;
    let found = occurrences(s, a, u);
    fits(&found, 0)?;
    let found = found
        .into_iter()
        .filter(|(_, is_decl, _)| with_decl || !is_decl)
        .map(|(loc, _, _)| loc)
        .collect();
    Ok(Some(found))
}

pub(crate) fn prepare_rename(
    s: &Server,
    p: TextDocumentPositionParams,
) -> Answer<Option<PrepareRenameResponse>> {
    let Some((a, u)) = name_at(s, &p)? else {
        return Ok(None);
    };
    renamable(u)?;
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: a.doc.range(u.span),
        placeholder: a.text_of(u).to_string(),
    }))
}

pub(crate) fn rename(s: &Server, p: RenameParams) -> Answer<Option<WorkspaceEdit>> {
    let Some((a, u)) = name_at(s, &p.text_document_position)? else {
        return Ok(None);
    };
    renamable(u)?;
    let new = p.new_name;
    let is_name = new.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && new.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name || lex::is_reserved(&new) {
        return Err((
            ErrorCode::InvalidParams,
            format!("`{new}` cannot be a name: a letter or `_`, then letters, digits and `_`, and not a reserved word"),
        ));
    }
    // A name already declared would clash (a duplicate, or a local hiding or hidden by it):
    // refused, rather than an edit that breaks the file or changes what a name means.
    if let Some((d, file)) = a.decls().find(|(d, f)| f.snippet(d.span) == new) {
        let line = file.position(d.span.start).line + 1;
        return Err((
            ErrorCode::InvalidParams,
            format!(
                "`{new}` is already a name: the {} declared at line {line}",
                d.kind
            ),
        ));
    }
    let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
    let found = occurrences(s, a, u);
    fits(&found, new.len())?;
    for (loc, _, _) in found {
        changes
            .entry(loc.uri)
            .or_default()
            .push(TextEdit::new(loc.range, new.clone()));
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}

/// Refuses an answer listing `found`, each with `extra` bytes of text, whose JSON would be
/// over the largest message ([`super::framing::MAX_BODY`]), before it is built: a rename of a
/// name used 100,000 times to a name of a megabyte would otherwise build gigabytes.
fn fits(found: &[(Location, bool, (u32, u32))], extra: usize) -> Answer<()> {
    let bytes: usize = found
        .iter()
        .map(|(loc, _, _)| loc.uri.as_str().len() + extra + 100)
        .sum();
    if bytes > super::framing::MAX_BODY {
        return Err((
            ErrorCode::RequestFailed,
            format!(
                "an answer of {} places would be about {bytes} bytes, over the limit of {} bytes",
                found.len(),
                super::framing::MAX_BODY
            ),
        ));
    }
    Ok(())
}

/// Spaces are named by their board; everything else that has a declaration can be renamed.
fn renamable(u: &NameUse) -> Answer<()> {
    if u.kind == "space" {
        return Err((
            ErrorCode::InvalidRequest,
            "a space is named by its board's shape: it cannot be renamed".into(),
        ));
    }
    Ok(())
}

/// The document and the name at a position.
fn name_at<'a>(
    s: &'a Server,
    p: &TextDocumentPositionParams,
) -> Answer<Option<(&'a Analysis, &'a NameUse)>> {
    let a = &s.doc(&p.text_document.uri)?.analysis;
    let offset = a.doc.offset(p.position);
    Ok(a.use_at(offset).map(|u| (a, u)))
}

/// Every place, in the open documents, where the thing named by `u` is written: its
/// location, whether it is the declaration, in order of file and position.
fn occurrences(s: &Server, a: &Analysis, u: &NameUse) -> Vec<(Location, bool, (u32, u32))> {
    let decl_uri = &a.file(u.decl).uri;
    let spelling = a.text_of(u);
    let same = |b: &Analysis, v: &NameUse, rules: bool| {
        let file = if rules {
            b.rules.as_ref()
        } else {
            Some(b.file(v.decl))
        };
        let in_decl_file = |f: &super::analysis::FileText| &f.uri == decl_uri;
        file.is_some_and(in_decl_file)
            && (v.decl.start, v.decl.end) == (u.decl.start, u.decl.end)
            && if rules {
                b.rules.as_ref().map_or("", |r| r.snippet(v.span)) == spelling
            } else {
                b.text_of(v) == spelling
            }
    };
    let mut seen = BTreeSet::new();
    let mut out = vec![];
    for doc in s.docs.values() {
        let b = &doc.analysis;
        let own = b.uses.iter().map(|v| (v, false));
        let rules = b.rules_uses.iter().map(|v| (v, true));
        for (v, in_rules) in own.chain(rules) {
            if !same(b, v, in_rules) {
                continue;
            }
            let file = match (&b.rules, in_rules) {
                (Some(r), true) => r,
                _ => b.file(v.span),
            };
            let loc = file.location(v.span);
            let key = (
                loc.uri.to_string(),
                loc.range.start.line,
                loc.range.start.character,
            );
            if seen.insert(key) {
                let at = (loc.range.start.line, loc.range.start.character);
                out.push((loc, v.is_decl(), at));
            }
        }
    }
    out.sort_by(|x, y| (x.0.uri.as_str(), x.2).cmp(&(y.0.uri.as_str(), y.2)));
    out
}
