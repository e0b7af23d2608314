//! Expressions: operators by precedence (a Pratt parser), terms and primaries, each with the
//! depth of its tree.

use super::*;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::sync::OnceLock;

pub(super) fn pratt() -> &'static PrattParser<Rule> {
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
            .op(Op::infix(Rule::op_pow, Assoc::Right))
    })
}

/// An expression where a statement or a declaration holds it.
pub(super) fn expr(p: Pair<Rule>) -> Expr {
    deep(p).0
}

/// An expression with the depth of its tree.
pub(super) fn deep(p: Pair<Rule>) -> Deep {
    pratt_expr(p.into_inner())
}

pub(super) fn pratt_expr(pairs: Pairs<Rule>) -> Deep {
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
                Rule::op_pow => BinOp::Pow,
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
pub(super) fn over(children: &[Deep]) -> usize {
    children.iter().map(|c| c.1).max().unwrap_or(0) + 1
}

pub(super) fn exprs(v: Vec<Deep>) -> Vec<Expr> {
    v.into_iter().map(|(e, _)| e).collect()
}

pub(super) fn term(p: Pair<Rule>) -> Deep {
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

pub(super) fn primary(p: Pair<Rule>) -> Deep {
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
        // `let x = a in b` is `first(x in [a]: b)`: the aggregate binds the name, and its
        // one element is the value.
        Rule::let_expr => {
            let mut names = Vec::new();
            let mut values: Vec<Deep> = Vec::new();
            for q in p.into_inner() {
                match q.as_rule() {
                    Rule::ident => names.push(ident(q)),
                    Rule::expr => values.push(deep(q)),
                    _ => {}
                }
            }
            let (mut body, mut d) = values.pop().expect("the body");
            for (name, (value, vd)) in names.into_iter().zip(values).rev() {
                let at = Span::new(name.span.start, body.span.end);
                let list = Expr {
                    span: value.span,
                    kind: ExprKind::List(vec![value]),
                };
                d = d.max(vd + 1) + 1;
                body = Expr {
                    span: at,
                    kind: ExprKind::Aggregate {
                        func: Ident {
                            name: "first".into(),
                            span: name.span,
                        },
                        bindings: vec![Binding {
                            var: name,
                            coll: list,
                        }],
                        args: vec![],
                        filter: None,
                        until: false,
                        body: Some(Box::new(body)),
                        otherwise: None,
                    },
                };
            }
            return (
                Expr {
                    span: sp,
                    kind: body.kind,
                },
                d,
            );
        }
        Rule::after_expr => {
            let mut it = p.into_inner().skip(1); // kw_after
            let action = ident(it.next().expect("action"));
            let mut parts: Vec<Deep> = it.map(deep).collect();
            let body = parts.pop().expect("the body");
            let d = over(&parts).max(body.1 + 1);
            let kind = ExprKind::After {
                action,
                args: exprs(parts),
                body: Box::new(body.0),
            };
            (kind, d)
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
            let mut until = false;
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
                    Rule::agg_until => {
                        filter = Some(Box::new(e));
                        until = true;
                    }
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
                until,
                body,
                otherwise,
            };
            (kind, d)
        }
        r => unreachable!("grammar: unexpected primary {r:?}"),
    };
    node(kind, sp, depth)
}
