//! Document symbols (the outline: declarations with their fields and values, or scenarios)
//! and semantic tokens (colours from the tokens and the checker's record of names).

use super::analysis::{Analysis, FileText};
use super::{reference, Answer, Server};
use crate::check::NameUse;
use crate::fmt::lex::{self, Tok};
use crate::fmt::Kind;
use crate::source::Span;
use crate::syntax::{self, ast};
use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, SemanticToken,
    SemanticTokenModifier, SemanticTokenType, SemanticTokens, SemanticTokensLegend,
    SemanticTokensParams, SemanticTokensResult, SymbolKind,
};
use std::collections::HashMap;

pub(crate) fn symbols(
    s: &Server,
    p: DocumentSymbolParams,
) -> Answer<Option<DocumentSymbolResponse>> {
    let doc = s.doc(&p.text_document.uri)?;
    // The text as it is, or else the last version that parsed.
    let a = if doc.analysis.parses {
        &doc.analysis
    } else {
        doc.names()
    };
    let file = &a.doc;
    let name = super::analysis::file_name(&file.uri);
    let out = match a.kind {
        Kind::Rules => match syntax::parse_file(&name, &file.text) {
            Ok(f) => {
                let mut left = MAX_SYMBOLS;
                let mut out = Vec::new();
                for d in &f.decls {
                    if left == 0 {
                        break;
                    }
                    left -= 1;
                    out.push(decl(file, d, &mut left));
                }
                out
            }
            Err(_) => vec![],
        },
        Kind::Scenarios => match syntax::parse_scenarios(&name, &file.text) {
            Ok(f) => f
                .scenarios
                .iter()
                .take(MAX_SYMBOLS)
                .map(|sc| {
                    let head = Span::new(sc.span.start, sc.span.start + "scenario".len());
                    symbol(file, &sc.name, SymbolKind::EVENT, sc.span, head, vec![])
                })
                .collect(),
            Err(_) => vec![],
        },
    };
    Ok(Some(DocumentSymbolResponse::Nested(out)))
}

/// The most symbols in a document's outline, and the longest name of one (in characters,
/// cut with `…`): the outline of a megabyte of repeated long lines was 20 MB of JSON (found
/// by the fuzzer's `lsp` target).
pub const MAX_SYMBOLS: usize = 5_000;
/// See [`MAX_SYMBOLS`].
pub const MAX_SYMBOL_CHARS: usize = 200;

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written, though deprecated
fn symbol(
    file: &FileText,
    name: &str,
    kind: SymbolKind,
    span: Span,
    head: Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    let name = match name.char_indices().nth(MAX_SYMBOL_CHARS) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_string(),
    };
    DocumentSymbol {
        name,
        detail: None,
        kind,
        tags: None,
        deprecated: None,
        range: file.range(span),
        selection_range: file.range(head),
        children: (!children.is_empty()).then_some(children),
    }
}

/// The symbol of a declaration: named ones by their name, others by their first line.
/// Its children count against `left`, the symbols the outline may still hold.
fn decl(file: &FileText, d: &ast::Decl, left: &mut usize) -> DocumentSymbol {
    use ast::DeclKind as D;
    let named =
        |n: &ast::Ident, kind, children| symbol(file, &n.name, kind, d.span, n.span, children);
    let mut leaves = |items: Vec<&ast::Ident>, kind| {
        let n = items.len().min(*left);
        *left -= n;
        items
            .into_iter()
            .take(n)
            .map(|i| symbol(file, &i.name, kind, i.span, i.span, vec![]))
            .collect()
    };
    match &d.kind {
        D::Const { name, .. } => named(name, SymbolKind::CONSTANT, vec![]),
        D::Variant { name, .. } => named(name, SymbolKind::MODULE, vec![]),
        D::Enum { name, values } => named(
            name,
            SymbolKind::ENUM,
            leaves(values.iter().collect(), SymbolKind::ENUM_MEMBER),
        ),
        D::Component { name, fields } => named(
            name,
            SymbolKind::STRUCT,
            leaves(fields.iter().map(|f| &f.name).collect(), SymbolKind::FIELD),
        ),
        D::Board { name, .. } => named(name, SymbolKind::OBJECT, vec![]),
        D::Zone { name, .. } => named(name, SymbolKind::ARRAY, vec![]),
        D::Var { name, .. } => named(name, SymbolKind::VARIABLE, vec![]),
        D::Def { name, .. } => named(name, SymbolKind::FUNCTION, vec![]),
        D::Action { name, .. } => named(name, SymbolKind::METHOD, vec![]),
        D::Set { name, .. } => named(name, SymbolKind::CLASS, vec![]),
        D::Memory { name, .. } => named(name, SymbolKind::ARRAY, vec![]),
        D::Legend { name, .. } => named(name, SymbolKind::FUNCTION, vec![]),
        D::Procedure { name, .. } => named(name, SymbolKind::FUNCTION, vec![]),
        // `setup`, `flow`, `score(p) = ...`, and declarations added to the language later.
        _ => {
            let text = file.snippet(d.span);
            let line = text.lines().next().unwrap_or_default();
            let title = line.trim().trim_end_matches('{').trim_end();
            let head = Span::new(d.span.start, d.span.start + line.trim_end().len());
            symbol(file, title, SymbolKind::KEY, d.span, head, vec![])
        }
    }
}

