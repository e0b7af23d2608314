//! Bindings, blocks, statements and the steps of a flow.

use super::*;

pub(super) fn binding(p: Pair<Rule>) -> Binding {
    binding_deep(p).0
}

/// `x in C`, with the depth of its collection's tree.
pub(super) fn binding_deep(p: Pair<Rule>) -> (Binding, usize) {
    let mut it = p.into_inner();
    let var = ident(it.next().expect("binding var"));
    it.next(); // kw_in
    let (coll, depth) = coll(it.next().expect("collection"));
    (Binding { var, coll }, depth)
}

pub(super) fn coll(p: Pair<Rule>) -> Deep {
    let inner = p.into_inner().next().expect("coll");
    match inner.as_rule() {
        Rule::range => range(inner),
        _ => deep(inner),
    }
}

pub(super) fn range(p: Pair<Rule>) -> Deep {
    let sp = span(&p);
    let mut it = p.into_inner();
    let (a, da) = term(it.next().expect("range start"));
    let (b, db) = term(it.next().expect("range end"));
    node(
        ExprKind::Range(Box::new(a), Box::new(b)),
        sp,
        da.max(db) + 1,
    )
}

pub(super) fn block(p: Pair<Rule>) -> Block {
    let sp = span(&p);
    if !enter(sp) {
        return Block {
            stmts: vec![],
            span: sp,
        };
    }
    let stmts = p.into_inner().map(stmt).collect();
    leave();
    Block { stmts, span: sp }
}

pub(super) fn else_block(p: Pair<Rule>) -> Block {
    block(p.into_inner().nth(1).expect("else block"))
}

pub(super) fn stmt(p: Pair<Rule>) -> Stmt {
    // Without the blanks a statement's last repetition may have read past its end: a
    // run-time error underlines the statement only.
    let mut sp = span(&p);
    sp.end = sp.start + p.as_str().trim_end().len();
    if !enter(sp) {
        return Stmt {
            kind: StmtKind::Break,
            span: sp,
        };
    }
    let s = stmt_inner(p, sp);
    leave();
    s
}

/// A statement of the kind `p`'s rule names; each kind with more than a few parts is read by
/// a function of its own.
pub(super) fn stmt_inner(p: Pair<Rule>, sp: Span) -> Stmt {
    let rule = p.as_rule();
    let mut it = p.into_inner();
    let kind = match rule {
        Rule::let_stmt => {
            it.next();
            let name = ident(it.next().expect("let name"));
            StmtKind::Let {
                name,
                value: expr(it.next().expect("let value")),
            }
        }
        Rule::assign_stmt => assign_stmt(it),
        Rule::if_stmt => if_stmt(it),
        Rule::for_stmt => {
            it.next();
            let binding = binding(it.next().expect("binding"));
            StmtKind::For {
                binding,
                body: block(it.next().expect("body")),
            }
        }
        Rule::repeat_stmt => repeat_stmt(it),
        Rule::while_stmt => {
            it.next();
            let cond = expr(it.next().expect("cond"));
            StmtKind::While {
                cond,
                body: block(it.next().expect("body")),
            }
        }
        Rule::break_stmt => StmtKind::Break,
        Rule::turn_stmt => {
            it.next();
            let player = expr(it.next().expect("player"));
            StmtKind::Turn {
                player,
                body: block(it.next().expect("body")),
            }
        }
        Rule::simultaneous_stmt => {
            it.next();
            let binding = binding(it.next().expect("binding"));
            StmtKind::Simultaneous {
                binding,
                body: block(it.next().expect("body")),
            }
        }
        Rule::choose_stmt => choose_stmt(it),
        Rule::move_stmt => {
            it.next();
            let what = expr(it.next().expect("what"));
            it.next(); // kw_to
            let (to, bottom) = destination(it);
            StmtKind::Move { what, to, bottom }
        }
        Rule::deal_stmt => deal_stmt(it),
        Rule::shuffle_stmt => {
            it.next();
            StmtKind::Shuffle(expr(it.next().expect("zone")))
        }
        Rule::roll_stmt => {
            it.next();
            let target = expr(it.next().expect("target"));
            it.next(); // kw_in
            let domain = it.next().map(|q| coll(q).0);
            StmtKind::Roll { target, domain }
        }
        Rule::do_stmt => do_stmt(it),
        Rule::end_stmt => {
            it.next();
            let kind = match it.next().map(|q| q.as_rule()) {
                Some(Rule::kw_draw) => EndKind::Draw,
                Some(Rule::kw_lose) => EndKind::Lose,
                _ => EndKind::Score,
            };
            StmtKind::End(kind)
        }
        Rule::win_stmt => {
            it.next();
            StmtKind::Win(expr(it.next().expect("winner")))
        }
        Rule::reveal_stmt | Rule::hide_stmt => {
            it.next();
            let field = expr(it.next().expect("field"));
            match it.nth(1) {
                Some(to) => StmtKind::RevealTo(field, expr(to)),
                None => StmtKind::Reveal(field, rule == Rule::reveal_stmt),
            }
        }
        Rule::remember_stmt | Rule::forget_stmt => {
            it.next();
            StmtKind::Remember(
                ident(it.next().expect("memory name")),
                rule == Rule::remember_stmt,
            )
        }
        Rule::call_stmt => {
            let name = ident(it.next().expect("procedure name"));
            StmtKind::Call(name, it.map(expr).collect())
        }
        Rule::layout_stmt => {
            let name = ident(it.next().expect("legend name"));
            let s = it.next().expect("layout text");
            let sp = span(&s);
            StmtKind::Layout(name, string(s), sp)
        }
        r => unreachable!("grammar: unexpected statement {r:?}"),
    };
    Stmt { kind, span: sp }
}

