//! Declarations: components, zones, boards, variables, functions, actions and the rest of a
//! file's top level; types and parameters.

use super::*;

/// One declaration of the file's top level; each kind with more than a few parts is read
/// by a function of its own.
pub(in crate::syntax) fn decl(p: Pair<Rule>) -> Decl {
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
        Rule::variant_decl => variant_decl(it),
        Rule::enum_decl => {
            let name = ident(it.next().expect("enum name"));
            DeclKind::Enum {
                name,
                values: it.map(ident).collect(),
            }
        }
        Rule::component_decl => component_decl(it),
        Rule::components_decl => {
            let ty = ident(it.next().expect("type"));
            it.next(); // kw_in
            let zone = expr(it.next().expect("zone"));
            let entries = it.map(entry).collect();
            DeclKind::Components { ty, zone, entries }
        }
        Rule::board_decl => board_decl(it),
        Rule::zone_decl => zone_decl(it),
        Rule::var_decl => var_decl(it),
        Rule::def_decl => def_decl(it),
        Rule::action_decl => action_decl(it),
        Rule::trigger_decl => trigger_decl(it),
        Rule::memory_decl => DeclKind::Memory {
            name: ident(it.next().expect("memory name")),
            parts: it.map(expr).collect(),
        },
        Rule::procedure_decl => procedure_decl(it),
        Rule::legend_decl => legend_decl(it),
        Rule::present_decl => DeclKind::Present(it.map(present_item).collect()),
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
        Rule::set_decl => set_decl(it),
        r => unreachable!("grammar: unexpected declaration {r:?}"),
    };
    Decl { kind, span: sp }
}

