//! Lowering of collections: what comes after `in`.

use super::{Checker, Global};
use crate::check::names::Target;
use crate::check::Code;
use crate::ir::{self, Coll, Type};
use crate::syntax::ast::{self, ExprKind as K};

impl Checker {
    /// Lowers `x in C, y in D, ...`, bringing each name into scope in turn.
    pub(crate) fn bind_all(&mut self, bindings: &[ast::Binding]) -> Vec<ir::Bind> {
        bindings
            .iter()
            .map(|b| {
                let (coll, ty) = self.coll(&b.coll);
                let slot = self.bind_local_at(&b.var, ty, "binding");
                ir::Bind {
                    name: b.var.name.clone(),
                    slot,
                    coll,
                    ty,
                    span: b.coll.span,
                }
            })
            .collect()
    }

    /// Lowers a collection and returns the type of its elements.
    pub(crate) fn coll(&mut self, e: &ast::Expr) -> (Coll, Type) {
        match &e.kind {
            K::Range(a, b) => {
                let (x, ta) = self.expr(a);
                let (y, tb) = self.expr(b);
                self.expect_type(ta, Type::Int, a.span, "a range's start");
                self.expect_type(tb, Type::Int, b.span, "a range's end");
                (Coll::Range(x, y), Type::Int)
            }
            K::List(items) => self.list_coll(items),
            K::Name(n) if self.lookup_local(n).is_none() => self.name_coll(e, n),
            K::Aggregate {
                func,
                bindings,
                args,
                filter,
                until: false,
                body: None,
                otherwise: None,
            } if func.name == "paths" || func.name == "group" || func.name == "groups" => {
                self.search_coll(e, func, bindings, args, filter)
            }
            K::Aggregate {
                func,
                bindings,
                args,
                filter,
                until,
                body: None,
                otherwise: None,
            } if func.name == "ray" => self.stopping_ray(e, bindings, args, filter, *until),
            K::Call(f, args)
                if matches!(
                    self.globals.get(&f.name),
                    Some((Global::Def(d), _)) if self.coll_defs.contains_key(d)
                ) =>
            {
                let Some((Global::Def(d), _)) = self.globals.get(&f.name).copied() else {
                    unreachable!("matched above")
                };
                self.coll_call(d, f, args, e.span)
            }
            K::Call(f, args) if f.name == "ray" => self.ray_coll(e, args),
            K::Call(f, args) if f.name == "directions" => self.directions_coll(e, args),
            K::Call(f, args) if f.name == "adjacent" => self.adjacent_coll(e, args),
            _ => self.zone_coll(e),
        }
    }

    /// `[a, b, c]`: the elements' type is the first one's, and every other must agree.
    fn list_coll(&mut self, items: &[ast::Expr]) -> (Coll, Type) {
        let mut t = Type::Any;
        let xs = items
            .iter()
            .map(|i| {
                let (x, ti) = self.expr(i);
                if t == Type::Any {
                    t = ti;
                } else {
                    self.expect_type(ti, t, i.span, "every element of a list");
                }
                x
            })
            .collect();
        (Coll::List(xs), t)
    }

    /// A global name as a collection: the players, an enum's values, a board's spaces, a
    /// component type's components, a board's declared line, else a zone.
    fn name_coll(&mut self, e: &ast::Expr, n: &str) -> (Coll, Type) {
        if n == "players" {
            return (Coll::Players, Type::Player);
        }
        match self.globals.get(n).copied() {
            Some((Global::Enum(en), _)) => {
                self.used.insert(Global::Enum(en));
                self.note_use(e.span, Target::Global(Global::Enum(en)));
                (Coll::Enum(en), Type::Enum(en))
            }
            Some((Global::Board(b), _)) => {
                self.used.insert(Global::Board(b));
                self.note_use(e.span, Target::Global(Global::Board(b)));
                (Coll::Board(b), Type::Space(b))
            }
            Some((Global::Type(t), _)) => {
                self.note_use(e.span, Target::Global(Global::Type(t)));
                (Coll::Type(t), Type::Comp(t))
            }
            Some((Global::Line(b, k), _)) => {
                self.used.insert(Global::Line(b, k));
                let board = &self.game.boards[b];
                let line = board.geo.line_names[k as usize].1;
                let xs = board.geo.lines[line]
                    .iter()
                    .map(|&s| ir::Expr::Lit(ir::Value::Space(b, s)))
                    .collect();
                (Coll::List(xs), Type::Space(b))
            }
            _ => self.zone_coll(e),
        }
    }

