//! Memories of positions: `memory name(parts)`, `remember name`, `forget name` and
//! `repeated(name)`.
//!
//! A memory's parts are lowered once, with a variable named whole written out as one part
//! per entry, and copied to every place that evaluates them (`remember`, `repeated`): they
//! read no local and not `me`, so they mean the same wherever they are evaluated.

use super::*;
use crate::ir::{self, Expr, Type, Value, MAX_MEMORY_WIDTH};
use crate::syntax::ast;

impl Checker {
    /// Names every `memory` (before any body, so bodies may use them in any order).
    pub(super) fn declare_memories(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Memory { name, .. } = &d.kind {
                let id = self.game.memories.len() as u16;
                self.define(name, Global::Memory(id));
                self.game.memories.push(ir::MemoryDef {
                    name: name.name.clone(),
                    parts: vec![],
                });
            }
        }
    }

    /// The parts of every `memory` (after the variables are declared).
    pub(super) fn memory_parts(&mut self, file: &ast::File) {
        for d in &file.decls {
            let ast::DeclKind::Memory { name, parts } = &d.kind else {
                continue;
            };
            let Some((Global::Memory(id), _)) = self.globals.get(&name.name).copied() else {
                continue; // its name was taken: reported by `define`
            };
            let mut out = vec![];
            let mut width = 0usize;
            for part in parts {
                width = width.saturating_add(self.memory_part(part, &mut out));
            }
            if width > MAX_MEMORY_WIDTH {
                let p = self.error(
                    Code::Limit,
                    d.span,
                    format!(
                        "memory `{}` has positions of {} values, more than {MAX_MEMORY_WIDTH}",
                        name.name, width
                    ),
                    "too large a position",
                );
                p.help = Some("remember fewer or smaller variables".into());
                out.clear();
            }
            self.game.memories[id as usize].parts = out;
        }
    }

    /// One part: a variable named without indexes gives each of its entries, in the order of
    /// its indexes (the last varying fastest); anything else is one value. Returns the number
    /// of values it has (not written out past [`MAX_MEMORY_WIDTH`] in all).
    fn memory_part(&mut self, part: &ast::Expr, out: &mut Vec<Expr>) -> usize {
        if let ast::ExprKind::Name(n) = &part.kind {
            if let Some((Global::Var(v), _)) = self.globals.get(n).copied() {
                if !self.game.vars[v].dims.is_empty() {
                    self.used.insert(Global::Var(v));
                    self.note_use(part.span, names::Target::Global(Global::Var(v)));
                    let def = &self.game.vars[v];
                    let count = def.count as usize;
                    if out.len() + count > MAX_MEMORY_WIDTH {
                        return count;
                    }
                    let dims = def.dims.clone();
                    let sizes = def.sizes.clone();
                    for k in 0..count as u32 {
                        let mut rest = k;
                        let mut ix = vec![Expr::Lit(Value::None); dims.len()];
                        for i in (0..dims.len()).rev() {
                            let pos = rest % sizes[i];
                            rest /= sizes[i];
                            ix[i] = Expr::Lit(match dims[i] {
                                ir::Dim::Player => Value::Player(pos as u8),
                                ir::Dim::Enum(e) => Value::Enum(e, pos as u16),
                                ir::Dim::Board(b) => Value::Space(b, pos),
                                ir::Dim::Range { .. } => Value::Int(pos as i64),
                            });
                        }
                        out.push(Expr::Var(v, ix));
                    }
                    return count;
                }
            }
        }
        self.begin_locals();
        let (x, _) = self.expr(part);
        self.end_locals();
        let mut me = false;
        let mut binds = false;
        x.visit(&mut |e| match e {
            Expr::Me => me = true,
            Expr::Local(_) | Expr::Agg(..) => binds = true,
            _ => {}
        });
        if me || binds {
            let p = self.error(
                Code::Memory,
                part.span,
                if me {
                    "a memory's position cannot depend on who asks (`me`)"
                } else {
                    "a part of a memory cannot bind names"
                },
                "not a part of a position",
            );
            p.help = Some(if me {
                "name the player: `current`, or a variable holding the player to move".into()
            } else {
                "name a variable (all its entries are remembered), or compute the value in a \
                 `def` and call it here"
                    .into()
            });
        }
        out.push(x);
        1
    }

    /// The memory named `name`, noted as used there; an error when it is not one.
    fn memory_named(&mut self, name: &ast::Ident, what: &str) -> Option<u16> {
        match self.globals.get(&name.name).copied() {
            Some((Global::Memory(m), _)) => {
                self.used.insert(Global::Memory(m));
                self.note_use(name.span, names::Target::Global(Global::Memory(m)));
                Some(m)
            }
            other => {
                let msg = match other {
                    Some((g, _)) => format!("`{}` is a {}, not a memory", name.name, g.kind()),
                    None => format!("unknown memory `{}`", name.name),
                };
                let help = match other {
                    Some(_) => "`remember`, `forget` and `repeated` take a memory, declared as \
                                `memory seen(board, current)`: the variables and values a \
                                position is made of"
                        .to_string(),
                    None => format!(
                        "declare the positions to {what}: `memory {}(board, current)`",
                        name.name
                    ),
                };
                let p = self.error(Code::Memory, name.span, msg, "not a memory");
                p.help = Some(help);
                None
            }
        }
    }

    /// `remember m` (true) or `forget m` (false).
    pub(crate) fn remember(
        &mut self,
        name: &ast::Ident,
        on: bool,
        span: ast::Span,
        code: &mut Vec<ir::Instr>,
    ) {
        let Some(memory) = self.memory_named(name, if on { "remember" } else { "forget" }) else {
            return;
        };
        code.push(if on {
            ir::Instr::Remember {
                memory,
                parts: self.game.memories[memory as usize].parts.clone(),
                span,
            }
        } else {
            ir::Instr::Forget { memory }
        });
    }

    /// `repeated(m)`: how many times the present position was remembered in `m`.
    pub(crate) fn repeated(&mut self, args: &[ast::Expr], span: ast::Span) -> (Expr, Type) {
        let name = match args {
            [ast::Expr {
                kind: ast::ExprKind::Name(n),
                span,
            }] => ast::Ident {
                name: n.clone(),
                span: *span,
            },
            _ => {
                let p = self.error(
                    Code::Arity,
                    span,
                    "`repeated` takes the name of a memory",
                    "expected `repeated(memory)`",
                );
                p.help = Some("declare one with `memory seen(board, current)`".into());
                return (Expr::Lit(Value::None), Type::Int);
            }
        };
        let Some(m) = self.memory_named(&name, "recognise") else {
            return (Expr::Lit(Value::None), Type::Int);
        };
        let mut xs = self.game.memories[m as usize].parts.clone();
        xs.push(Expr::Lit(Value::Int(m as i64)));
        (Expr::Builtin(ir::Builtin::Repeated, xs, span), Type::Int)
    }
}
