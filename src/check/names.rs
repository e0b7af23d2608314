//! The record of names, for editors: where each name is written and what the checker
//! resolved it to (go to definition, references, rename, hover). The checker notes a name
//! where it resolves one ([`Checker::note_use`]) and where one is declared
//! ([`Checker::note_decl`]); nothing else depends on the record.

use super::{Checker, Global, Local, UNKNOWN_TYPE};
use crate::ir::{Type, TypeId};
use crate::source::Span;
use crate::syntax::ast;
use std::collections::HashMap;

/// A name as written in a file, and what the checker resolved it to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameUse {
    /// Where the name is written.
    pub span: Span,
    /// Where what it names is declared: its name in the declaration (for a declaration, the
    /// span itself; for a space of a board, the board's name).
    pub decl: Span,
    /// What it names, in the words of diagnostics: `variable`, `zone`, `enum value`, `field`,
    /// `local`, `parameter`, `binding`, ...
    pub kind: &'static str,
    /// Its type as the checker knows it (`int`, `0..39`, `Card`, ...), when it has one; for a
    /// function, the type of its result.
    pub ty: Option<String>,
    /// What it belongs to: a field's component type, an enum value's enum, a space's board.
    pub parent: Option<String>,
}

impl NameUse {
    /// Whether this is the declaration itself.
    pub fn is_decl(&self) -> bool {
        self.span == self.decl
    }
}

/// What a noted name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    Global(Global),
    /// A field of a component type, by its position.
    Field(TypeId, u16),
    /// A local name, by the span of its declaration.
    Local(Span),
}

/// One noted name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Noted {
    span: Span,
    target: Target,
}

impl Checker {
    /// Notes that the name written at `span` refers to `target`.
    pub(crate) fn note_use(&mut self, span: Span, target: Target) {
        self.noted.push(Noted { span, target });
    }

    /// Notes that `target` is declared by the name written at `span`.
    pub(crate) fn note_decl(&mut self, span: Span, target: Target) {
        self.decl_of.insert(target, span);
        self.note_use(span, target);
    }

    /// [`Checker::bind_local`] for a name written in the file, noted as a declaration of the
    /// kind given (`local`, `parameter`, `binding`).
    pub(crate) fn bind_local_at(&mut self, name: &ast::Ident, ty: Type, kind: &'static str) -> u16 {
        let slot = self.bind_local(&name.name, ty);
        if let Some(l) = self.scopes.last_mut() {
            l.decl = Some(name.span);
        }
        self.local_kinds.insert(name.span, (kind, ty));
        self.note_decl(name.span, Target::Local(name.span));
        slot
    }

    /// Notes a use of a local name, if it was declared with [`Checker::bind_local_at`].
    pub(crate) fn note_local(&mut self, span: Span, local: &Local) {
        if let Some(decl) = local.decl {
            self.note_use(span, Target::Local(decl));
        }
    }

    /// Every noted name whose declaration is known, once each, in the order written.
    pub(crate) fn name_uses(&self) -> Vec<NameUse> {
        let mut out: Vec<NameUse> = self
            .noted
            .iter()
            .filter_map(|n| {
                let decl_target = match n.target {
                    Target::Global(Global::Space(b, _)) => Target::Global(Global::Board(b)),
                    t => t,
                };
                let decl = *self.decl_of.get(&decl_target)?;
                let (kind, ty, parent) = self.describe(n.target);
                Some(NameUse {
                    span: n.span,
                    decl,
                    kind,
                    ty,
                    parent,
                })
            })
            .collect();
        out.sort_by_key(|u| (u.span.file.0, u.span.start, u.span.end));
        out.dedup_by(|a, b| a.span == b.span);
        out
    }

    /// The kind, type and parent of a target.
    fn describe(&self, t: Target) -> (&'static str, Option<String>, Option<String>) {
        let ty = |t: Type| (t != Type::Any).then(|| self.type_name(t));
        let range = |r: Option<(i64, i64)>| r.map(|(lo, hi)| format!("{lo}..{hi}"));
        match t {
            Target::Local(decl) => match self.local_kinds.get(&decl) {
                Some((kind, t)) => (kind, ty(*t), None),
                None => ("local", None, None),
            },
            Target::Field(c, f) => {
                let field = self
                    .game
                    .types
                    .get(c)
                    .and_then(|t| t.fields.get(f as usize));
                (
                    "field",
                    field.and_then(|f| range(f.range).or_else(|| ty(f.ty))),
                    self.game.types.get(c).map(|t| t.name.clone()),
                )
            }
            Target::Global(g) => {
                let (ty, parent) = match g {
                    Global::Const(c) => (ty(self.value_type(self.game.consts[c].value)), None),
                    Global::Var(v) => {
                        let var = &self.game.vars[v];
                        (range(var.range).or_else(|| ty(var.ty)), None)
                    }
                    Global::Zone(z) if self.game.zones[z].ty != UNKNOWN_TYPE => {
                        (ty(Type::Zone(self.game.zones[z].ty)), None)
                    }
                    Global::EnumValue(e, _) => {
                        let name = self.game.enums[e].name.clone();
                        (Some(name.clone()), Some(name))
                    }
                    Global::Space(b, _) => {
                        (ty(Type::Space(b)), Some(self.game.boards[b].name.clone()))
                    }
                    Global::Def(d) => (self.def_types.get(d).copied().and_then(ty), None),
                    _ => (None, None),
                };
                (g.kind(), ty, parent)
            }
        }
    }
}

/// The declarations the checker of a rules file noted, for a checker that goes on with the
/// same game (a scenario file): its names resolve to them.
pub(crate) type Decls = HashMap<Target, Span>;
