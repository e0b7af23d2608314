//! What is wrong but not an error, and the checks made once everything is lowered.

use super::*;
use crate::ir::{self};
use crate::syntax::ast;
use std::collections::{HashMap, HashSet};

impl Checker {
    /// Whether the file declares at most [`ir::MAX_DECLS`] names of each kind, values per enum
    /// and fields per component type (ids are 16 bits wide); each kind beyond is reported at
    /// its first declaration too many.
    pub(super) fn within_limits(&mut self, file: &ast::File) -> bool {
        use ast::DeclKind as D;
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut ok = true;
        for d in &file.decls {
            let (kind, inner): (&str, Option<(&str, usize, ast::Span)>) = match &d.kind {
                D::Const { .. } => ("constants", None),
                D::Variant { .. } => ("variants", None),
                D::Enum { name, values } => (
                    "enums",
                    Some(("values of one enum", values.len(), name.span)),
                ),
                D::Component { name, fields } => (
                    "component types",
                    Some(("fields of one component type", fields.len(), name.span)),
                ),
                D::Board { .. } => ("boards", None),
                D::Zone { .. } => ("zones", None),
                D::Var { .. } => ("variables", None),
                D::Def { .. } => ("functions", None),
                D::Set { .. } => ("set kinds", None),
                D::Action { .. } => ("actions", None),
                _ => continue,
            };
            let n = counts.entry(kind).or_default();
            *n += 1;
            let mut too_many = |what: &str, span: ast::Span| {
                let p = self.error(
                    Code::Limit,
                    span,
                    format!("a game has at most {} {what}", ir::MAX_DECLS),
                    "one too many",
                );
                p.help = Some("see \"Limits\" in the language reference".into());
                ok = false;
            };
            if *n == ir::MAX_DECLS + 1 {
                too_many(kind, d.span);
            }
            if let Some((what, len, span)) = inner {
                if len > ir::MAX_DECLS {
                    too_many(what, span);
                }
            }
        }
        ok
    }

    /// Limits that keep listing options free of allocation.
    pub(super) fn check_limits(&mut self) {
        // Limits that keep listing options free of allocation.
        let limit = ir::MAX_LOCALS;
        if self.aux_locals as usize > limit || self.game.score_locals as usize > limit {
            self.error(
                Code::TooManyLocals,
                ast::Span::new(0, 0),
                format!(
                    "an initial value, end condition or score uses more than {limit} local names"
                ),
                "too many local names",
            );
        }
        let big: Vec<(String, u16)> = self
            .game
            .procs
            .iter()
            .filter(|p| p.locals as usize > limit)
            .map(|p| (p.name.clone(), p.locals))
            .collect();
        for (name, n) in big {
            let p = self.error(
                Code::TooManyLocals,
                ast::Span::new(0, 0),
                format!("`{name}` uses {n} local names; at most {limit} are allowed"),
                "too many local names",
            );
            p.help = Some("move parts of it into actions run with `do`".into());
        }
        let def_limit = ir::DEF_LOCALS;
        let too_big: Vec<String> = self
            .game
            .defs
            .iter()
            .filter(|d| d.locals as usize > def_limit)
            .map(|d| d.name.clone())
            .chain(
                self.game
                    .sets
                    .iter()
                    .filter(|d| d.locals as usize > def_limit)
                    .map(|d| d.name.clone()),
            )
            .collect();
        for n in too_big {
            let sp = self.globals.get(&n).map_or(ast::Span::new(0, 0), |g| g.1);
            let p = self.error(
                Code::TooManyLocals,
                sp,
                format!("`{n}` uses more than {def_limit} local names"),
                "too many local names",
            );
            p.help = Some("split it into smaller functions".into());
        }
    }

    /// A flow, and something that ends the game.
    pub(super) fn check_ending(&mut self, flow_seen: Option<ast::Span>) {
        if flow_seen.is_none() {
            let p = self.error(
                Code::NoFlow,
                ast::Span::new(0, 0),
                "the game has no `flow`",
                "a game needs a flow of play",
            );
            p.help = Some("add `flow { ... }` with the turns of the game".into());
        } else if !self.ends {
            if let Some(sp) = self.unbounded_loop {
                let p = self.error(
                    Code::NeverEnds,
                    sp,
                    "this game can never end",
                    "this loop repeats forever and nothing ends the game",
                );
                p.help = Some("add `end when <condition>`, or an `end`, `win` or `break` statement that the loop reaches".into());
            }
        }
    }

    pub(crate) fn warnings(&mut self, file: &ast::File) {
        let mut unused = vec![];
        for (g, sp) in &self.decl_spans {
            if matches!(g, Global::Variant(_) | Global::Type(_)) {
                continue;
            }
            if let Global::Action(a) = g {
                if self.procedures.contains(a) {
                    if !self.action_refs.contains(a) {
                        unused.push((
                            *sp,
                            format!("procedure `{}` is never used", self.game.actions[*a].name),
                            "nothing runs this procedure",
                            None,
                        ));
                    }
                    continue;
                }
                if !self.action_refs.contains(a) && self.game.actions[*a].window.is_none() {
                    unused.push((
                        *sp,
                        format!("action `{}` is never offered", self.game.actions[*a].name),
                        "no `choose` or `do` refers to this action",
                        Some("list it in a `choose { ... }` of the flow, or remove it"),
                    ));
                }
                continue;
            }
            if !self.used.contains(g) {
                unused.push((
                    *sp,
                    format!("{} `{}` is never used", g.kind(), self.name_of(*g)),
                    "defined here, used nowhere",
                    None,
                ));
            }
        }
        // The zones where components start, once: not every component for every zone.
        let start: HashSet<ir::ZoneId> = self
            .game
            .comps
            .iter()
            .map(|c| self.game.instances[c.zone].zone)
            .collect();
        for (zi, z) in self.game.zones.enumerate() {
            if !self.used.contains(&Global::Zone(zi)) || start.contains(&zi) {
                continue;
            }
            if !z.instances().any(|i| self.filled_zones.contains(&i)) {
                if let Some(sp) = self.decl_spans.get(&Global::Zone(zi)) {
                    unused.push((*sp, format!("zone `{}` is never filled", z.name), "no component starts here and nothing moves one here", Some("start components here with `components T in zone`, or `move`/`deal` into it")));
                }
            }
        }
        unused.sort_by_key(|u| u.0.start);
        for (sp, msg, label, help) in unused {
            let p = self.warn(Code::Unused, sp, msg, label);
            p.help = help.map(String::from);
        }
        let _ = file;
    }
}
