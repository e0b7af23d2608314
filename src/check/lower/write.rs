//! Lowering of the statements that write: assignments, moves and deals of components,
//! shuffles, rolls, reveals, and the targets and destinations they write.

use super::Checker;
use crate::check::Code;
use crate::ir::{Coll, Expr, Instr, LValue, Type, Value};
use crate::syntax::ast::{self, ExprKind as K};

impl Checker {
    /// `target = value`, `target += value` or `target -= value`: the target and the value
    /// must agree in type, and both be numbers when the operator adds or subtracts.
    pub(super) fn assign_stmt(
        &mut self,
        s: &ast::Stmt,
        target: &ast::Expr,
        op: ast::AssignOp,
        value: &ast::Expr,
        code: &mut Vec<Instr>,
    ) {
        let (lv, tt) = self.lvalue(target);
        let (x, t) = self.expr(value);
        if op != ast::AssignOp::Set {
            self.expect_type(tt, Type::Int, target.span, "the target of `+=`/`-=`");
            self.expect_type(t, Type::Int, value.span, "the amount");
        } else {
            self.expect_type(t, tt, value.span, "the assigned value");
        }
        code.push(Instr::Assign {
            target: lv,
            op,
            value: x,
            span: s.span,
        });
    }

    /// `move what to [bottom of] to`: only a component moves, to a zone that can hold it.
    pub(super) fn move_stmt(
        &mut self,
        s: &ast::Stmt,
        what: &ast::Expr,
        to: &ast::Expr,
        bottom: bool,
        code: &mut Vec<Instr>,
    ) {
        let (w, tw) = self.expr(what);
        let (z, tz) = self.expr(to);
        self.check_zone_dest(&z, tz, Some(tw), to.span);
        if !matches!(tw, Type::Comp(_) | Type::Any) {
            let p = self.error(
                Code::Type,
                what.span,
                format!("only components move, not {}", self.type_name(tw)),
                "not a component",
            );
            p.help = Some("to move several, use `deal n from zone to zone`".into());
        }
        code.push(Instr::Move {
            what: w,
            to: z,
            bottom,
            span: s.span,
        });
    }

    /// `deal n from a to [bottom of] b` (or `deal all`): from a zone to a zone that can hold
    /// its components.
    pub(super) fn deal_stmt(
        &mut self,
        s: &ast::Stmt,
        count: Option<&ast::Expr>,
        from: &ast::Expr,
        to: &ast::Expr,
        bottom: bool,
        code: &mut Vec<Instr>,
    ) {
        let n = count.map(|c| {
            let (x, t) = self.expr(c);
            self.expect_type(t, Type::Int, c.span, "the number of components to deal");
            x
        });
        let (f, tf) = self.expr(from);
        if !matches!(tf, Type::Zone(_) | Type::Any) {
            self.error(
                Code::Type,
                from.span,
                format!("deal takes from a zone, not {}", self.type_name(tf)),
                "not a zone",
            );
        }
        let (z, tz) = self.expr(to);
        let elem = if let Type::Zone(c) = tf {
            Some(Type::Comp(c))
        } else {
            None
        };
        self.check_zone_dest(&z, tz, elem, to.span);
        code.push(Instr::Deal {
            count: n,
            from: f,
            to: z,
            bottom,
            span: s.span,
        });
    }

    /// `shuffle z`: only a zone can be shuffled.
    pub(super) fn shuffle_stmt(&mut self, s: &ast::Stmt, z: &ast::Expr, code: &mut Vec<Instr>) {
        let (x, t) = self.expr(z);
        if !matches!(t, Type::Zone(_) | Type::Any) {
            self.error(
                Code::Type,
                z.span,
                format!("only zones can be shuffled, not {}", self.type_name(t)),
                "not a zone",
            );
        }
        code.push(Instr::Shuffle {
            zone: x,
            span: s.span,
        });
    }

    /// `roll target [in domain]`: without `in`, the values come from the target's declared
    /// range or type, and a target that gives none is an error (rolled over nothing).
    pub(super) fn roll_stmt(
        &mut self,
        s: &ast::Stmt,
        target: &ast::Expr,
        domain: Option<&ast::Expr>,
        code: &mut Vec<Instr>,
    ) {
        let (lv, tt) = self.lvalue(target);
        let coll = match domain {
            Some(d) => {
                let (c, t) = self.coll(d);
                self.expect_type(t, tt, d.span, "the rolled value");
                c
            }
            None => match self.roll_domain(&lv, tt) {
                Some(c) => c,
                None => {
                    let p = self.error(
                        Code::Roll,
                        target.span,
                        "cannot tell which values this roll can take",
                        "no domain",
                    );
                    p.help = Some("say it: `roll x in 1..6`, or roll a field whose type is an enum or a range".into());
                    Coll::List(vec![])
                }
            },
        };
        code.push(Instr::Roll {
            target: lv,
            domain: coll,
            span: s.span,
        });
    }