// ---------------------------------------------------------------- semantic tokens

/// The most semantic tokens answered for one document (five numbers each, so at most about
/// 8 MB of JSON): the rest of a longer document is left uncoloured.
pub const MAX_TOKENS: usize = 200_000;

const TYPES: [SemanticTokenType; 13] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::COMMENT,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::ENUM,
    SemanticTokenType::TYPE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
];
const MODIFIERS: [SemanticTokenModifier; 3] = [
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::READONLY,
    SemanticTokenModifier::DEFAULT_LIBRARY,
];
const DECLARATION: u32 = 1;
const READONLY: u32 = 2;
const LIBRARY: u32 = 4;

pub(crate) fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

fn type_index(t: SemanticTokenType) -> u32 {
    TYPES.iter().position(|x| *x == t).unwrap_or(0) as u32
}

/// The token type and modifiers of a kind of name.
fn of_kind(kind: &str) -> (SemanticTokenType, u32) {
    match kind {
        "constant" => (SemanticTokenType::VARIABLE, READONLY),
        "enum" => (SemanticTokenType::ENUM, 0),
        "enum value" | "space" => (SemanticTokenType::ENUM_MEMBER, 0),
        "component type" | "board" | "set kind" => (SemanticTokenType::TYPE, 0),
        "field" => (SemanticTokenType::PROPERTY, 0),
        "function" => (SemanticTokenType::FUNCTION, 0),
        "action" => (SemanticTokenType::METHOD, 0),
        "parameter" => (SemanticTokenType::PARAMETER, 0),
        _ => (SemanticTokenType::VARIABLE, 0),
    }
}

pub(crate) fn tokens(s: &Server, p: SemanticTokensParams) -> Answer<Option<SemanticTokensResult>> {
    let doc = s.doc(&p.text_document.uri)?;
    let a = &doc.analysis;
    let text = &a.doc.text;
    let uses: HashMap<(usize, usize), &NameUse> = a
        .uses
        .iter()
        .filter(|u| a.in_doc(u.span))
        .map(|u| ((u.span.start, u.span.end), u))
        .collect();
    // While the text does not parse, names are coloured by what they were when it last did.
    let by_name: HashMap<&str, &str> = if a.parses {
        HashMap::new()
    } else {
        known_names(doc.names())
    };
    let toks = lex::tokens(text);
    let mut data = vec![];
    let (mut line, mut col) = (0u32, 0u32);
    for (i, t) in toks.iter().enumerate() {
        if data.len() == MAX_TOKENS {
            break;
        }
        let word = t.text(text);
        let next_is_call = toks.get(i + 1).is_some_and(|n| n.text(text) == "(");
        let (ty, mods) = match t.kind {
            Tok::Comment => (SemanticTokenType::COMMENT, 0),
            Tok::Str => (SemanticTokenType::STRING, 0),
            Tok::Number => (SemanticTokenType::NUMBER, 0),
            Tok::Other => continue,
            Tok::Punct if word.chars().all(|c| "=!<>+-*/%".contains(c)) => {
                (SemanticTokenType::OPERATOR, 0)
            }
            Tok::Punct => continue,
            Tok::Word => match uses.get(&(t.start, t.end)) {
                Some(u) => {
                    let (ty, m) = of_kind(u.kind);
                    (ty, m | if u.is_decl() { DECLARATION } else { 0 })
                }
                None => match by_name.get(word) {
                    Some(kind) => of_kind(kind),
                    None => match word {
                        "me" | "current" | "players" | "player_count" => {
                            (SemanticTokenType::VARIABLE, READONLY | LIBRARY)
                        }
                        "int" | "bool" | "Player" => (SemanticTokenType::TYPE, LIBRARY),
                        _ if lex::is_keyword(word) => (SemanticTokenType::KEYWORD, 0),
                        _ if next_is_call && reference::functions().iter().any(|f| f == word) => {
                            (SemanticTokenType::FUNCTION, LIBRARY)
                        }
                        _ => continue,
                    },
                },
            },
        };
        let at = a.doc.position(t.start);
        let length: usize = word.chars().map(char::len_utf16).sum();
        let delta_line = at.line - line;
        let delta_start = if delta_line == 0 {
            at.character - col
        } else {
            at.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: length as u32,
            token_type: type_index(ty),
            token_modifiers_bitset: mods,
        });
        (line, col) = (at.line, at.character);
    }
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

/// The kind of each declared name of an analysis, by spelling.
fn known_names(a: &Analysis) -> HashMap<&str, &str> {
    a.decls()
        .filter(|(u, _)| !matches!(u.kind, "local" | "parameter" | "binding"))
        .map(|(u, f)| (f.snippet(u.span), u.kind))
        .collect()
}
