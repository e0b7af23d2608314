//! Lowering of statements to bytecode with explicit jumps.

use super::{Checker, Global, Loops};
use crate::check::Code;
use crate::ir::{self, Coll, Expr, Instr, LValue, Type, Value};
use crate::syntax::ast::{self, ExprKind as K, StmtKind as S};

impl Checker {
    // ------------------------------------------------------------ statements

    /// `for var in coll { body }`, the collection lowered already; `spans` are the loop's
    /// head (blamed for an error gathering the elements) and the whole statement.
    pub(crate) fn for_loop(
        &mut self,
        coll: Coll,
        ty: Type,
        var: &ast::Ident,
        body: &ast::Block,
        spans: (ast::Span, ast::Span),
        code: &mut Vec<Instr>,
    ) {
        self.for_loop_in(coll, ty, var, body, spans, code, &mut vec![]);
    }

    #[allow(clippy::too_many_arguments)]
    fn for_loop_in(
        &mut self,
        coll: Coll,
        ty: Type,
        var: &ast::Ident,
        body: &ast::Block,
        (head, whole): (ast::Span, ast::Span),
        code: &mut Vec<Instr>,
        loops: &mut Loops,
    ) {
        let depth = self.scopes.len();
        let slot = self.alloc_local(3);
        let var = self.bind_local_at(var, ty, "binding");
        code.push(Instr::ForInit {
            coll,
            slot,
            span: head,
        });
        let top = Self::here(code);
        let next = code.len();
        code.push(Instr::ForNext { slot, var, exit: 0 });
        loops.push(vec![]);
        self.block(body, code, loops);
        code.push(Instr::LoopGuard { span: whole });
        code.push(Instr::Jump(top));
        let done = Self::here(code);
        Self::patch(code, next, done);
        for b in loops.pop().unwrap_or_default() {
            Self::patch(code, b, done);
        }
        code.push(Instr::ForDone { slot });
        self.scopes.truncate(depth);
    }

    pub(crate) fn block(&mut self, b: &ast::Block, code: &mut Vec<Instr>, loops: &mut Loops) {
        let depth = self.scopes.len();
        for s in &b.stmts {
            self.stmt(s, code, loops);
        }
        self.scopes.truncate(depth);
    }

    pub(crate) fn here(code: &[Instr]) -> u32 {
        code.len() as u32
    }

    pub(crate) fn patch(code: &mut [Instr], at: usize, to: u32) {
        match &mut code[at] {
            Instr::Jump(t) => *t = to,
            Instr::JumpIfNot(_, t, _) => *t = to,
            Instr::ForNext { exit, .. } => *exit = to,
            _ => {}
        }
    }