    /// `reveal target` or `hide target` (`on` tells which): a component's field or a zone. A
    /// target that lowered to `none` (an error already reported) adds nothing.
    pub(super) fn reveal_stmt(
        &mut self,
        s: &ast::Stmt,
        target: &ast::Expr,
        on: bool,
        code: &mut Vec<Instr>,
    ) {
        let (x, t) = self.expr(target);
        match x {
            Expr::Field(comp, field) => code.push(Instr::Reveal {
                comp: *comp,
                field,
                on,
                span: s.span,
            }),
            Expr::Lit(Value::None) => {}
            zone if matches!(t, Type::Zone(_)) => code.push(Instr::RevealZone {
                zone,
                on,
                span: s.span,
            }),
            _ => self.not_a_field(
                target.span,
                "only a component's field or a zone can be revealed or hidden",
                "write `reveal piece.element` for a field declared `seen by owner`, or `reveal hand[p]` for a zone",
            ),
        }
    }

    /// `reveal target to p`: only a component's field is shown to one player.
    pub(super) fn reveal_to_stmt(
        &mut self,
        s: &ast::Stmt,
        target: &ast::Expr,
        to: &ast::Expr,
        code: &mut Vec<Instr>,
    ) {
        let (x, _) = self.expr(target);
        let (p, t) = self.expr(to);
        self.expect_type(t, Type::Player, to.span, "the player a field is shown to");
        match x {
            Expr::Field(comp, field) => code.push(Instr::RevealTo {
                comp: *comp,
                field,
                to: p,
                span: s.span,
            }),
            Expr::Lit(Value::None) => {}
            _ => self.not_a_field(
                target.span,
                "only a component's field can be revealed to a player",
                "write `reveal piece.element to me` for a field declared `seen by owner`",
            ),
        }
    }

    /// The values a `roll` without `in` can give: the target's range, enum, players or board.
    /// For a field, the range is that of the component type the field was found in.
    pub(crate) fn roll_domain(&self, lv: &LValue, t: Type) -> Option<Coll> {
        let range = match lv {
            LValue::Var { var, .. } => self.game.vars[*var].range,
            LValue::Field { field, ty, .. } => self.game.types[*ty]
                .fields
                .get(*field as usize)
                .and_then(|f| f.range),
            LValue::Local(_) => None,
        };
        if let Some((lo, hi)) = range {
            return Some(Coll::Range(
                Expr::Lit(Value::Int(lo)),
                Expr::Lit(Value::Int(hi)),
            ));
        }
        match t {
            Type::Enum(e) => Some(Coll::Enum(e)),
            Type::Player => Some(Coll::Players),
            Type::Space(b) => Some(Coll::Board(b)),
            _ => None,
        }
    }

    pub(crate) fn check_zone_dest(
        &mut self,
        z: &Expr,
        tz: Type,
        elem: Option<Type>,
        span: ast::Span,
    ) {
        match tz {
            Type::Zone(ct) => {
                if let Some(Type::Comp(c)) = elem {
                    if c != ct {
                        let p = self.error(
                            Code::Type,
                            span,
                            format!(
                                "this zone holds {}, not {}",
                                self.game.types[ct].name, self.game.types[c].name
                            ),
                            "wrong kind of zone",
                        );
                        p.help =
                            Some("a zone holds components of the type it was declared with".into());
                    }
                }
            }
            Type::Any => {}
            other => {
                self.error(
                    Code::Type,
                    span,
                    format!(
                        "the destination must be a zone, not {}",
                        self.type_name(other)
                    ),
                    "not a zone",
                );
            }
        }
        if let Expr::Zone(zi, _) = z {
            let zd = &self.game.zones[*zi];
            for i in zd.instances() {
                self.filled_zones.insert(i);
            }
        }
    }

    pub(crate) fn lvalue(&mut self, e: &ast::Expr) -> (LValue, Type) {
        match &e.kind {
            K::Name(n) if self.lookup_local(n).is_some() => {
                let l = self.lookup_local(n).expect("checked").clone();
                self.note_local(e.span, &l);
                (LValue::Local(l.slot), l.ty)
            }
            K::Name(_) | K::Index(..) => {
                let (x, t) = self.expr(e);
                match x {
                    Expr::Var(v, ix) => (LValue::Var { var: v, index: ix }, t),
                    Expr::Lit(Value::None) => (LValue::Local(0), Type::Any),
                    _ => {
                        let p = self.error(
                            Code::Assign,
                            e.span,
                            "cannot assign to this",
                            "not a variable",
                        );
                        p.help = Some("assign to a `var`, a component field or a `let` name; zones change with `move` and `deal`".into());
                        (LValue::Local(0), Type::Any)
                    }
                }
            }
            K::Field(..) => {
                self.field_owner = None;
                let (x, t) = self.expr(e);
                let owner = self.field_owner;
                match (x, owner) {
                    (Expr::Field(c, f), Some(ty)) => (
                        LValue::Field {
                            comp: *c,
                            field: f,
                            ty,
                        },
                        t,
                    ),
                    _ => {
                        self.error(Code::Assign, e.span, "cannot assign to this", "not a field");
                        (LValue::Local(0), Type::Any)
                    }
                }
            }
            _ => {
                let p = self.error(
                    Code::Assign,
                    e.span,
                    "cannot assign to this",
                    "not a variable",
                );
                p.help =
                    Some("the left side of `=` must be a variable, a field or a `let` name".into());
                (LValue::Local(0), Type::Any)
            }
        }
    }

    /// `reveal`, `hide` or `reveal ... to` of something that is not a component's field.
    fn not_a_field(&mut self, span: ast::Span, message: &str, help: &str) {
        let p = self.error(Code::Reveal, span, message, "not a field");
        p.help = Some(help.into());
    }
}
