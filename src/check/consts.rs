//! Values known when the file is read: constants, generators, the zones of tables.

use super::*;
use crate::ir::{self, Type, Value};
use crate::syntax::ast;

impl Checker {
    pub(crate) fn value_type(&self, v: Value) -> Type {
        match v {
            Value::None => Type::Any,
            Value::Int(_) => Type::Int,
            Value::Bool(_) => Type::Bool,
            Value::Player(_) => Type::Player,
            Value::Enum(e, _) => Type::Enum(e),
            Value::Comp(c) => Type::Comp(self.game.comps[c].ty),
            Value::Space(b, _) => Type::Space(b),
            Value::Zone(z) => Type::Zone(self.game.zones[self.game.instances[z].zone].ty),
        }
    }

    /// Evaluates an expression that must be known when the file is checked.
    pub(crate) fn const_eval(&mut self, e: &ast::Expr, gens: &[(String, Value)]) -> Option<Value> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Int(n) => Some(Value::Int(*n)),
            K::Bool(b) => Some(Value::Bool(*b)),
            K::None => Some(Value::None),
            K::Name(n) => {
                if let Some((_, v)) = gens.iter().rev().find(|(g, _)| g == n) {
                    return Some(*v);
                }
                match self.globals.get(n).copied() {
                    Some((Global::Const(c), _)) => {
                        self.used.insert(Global::Const(c));
                        self.note_use(e.span, names::Target::Global(Global::Const(c)));
                        Some(self.game.consts[c].value)
                    }
                    Some((g @ Global::EnumValue(en, v), _)) => {
                        self.note_use(e.span, names::Target::Global(g));
                        Some(Value::Enum(en, v))
                    }
                    Some((g @ Global::Space(b, s), _)) => {
                        self.note_use(e.span, names::Target::Global(g));
                        Some(Value::Space(b, s))
                    }
                    _ => {
                        if let Some(list) = self.ambiguous_values.get(n) {
                            let names: Vec<String> = list
                                .iter()
                                .map(|e| self.game.enums[*e].name.clone())
                                .collect();
                            let p = self.error(
                                Code::Ambiguous,
                                e.span,
                                format!("`{n}` is a value of several enums"),
                                "ambiguous value",
                            );
                            p.help = Some(format!(
                                "write it with its enum: {}",
                                names
                                    .iter()
                                    .map(|x| format!("{x}.{n}"))
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ));
                        } else {
                            let p = self.error(
                                Code::NotConstant,
                                e.span,
                                format!("`{n}` is not known when the file is read"),
                                "expected a constant",
                            );
                            p.help = Some(
                                "here only numbers, constants and enum values may be used".into(),
                            );
                        }
                        None
                    }
                }
            }
            K::Field(base, f) => {
                if let K::Name(en) = &base.kind {
                    if let Some((Global::Enum(ei), _)) = self.globals.get(en).copied() {
                        if let Some(vi) =
                            self.game.enums[ei].values.iter().position(|v| *v == f.name)
                        {
                            self.used.insert(Global::Enum(ei));
                            self.note_use(base.span, names::Target::Global(Global::Enum(ei)));
                            let value = Global::EnumValue(ei, vi as u16);
                            self.note_use(f.span, names::Target::Global(value));
                            return Some(Value::Enum(ei, vi as u16));
                        }
                    }
                }
                self.error(
                    Code::NotConstant,
                    e.span,
                    "not a constant",
                    "expected a constant here",
                );
                None
            }
            K::Unary(ast::UnOp::Neg, x) => match self.const_eval(x, gens)? {
                Value::Int(n) => Some(Value::Int(-n)),
                _ => None,
            },
            K::Unary(ast::UnOp::Not, x) => match self.const_eval(x, gens)? {
                Value::Bool(b) => Some(Value::Bool(!b)),
                _ => None,
            },
            K::Binary(op, a, b) => {
                let (a, b) = (self.const_eval(a, gens)?, self.const_eval(b, gens)?);
                match (a, b) {
                    (Value::Int(x), Value::Int(y)) => Some(match op {
                        ast::BinOp::Add => Value::Int(x.wrapping_add(y)),
                        ast::BinOp::Sub => Value::Int(x.wrapping_sub(y)),
                        ast::BinOp::Mul => Value::Int(x.wrapping_mul(y)),
                        ast::BinOp::Div if y != 0 => Value::Int(x / y),
                        ast::BinOp::Mod if y != 0 => Value::Int(x.rem_euclid(y)),
                        ast::BinOp::Eq => Value::Bool(x == y),
                        ast::BinOp::Ne => Value::Bool(x != y),
                        ast::BinOp::Lt => Value::Bool(x < y),
                        ast::BinOp::Le => Value::Bool(x <= y),
                        ast::BinOp::Gt => Value::Bool(x > y),
                        ast::BinOp::Ge => Value::Bool(x >= y),
                        _ => return None,
                    }),
                    (a, b) => Some(match op {
                        ast::BinOp::Eq => Value::Bool(a == b),
                        ast::BinOp::Ne => Value::Bool(a != b),
                        _ => return None,
                    }),
                }
            }
            K::If(c, a, b) => match self.const_eval(c, gens)? {
                Value::Bool(true) => self.const_eval(a, gens),
                _ => self.const_eval(b, gens),
            },
            _ => {
                let p = self.error(
                    Code::NotConstant,
                    e.span,
                    "this must be known when the file is read",
                    "not a constant",
                );
                p.help = Some("use numbers, constants, enum values and arithmetic".into());
                None
            }
        }
    }

    /// The values of a collection known when the file is read (enum values, a range, a list).
    pub(crate) fn const_coll(&mut self, e: &ast::Expr) -> Option<Vec<Value>> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Range(a, b) => match (self.const_eval(a, &[])?, self.const_eval(b, &[])?) {
                (Value::Int(a), Value::Int(b)) if b - a <= 100_000 => {
                    Some((a..=b).map(Value::Int).collect())
                }
                _ => {
                    self.error(
                        Code::Range,
                        e.span,
                        "a generator range must be two numbers",
                        "not a number range",
                    );
                    None
                }
            },
            K::Name(n) => match self.globals.get(n).copied() {
                Some((Global::Enum(en), _)) => {
                    self.used.insert(Global::Enum(en));
                    self.note_use(e.span, names::Target::Global(Global::Enum(en)));
                    Some(
                        (0..self.game.enums[en].values.len() as u16)
                            .map(|v| Value::Enum(en, v))
                            .collect(),
                    )
                }
                _ => {
                    let p = self.error(
                        Code::NotConstant,
                        e.span,
                        format!("`{n}` cannot generate components"),
                        "expected an enum, a range or a list",
                    );
                    p.help = Some("write `for suit in Suit` or `for rank in 2..10`".into());
                    None
                }
            },
            K::List(items) => items.iter().map(|i| self.const_eval(i, &[])).collect(),
            _ => {
                self.error(
                    Code::NotConstant,
                    e.span,
                    "expected an enum, a range or a list",
                    "cannot generate from this",
                );
                None
            }
        }
    }

    pub(crate) fn const_zone(&mut self, e: &ast::Expr) -> Option<ir::InstId> {
        use ast::ExprKind as K;
        let (name, idx, at): (&String, &[ast::Expr], _) = match &e.kind {
            K::Name(n) => (n, &[], e.span),
            K::Index(b, i) => match &b.kind {
                K::Name(n) => (n, i.as_slice(), b.span),
                _ => (&String::new(), &[], e.span),
            },
            _ => (&String::new(), &[], e.span),
        };
        let Some((Global::Zone(z), _)) = self.globals.get(name).copied() else {
            let p = self.error(
                Code::UnknownZone,
                e.span,
                "components must start in a zone",
                "not a zone",
            );
            p.help = Some("write `components Card in deck { ... }` with a declared zone".into());
            return None;
        };
        self.used.insert(Global::Zone(z));
        self.note_use(at, names::Target::Global(Global::Zone(z)));
        let zd = self.game.zones[z].clone();
        if idx.len() != zd.dims.len() {
            self.error(
                Code::Arity,
                e.span,
                format!(
                    "zone `{}` takes {} index(es), got {}",
                    zd.name,
                    zd.dims.len(),
                    idx.len()
                ),
                "wrong number of indexes",
            );
            return None;
        }
        let mut inst = 0u32;
        for (i, x) in idx.iter().enumerate() {
            let v = self.const_eval(x, &[])?;
            let k = match (zd.dims[i], v) {
                (ir::Dim::Enum(e1), Value::Enum(e2, k)) if e1 == e2 => k as u32,
                (ir::Dim::Player, Value::Int(k)) if (k as u32) < zd.sizes[i] => k as u32,
                _ => {
                    self.error(
                        Code::Type,
                        x.span,
                        "this index does not fit the zone",
                        "wrong index",
                    );
                    return None;
                }
            };
            inst = inst * zd.sizes[i] + k;
        }
        Some(ir::InstId(zd.base.0 + inst))
    }
}