/// `target = value`, `target += value` or `target -= value`.
fn assign_stmt(mut it: Pairs<Rule>) -> StmtKind {
    let target = expr(it.next().expect("target"));
    let op = match it.next().expect("op").as_str() {
        "+=" => AssignOp::Add,
        "-=" => AssignOp::Sub,
        _ => AssignOp::Set,
    };
    StmtKind::Assign {
        target,
        op,
        value: expr(it.next().expect("value")),
    }
}

/// `if cond { } else { }`, an `else if` read as an `else` block holding one `if`.
fn if_stmt(mut it: Pairs<Rule>) -> StmtKind {
    it.next();
    let cond = expr(it.next().expect("cond"));
    let then = block(it.next().expect("then"));
    let otherwise = it.nth(1).map(|q| match q.as_rule() {
        Rule::if_stmt => {
            let s = stmt(q);
            Block {
                span: s.span,
                stmts: vec![s],
            }
        }
        _ => block(q),
    });
    StmtKind::If {
        cond,
        then,
        otherwise,
    }
}

/// `repeat [count] { body }`.
fn repeat_stmt(mut it: Pairs<Rule>) -> StmtKind {
    it.next();
    let mut count = None;
    let mut body = Block::default();
    for q in it {
        match q.as_rule() {
            Rule::expr => count = Some(expr(q)),
            Rule::block => body = block(q),
            _ => {}
        }
    }
    StmtKind::Repeat { count, body }
}

/// `choose [by p | each p in C] { arms } [else { }]` or `choose x in C where cond { }`.
fn choose_stmt(mut it: Pairs<Rule>) -> StmtKind {
    it.next();
    let mut by = None;
    let mut each = None;
    let mut arms = None;
    let mut otherwise = None;
    for q in it {
        match q.as_rule() {
            Rule::chooser => by = Some(expr(q.into_inner().nth(1).expect("chooser"))),
            Rule::each_chooser => each = q.into_inner().nth(1).map(binding),
            Rule::choose_arms => {
                let mut list = Vec::new();
                for a in q.into_inner() {
                    match a.as_rule() {
                        Rule::arm => {
                            let mut ai = a.into_inner();
                            let name = ident(ai.next().expect("arm name"));
                            list.push(Arm {
                                name,
                                body: ai.next().map(block),
                            });
                        }
                        Rule::else_block => otherwise = Some(else_block(a)),
                        _ => {}
                    }
                }
                arms = Some(ChooseArms::Arms(list));
            }
            Rule::choose_value => {
                let mut bindings = Vec::new();
                let mut guard = None;
                let mut body = Block::default();
                for a in q.into_inner() {
                    match a.as_rule() {
                        Rule::binding => bindings.push(binding(a)),
                        Rule::expr => guard = Some(expr(a)),
                        Rule::block => body = block(a),
                        Rule::else_block => otherwise = Some(else_block(a)),
                        _ => {}
                    }
                }
                arms = Some(ChooseArms::Value {
                    bindings,
                    guard,
                    body,
                });
            }
            _ => {}
        }
    }
    StmtKind::Choose {
        each,
        by,
        arms: arms.expect("choose arms"),
        otherwise,
    }
}

