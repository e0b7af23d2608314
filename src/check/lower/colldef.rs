//! Functions that return collections: `def jumps(s: Space) = [step(s, north), ...]`, used
//! after `in` (`for t in jumps(s)`, `count(t in jumps(s) where ...)`, an action's parameter).
//!
//! Such a function is inlined where it is called: its arguments are lowered where the call is
//! written, and its body is lowered as a collection with each parameter standing for its
//! argument's value (an alias, not a slot), in a scope that hides the caller's names. Names the
//! body binds (`paths(t in board, ...)`) take fresh slots after the caller's, so an argument
//! can never be captured by them.

use super::{Checker, Global, Local};
use crate::check::names::Target;
use crate::check::Code;
use crate::ir::{self, Coll, DefId, Type};
use crate::syntax::ast::{self, ExprKind as K};

/// A function whose body is a collection, as written.
#[derive(Clone, Debug)]
pub(crate) struct CollDef {
    pub params: Vec<(ast::Ident, ast::TypeExpr)>,
    pub body: ast::Expr,
}

impl Checker {
    /// Finds the functions whose body is a collection (a list, a range, `adjacent`, a ray,
    /// `directions`, paths and groups, a board, an enum, `players`, or a call of another such
    /// function), once every name is declared.
    pub(crate) fn find_coll_defs(&mut self, file: &ast::File) {
        loop {
            let mut found = false;
            for d in &file.decls {
                let ast::DeclKind::Def { name, params, body } = &d.kind else {
                    continue;
                };
                let Some((Global::Def(id), _)) = self.globals.get(&name.name).copied() else {
                    continue;
                };
                if !self.coll_defs.contains_key(&id) && self.coll_shaped(body) {
                    self.coll_defs.insert(
                        id,
                        CollDef {
                            params: params.clone(),
                            body: body.clone(),
                        },
                    );
                    found = true;
                }
            }
            if !found {
                return;
            }
        }
    }

    /// Whether an expression as written can only be a collection.
    fn coll_shaped(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            K::List(_) | K::Range(..) => true,
            K::Aggregate {
                func, body: None, ..
            } => matches!(func.name.as_str(), "ray" | "paths" | "group" | "groups"),
            K::Call(f, _) if matches!(f.name.as_str(), "ray" | "adjacent" | "directions") => {
                !self.globals.contains_key(&f.name)
            }
            K::Call(f, _) => matches!(
                self.globals.get(&f.name),
                Some((Global::Def(d), _)) if self.coll_defs.contains_key(d)
            ),
            K::Name(n) => match self.globals.get(n) {
                Some((Global::Board(_) | Global::Enum(_) | Global::Type(_), _)) => true,
                Some((Global::Line(..), _)) => true,
                Some(_) => false,
                None => n == "players",
            },
            _ => false,
        }
    }

    /// The body of a function returning a collection, checked once with its parameters bound
    /// (calls are checked again where they are inlined, quietly).
    pub(crate) fn coll_def_body(&mut self, d: DefId, params: &[(ast::Ident, ast::TypeExpr)]) {
        let Some(def) = self.coll_defs.get(&d).cloned() else {
            return;
        };
        self.begin_locals();
        for (p, t) in params {
            let (ty, _) = self.value_type_expr(t);
            self.bind_local_at(p, ty, "parameter");
        }
        self.coll_stack.push(d);
        let (_, ty) = self.coll(&def.body);
        self.coll_stack.pop();
        let n = self.end_locals();
        self.game.defs[d].locals = n;
        if let Some(slot) = self.def_types.get_mut(d) {
            *slot = ty;
        }
    }

    /// `f(args)` after `in`, where `f` returns a collection: its body with the arguments in
    /// place of the parameters.
    pub(crate) fn coll_call(
        &mut self,
        d: DefId,
        f: &ast::Ident,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> (Coll, Type) {
        let empty = (Coll::List(vec![]), Type::Any);
        self.used.insert(Global::Def(d));
        self.note_use(f.span, Target::Global(Global::Def(d)));
        let Some(def) = self.coll_defs.get(&d).cloned() else {
            return empty;
        };
        if args.len() != def.params.len() {
            self.error(
                Code::Arity,
                span,
                format!(
                    "`{}` takes {} argument(s), got {}",
                    f.name,
                    def.params.len(),
                    args.len()
                ),
                "wrong number of arguments",
            );
            return empty;
        }
        if self.coll_stack.contains(&d) {
            let p = self.error(
                Code::Collection,
                span,
                format!("`{}` returns a collection and reaches itself", f.name),
                "calls itself",
            );
            p.help = Some(
                "a function returning a collection is written out where it is called: it cannot call itself"
                    .into(),
            );
            return empty;
        }
        if !self.write_out(def.body.span, span) {
            return empty;
        }
        let mut aliases = Vec::with_capacity(args.len());
        for ((p, t), a) in def.params.iter().zip(args) {
            let (x, ta) = self.expr(a);
            self.quiet += 1;
            let (want, _) = self.value_type_expr(t);
            self.quiet -= 1;
            self.expect_type(ta, want, a.span, "this argument");
            aliases.push(Local {
                name: p.name.clone(),
                slot: 0,
                ty: want,
                decl: Some(p.span),
                alias: Some(x),
            });
        }
        // The body reads its parameters, not the caller's names; what it binds takes slots
        // after the caller's.
        let outer = std::mem::replace(&mut self.scopes, aliases);
        self.coll_stack.push(d);
        self.quiet += 1;
        let (coll, ty) = self.coll(&def.body);
        self.quiet -= 1;
        self.coll_stack.pop();
        self.scopes = outer;
        (coll, ty)
    }

    /// A function returning a collection called where one value is expected.
    pub(crate) fn coll_def_as_value(&mut self, name: &str, span: ast::Span) -> (ir::Expr, Type) {
        let p = self.error(
            Code::Collection,
            span,
            format!("`{name}` gives a collection, not a single value"),
            "a collection here",
        );
        p.help = Some(format!(
            "use it after `in`: `for x in {name}(...)`, `count(x in {name}(...))`"
        ));
        (ir::Expr::Lit(ir::Value::None), Type::Any)
    }
}
