//! The parse tree (pest pairs) lowered to the syntax tree; the grammar guarantees the shapes
//! this code takes apart, so a mismatch here is a bug in the grammar or in this file.
//!
//! Lowering also enforces what the grammar cannot say: numbers that fit in 64 bits, and a tree
//! no deeper than [`MAX_DEPTH`]. Each expression comes with the depth of its tree, and
//! statements count how deeply they nest; a node that would go deeper is not built (a leaf
//! stands in its place) and the first such fault is kept, so that a chain of a million `+`
//! never becomes a tree a million deep.

use super::ast::*;
use super::grammar::Rule;
use super::limits::MAX_DEPTH;
use super::{Fault, SyntaxKind};
use crate::source::{quote, FileId};
use pest::iterators::{Pair, Pairs};
use std::cell::{Cell, RefCell};

mod decls;
mod expr;
mod stmt;

pub(super) use decls::decl;
use expr::*;
pub(super) use stmt::step;
use stmt::*;

thread_local! {
    /// The file whose text is being lowered, for the spans of its tree (set by the `parse_*`
    /// functions for the duration of one parse).
    pub(super) static FILE: Cell<FileId> = const { Cell::new(FileId::RULES) };
    /// How many blocks and statements enclose what is being lowered.
    static NEST: Cell<usize> = const { Cell::new(0) };
    /// The first fault found while lowering (a number too large, a tree too deep).
    static FAULT: RefCell<Option<Fault>> = const { RefCell::new(None) };
}

/// Starts lowering a file's tree: no fault yet, at the top level.
pub(super) fn begin(file: FileId) {
    FILE.with(|f| f.set(file));
    NEST.with(|n| n.set(0));
    FAULT.with(|f| f.borrow_mut().take());
}

/// The first fault found while lowering, if any.
pub(super) fn fault() -> Option<Fault> {
    FAULT.with(|f| f.borrow_mut().take())
}

fn record(f: Fault) {
    FAULT.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(f);
        }
    });
}

fn too_deep(at: Span) {
    record(Fault {
        kind: SyntaxKind::Limit,
        start: at.start,
        end: at.end.min(at.start + 1),
        message: format!("nested deeper than {MAX_DEPTH} levels"),
        label: format!("level {} starts here", MAX_DEPTH + 1),
        help: Some(format!(
            "blocks, statements and expressions nest at most {MAX_DEPTH} deep, and a chain \
             `a + b + c + ...` counts one level per operator: give parts of it names with `let` \
             or `def` (see \"Limits\" in the language reference)"
        )),
    });
}

/// An expression and the depth of its tree (a leaf is 1).
type Deep = (Expr, usize);

/// A node of the given depth; when it would nest deeper than [`MAX_DEPTH`] under the
/// statements around it, a leaf in its place and the fault recorded.
fn node(kind: ExprKind, span: Span, depth: usize) -> Deep {
    if NEST.with(|n| n.get()) + depth > MAX_DEPTH {
        too_deep(span);
        return (
            Expr {
                kind: ExprKind::None,
                span,
            },
            1,
        );
    }
    (Expr { kind, span }, depth)
}

/// Enters a block or a statement: false (and the fault recorded) when that nests too deep.
fn enter(at: Span) -> bool {
    let n = NEST.with(|n| n.get()) + 1;
    if n > MAX_DEPTH {
        too_deep(at);
        return false;
    }
    NEST.with(|c| c.set(n));
    true
}

fn leave() {
    NEST.with(|n| n.set(n.get().saturating_sub(1)));
}

pub(super) fn span(p: &Pair<Rule>) -> Span {
    let s = p.as_span();
    Span::in_file(s.start(), s.end(), FILE.with(|f| f.get()))
}

/// From the start of `a` to the end of `b`, in `a`'s file.
fn join(a: Span, b: Span) -> Span {
    Span::in_file(a.start, b.end, a.file)
}

/// A number that does not fit where it goes: the fault recorded.
fn too_large(p: &Pair<Rule>, max: &str) {
    let at = span(p);
    record(Fault {
        kind: SyntaxKind::Number,
        start: at.start,
        end: at.end,
        message: format!("the number `{}` is too large", quote(p.as_str(), 24)),
        label: format!("larger than {max}"),
        help: Some("numbers are 64-bit integers: write a smaller one".into()),
    });
}

fn ident(p: Pair<Rule>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span(&p),
    }
}

pub(super) fn string(p: Pair<Rule>) -> String {
    p.into_inner()
        .next()
        .map(|i| i.as_str().to_string())
        .unwrap_or_default()
}

/// An integer literal (the grammar admits only digits, with a minus sign for `signed_int`);
/// one that does not fit in an `i64` is a fault.
fn int(p: &Pair<Rule>) -> i64 {
    p.as_str().parse().unwrap_or_else(|_| {
        too_large(p, &i64::MAX.to_string());
        0
    })
}