    /// `paths(s in board, from, n where c)`, `group(s in board, start where c)` and
    /// `groups(s in board where c)`: searches over one board binding, with the number of
    /// values after it each takes.
    fn search_coll(
        &mut self,
        e: &ast::Expr,
        func: &ast::Ident,
        bindings: &[ast::Binding],
        args: &[ast::Expr],
        filter: &Option<Box<ast::Expr>>,
    ) -> (Coll, Type) {
        let want = match func.name.as_str() {
            "paths" => 2,
            "group" => 1,
            _ => 0,
        };
        let board = self.bound_board(bindings);
        let (Some(board), 1) = (board, bindings.len()) else {
            let p = self.error(
                Code::Arity,
                e.span,
                format!("`{}` needs one name bound to a board", func.name),
                "expected `s in board`",
            );
            p.help = Some(match want {
                2 => "`paths(s in grid, from, 3 where empty(cell[s]))`".into(),
                1 => "`group(s in grid, start where colour[s] == red)`".into(),
                _ => "`groups(s in grid where colour[s] == red)`".into(),
            });
            return (Coll::List(vec![]), Type::Any);
        };
        if args.len() != want {
            let p = self.error(
                Code::Arity,
                e.span,
                format!(
                    "`{}` takes {} value(s) after the board binding, got {}",
                    func.name,
                    want,
                    args.len()
                ),
                "wrong number of arguments",
            );
            p.help = Some(match want {
                2 => "give the start space and the number of steps".into(),
                1 => "give the start space".into(),
                _ => "`groups` takes only the board binding and `where`".into(),
            });
            return (Coll::List(vec![]), Type::Any);
        }
        let depth = self.scopes.len();
        let slot = self.bind_local_at(&bindings[0].var, Type::Space(board), "binding");
        self.used.insert(Global::Board(board));
        self.note_use(bindings[0].coll.span, Target::Global(Global::Board(board)));
        let cond = |c: &mut Self| {
            filter.as_ref().map(|f| {
                let (x, t) = c.expr(f);
                c.expect_type(t, Type::Bool, f.span, "a `where` condition");
                x
            })
        };
        if want == 0 {
            let cond = cond(self);
            self.scopes.truncate(depth);
            return (Coll::Groups { board, slot, cond }, Type::Space(board));
        }
        let (from, tf) = self.expr(&args[0]);
        self.expect_type(tf, Type::Space(board), args[0].span, "the start");
        let cond = cond(self);
        let c = if want == 2 {
            let (n, tn) = self.expr(&args[1]);
            self.expect_type(tn, Type::Int, args[1].span, "the number of steps");
            Coll::Paths {
                board,
                slot,
                from,
                steps: n,
                cond,
            }
        } else {
            Coll::Group {
                board,
                slot,
                start: from,
                cond,
            }
        };
        self.scopes.truncate(depth);
        (c, Type::Space(board))
    }

    /// `ray(space, direction)`, or several directions at once: the spaces from a space on,
    /// one direction after the other.
    fn ray_coll(&mut self, e: &ast::Expr, args: &[ast::Expr]) -> (Coll, Type) {
        if args.len() != 2 {
            let p = self.error(
                Code::Arity,
                e.span,
                "`ray` takes a space and a direction",
                "expected `ray(space, direction)`",
            );
            p.help = Some("for example `for t in ray(at, north)`".into());
            return (Coll::List(vec![]), Type::Any);
        }
        let (s, ts) = self.expr(&args[0]);
        let board = self.geometric_space(ts, args[0].span, "ray");
        let mut dirs = self.ray_dirs(&args[1]);
        let coll = match dirs.len() {
            1 => Coll::Ray(s, dirs.remove(0)),
            _ => Coll::Rays(Box::new(ir::Rays {
                from: s,
                dirs,
                stop: None,
            })),
        };
        (coll, board.map_or(Type::Any, Type::Space))
    }

    /// `directions(board)`: the directions of a board that has them, as values of the
    /// `Direction` enum.
    fn directions_coll(&mut self, e: &ast::Expr, args: &[ast::Expr]) -> (Coll, Type) {
        let board = match args {
            [ast::Expr {
                kind: K::Name(n), ..
            }] => match self.globals.get(n).copied() {
                Some((Global::Board(b), _)) => Some(b),
                _ => None,
            },
            _ => None,
        };
        let Some(b) = board else {
            let p = self.error(
                Code::Arity,
                e.span,
                "`directions` takes a board",
                "expected `directions(board)`",
            );
            p.help = Some("for example `for d in directions(field)`".into());
            return (Coll::List(vec![]), Type::Any);
        };
        self.used.insert(Global::Board(b));
        let board = &self.game.boards[b];
        if matches!(board.shape, ir::BoardShape::Graph) {
            let name = board.name.clone();
            let p = self.error(
                Code::Geometry,
                e.span,
                format!("`{name}` is a graph board: it has no directions"),
                "a graph board",
            );
            p.help = Some("walk a graph with `adjacent(s)`".into());
            return (Coll::List(vec![]), Type::Any);
        }
        let Some(de) = self.game.direction_enum else {
            return (Coll::List(vec![]), Type::Any);
        };
        let xs = board
            .geo
            .dirs
            .iter()
            .map(|&d| ir::Expr::Lit(ir::Value::Enum(de, d)))
            .collect();
        (Coll::List(xs), Type::Enum(de))
    }