/// `variant name "description" group g { name = value, ... }`: a variant of the game.
fn variant_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// `component Name { field: Type [seen by owner [secret]] [= default], ... }`: a component
/// type.
fn component_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// `board name = shape(args) flags [closed spaces]` or `board name = graph { ... }`: a board.
fn board_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// `zone name[Index, ...]: Type [visibility]`: a zone.
fn zone_decl(mut it: Pairs<Rule>) -> DeclKind {
    let name = ident(it.next().expect("zone name"));
    let mut index = Vec::new();
    let mut rest = Vec::new();
    for q in it {
        match q.as_rule() {
            Rule::index_types => index = q.into_inner().map(index_type).collect(),
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

/// `var name[Index, ...]: Type [visibility] [= init]`: a variable.
fn var_decl(mut it: Pairs<Rule>) -> DeclKind {
    let name = ident(it.next().expect("var name"));
    let mut index = Vec::new();
    let mut ty = None;
    let mut init = None;
    let mut visibility = None;
    for q in it {
        match q.as_rule() {
            Rule::index_types => index = q.into_inner().map(index_type).collect(),
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

/// `def name(params) = value` (or a collection): a function.
fn def_decl(mut it: Pairs<Rule>) -> DeclKind {
    let name = ident(it.next().expect("def name"));
    let mut params = Vec::new();
    let mut body = None;
    for q in it {
        match q.as_rule() {
            Rule::param => params.push(param(q)),
            Rule::coll => body = Some(coll(q).0),
            _ => {}
        }
    }
    DeclKind::Def {
        name,
        params,
        body: body.expect("def body"),
    }
}

/// `[sequence] action name(bindings) [anytime | before word] [where guard] { body }`: an
/// action.
fn action_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// `when name cond { body }` or `when name x in C [where cond] { body }`: a trigger.
fn trigger_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// `procedure name(params) { body }`: a procedure.
fn procedure_decl(mut it: Pairs<Rule>) -> DeclKind {
    let name = ident(it.next().expect("procedure name"));
    let mut params = Vec::new();
    let mut body = None;
    for q in it {
        match q.as_rule() {
            Rule::param => params.push(param(q)),
            Rule::block => body = Some(block(q)),
            _ => {}
        }
    }
    DeclKind::Procedure {
        name,
        params,
        body: body.expect("procedure body"),
    }
}

/// `legend name(s in board) { "c" { ... } ... }`: characters read into a board position.
fn legend_decl(mut it: Pairs<Rule>) -> DeclKind {
    let name = ident(it.next().expect("legend name"));
    let binding = binding(it.next().expect("legend binding"));
    let entries = it
        .map(|q| {
            let mut e = q.into_inner();
            let s = e.next().expect("legend character");
            let sp = span(&s);
            (string(s), sp, block(e.next().expect("legend block")))
        })
        .collect();
    DeclKind::Legend {
        name,
        binding,
        entries,
    }
}

/// `set name(params) [where cond] = points`: a kind of set for `best_sets`.
fn set_decl(mut it: Pairs<Rule>) -> DeclKind {
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

/// One index of a zone or variable: a name, or a range of numbers.
fn index_type(p: Pair<Rule>) -> IndexType {
    if p.as_rule() != Rule::range_type {
        return IndexType::Name(ident(p));
    }
    let sp = span(&p);
    let mut r = p.into_inner();
    let lo = Box::new(range_bound(r.next().expect("lo")));
    let hi = Box::new(range_bound(r.next().expect("hi")));
    IndexType::Range { lo, hi, span: sp }
}

/// A bound of a range type: a number, or a constant's name checked later.
fn range_bound(p: Pair<Rule>) -> Expr {
    let sp = span(&p);
    let inner = p.into_inner().next().expect("a bound");
    let kind = match inner.as_rule() {
        Rule::ident => ExprKind::Name(inner.as_str().to_string()),
        _ => ExprKind::Int(int(&inner)),
    };
    Expr { kind, span: sp }
}

fn type_expr(p: Pair<Rule>) -> TypeExpr {
    let mut parts = p.into_inner();
    let inner = parts.next().expect("type");
    match inner.as_rule() {
        Rule::range_type => {
            let sp = span(&inner);
            let mut r = inner.into_inner();
            let lo = Box::new(range_bound(r.next().expect("lo")));
            let hi = Box::new(range_bound(r.next().expect("hi")));
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

/// One line of a `present` section.
fn present_item(p: Pair<Rule>) -> PresentItem {
    let rule = p.as_rule();
    let mut it = p.into_inner();
    it.next(); // the keyword
    match rule {
        Rule::present_value => {
            let enum_name = it.next().map(ident).expect("a name");
            let value = it.next().map(ident).expect("a name");
            let looks = it.map(look).collect();
            PresentItem::Value {
                enum_name,
                value,
                looks,
            }
        }
        Rule::present_piece => PresentItem::Piece(it.map(ident).collect()),
        Rule::present_zone => {
            let zone = it.next().map(ident).expect("a name");
            it.next(); // `as`
            PresentItem::Zone {
                zone,
                role: it.next().map(ident).expect("role"),
            }
        }
        Rule::present_shows => {
            let ty = it.next().map(ident).expect("a name");
            let (mut looks, mut fields) = (Vec::new(), Vec::new());
            for q in it {
                match q.as_rule() {
                    Rule::present_look => looks.push(look(q)),
                    Rule::ident => fields.push(ident(q)),
                    _ => {} // `shows`
                }
            }
            PresentItem::Shows { ty, looks, fields }
        }
        _ => {
            let board = it.next().map(ident).expect("a name");
            PresentItem::Board {
                board,
                style: it.next().map(ident).expect("style"),
            }
        }
    }
}

/// A look: its word and what follows (`glyph "♚"`, `colour red`).
fn look(q: Pair<Rule>) -> (Ident, LookArg) {
    let mut l = q.into_inner();
    let word = ident(l.next().expect("look word"));
    let arg = l.next().expect("look argument");
    let arg = match arg.as_rule() {
        Rule::string => {
            let sp = span(&arg);
            LookArg::Text(string(arg), sp)
        }
        _ => LookArg::Name(ident(arg)),
    };
    (word, arg)
}