    pub(crate) fn stmt(&mut self, s: &ast::Stmt, code: &mut Vec<Instr>, loops: &mut Loops) {
        if self.simul.is_some() {
            self.simul_stmt(s);
        }
        match &s.kind {
            S::Simultaneous { binding, body } => self.simultaneous(s, binding, body, code),
            S::Let { name, value } => {
                let (x, t) = self.expr(value);
                let slot = self.bind_local_at(name, t, "local");
                code.push(Instr::Let(slot, x, s.span));
            }
            S::Assign { target, op, value } => {
                let (lv, tt) = self.lvalue(target);
                let (x, t) = self.expr(value);
                if *op != ast::AssignOp::Set {
                    self.expect_type(tt, Type::Int, target.span, "the target of `+=`/`-=`");
                    self.expect_type(t, Type::Int, value.span, "the amount");
                } else {
                    self.expect_type(t, tt, value.span, "the assigned value");
                }
                code.push(Instr::Assign {
                    target: lv,
                    op: *op,
                    value: x,
                    span: s.span,
                });
            }
            S::If {
                cond,
                then,
                otherwise,
            } => {
                let (c, t) = self.expr(cond);
                self.expect_type(t, Type::Bool, cond.span, "the condition of `if`");
                let jf = code.len();
                code.push(Instr::JumpIfNot(c, 0, cond.span));
                self.block(then, code, loops);
                if let Some(o) = otherwise {
                    let je = code.len();
                    code.push(Instr::Jump(0));
                    let here = Self::here(code);
                    Self::patch(code, jf, here);
                    self.block(o, code, loops);
                    let here = Self::here(code);
                    Self::patch(code, je, here);
                } else {
                    let here = Self::here(code);
                    Self::patch(code, jf, here);
                }
            }
            S::For { binding, body } => {
                let (coll, ty) = self.coll(&binding.coll);
                let spans = (head(s.span, binding.coll.span), s.span);
                self.for_loop_in(coll, ty, &binding.var, body, spans, code, loops);
            }
            S::Layout(name, text, at) => self.layout(name, text, *at, code),
            S::Repeat { count, body } => {
                let counter = count.as_ref().map(|c| {
                    let (x, t) = self.expr(c);
                    self.expect_type(t, Type::Int, c.span, "a repeat count");
                    let slot = self.alloc_local(1);
                    code.push(Instr::Let(slot, x, head(s.span, c.span)));
                    slot
                });
                let top = Self::here(code);
                let test = counter.map(|slot| {
                    let at = code.len();
                    let cond = Expr::Bin(
                        ast::BinOp::Gt,
                        Box::new(Expr::Local(slot)),
                        Box::new(Expr::Lit(Value::Int(0))),
                        s.span,
                    );
                    code.push(Instr::JumpIfNot(cond, 0, s.span));
                    code.push(Instr::Assign {
                        target: LValue::Local(slot),
                        op: ast::AssignOp::Sub,
                        value: Expr::Lit(Value::Int(1)),
                        span: s.span,
                    });
                    at
                });
                loops.push(vec![]);
                self.block(body, code, loops);
                code.push(Instr::LoopGuard { span: s.span });
                code.push(Instr::Jump(top));
                let done = Self::here(code);
                if let Some(at) = test {
                    Self::patch(code, at, done);
                }
                let breaks = loops.pop().unwrap_or_default();
                // A `repeat` with no count and no `break` runs until something ends the game;
                // the checker reports it unless an `end`, `win` or `end when` exists.
                if count.is_none() && breaks.is_empty() {
                    self.unbounded_loop.get_or_insert(s.span);
                }
                for b in breaks {
                    Self::patch(code, b, done);
                }
            }
            S::While { cond, body } => {
                let top = Self::here(code);
                let (c, t) = self.expr(cond);
                self.expect_type(t, Type::Bool, cond.span, "the condition of `while`");
                let jf = code.len();
                code.push(Instr::JumpIfNot(c, 0, cond.span));
                loops.push(vec![]);
                self.block(body, code, loops);
                code.push(Instr::LoopGuard { span: s.span });
                code.push(Instr::Jump(top));
                let done = Self::here(code);
                Self::patch(code, jf, done);
                for b in loops.pop().unwrap_or_default() {
                    Self::patch(code, b, done);
                }
            }
            S::Break => match loops.last_mut() {
                Some(l) => {
                    l.push(code.len());
                    code.push(Instr::Jump(0));
                }
                None => {
                    self.error(
                        Code::Break,
                        s.span,
                        "`break` outside a loop",
                        "nothing to leave",
                    );
                }
            },
            S::Turn { player, body } => {
                let (p, t) = self.expr(player);
                self.expect_type(t, Type::Player, player.span, "the player of a turn");
                let save = self.alloc_local(1);
                if self.has_windows() {
                    code.push(Instr::Window(true));
                }
                code.push(Instr::TurnStart {
                    player: p,
                    save,
                    span: head(s.span, player.span),
                });
                self.block(body, code, loops);
                code.push(Instr::TurnEnd { save });
            }
            S::Choose {
                by,
                each,
                arms,
                otherwise,
            } => {
                let depth = self.scopes.len();
                let each2 = each.as_ref().map(|b| {
                    let (coll, ty) = self.coll(&b.coll);
                    self.expect_type(
                        ty,
                        Type::Player,
                        b.coll.span,
                        "the players of `choose each`",
                    );
                    let slot = self.bind_local_at(&b.var, Type::Player, "binding");
                    let iter = self.alloc_local(2);
                    (
                        ir::Bind {
                            name: b.var.name.clone(),
                            slot,
                            coll,
                            ty: Type::Player,
                            span: b.coll.span,
                        },
                        iter,
                    )
                });
                if each2.is_some() && by.is_some() {
                    self.error(
                        Code::Choose,
                        s.span,
                        "a choice cannot have both `by` and `each`",
                        "choose one",
                    );
                }
                // Windows open before a choice and after it (after the chosen effect).
                if self.has_windows() {
                    code.push(Instr::Window(false));
                }
                self.choose(s, by.as_ref(), each2, arms, otherwise.as_ref(), code, loops);
                if self.has_windows() {
                    code.push(Instr::Window(false));
                }
                self.scopes.truncate(depth);
            }
            S::Move { what, to, bottom } => {
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
                    bottom: *bottom,
                    span: s.span,
                });
            }
            S::Deal {
                count,
                from,
                to,
                bottom,
            } => {
                let n = count.as_ref().map(|c| {
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
                    bottom: *bottom,
                    span: s.span,
                });
            }
            S::Shuffle(z) => {
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
            S::Roll { target, domain } => {
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
            S::Call(name, args) => {
                let found = match self.globals.get(&name.name).copied() {
                    Some((Global::Action(a), _)) => Some(a),
                    _ => None,
                };
                if !found.is_some_and(|a| self.procedures.contains(&a)) {
                    let p = self.error(
                        Code::UnknownAction,
                        name.span,
                        format!("`{}` is not a procedure", name.name),
                        "not a procedure",
                    );
                    p.help = Some(if found.is_some() {
                        format!("run an action's effect with `do {}(...)`", name.name)
                    } else {
                        "declare it with `procedure name(p: Type, ...) { ... }`".into()
                    });
                    return;
                }
                self.stmt(
                    &ast::Stmt {
                        kind: S::Do {
                            action: name.clone(),
                            args: args.clone(),
                        },
                        span: s.span,
                    },
                    code,
                    loops,
                );
            }
            S::Do { action, args } => {
                let help = "declare it with `action name(...) { ... }`";
                let Some(a) = self.action_called(action, args.len(), s.span, help) else {
                    return;
                };
                let xs = args.iter().map(|a| self.expr(a).0).collect();
                code.push(Instr::Do {
                    action: a,
                    args: xs,
                    span: s.span,
                });
                if self.has_windows() {
                    code.push(Instr::Window(false));
                }
            }
            S::DoField { target, args } => self.do_field(s.span, target, args, code),
            S::Remember(name, on) => self.remember(name, *on, s.span, code),
            S::Reveal(target, on) => {
                let (x, t) = self.expr(target);
                match x {
                    Expr::Field(comp, field) => code.push(Instr::Reveal {
                        comp: *comp,
                        field,
                        on: *on,
                        span: s.span,
                    }),
                    Expr::Lit(Value::None) => {}
                    zone if matches!(t, Type::Zone(_)) => code.push(Instr::RevealZone {
                        zone,
                        on: *on,
                        span: s.span,
                    }),
                    _ => self.not_a_field(
                        target.span,
                        "only a component's field or a zone can be revealed or hidden",
                        "write `reveal piece.element` for a field declared `seen by owner`, or `reveal hand[p]` for a zone",
                    ),
                }
            }
            S::RevealTo(target, to) => {
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
            S::End(k) => {
                self.ends = true;
                code.push(Instr::End(*k));
            }
            S::Win(who) => {
                self.ends = true;
                let (x, t) = if matches!(&who.kind, K::Name(n) if n == "all") {
                    (Expr::Lit(Value::None), Type::Player)
                } else {
                    self.expr(who)
                };
                self.expect_type(t, Type::Player, who.span, "the winner");
                code.push(Instr::Win {
                    who: x,
                    span: s.span,
                });
            }
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

    /// `do x.effect(args)`: the term must be a field of type `action(...)`, the arguments
    /// those its type lists.
    fn do_field(
        &mut self,
        span: ast::Span,
        target: &ast::Expr,
        args: &[ast::Expr],
        code: &mut Vec<Instr>,
    ) {
        if let K::Name(n) = &target.kind {
            if let Some((Global::Action(a), _)) = self.globals.get(n).copied() {
                let want = self.action_arity.get(&a).copied().unwrap_or(0);
                let args = vec!["_"; want].join(", ");
                let p = self.error(
                    Code::Effect,
                    target.span,
                    format!("`do {n}` needs its arguments in parentheses"),
                    "no arguments written",
                );
                p.help = Some(format!("write `do {n}({args})`"));
                return;
            }
        }
        let (x, t) = self.expr(target);
        let xs: Vec<(Expr, Type)> = args.iter().map(|a| self.expr(a)).collect();
        let sig = match t {
            Type::Action(sig) => sig,
            Type::Any => return,
            other => {
                let what = self.type_name(other);
                let p = self.error(
                    Code::Effect,
                    target.span,
                    "`do` runs an action: `do name(args)`, or `do x.effect(args)` for a field of type `action`",
                    format!("this is {what}, not an action"),
                );
                p.help = Some(
                    "declare the field `effect: action(Card)` and name an action in each entry"
                        .into(),
                );
                return;
            }
        };
        let want = self.game.signatures[sig].clone();
        if want.len() != xs.len() {
            let ty = self.type_name(t);
            let p = self.error(
                Code::Arity,
                span,
                format!(
                    "this field holds `{ty}`: it takes {} argument(s), got {}",
                    want.len(),
                    xs.len()
                ),
                "wrong number of arguments",
            );
            p.help = Some("pass what the field's type lists, e.g. `do c.effect(c)`".into());
        } else {
            for (i, ((_, got), w)) in xs.iter().zip(&want).enumerate() {
                self.expect_type(*got, *w, args[i].span, &format!("argument {}", i + 1));
            }
        }
        code.push(Instr::DoField {
            target: x,
            args: xs.into_iter().map(|(e, _)| e).collect(),
            span,
        });
        if self.has_windows() {
            code.push(Instr::Window(false));
        }
    }
}

/// The head of a statement with a body, from its first word to the end of `last` (the
/// collection of a `for`, the count of a `repeat`, the player of a `turn`): what a run-time
/// error there underlines, without the body.
fn head(stmt: ast::Span, last: ast::Span) -> ast::Span {
    ast::Span {
        end: last.end.max(stmt.start),
        ..stmt
    }
}