    /// `adjacent(space)`: the spaces next to one space.
    fn adjacent_coll(&mut self, e: &ast::Expr, args: &[ast::Expr]) -> (Coll, Type) {
        if args.len() != 1 {
            self.error(
                Code::Arity,
                e.span,
                "`adjacent` takes one space",
                "expected `adjacent(space)`",
            );
            return (Coll::List(vec![]), Type::Any);
        }
        let (x, t) = self.expr(&args[0]);
        if !matches!(t, Type::Space(_) | Type::Any) {
            let p = self.error(
                Code::Type,
                args[0].span,
                format!("`adjacent` takes a space, not {}", self.type_name(t)),
                "not a space",
            );
            p.help = Some("spaces come from a board: `for s in grid`, or `space_of(piece)`".into());
        }
        (Coll::Adjacent(x), t)
    }

    pub(crate) fn zone_coll(&mut self, e: &ast::Expr) -> (Coll, Type) {
        let (x, t) = self.expr(e);
        match t {
            Type::Zone(ct) => (Coll::Zone(x), Type::Comp(ct)),
            Type::Any => (Coll::Zone(x), Type::Any),
            other => {
                let p = self.error(
                    Code::Collection,
                    e.span,
                    format!("cannot take elements from {}", self.type_name(other)),
                    "not a collection",
                );
                p.help = Some("collections are zones, boards, enums, component types, `players`, ranges `a..b`, lists `[a, b]` and `adjacent(space)`".into());
                (Coll::List(vec![]), Type::Any)
            }
        }
    }

    /// `ray(t in board, from, d where c)` and `ray(t in board, from, d until c)`: rays that
    /// stop before the first space failing `c`, or at the first space meeting it.
    fn stopping_ray(
        &mut self,
        e: &ast::Expr,
        bindings: &[ast::Binding],
        args: &[ast::Expr],
        filter: &Option<Box<ast::Expr>>,
        until: bool,
    ) -> (Coll, Type) {
        let board = self.bound_board(bindings);
        let (Some(board), 1, 2, Some(cond)) = (board, bindings.len(), args.len(), filter) else {
            let p = self.error(
                Code::Arity,
                e.span,
                "a `ray` that stops binds one name to a board, then takes a start space, a \
                 direction and `where` or `until`",
                "expected `ray(t in board, from, d until c)`",
            );
            p.help = Some(
                "`ray(t in grid, from, north where empty(cell[t]))` stops before the first \
                 occupied space; with `until not empty(cell[t])` it takes it; a ray to the \
                 edge is `ray(from, north)`"
                    .into(),
            );
            return (Coll::List(vec![]), Type::Any);
        };
        let (from, tf) = self.expr(&args[0]);
        self.expect_type(tf, Type::Space(board), args[0].span, "the start");
        self.geometric_space(Type::Space(board), args[0].span, "ray");
        let dirs = self.ray_dirs(&args[1]);
        let depth = self.scopes.len();
        let slot = self.bind_local_at(&bindings[0].var, Type::Space(board), "binding");
        self.used.insert(Global::Board(board));
        self.note_use(bindings[0].coll.span, Target::Global(Global::Board(board)));
        let (c, tc) = self.expr(cond);
        let what = if until {
            "an `until` condition"
        } else {
            "a `where` condition"
        };
        self.expect_type(tc, Type::Bool, cond.span, what);
        self.scopes.truncate(depth);
        let stop = Some(ir::RayStop {
            slot,
            cond: c,
            until,
        });
        let rays = ir::Rays { from, dirs, stop };
        (Coll::Rays(Box::new(rays)), Type::Space(board))
    }

    /// The directions of a ray: one direction, a list of them (`[north, south]`) or a board's
    /// (`directions(grid)`).
    fn ray_dirs(&mut self, arg: &ast::Expr) -> Vec<ir::Expr> {
        let dir = self.direction_type();
        let listed = match &arg.kind {
            K::List(_) => true,
            K::Call(f, _) => f.name == "directions",
            _ => false,
        };
        if !listed {
            let (d, td) = self.expr(arg);
            self.expect_type(td, dir, arg.span, "a direction");
            return vec![d];
        }
        match self.coll(arg) {
            (Coll::List(xs), t) => {
                self.expect_type(t, dir, arg.span, "directions");
                xs
            }
            _ => Vec::new(),
        }
    }

    /// The board the first binding of a walk names (`s in board` of `paths`, `group`,
    /// `groups` and a stopping `ray`), if it names one.
    fn bound_board(&self, bindings: &[ast::Binding]) -> Option<ir::BoardId> {
        match &bindings.first()?.coll.kind {
            K::Name(n) => match self.globals.get(n).copied() {
                Some((Global::Board(b), _)) => Some(b),
                _ => None,
            },
            _ => None,
        }
    }
}
