//! The parse tree (pest pairs) lowered to the syntax tree; the grammar guarantees the shapes
//! this code takes apart, so a mismatch here is a bug in the grammar or in this file.

use super::ast::*;
use super::grammar::Rule;
use crate::source::FileId;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::sync::OnceLock;

thread_local! {
    /// The file whose text is being lowered, for the spans of its tree (set by the `parse_*`
    /// functions for the duration of one parse).
    pub(super) static FILE: std::cell::Cell<FileId> = const { std::cell::Cell::new(FileId::RULES) };
}

pub(super) fn span(p: &Pair<Rule>) -> Span {
    let s = p.as_span();
    Span::in_file(s.start(), s.end(), FILE.with(|f| f.get()))
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

fn int(p: &Pair<Rule>) -> i64 {
    // The grammar only admits digits; a number too large for i64 saturates and the
    // checker's range checks then report it.
    p.as_str().parse().unwrap_or(i64::MAX)
}

pub(super) fn decl(p: Pair<Rule>) -> Decl {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = p.into_inner();
    it.next(); // the keyword
    let kind = match rule {
        Rule::game_decl => DeclKind::Game(string(it.next().expect("game name"))),
        Rule::players_decl => {
            let min = int(&it.next().expect("players min"));
            let max = it.next().map_or(min, |p| int(&p));
            DeclKind::Players { min, max }
        }
        Rule::const_decl => {
            let name = ident(it.next().expect("const name"));
            DeclKind::Const {
                name,
                value: expr(it.next().expect("const value")),
            }
        }
        Rule::variant_decl => {
            let name = ident(it.next().expect("variant name"));
            let mut description = None;
            let mut group = None;
            let mut sets = Vec::new();
            for q in it {
                match q.as_rule() {
                    Rule::string => description = Some(string(q)),
                    Rule::variant_group => group = q.into_inner().nth(1).map(ident),
                    Rule::variant_set => {
                        let mut s = q.into_inner();
                        let n = ident(s.next().expect("name"));
                        sets.push((n, expr(s.next().expect("value"))));
                    }
                    _ => {}
                }
            }
            DeclKind::Variant {
                name,
                description,
                group,
                sets,
            }
        }
        Rule::enum_decl => {
            let name = ident(it.next().expect("enum name"));
            DeclKind::Enum {
                name,
                values: it.map(ident).collect(),
            }
        }
        Rule::component_decl => {
            let name = ident(it.next().expect("component name"));
            let fields = it
                .map(|f| {
                    let mut f = f.into_inner();
                    let name = ident(f.next().expect("field name"));
                    let ty = type_expr(f.next().expect("field type"));
                    let mut seen_by = None;
                    let mut default = None;
                    for q in f {
                        match q.as_rule() {
                            Rule::seen_by => seen_by = q.into_inner().nth(2).map(ident),
                            _ => default = Some(expr(q)),
                        }
                    }
                    FieldDecl {
                        name,
                        ty,
                        seen_by,
                        default,
                    }
                })
                .collect();
            DeclKind::Component { name, fields }
        }
        Rule::components_decl => {
            let ty = ident(it.next().expect("type"));
            it.next(); // kw_in
            let zone = expr(it.next().expect("zone"));
            let entries = it.map(entry).collect();
            DeclKind::Components { ty, zone, entries }
        }
        Rule::board_decl => {
            let name = ident(it.next().expect("board name"));
            let shape = ident(it.next().expect("board shape"));
            let mut args = Vec::new();
            let mut flags = Vec::new();
            for q in it {
                match q.as_rule() {
                    Rule::expr => args.push(expr(q)),
                    Rule::board_flag => flags.push(ident(q)),
                    _ => {}
                }
            }
            DeclKind::Board {
                name,
                shape,
                args,
                flags,
            }
        }
        Rule::zone_decl => {
            let name = ident(it.next().expect("zone name"));
            let mut index = Vec::new();
            let mut rest = Vec::new();
            for q in it {
                match q.as_rule() {
                    Rule::index_types => index = q.into_inner().map(ident).collect(),
                    Rule::ident | Rule::visibility => rest.push(ident(q)),
                    _ => {}
                }
            }
            let mut rest = rest.into_iter();
            let ty = rest.next().expect("zone type");
            DeclKind::Zone {
                name,
                index,
                ty,
                visibility: rest.next(),
            }
        }
        Rule::var_decl => {
            let name = ident(it.next().expect("var name"));
            let mut index = Vec::new();
            let mut ty = None;
            let mut init = None;
            let mut visibility = None;
            for q in it {
                match q.as_rule() {
                    Rule::index_types => index = q.into_inner().map(ident).collect(),
                    Rule::type_expr => ty = Some(type_expr(q)),
                    Rule::visibility => visibility = Some(ident(q)),
                    Rule::expr => init = Some(expr(q)),
                    _ => {}
                }
            }
            DeclKind::Var {
                name,
                index,
                ty: ty.expect("var type"),
                init,
                visibility,
            }
        }
        Rule::def_decl => {
            let name = ident(it.next().expect("def name"));
            let mut params = Vec::new();
            let mut body = None;
            for q in it {
                match q.as_rule() {
                    Rule::param => params.push(param(q)),
                    Rule::expr => body = Some(expr(q)),
                    _ => {}
                }
            }
            DeclKind::Def {
                name,
                params,
                body: body.expect("def body"),
            }
        }
        Rule::action_decl => {
            let name = ident(it.next().expect("action name"));
            let mut params = Vec::new();
            let mut guard = None;
            let mut body = None;
            let mut window = None;
            for q in it {
                match q.as_rule() {
                    Rule::binding => params.push(binding(q)),
                    Rule::expr => guard = Some(expr(q)),
                    Rule::block => body = Some(block(q)),
                    Rule::window => {
                        // `anytime`, or `before` and a word.
                        window = Some(match q.into_inner().nth(1) {
                            Some(word) => Window::Before(ident(word)),
                            None => Window::Anytime,
                        });
                    }
                    _ => {}
                }
            }
            DeclKind::Action {
                name,
                params,
                guard,
                window,
                body: body.expect("action body"),
            }
        }
        Rule::trigger_decl => {
            let name = ident(it.next().expect("trigger name"));
            let (mut each, mut cond, mut body) = (None, None, None);
            for q in it {
                match q.as_rule() {
                    Rule::binding => each = Some(binding(q)),
                    Rule::expr => cond = Some(expr(q)),
                    Rule::block => body = Some(block(q)),
                    _ => {}
                }
            }
            DeclKind::Trigger {
                name,
                each,
                cond,
                body: body.expect("trigger body"),
            }
        }
        Rule::setup_decl => DeclKind::Setup(block(it.next().expect("setup block"))),
        Rule::flow_decl => DeclKind::Flow(block(it.next().expect("flow block"))),
        Rule::end_when_decl => {
            it.next(); // kw_when
            DeclKind::EndWhen(expr(it.next().expect("end condition")))
        }
        Rule::score_decl | Rule::tiebreak_decl => {
            let player = ident(it.next().expect("player name"));
            let value = expr(it.next().expect("value"));
            if rule == Rule::score_decl {
                DeclKind::Score { player, value }
            } else {
                DeclKind::Tiebreak { player, value }
            }
        }
        Rule::ties_decl => DeclKind::Ties(ident(it.next().expect("ties kind"))),
        Rule::set_decl => {
            let name = ident(it.next().expect("set name"));
            let mut params = Vec::new();
            let mut exprs = Vec::new();
            for q in it {
                match q.as_rule() {
                    Rule::param => params.push(param(q)),
                    Rule::expr => exprs.push(expr(q)),
                    _ => {}
                }
            }
            let points = exprs.pop().expect("set value");
            DeclKind::Set {
                name,
                params,
                cond: exprs.pop(),
                points,
            }
        }
        r => unreachable!("grammar: unexpected declaration {r:?}"),
    };
    Decl { kind, span: sp }
}

fn entry(p: Pair<Rule>) -> Entry {
    let mut name = String::new();
    let mut name_span = Span::default();
    let mut generators = Vec::new();
    let mut fields = Vec::new();
    for q in p.into_inner() {
        match q.as_rule() {
            Rule::string => {
                name_span = span(&q);
                name = string(q);
            }
            Rule::binding => generators.push(binding(q)),
            Rule::field_init => {
                let mut f = q.into_inner();
                let n = ident(f.next().expect("field"));
                fields.push((n, expr(f.next().expect("value"))));
            }
            _ => {}
        }
    }
    Entry {
        name,
        name_span,
        generators,
        fields,
    }
}

fn type_expr(p: Pair<Rule>) -> TypeExpr {
    let mut parts = p.into_inner();
    let inner = parts.next().expect("type");
    match inner.as_rule() {
        Rule::range_type => {
            let sp = span(&inner);
            let mut r = inner.into_inner();
            let lo = r.next().expect("lo").as_str().parse().unwrap_or(i64::MIN);
            let hi = r.next().expect("hi").as_str().parse().unwrap_or(i64::MAX);
            let clamp = parts.next().is_some();
            TypeExpr::Range {
                lo,
                hi,
                span: sp,
                clamp,
            }
        }
        _ => TypeExpr::Named(ident(inner)),
    }
}

/// `name: type`.
fn param(p: Pair<Rule>) -> (Ident, TypeExpr) {
    let mut q = p.into_inner();
    let n = ident(q.next().expect("param"));
    (n, type_expr(q.next().expect("param type")))
}

fn binding(p: Pair<Rule>) -> Binding {
    let mut it = p.into_inner();
    let var = ident(it.next().expect("binding var"));
    it.next(); // kw_in
    Binding {
        var,
        coll: coll(it.next().expect("collection")),
    }
}

fn coll(p: Pair<Rule>) -> Expr {
    let inner = p.into_inner().next().expect("coll");
    match inner.as_rule() {
        Rule::range => range(inner),
        _ => expr(inner),
    }
}

fn range(p: Pair<Rule>) -> Expr {
    let sp = span(&p);
    let mut it = p.into_inner();
    let a = term(it.next().expect("range start"));
    let b = term(it.next().expect("range end"));
    Expr {
        kind: ExprKind::Range(Box::new(a), Box::new(b)),
        span: sp,
    }
}

fn block(p: Pair<Rule>) -> Block {
    let sp = span(&p);
    Block {
        stmts: p.into_inner().map(stmt).collect(),
        span: sp,
    }
}

fn else_block(p: Pair<Rule>) -> Block {
    block(p.into_inner().nth(1).expect("else block"))
}

fn stmt(p: Pair<Rule>) -> Stmt {
    let sp = span(&p);
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
        Rule::assign_stmt => {
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
        Rule::if_stmt => {
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
        Rule::for_stmt => {
            it.next();
            let binding = binding(it.next().expect("binding"));
            StmtKind::For {
                binding,
                body: block(it.next().expect("body")),
            }
        }
        Rule::repeat_stmt => {
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
        Rule::choose_stmt => {
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
        Rule::move_stmt => {
            it.next();
            let what = expr(it.next().expect("what"));
            it.next(); // kw_to
            let (to, bottom) = destination(it);
            StmtKind::Move { what, to, bottom }
        }
        Rule::deal_stmt => {
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
        Rule::shuffle_stmt => {
            it.next();
            StmtKind::Shuffle(expr(it.next().expect("zone")))
        }
        Rule::roll_stmt => {
            it.next();
            let target = expr(it.next().expect("target"));
            it.next(); // kw_in
            let domain = it.next().map(coll);
            StmtKind::Roll { target, domain }
        }
        Rule::do_stmt => {
            it.next();
            let action = ident(it.next().expect("action"));
            StmtKind::Do {
                action,
                args: it.map(expr).collect(),
            }
        }
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
        r => unreachable!("grammar: unexpected statement {r:?}"),
    };
    Stmt { kind, span: sp }
}

/// The destination after `to` in `move` and `deal`: `[bottom of] zone`.
fn destination(pairs: Pairs<Rule>) -> (Expr, bool) {
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

pub(super) fn step(p: Pair<Rule>) -> Step {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = p.into_inner();
    it.next();
    let kind = match rule {
        Rule::sc_players => StepKind::Players(int(&it.next().expect("n"))),
        Rule::sc_seed => StepKind::Seed(
            it.next()
                .expect("seed")
                .as_str()
                .parse()
                .unwrap_or(u64::MAX),
        ),
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

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::op_or, Assoc::Left))
            .op(Op::infix(Rule::op_and, Assoc::Left))
            .op(Op::prefix(Rule::op_not))
            .op(Op::infix(Rule::op_eq, Assoc::Left)
                | Op::infix(Rule::op_ne, Assoc::Left)
                | Op::infix(Rule::op_lt, Assoc::Left)
                | Op::infix(Rule::op_le, Assoc::Left)
                | Op::infix(Rule::op_gt, Assoc::Left)
                | Op::infix(Rule::op_ge, Assoc::Left))
            .op(Op::infix(Rule::op_add, Assoc::Left) | Op::infix(Rule::op_sub, Assoc::Left))
            .op(Op::infix(Rule::op_mul, Assoc::Left)
                | Op::infix(Rule::op_div, Assoc::Left)
                | Op::infix(Rule::op_mod, Assoc::Left))
            .op(Op::prefix(Rule::op_neg))
    })
}

fn expr(p: Pair<Rule>) -> Expr {
    pratt_expr(p.into_inner())
}

fn pratt_expr(pairs: Pairs<Rule>) -> Expr {
    pratt()
        .map_primary(term)
        .map_prefix(|op, rhs| {
            let sp = Span::new(op.as_span().start(), rhs.span.end);
            let o = if op.as_rule() == Rule::op_not {
                UnOp::Not
            } else {
                UnOp::Neg
            };
            Expr {
                kind: ExprKind::Unary(o, Box::new(rhs)),
                span: sp,
            }
        })
        .map_infix(|lhs, op, rhs| {
            let o = match op.as_rule() {
                Rule::op_or => BinOp::Or,
                Rule::op_and => BinOp::And,
                Rule::op_eq => BinOp::Eq,
                Rule::op_ne => BinOp::Ne,
                Rule::op_lt => BinOp::Lt,
                Rule::op_le => BinOp::Le,
                Rule::op_gt => BinOp::Gt,
                Rule::op_ge => BinOp::Ge,
                Rule::op_add => BinOp::Add,
                Rule::op_sub => BinOp::Sub,
                Rule::op_mul => BinOp::Mul,
                Rule::op_div => BinOp::Div,
                _ => BinOp::Mod,
            };
            let sp = Span::new(lhs.span.start, rhs.span.end);
            Expr {
                kind: ExprKind::Binary(o, Box::new(lhs), Box::new(rhs)),
                span: sp,
            }
        })
        .parse(pairs)
}

fn term(p: Pair<Rule>) -> Expr {
    let mut it = p.into_inner();
    let mut e = primary(it.next().expect("primary"));
    for post in it {
        let sp = Span::new(e.span.start, post.as_span().end());
        e = match post.as_rule() {
            Rule::index => Expr {
                kind: ExprKind::Index(Box::new(e), post.into_inner().map(expr).collect()),
                span: sp,
            },
            Rule::field => {
                let f = ident(post.into_inner().next().expect("field name"));
                Expr {
                    kind: ExprKind::Field(Box::new(e), f),
                    span: sp,
                }
            }
            r => unreachable!("grammar: unexpected postfix {r:?}"),
        };
    }
    e
}

fn primary(p: Pair<Rule>) -> Expr {
    let sp = span(&p);
    let kind = match p.as_rule() {
        Rule::int => ExprKind::Int(int(&p)),
        Rule::string => ExprKind::Str(string(p)),
        Rule::kw_true => ExprKind::Bool(true),
        Rule::kw_false => ExprKind::Bool(false),
        Rule::kw_none => ExprKind::None,
        Rule::ident => ExprKind::Name(p.as_str().to_string()),
        Rule::paren => return expr(p.into_inner().next().expect("paren")),
        Rule::list => ExprKind::List(p.into_inner().map(expr).collect()),
        Rule::if_expr => {
            let mut it = p.into_inner().filter(|q| q.as_rule() == Rule::expr);
            let c = expr(it.next().expect("cond"));
            let a = expr(it.next().expect("then"));
            let b = expr(it.next().expect("else"));
            ExprKind::If(Box::new(c), Box::new(a), Box::new(b))
        }
        Rule::call => {
            let mut it = p.into_inner();
            let f = ident(it.next().expect("fn"));
            ExprKind::Call(f, it.map(expr).collect())
        }
        Rule::aggregate => {
            let mut it = p.into_inner();
            let func = ident(it.next().expect("fn"));
            let mut bindings = Vec::new();
            let mut args = Vec::new();
            let mut filter = None;
            let mut body = None;
            let mut otherwise = None;
            for q in it {
                let rule = q.as_rule();
                if rule == Rule::binding {
                    bindings.push(binding(q));
                    continue;
                }
                let e = q.into_inner().find(|x| x.as_rule() == Rule::expr).map(expr);
                match rule {
                    Rule::agg_arg => args.extend(e),
                    Rule::agg_where => filter = e.map(Box::new),
                    Rule::agg_body => body = e.map(Box::new),
                    Rule::agg_else => otherwise = e.map(Box::new),
                    _ => {}
                }
            }
            ExprKind::Aggregate {
                func,
                bindings,
                args,
                filter,
                body,
                otherwise,
            }
        }
        r => unreachable!("grammar: unexpected primary {r:?}"),
    };
    Expr { kind, span: sp }
}
