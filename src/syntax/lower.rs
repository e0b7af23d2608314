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
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

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
                    let mut kept = false;
                    let mut default = None;
                    for q in f {
                        match q.as_rule() {
                            Rule::seen_by => {
                                let mut parts = q.into_inner().skip(2);
                                seen_by = parts.next().map(ident);
                                kept = parts.next().is_some();
                            }
                            _ => default = Some(expr(q)),
                        }
                    }
                    FieldDecl {
                        name,
                        ty,
                        seen_by,
                        kept,
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
            let first = it.next().expect("board shape");
            let (shape, graph) = if first.as_rule() == Rule::graph_board {
                let mut inner = first.clone().into_inner();
                let kw = ident(inner.next().expect("graph"));
                (kw, Some(graph_decl(inner)))
            } else {
                (ident(first), None)
            };
            let mut args = Vec::new();
            let mut flags = Vec::new();
            let mut closed = None;
            for q in it {
                match q.as_rule() {
                    Rule::expr => args.push(expr(q)),
                    Rule::board_flag => flags.push(ident(q)),
                    Rule::closed_spaces => closed = Some(closed_decl(q)),
                    _ => {}
                }
            }
            DeclKind::Board {
                name,
                shape,
                args,
                flags,
                graph,
                closed,
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
            // `sequence action`: the keyword skipped above was `sequence`; `action` follows.
            let mut first = it.next().expect("action name");
            let sequence = first.as_rule() == Rule::kw_action;
            if sequence {
                first = it.next().expect("action name");
            }
            let name = ident(first);
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
                sequence,
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
        Rule::score_decl | Rule::tiebreak_decl | Rule::heuristic_decl => {
            let player = ident(it.next().expect("player name"));
            let value = expr(it.next().expect("value"));
            match rule {
                Rule::score_decl => DeclKind::Score { player, value },
                Rule::heuristic_decl => DeclKind::Heuristic { player, value },
                _ => DeclKind::Tiebreak { player, value },
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

/// The parts of `graph { ... }`.
fn graph_decl(pairs: Pairs<Rule>) -> GraphDecl {
    let mut g = GraphDecl::default();
    for q in pairs {
        let rule = q.as_rule();
        let mut it = q.into_inner();
        it.next(); // the keyword
        match rule {
            Rule::graph_spaces => g.spaces.extend(it.map(ident)),
            Rule::graph_edges => {
                for e in it {
                    let mut ends = e.into_inner();
                    let a = ident(ends.next().expect("edge start"));
                    let b = ident(ends.next().expect("edge end"));
                    g.edges.push((a, b));
                }
            }
            Rule::graph_line => {
                let n = ident(it.next().expect("line name"));
                g.lines.push((Some(n), it.map(ident).collect()));
            }
            Rule::graph_lines => {
                for l in it {
                    g.lines.push((None, l.into_inner().map(ident).collect()));
                }
            }
            _ => {}
        }
    }
    g
}

/// `closed [a, b] when FLAG`.
fn closed_decl(p: Pair<Rule>) -> ClosedDecl {
    let sp = span(&p);
    let mut spaces = Vec::new();
    let mut when = None;
    for q in p.into_inner() {
        match q.as_rule() {
            Rule::ident => spaces.push(ident(q)),
            Rule::expr => when = Some(expr(q)),
            _ => {}
        }
    }
    ClosedDecl {
        spaces,
        when,
        span: sp,
    }
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
            let lo = int(&r.next().expect("lo"));
            let hi = int(&r.next().expect("hi"));
            let clamp = parts.next().is_some();
            TypeExpr::Range {
                lo,
                hi,
                span: sp,
                clamp,
            }
        }
        Rule::action_type => {
            let mut q = inner.into_inner();
            let kw = span(&q.next().expect("action"));
            match q.next() {
                // The span ends at `)` or at `action`, not at the blanks after it.
                Some(ps) => TypeExpr::Action {
                    span: join(kw, span(&ps)),
                    params: ps.into_inner().map(type_expr).collect(),
                },
                None => TypeExpr::Action {
                    params: vec![],
                    span: kw,
                },
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
    binding_deep(p).0
}

/// `x in C`, with the depth of its collection's tree.
fn binding_deep(p: Pair<Rule>) -> (Binding, usize) {
    let mut it = p.into_inner();
    let var = ident(it.next().expect("binding var"));
    it.next(); // kw_in
    let (coll, depth) = coll(it.next().expect("collection"));
    (Binding { var, coll }, depth)
}

fn coll(p: Pair<Rule>) -> Deep {
    let inner = p.into_inner().next().expect("coll");
    match inner.as_rule() {
        Rule::range => range(inner),
        _ => deep(inner),
    }
}

fn range(p: Pair<Rule>) -> Deep {
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

fn block(p: Pair<Rule>) -> Block {
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

fn else_block(p: Pair<Rule>) -> Block {
    block(p.into_inner().nth(1).expect("else block"))
}

fn stmt(p: Pair<Rule>) -> Stmt {
    let sp = span(&p);
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

fn stmt_inner(p: Pair<Rule>, sp: Span) -> Stmt {
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
        Rule::simultaneous_stmt => {
            it.next();
            let binding = binding(it.next().expect("binding"));
            StmtKind::Simultaneous {
                binding,
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
            let domain = it.next().map(|q| coll(q).0);
            StmtKind::Roll { target, domain }
        }
        Rule::do_stmt => {
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

/// An expression where a statement or a declaration holds it.
fn expr(p: Pair<Rule>) -> Expr {
    deep(p).0
}

/// An expression with the depth of its tree.
fn deep(p: Pair<Rule>) -> Deep {
    pratt_expr(p.into_inner())
}

fn pratt_expr(pairs: Pairs<Rule>) -> Deep {
    pratt()
        .map_primary(term)
        .map_prefix(|op, (rhs, depth)| {
            let sp = join(span(&op), rhs.span);
            let o = if op.as_rule() == Rule::op_not {
                UnOp::Not
            } else {
                UnOp::Neg
            };
            node(ExprKind::Unary(o, Box::new(rhs)), sp, depth + 1)
        })
        .map_infix(|(lhs, dl), op, (rhs, dr)| {
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
            let sp = join(lhs.span, rhs.span);
            node(
                ExprKind::Binary(o, Box::new(lhs), Box::new(rhs)),
                sp,
                dl.max(dr) + 1,
            )
        })
        .parse(pairs)
}

/// The depth of a node over these children: one more than the deepest.
fn over(children: &[Deep]) -> usize {
    children.iter().map(|c| c.1).max().unwrap_or(0) + 1
}

fn exprs(v: Vec<Deep>) -> Vec<Expr> {
    v.into_iter().map(|(e, _)| e).collect()
}

fn term(p: Pair<Rule>) -> Deep {
    let mut it = p.into_inner();
    let (mut e, mut depth) = primary(it.next().expect("primary"));
    for post in it {
        let sp = join(e.span, span(&post));
        (e, depth) = match post.as_rule() {
            Rule::index => {
                let ix: Vec<Deep> = post.into_inner().map(deep).collect();
                let d = over(&ix).max(depth + 1);
                node(ExprKind::Index(Box::new(e), exprs(ix)), sp, d)
            }
            Rule::field => {
                let f = ident(post.into_inner().next().expect("field name"));
                node(ExprKind::Field(Box::new(e), f), sp, depth + 1)
            }
            r => unreachable!("grammar: unexpected postfix {r:?}"),
        };
    }
    (e, depth)
}

fn primary(p: Pair<Rule>) -> Deep {
    let sp = span(&p);
    let (kind, depth) = match p.as_rule() {
        Rule::int => (ExprKind::Int(int(&p)), 1),
        Rule::string => (ExprKind::Str(string(p)), 1),
        Rule::kw_true => (ExprKind::Bool(true), 1),
        Rule::kw_false => (ExprKind::Bool(false), 1),
        Rule::kw_none => (ExprKind::None, 1),
        Rule::ident => (ExprKind::Name(p.as_str().to_string()), 1),
        Rule::paren => return deep(p.into_inner().next().expect("paren")),
        Rule::list => {
            let items: Vec<Deep> = p.into_inner().map(deep).collect();
            let d = over(&items);
            (ExprKind::List(exprs(items)), d)
        }
        Rule::if_expr => {
            let mut it = p.into_inner().filter(|q| q.as_rule() == Rule::expr);
            let c = deep(it.next().expect("cond"));
            let a = deep(it.next().expect("then"));
            let b = deep(it.next().expect("else"));
            let d = c.1.max(a.1).max(b.1) + 1;
            (ExprKind::If(Box::new(c.0), Box::new(a.0), Box::new(b.0)), d)
        }
        Rule::call => {
            let mut it = p.into_inner();
            let f = ident(it.next().expect("fn"));
            let args: Vec<Deep> = it.map(deep).collect();
            let d = over(&args);
            (ExprKind::Call(f, exprs(args)), d)
        }
        Rule::aggregate => {
            let mut it = p.into_inner();
            let func = ident(it.next().expect("fn"));
            let mut bindings = Vec::new();
            let mut args = Vec::new();
            let mut filter = None;
            let mut body = None;
            let mut otherwise = None;
            let mut d = 1;
            for q in it {
                let rule = q.as_rule();
                if rule == Rule::binding {
                    let (b, bd) = binding_deep(q);
                    d = d.max(bd + 1);
                    bindings.push(b);
                    continue;
                }
                let Some((e, ed)) = q.into_inner().find(|x| x.as_rule() == Rule::expr).map(deep)
                else {
                    continue;
                };
                d = d.max(ed + 1);
                match rule {
                    Rule::agg_arg => args.push(e),
                    Rule::agg_where => filter = Some(Box::new(e)),
                    Rule::agg_body => body = Some(Box::new(e)),
                    Rule::agg_else => otherwise = Some(Box::new(e)),
                    _ => {}
                }
            }
            let kind = ExprKind::Aggregate {
                func,
                bindings,
                args,
                filter,
                body,
                otherwise,
            };
            (kind, d)
        }
        r => unreachable!("grammar: unexpected primary {r:?}"),
    };
    node(kind, sp, depth)
}
