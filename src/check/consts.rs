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
            Value::Action(_) => Type::Any,
        }
    }

    /// Evaluates an expression that must be known when the file is checked.
    pub(crate) fn const_eval(&mut self, e: &ast::Expr, gens: &[(String, Value)]) -> Option<Value> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Int(n) => Some(Value::Int(*n)),
            K::Bool(b) => Some(Value::Bool(*b)),
            K::None => Some(Value::None),
            K::Name(n) => self.const_name(e, n, gens),
            K::Field(base, f) => self.const_field(e, base, f),
            K::Unary(op, x) => {
                let v = self.const_eval(x, gens)?;
                match (op, v) {
                    (ast::UnOp::Neg, Value::Int(n)) => match n.checked_neg() {
                        Some(m) => Some(Value::Int(m)),
                        None => self.overflow(e.span, "its negation is too large"),
                    },
                    (ast::UnOp::Not, Value::Bool(b)) => Some(Value::Bool(!b)),
                    (ast::UnOp::Neg, v) => self.not_a(Type::Int, v, x.span, "the operand of `-`"),
                    (ast::UnOp::Not, v) => {
                        self.not_a(Type::Bool, v, x.span, "the operand of `not`")
                    }
                }
            }
            K::Binary(op, a, b) => self.const_binary(e, op, a, b, gens),
            K::If(c, a, b) => match self.const_eval(c, gens)? {
                Value::Bool(true) => self.const_eval(a, gens),
                Value::Bool(false) => self.const_eval(b, gens),
                v => self.not_a(Type::Bool, v, c.span, "the condition of `if`"),
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

    /// A name whose value is known when the file is read: a generator's value (the latest
    /// bound first), a constant, an enum value or a space.
    fn const_name(&mut self, e: &ast::Expr, n: &str, gens: &[(String, Value)]) -> Option<Value> {
        if let Some((_, v)) = gens.iter().rev().find(|(g, _)| g == n) {
            return Some(*v);
        }
        match self.globals.get(n).copied() {
            Some((Global::Const(c), _)) => {
                self.used.insert(Global::Const(c));
                self.note_use(e.span, names::Target::Global(Global::Const(c)));
                if self.reading_table && self.game.consts[c].table_read.is_none() {
                    self.game.consts[c].table_read = Some(e.span);
                }
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
                    p.help =
                        Some("here only numbers, constants and enum values may be used".into());
                }
                None
            }
        }
    }

    /// `Enum.value`, the only field known when the file is read.
    fn const_field(&mut self, e: &ast::Expr, base: &ast::Expr, f: &ast::Ident) -> Option<Value> {
        use ast::ExprKind as K;
        if let K::Name(en) = &base.kind {
            if let Some((Global::Enum(ei), _)) = self.globals.get(en).copied() {
                if let Some(vi) = self.game.enums[ei].values.iter().position(|v| *v == f.name) {
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

    /// `a op b` on constants: comparisons, logic and checked arithmetic, with division by
    /// zero, negative powers and overflow reported.
    fn const_binary(
        &mut self,
        e: &ast::Expr,
        op: &ast::BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
        gens: &[(String, Value)],
    ) -> Option<Value> {
        let (x, y) = (self.const_eval(a, gens)?, self.const_eval(b, gens)?);
        use ast::BinOp::*;
        match (op, x, y) {
            (Eq, x, y) => Some(Value::Bool(x == y)),
            (Ne, x, y) => Some(Value::Bool(x != y)),
            (And, Value::Bool(x), Value::Bool(y)) => Some(Value::Bool(x && y)),
            (Or, Value::Bool(x), Value::Bool(y)) => Some(Value::Bool(x || y)),
            (And | Or, x, y) => {
                let what = format!("the operands of `{}`", op.symbol());
                let bad = if matches!(x, Value::Bool(_)) {
                    (y, b.span)
                } else {
                    (x, a.span)
                };
                self.not_a(Type::Bool, bad.0, bad.1, &what)
            }
            (Lt | Le | Gt | Ge, Value::Int(x), Value::Int(y)) => Some(Value::Bool(match op {
                Lt => x < y,
                Le => x <= y,
                Gt => x > y,
                _ => x >= y,
            })),
            (Div | Mod, Value::Int(_), Value::Int(0)) => {
                let p = self.error(
                    Code::Number,
                    e.span,
                    "division by zero in a constant",
                    "the divisor is 0",
                );
                p.help = Some("a constant's value must be a number".into());
                None
            }
            (_, Value::Int(x), Value::Int(y)) => {
                let n = match op {
                    Add => x.checked_add(y),
                    Sub => x.checked_sub(y),
                    Mul => x.checked_mul(y),
                    Div => x.checked_div_euclid(y),
                    Pow if y < 0 => {
                        let p = self.error(
                            Code::Number,
                            e.span,
                            "a negative power in a constant",
                            "the power is below 0",
                        );
                        p.help = Some("powers are whole numbers: `2 ^ 3`".into());
                        return None;
                    }
                    Pow => u32::try_from(y).ok().and_then(|y| x.checked_pow(y)),
                    _ => x.checked_rem_euclid(y),
                };
                match n {
                    Some(n) => Some(Value::Int(n)),
                    None => self.overflow(e.span, "the result is too large"),
                }
            }
            (_, x, y) => {
                let what = format!("the operands of `{}`", op.symbol());
                let bad = if matches!(x, Value::Int(_)) {
                    (y, b.span)
                } else {
                    (x, a.span)
                };
                self.not_a(Type::Int, bad.0, bad.1, &what)
            }
        }
    }

    /// Constant arithmetic that does not fit in 64 bits: reported, no value.
    fn overflow(&mut self, span: ast::Span, label: &str) -> Option<Value> {
        let p = self.error(
            Code::Number,
            span,
            "this constant does not fit in 64 bits",
            label,
        );
        p.help = Some(format!("numbers go from {} to {}", i64::MIN, i64::MAX));
        None
    }

    /// A constant of the wrong type: reported, no value.
    fn not_a(&mut self, want: Type, got: Value, span: ast::Span, what: &str) -> Option<Value> {
        let got = self.value_type(got);
        let p = self.error(
            Code::Type,
            span,
            format!(
                "{what} must be {}, not {}",
                self.type_name(want),
                if got == Type::Any {
                    "none".into()
                } else {
                    self.type_name(got)
                }
            ),
            format!("this is not {}", self.type_name(want)),
        );
        if got == Type::Any {
            p.help = Some("`none` is no number or flag".into());
        }
        None
    }

    /// The values of a collection known when the file is read (enum values, a range, a list).
    pub(crate) fn const_coll(&mut self, e: &ast::Expr) -> Option<Vec<Value>> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Range(a, b) => match (self.const_eval(a, &[])?, self.const_eval(b, &[])?) {
                (Value::Int(lo), Value::Int(hi)) => {
                    // In i128: the width of `i64::MIN..i64::MAX` does not fit in an i64.
                    let n = (i128::from(hi) - i128::from(lo) + 1).max(0);
                    if n > ir::MAX_GENERATOR_VALUES as i128 {
                        let p = self.error(
                            Code::Limit,
                            e.span,
                            format!(
                                "a generator takes at most {} values",
                                ir::MAX_GENERATOR_VALUES
                            ),
                            format!("this range has {n}"),
                        );
                        p.help = Some("see \"Limits\" in the language reference".into());
                        return None;
                    }
                    Some((lo..=hi).map(Value::Int).collect())
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
            K::List(items) => {
                if items.len() > ir::MAX_GENERATOR_VALUES {
                    let p = self.error(
                        Code::Limit,
                        e.span,
                        format!(
                            "a generator takes at most {} values",
                            ir::MAX_GENERATOR_VALUES
                        ),
                        format!("this list has {}", items.len()),
                    );
                    p.help = Some("see \"Limits\" in the language reference".into());
                    return None;
                }
                items.iter().map(|i| self.const_eval(i, &[])).collect()
            }
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
                (ir::Dim::Enum(e1), Value::Enum(e2, k)) if e1 == e2 && (k as u32) < zd.sizes[i] => {
                    k as u32
                }
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