/// `deal n from a to [bottom of] b`, or `deal all from a to b`.
fn deal_stmt(mut it: Pairs<Rule>) -> StmtKind {
    it.next();
    let n = it.next().expect("count");
    let count = if n.as_rule() == Rule::kw_all {
        None
    } else {
        Some(expr(n))
    };
    it.next(); // from
    let from = expr(it.next().expect("from"));
    it.next(); // to
    let (to, bottom) = destination(it);
    StmtKind::Deal {
        count,
        from,
        to,
        bottom,
    }
}

/// `do name(args)`, or `do` with any other term (`do x.effect(args)`), for the checker.
fn do_stmt(mut it: Pairs<Rule>) -> StmtKind {
    it.next();
    let target = term(it.next().expect("action")).0;
    let args: Option<Vec<Expr>> = it.next().map(|q| q.into_inner().map(expr).collect());
    match (target.kind, args) {
        (ExprKind::Call(action, args), None) => StmtKind::Do { action, args },
        (kind, args) => StmtKind::DoField {
            target: Expr {
                kind,
                span: target.span,
            },
            args: args.unwrap_or_default(),
        },
    }
}

/// The destination after `to` in `move` and `deal`: `[bottom of] zone`.
pub(super) fn destination(pairs: Pairs<Rule>) -> (Expr, bool) {
    let mut bottom = false;
    let mut to = None;
    for q in pairs {
        match q.as_rule() {
            Rule::bottom_of => bottom = true,
            Rule::expr => to = Some(expr(q)),
            _ => {}
        }
    }
    (to.expect("grammar: a destination zone"), bottom)
}

pub(in crate::syntax) fn step(p: Pair<Rule>) -> Step {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = p.into_inner();
    it.next();
    let kind = match rule {
        Rule::sc_players => StepKind::Players(int(&it.next().expect("n"))),
        Rule::sc_seed => {
            let n = it.next().expect("seed");
            StepKind::Seed(n.as_str().parse().unwrap_or_else(|_| {
                too_large(&n, &u64::MAX.to_string());
                0
            }))
        }
        Rule::sc_variant => StepKind::Variant(it.map(ident).collect()),
        Rule::sc_set => {
            let name = ident(it.next().expect("constant"));
            StepKind::Set(name, expr(it.next().expect("value")))
        }
        Rule::sc_chance => StepKind::Chance(ident(it.next().expect("mode"))),
        Rule::sc_setup => StepKind::Setup(block(it.next().expect("block"))),
        Rule::sc_apply => StepKind::Apply(string(it.next().expect("action"))),
        Rule::sc_expect_legal => StepKind::ExpectLegal(string(it.nth(1).expect("action"))),
        Rule::sc_expect_not_legal => StepKind::ExpectNotLegal(string(it.nth(2).expect("action"))),
        Rule::sc_expect_illegal_apply => {
            StepKind::ExpectIllegal(string(it.nth(1).expect("action")))
        }
        Rule::sc_expect_finished => StepKind::ExpectFinished,
        Rule::sc_expect_not_finished => StepKind::ExpectNotFinished,
        Rule::sc_expect_winners => StepKind::ExpectWinners(expr(it.nth(1).expect("winners"))),
        Rule::sc_expect_actor => StepKind::ExpectActor(expr(it.nth(1).expect("actor"))),
        Rule::sc_expect => StepKind::Expect(expr(it.next().expect("expr"))),
        Rule::sc_expect_sees => {
            let seat = expr(it.next().expect("seat"));
            let mut sees = true;
            let mut target = None;
            for q in it {
                match q.as_rule() {
                    Rule::kw_not => sees = false,
                    Rule::expr => target = Some(expr(q)),
                    _ => {}
                }
            }
            StepKind::ExpectSees {
                seat,
                target: target.expect("what is seen"),
                sees,
            }
        }
        r => unreachable!("grammar: unexpected step {r:?}"),
    };
    Step { kind, span: sp }
}
