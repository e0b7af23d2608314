//! Check: resolve names, check types and arity, and lower the syntax tree to the IR.
//!
//! The checker never stops at the first problem: it records every error and warning it finds
//! and returns them together.

mod diag;
mod lower;
pub mod scenario;

pub use diag::{render_plain, Diagnostics, Problem};

use crate::ir::{self, Game, Type, Value};
use crate::syntax::{self, ast};
use miette::{NamedSource, Severity};
use std::collections::HashMap;
use std::sync::Arc;

/// The result of loading a rules file: a checked game (when there were no errors) and
/// every problem found.
pub struct Loaded {
    /// The checked game; `None` when there was any error (warnings alone keep it).
    pub game: Option<Game>,
    /// Every error and warning found, in the order found.
    pub diagnostics: Diagnostics,
}

/// Parses and checks a rules file. Syntax errors come back as a single problem.
pub fn load(name: &str, text: &str) -> Loaded {
    let src = Arc::new(NamedSource::new(name, text.to_string()));
    match syntax::parse_file(name, text) {
        Err(e) => {
            let span = ast::Span::new(e.span.offset(), e.span.offset() + e.span.len());
            let problem = Problem {
                code: "syntax",
                severity: Severity::Error,
                message: e.message.clone(),
                span,
                label: e.label.clone(),
                related: None,
                help: e.help.clone(),
                src,
            };
            Loaded {
                game: None,
                diagnostics: Diagnostics {
                    problems: vec![problem],
                },
            }
        }
        Ok(file) => check(&file, name, text, src),
    }
}

fn check(file: &ast::File, name: &str, text: &str, src: Arc<NamedSource<String>>) -> Loaded {
    let mut c = Checker::new(name, text, src);
    c.run(file);
    let problems = std::mem::take(&mut c.problems);
    let failed = problems.iter().any(|p| p.severity == Severity::Error);
    Loaded {
        game: if failed { None } else { Some(c.game) },
        diagnostics: Diagnostics { problems },
    }
}

/// A name at the top level of a rules file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Global {
    Const(u16),
    Variant(u16),
    Enum(u16),
    EnumValue(u16, u16),
    /// A named space of a board (`a1`, `row3`).
    Space(u16, u32),
    Type(u16),
    Board(u16),
    Zone(u32),
    Var(u32),
    Def(u16),
    Set(u16),
    Action(u32),
}

impl Global {
    fn kind(self) -> &'static str {
        match self {
            Global::Const(_) => "constant",
            Global::Variant(_) => "variant",
            Global::Enum(_) => "enum",
            Global::EnumValue(..) => "enum value",
            Global::Space(..) => "space",
            Global::Type(_) => "component type",
            Global::Board(_) => "board",
            Global::Zone(_) => "zone",
            Global::Var(_) => "variable",
            Global::Def(_) => "function",
            Global::Set(_) => "set kind",
            Global::Action(_) => "action",
        }
    }
}

/// A local name in scope: a `let`, a binding or a parameter.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    name: String,
    slot: u16,
    ty: Type,
}

pub(crate) struct Checker {
    pub(crate) game: Game,
    pub(crate) problems: Vec<Problem>,
    pub(crate) src: Arc<NamedSource<String>>,
    pub(crate) globals: HashMap<String, (Global, ast::Span)>,
    /// Enum value names that more than one enum declares.
    pub(crate) ambiguous_values: HashMap<String, Vec<u16>>,
    pub(crate) used: std::collections::HashSet<Global>,
    pub(crate) filled_zones: std::collections::HashSet<u32>,
    pub(crate) scopes: Vec<Local>,
    pub(crate) next_local: u16,
    pub(crate) max_local: u16,
    /// Spans of declarations, for warnings.
    pub(crate) decl_spans: HashMap<Global, ast::Span>,
    pub(crate) action_refs: std::collections::HashSet<u32>,
    pub(crate) ends: bool,
    pub(crate) unbounded_loop: Option<ast::Span>,
    /// Result types of functions, known once their bodies are lowered.
    pub(crate) def_types: Vec<Type>,
    /// Parameter counts of actions, known from their signatures.
    pub(crate) action_arity: HashMap<u32, usize>,
    /// Locals used by variable initial values and end conditions.
    pub(crate) aux_locals: u16,
}

impl Checker {
    pub(crate) fn new(name: &str, text: &str, src: Arc<NamedSource<String>>) -> Self {
        Checker {
            game: Game {
                name: String::new(),
                source_name: name.to_string(),
                source: text.to_string(),
                source_hash: fnv1a(text.as_bytes()),
                min_players: 1,
                max_players: 1,
                consts: vec![],
                variants: vec![],
                enums: vec![],
                types: vec![],
                comps: vec![],
                boards: vec![],
                zones: vec![],
                zone_instances: 0,
                instances: vec![],
                vars: vec![],
                var_slots: 0,
                defs: vec![],
                sets: vec![],
                actions: vec![],
                procs: vec![],
                choices: vec![],
                setup: None,
                flow: 0,
                end_when: vec![],
                score: None,
                tiebreaks: vec![],
                score_locals: 1,
                ties_shared: true,
            },
            problems: vec![],
            src,
            globals: HashMap::new(),
            ambiguous_values: HashMap::new(),
            used: Default::default(),
            filled_zones: Default::default(),
            scopes: vec![],
            next_local: 0,
            max_local: 0,
            decl_spans: HashMap::new(),
            action_refs: Default::default(),
            ends: false,
            unbounded_loop: None,
            def_types: vec![],
            action_arity: HashMap::new(),
            aux_locals: 0,
        }
    }

    pub(crate) fn error(
        &mut self,
        code: &'static str,
        span: ast::Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Problem {
        self.push(Severity::Error, code, span, message.into(), label.into())
    }

    pub(crate) fn warn(
        &mut self,
        code: &'static str,
        span: ast::Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Problem {
        self.push(Severity::Warning, code, span, message.into(), label.into())
    }

    fn push(
        &mut self,
        severity: Severity,
        code: &'static str,
        span: ast::Span,
        message: String,
        label: String,
    ) -> &mut Problem {
        self.problems.push(Problem {
            code,
            severity,
            message,
            span,
            label,
            related: None,
            help: None,
            src: self.src.clone(),
        });
        self.problems.last_mut().expect("just pushed")
    }

    fn define(&mut self, name: &ast::Ident, g: Global) {
        if let Some((prev, prev_span)) = self
            .globals
            .get(&name.name)
            .copied()
            .filter(|(g, _)| !matches!(g, Global::EnumValue(..) | Global::Space(..)))
        {
            let p = self.error(
                "check::duplicate",
                name.span,
                format!("`{}` is defined twice", name.name),
                format!("this {} reuses the name", g.kind()),
            );
            p.related = Some((
                prev_span,
                format!("the {} `{}` is defined here", prev.kind(), name.name),
            ));
            p.help = Some("every top-level name must be unique: rename one of them".into());
            return;
        }
        self.globals.insert(name.name.clone(), (g, name.span));
        self.decl_spans.insert(g, name.span);
    }

    pub(crate) fn run(&mut self, file: &ast::File) {
        let mut players_seen = false;
        let mut flow_seen: Option<ast::Span> = None;
        let mut setup_seen: Option<ast::Span> = None;
        // Pass 1: names that others refer to, in dependency order.
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Game(n) => self.game.name = n.clone(),
                ast::DeclKind::Players { min, max } => {
                    if players_seen {
                        self.error(
                            "check::duplicate",
                            d.span,
                            "`players` is declared twice",
                            "second declaration",
                        );
                    }
                    players_seen = true;
                    if *min < 1 || *max < *min || *max > ir::MAX_PLAYERS as i64 {
                        let p = self.error(
                            "check::players",
                            d.span,
                            "invalid player count",
                            "players must be between 1 and 8, min before max",
                        );
                        p.help = Some("write `players 2` or `players 2..4`".into());
                    } else {
                        self.game.min_players = *min as u8;
                        self.game.max_players = *max as u8;
                    }
                }
                ast::DeclKind::Enum { name, values } => {
                    let id = self.game.enums.len() as u16;
                    self.define(name, Global::Enum(id));
                    let mut seen: HashMap<&str, ast::Span> = HashMap::new();
                    for v in values {
                        if let Some(prev) = seen.insert(&v.name, v.span) {
                            let p = self.error(
                                "check::duplicate",
                                v.span,
                                format!("`{}` appears twice in enum `{}`", v.name, name.name),
                                "repeated value",
                            );
                            p.related = Some((prev, "first here".into()));
                        }
                    }
                    self.game.enums.push(ir::EnumDef {
                        name: name.name.clone(),
                        values: values.iter().map(|v| v.name.clone()).collect(),
                    });
                }
                _ => {}
            }
        }
        if !players_seen {
            let p = self.error(
                "check::players",
                ast::Span::new(0, 0),
                "the game does not say how many players it takes",
                "expected `players N` or `players A..B`",
            );
            p.help = Some("add a line such as `players 2..4`".into());
        }
        // Enum values: global names unless they clash with another enum's value.
        for (ei, e) in self.game.enums.clone().iter().enumerate() {
            for (vi, v) in e.values.iter().enumerate() {
                if let Some((Global::EnumValue(other, _), _)) = self.globals.get(v).copied() {
                    self.ambiguous_values
                        .entry(v.clone())
                        .or_insert_with(|| vec![other])
                        .push(ei as u16);
                    continue;
                }
                if self.globals.contains_key(v) {
                    continue; // a type or other name wins; the value is reachable as Enum.value
                }
                self.globals.insert(
                    v.clone(),
                    (
                        Global::EnumValue(ei as u16, vi as u16),
                        ast::Span::default(),
                    ),
                );
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Const { name, value } = &d.kind {
                let v = self.const_eval(value, &[]).unwrap_or(Value::None);
                let id = self.game.consts.len() as u16;
                self.define(name, Global::Const(id));
                self.game.consts.push(ir::ConstDef {
                    name: name.name.clone(),
                    value: v,
                });
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Component { name, .. } = &d.kind {
                let id = self.game.types.len() as u16;
                self.define(name, Global::Type(id));
                self.game.types.push(ir::CompType {
                    name: name.name.clone(),
                    fields: vec![],
                });
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Board {
                name,
                shape,
                args,
                flags,
            } = &d.kind
            {
                self.board(name, shape, args, flags, d.span);
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Component { name, fields } = &d.kind {
                let Some((Global::Type(t), _)) = self.globals.get(&name.name).copied() else {
                    continue;
                };
                let mut out: Vec<ir::FieldDef> = vec![];
                for f in fields {
                    if out.iter().any(|o| o.name == f.name.name) {
                        self.error(
                            "check::duplicate",
                            f.name.span,
                            format!("field `{}` is declared twice", f.name.name),
                            "repeated field",
                        );
                        continue;
                    }
                    let (ty, range) = self.type_expr(&f.ty);
                    let default = match &f.default {
                        Some(e) => {
                            let v = self.const_eval(e, &[]).unwrap_or(Value::None);
                            let vt = self.value_type(v);
                            self.expect_type(
                                vt,
                                ty,
                                e.span,
                                &format!("the default of `{}`", f.name.name),
                            );
                            v
                        }
                        None => Value::None,
                    };
                    out.push(ir::FieldDef {
                        name: f.name.name.clone(),
                        ty,
                        range,
                        default,
                        seen_by: None,
                    });
                }
                for f in fields {
                    let Some(by) = &f.seen_by else { continue };
                    match out.iter().position(|o| o.name == by.name) {
                        Some(bi) if out[bi].ty == Type::Player => {
                            if let Some(me) = out.iter_mut().find(|o| o.name == f.name.name) {
                                me.seen_by = Some(bi as u16);
                            }
                        }
                        Some(_) => {
                            let p = self.error(
                                "check::visibility",
                                by.span,
                                format!(
                                    "`{}` must be a Player field to say who sees `{}`",
                                    by.name, f.name.name
                                ),
                                "not a Player field",
                            );
                            p.help =
                                Some("declare it as `owner: Player` in the same component".into());
                        }
                        None => {
                            let p = self.error(
                                "check::unknown_field",
                                by.span,
                                format!("`{}` has no field `{}`", name.name, by.name),
                                "unknown field",
                            );
                            p.help =
                                Some("`seen by` names a Player field of the same component".into());
                        }
                    }
                }
                self.game.types[t as usize].fields = out;
            }
        }
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Zone {
                    name,
                    index,
                    ty,
                    visibility,
                } => self.zone(name, index, ty, visibility.as_ref()),
                ast::DeclKind::Var {
                    name, index, ty, ..
                } => self.var(name, index, ty, d.span),
                _ => {}
            }
        }
        self.instances();
        // Space names (`a1`, `row3`) are values where no other name takes them.
        for (bi, b) in self.game.boards.iter().enumerate() {
            for (si, n) in b.space_names.iter().enumerate() {
                self.globals
                    .entry(n.clone())
                    .or_insert((Global::Space(bi as u16, si as u32), ast::Span::default()));
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Variant {
                name,
                description,
                sets,
            } = &d.kind
            {
                let id = self.game.variants.len() as u16;
                self.define(name, Global::Variant(id));
                let mut out = vec![];
                for (n, e) in sets {
                    match self.globals.get(&n.name).copied() {
                        Some((Global::Const(c), _)) => {
                            self.used.insert(Global::Const(c));
                            if let Some(v) = self.const_eval(e, &[]) {
                                out.push((c, v));
                            }
                        }
                        _ => {
                            let p = self.error(
                                "check::unknown_const",
                                n.span,
                                format!(
                                    "variant `{}` sets `{}`, which is not a constant",
                                    name.name, n.name
                                ),
                                "not a `const`",
                            );
                            p.help = Some("a variant can only change values declared with `const NAME = value`".into());
                        }
                    }
                }
                self.game.variants.push(ir::VariantDef {
                    name: name.name.clone(),
                    description: description.clone(),
                    sets: out,
                });
            }
        }
        // Signatures of functions and actions before any body, so bodies may refer to each other.
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Def { name, params, .. } => {
                    let id = self.game.defs.len() as u16;
                    self.define(name, Global::Def(id));
                    self.game.defs.push(ir::Def {
                        name: name.name.clone(),
                        params: params.len() as u16,
                        locals: 0,
                        body: ir::Expr::Lit(Value::None),
                    });
                }
                ast::DeclKind::Set { name, params, .. } => {
                    let id = self.game.sets.len() as u16;
                    self.define(name, Global::Set(id));
                    self.game.sets.push(ir::SetDef {
                        name: name.name.clone(),
                        params: params.len() as u16,
                        locals: 0,
                        conds: vec![],
                        points: ir::Expr::Lit(Value::None),
                    });
                }
                ast::DeclKind::Action { name, params, .. } => {
                    let id = self.game.actions.len() as u32;
                    self.action_arity.insert(id, params.len());
                    self.define(name, Global::Action(id));
                    self.game.actions.push(ir::ActionDef {
                        name: name.name.clone(),
                        params: vec![],
                        guard: None,
                        guard_span: None,
                        guard_parts: vec![],
                        offered: false,
                        proc: 0,
                        span: name.span,
                    });
                }
                _ => {}
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Components { ty, zone, entries } = &d.kind {
                self.components(ty, zone, entries);
            }
        }
        self.var_inits(file);
        // Function result types first (a silent pass), so that calls in any order are typed.
        self.def_types = vec![Type::Any; self.game.defs.len()];
        let quiet = self.problems.len();
        for d in &file.decls {
            if let ast::DeclKind::Def { name, params, body } = &d.kind {
                self.def_body(name, params, body);
            }
        }
        self.problems.truncate(quiet);
        for d in &file.decls {
            if let ast::DeclKind::Set {
                name,
                params,
                cond,
                points,
            } = &d.kind
            {
                self.set_body(name, params, cond.as_ref(), points);
            }
        }
        // Bodies.
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Def { name, params, body } => self.def_body(name, params, body),
                ast::DeclKind::Action {
                    name,
                    params,
                    guard,
                    body,
                } => self.action_body(name, params, guard.as_ref(), body),
                _ => {}
            }
        }
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Setup(b) | ast::DeclKind::Flow(b) => {
                    let is_setup = matches!(d.kind, ast::DeclKind::Setup(_));
                    let (word, seen) = if is_setup {
                        ("setup", &mut setup_seen)
                    } else {
                        ("flow", &mut flow_seen)
                    };
                    if let Some(prev) = *seen {
                        let p = self.error(
                            "check::duplicate",
                            d.span,
                            format!("`{word}` is declared twice"),
                            format!("second {word}"),
                        );
                        p.related = Some((prev, format!("first {word}")));
                    }
                    *seen = Some(d.span);
                    let id = self.proc_body(word, b);
                    if is_setup {
                        self.game.setup = Some(id);
                    } else {
                        self.game.flow = id;
                    }
                }
                ast::DeclKind::EndWhen(e) => {
                    self.begin_locals();
                    let (x, t) = self.expr(e);
                    self.expect_type(t, Type::Bool, e.span, "an end condition");
                    let n = self.end_locals();
                    self.aux_locals = self.aux_locals.max(n);
                    self.ends = true;
                    self.game.end_when.push((x, e.span));
                }
                ast::DeclKind::Score { player, value }
                | ast::DeclKind::Tiebreak { player, value } => {
                    self.begin_locals();
                    self.bind_local(&player.name, Type::Player);
                    let (x, t) = self.expr(value);
                    self.expect_type(t, Type::Int, value.span, "a score");
                    let n = self.end_locals();
                    self.game.score_locals = self.game.score_locals.max(n);
                    if matches!(d.kind, ast::DeclKind::Score { .. }) {
                        if self.game.score.is_some() {
                            self.error(
                                "check::duplicate",
                                d.span,
                                "`score` is declared twice",
                                "second score",
                            );
                        }
                        self.game.score = Some(x);
                    } else {
                        self.game.tiebreaks.push(x);
                    }
                }
                ast::DeclKind::Ties(k) => match k.name.as_str() {
                    "draw" => self.game.ties_shared = false,
                    "shared" => self.game.ties_shared = true,
                    _ => {
                        let p = self.error(
                            "check::ties",
                            k.span,
                            format!("unknown tie rule `{}`", k.name),
                            "expected `draw` or `shared`",
                        );
                        p.help = Some("`ties draw`: players tied for first have no winner; `ties shared`: they all win".into());
                    }
                },
                _ => {}
            }
        }
        // Limits that keep listing options free of allocation.
        let limit = crate::engine::LOCALS_LIMIT;
        if self.aux_locals as usize > limit || self.game.score_locals as usize > limit {
            self.error(
                "check::too_many_locals",
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
                "check::too_many_locals",
                ast::Span::new(0, 0),
                format!("`{name}` uses {n} local names; at most {limit} are allowed"),
                "too many local names",
            );
            p.help = Some("move parts of it into actions run with `do`".into());
        }
        let def_limit = crate::engine::DEF_LOCALS;
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
                "check::too_many_locals",
                sp,
                format!("`{n}` uses more than {def_limit} local names"),
                "too many local names",
            );
            p.help = Some("split it into smaller functions".into());
        }
        if flow_seen.is_none() {
            let p = self.error(
                "check::no_flow",
                ast::Span::new(0, 0),
                "the game has no `flow`",
                "a game needs a flow of play",
            );
            p.help = Some("add `flow { ... }` with the turns of the game".into());
        } else if !self.ends {
            if let Some(sp) = self.unbounded_loop {
                let p = self.error(
                    "check::never_ends",
                    sp,
                    "this game can never end",
                    "this loop repeats forever and nothing ends the game",
                );
                p.help = Some("add `end when <condition>`, or an `end`, `win` or `break` statement that the loop reaches".into());
            }
        }
        self.warnings(file);
    }

    fn warnings(&mut self, file: &ast::File) {
        let mut unused = vec![];
        for (g, sp) in &self.decl_spans {
            if matches!(g, Global::Variant(_) | Global::Type(_)) {
                continue;
            }
            if let Global::Action(a) = g {
                if !self.action_refs.contains(a) {
                    unused.push((
                        *sp,
                        format!(
                            "action `{}` is never offered",
                            self.game.actions[*a as usize].name
                        ),
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
        for (zi, z) in self.game.zones.iter().enumerate() {
            let any = (z.base..z.base + z.count).any(|i| self.filled_zones.contains(&i))
                || self
                    .game
                    .comps
                    .iter()
                    .any(|c| c.zone >= z.base && c.zone < z.base + z.count);
            if !any && self.used.contains(&Global::Zone(zi as u32)) {
                if let Some(sp) = self.decl_spans.get(&Global::Zone(zi as u32)) {
                    unused.push((*sp, format!("zone `{}` is never filled", z.name), "no component starts here and nothing moves one here", Some("start components here with `components T in zone`, or `move`/`deal` into it")));
                }
            }
        }
        unused.sort_by_key(|u| u.0.start);
        for (sp, msg, label, help) in unused {
            let p = self.warn("check::unused", sp, msg, label);
            p.help = help.map(String::from);
        }
        let _ = file;
    }

    fn name_of(&self, g: Global) -> String {
        match g {
            Global::Const(i) => self.game.consts[i as usize].name.clone(),
            Global::Variant(i) => self.game.variants[i as usize].name.clone(),
            Global::Enum(i) => self.game.enums[i as usize].name.clone(),
            Global::EnumValue(e, v) => self.game.enums[e as usize].values[v as usize].clone(),
            Global::Space(b, s) => self.game.boards[b as usize].space_names[s as usize].clone(),
            Global::Type(i) => self.game.types[i as usize].name.clone(),
            Global::Board(i) => self.game.boards[i as usize].name.clone(),
            Global::Zone(i) => self.game.zones[i as usize].name.clone(),
            Global::Var(i) => self.game.vars[i as usize].name.clone(),
            Global::Def(i) => self.game.defs[i as usize].name.clone(),
            Global::Set(i) => self.game.sets[i as usize].name.clone(),
            Global::Action(i) => self.game.actions[i as usize].name.clone(),
        }
    }

    pub(crate) fn type_name(&self, t: Type) -> String {
        match t {
            Type::Int => "int".into(),
            Type::Bool => "bool".into(),
            Type::Player => "Player".into(),
            Type::Enum(e) => self.game.enums[e as usize].name.clone(),
            Type::Comp(c) => self.game.types[c as usize].name.clone(),
            Type::Space(b) => format!("a space of `{}`", self.game.boards[b as usize].name),
            Type::Zone(c) => format!("a zone of {}", self.game.types[c as usize].name),
            Type::Any => "any".into(),
        }
    }

    fn type_expr(&mut self, t: &ast::TypeExpr) -> (Type, Option<(i64, i64)>) {
        match t {
            ast::TypeExpr::Range { lo, hi, span } => {
                if lo > hi {
                    self.error(
                        "check::range",
                        *span,
                        "empty range",
                        "the low end is above the high end",
                    );
                }
                (Type::Int, Some((*lo, *hi)))
            }
            ast::TypeExpr::Named(n) => match n.name.as_str() {
                "int" => (Type::Int, None),
                "bool" => (Type::Bool, None),
                "Player" => (Type::Player, None),
                _ => match self.globals.get(&n.name).copied() {
                    Some((Global::Enum(e), _)) => {
                        self.used.insert(Global::Enum(e));
                        (Type::Enum(e), None)
                    }
                    Some((Global::Type(c), _)) => (Type::Comp(c), None),
                    Some((Global::Board(b), _)) => {
                        self.used.insert(Global::Board(b));
                        (Type::Space(b), None)
                    }
                    _ => {
                        let p = self.error(
                            "check::unknown_type",
                            n.span,
                            format!("unknown type `{}`", n.name),
                            "not a type",
                        );
                        p.help = Some("types are int, bool, Player, a range such as 0..10, an enum, a component type or a board".into());
                        (Type::Any, None)
                    }
                },
            },
        }
    }

    fn dims(&mut self, index: &[ast::Ident]) -> Vec<ir::Dim> {
        let mut out = vec![];
        for i in index {
            if i.name == "Player" {
                out.push(ir::Dim::Player);
                continue;
            }
            match self.globals.get(&i.name).copied() {
                Some((Global::Enum(e), _)) => {
                    self.used.insert(Global::Enum(e));
                    out.push(ir::Dim::Enum(e));
                }
                Some((Global::Board(b), _)) => {
                    self.used.insert(Global::Board(b));
                    out.push(ir::Dim::Board(b));
                }
                _ => {
                    let p = self.error(
                        "check::unknown_index",
                        i.span,
                        format!("cannot index by `{}`", i.name),
                        "not Player, an enum or a board",
                    );
                    p.help = Some(
                        "zones and variables are indexed by Player, an enum or a board".into(),
                    );
                }
            }
        }
        out
    }

    fn board(
        &mut self,
        name: &ast::Ident,
        shape: &ast::Ident,
        args: &[ast::Expr],
        flags: &[ast::Ident],
        span: ast::Span,
    ) {
        let nums: Vec<i64> = args
            .iter()
            .filter_map(|a| match self.const_eval(a, &[]) {
                Some(Value::Int(n)) if n > 0 && n <= 10_000 => Some(n),
                _ => {
                    self.error(
                        "check::board",
                        a.span,
                        "a board size must be a positive constant number",
                        "not a positive number",
                    );
                    None
                }
            })
            .collect();
        let mut diagonal = false;
        for f in flags {
            if f.name == "diagonal" && shape.name == "grid" {
                diagonal = true;
            } else {
                let p = self.error(
                    "check::board",
                    f.span,
                    format!("unknown board option `{}`", f.name),
                    "not a board option",
                );
                p.help = Some("grids take `diagonal` (8 neighbours instead of 4)".into());
            }
        }
        let (shape_ir, names, adj): (ir::BoardShape, Vec<String>, Vec<Vec<u32>>) =
            match (shape.name.as_str(), nums.as_slice()) {
                ("grid", [w, h]) => {
                    let (w, h) = (*w as u32, *h as u32);
                    let mut names = vec![];
                    let mut adj = vec![];
                    for y in 0..h {
                        for x in 0..w {
                            names.push(format!("{}{}", col_name(x), y + 1));
                            let mut n = vec![];
                            for (dx, dy) in [
                                (0i64, -1i64),
                                (-1, 0),
                                (1, 0),
                                (0, 1),
                                (-1, -1),
                                (1, -1),
                                (-1, 1),
                                (1, 1),
                            ]
                            .iter()
                            .take(if diagonal { 8 } else { 4 })
                            {
                                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                                if nx >= 0 && ny >= 0 && nx < w as i64 && ny < h as i64 {
                                    n.push((ny as u32) * w + nx as u32);
                                }
                            }
                            n.sort_unstable();
                            adj.push(n);
                        }
                    }
                    (
                        ir::BoardShape::Grid {
                            width: w,
                            height: h,
                            diagonal,
                        },
                        names,
                        adj,
                    )
                }
                ("ring", [n]) => {
                    let n = *n as u32;
                    let names = (0..n).map(|i| format!("{}{}", name.name, i + 1)).collect();
                    let adj = (0..n)
                        .map(|i| {
                            let mut v = vec![(i + n - 1) % n, (i + 1) % n];
                            v.sort_unstable();
                            v.dedup();
                            v.retain(|&x| x != i);
                            v
                        })
                        .collect();
                    (ir::BoardShape::Ring { size: n }, names, adj)
                }
                _ => {
                    if nums.len() == args.len() {
                        let p = self.error(
                            "check::board",
                            span,
                            format!(
                                "unknown board shape `{}` with {} size(s)",
                                shape.name,
                                args.len()
                            ),
                            "not a board shape",
                        );
                        p.help = Some("write `grid(width, height)` or `ring(size)`".into());
                    }
                    (ir::BoardShape::Ring { size: 0 }, vec![], vec![])
                }
            };
        let mut adj_start = vec![0u32];
        let mut flat = vec![];
        for a in &adj {
            flat.extend_from_slice(a);
            adj_start.push(flat.len() as u32);
        }
        let id = self.game.boards.len() as u16;
        self.define(name, Global::Board(id));
        self.game.boards.push(ir::Board {
            name: name.name.clone(),
            shape: shape_ir,
            space_names: names,
            adj_start,
            adj: flat,
        });
    }

    fn zone(
        &mut self,
        name: &ast::Ident,
        index: &[ast::Ident],
        ty: &ast::Ident,
        vis: Option<&ast::Ident>,
    ) {
        let dims = self.dims(index);
        let t = match self.globals.get(&ty.name).copied() {
            Some((Global::Type(t), _)) => t,
            _ => {
                let p = self.error(
                    "check::unknown_type",
                    ty.span,
                    format!("unknown component type `{}`", ty.name),
                    "zones hold components of one type",
                );
                p.help = Some("declare it with `component Name { field: type }`".into());
                UNKNOWN_TYPE
            }
        };
        let visibility = match vis.map(|v| v.name.as_str()) {
            None | Some("public") => ir::Visibility::Public,
            Some("owner") => ir::Visibility::Owner,
            Some("hidden") => ir::Visibility::Hidden,
            Some("top") => ir::Visibility::Top,
            Some(other) => {
                let p = self.error(
                    "check::visibility",
                    vis.map_or(name.span, |v| v.span),
                    format!("unknown visibility `{other}`"),
                    "not a visibility",
                );
                p.help = Some("write `public`, `owner`, `hidden` or `top`".into());
                ir::Visibility::Public
            }
        };
        let owner_dim = dims.iter().position(|d| *d == ir::Dim::Player);
        if visibility == ir::Visibility::Owner && owner_dim.is_none() {
            let p = self.error(
                "check::visibility",
                vis.map_or(name.span, |v| v.span),
                format!("zone `{}` is `owner` but not indexed by Player", name.name),
                "no owner to see it",
            );
            p.help = Some("index it by player: `zone hand[Player]: Card owner`".into());
        }
        let sizes: Vec<u32> = dims.iter().map(|d| self.game.dim_size(*d)).collect();
        let count = sizes.iter().product::<u32>().max(1);
        let id = self.game.zones.len() as u32;
        self.define(name, Global::Zone(id));
        self.game.zones.push(ir::ZoneDef {
            name: name.name.clone(),
            dims,
            sizes,
            base: self.game.zone_instances,
            count,
            ty: t,
            visibility,
            owner_dim,
        });
        self.game.zone_instances += count;
    }

    fn instances(&mut self) {
        let mut out = Vec::with_capacity(self.game.zone_instances as usize);
        for (zi, z) in self.game.zones.iter().enumerate() {
            for k in 0..z.count {
                let mut rest = k;
                let mut owner = None;
                let mut space = None;
                for i in (0..z.dims.len()).rev() {
                    let v = rest % z.sizes[i];
                    rest /= z.sizes[i];
                    match z.dims[i] {
                        ir::Dim::Player => owner = Some(v as u8),
                        ir::Dim::Board(b) => space = Some((b, v)),
                        ir::Dim::Enum(_) => {}
                    }
                }
                out.push(ir::Instance {
                    zone: zi as u16,
                    owner,
                    space,
                });
            }
        }
        self.game.instances = out;
    }

    fn var(
        &mut self,
        name: &ast::Ident,
        index: &[ast::Ident],
        ty: &ast::TypeExpr,
        span: ast::Span,
    ) {
        let dims = self.dims(index);
        let (t, range) = self.type_expr(ty);
        let sizes: Vec<u32> = dims.iter().map(|d| self.game.dim_size(*d)).collect();
        let count = sizes.iter().product::<u32>().max(1);
        let id = self.game.vars.len() as u32;
        self.define(name, Global::Var(id));
        self.game.vars.push(ir::VarDef {
            name: name.name.clone(),
            dims,
            sizes,
            base: self.game.var_slots,
            count,
            ty: t,
            range,
            init: None,
            span,
        });
        self.game.var_slots += count;
    }

    fn var_inits(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Var {
                name,
                init: Some(e),
                ..
            } = &d.kind
            {
                let Some((Global::Var(v), _)) = self.globals.get(&name.name).copied() else {
                    continue;
                };
                self.begin_locals();
                let (x, t) = self.expr(e);
                let want = self.game.vars[v as usize].ty;
                self.expect_type(t, want, e.span, "this variable's initial value");
                let n = self.end_locals();
                self.aux_locals = self.aux_locals.max(n);
                self.game.vars[v as usize].init = Some(x);
            }
        }
    }

    fn components(&mut self, ty: &ast::Ident, zone: &ast::Expr, entries: &[ast::Entry]) {
        let t = match self.globals.get(&ty.name).copied() {
            Some((Global::Type(t), _)) => t,
            _ => {
                self.error(
                    "check::unknown_type",
                    ty.span,
                    format!("unknown component type `{}`", ty.name),
                    "not a component type",
                );
                return;
            }
        };
        let inst = match self.const_zone(zone) {
            Some(z) => z,
            None => return,
        };
        let zone_ty = self.game.zones[self.game.instances[inst as usize].zone as usize].ty;
        if zone_ty == UNKNOWN_TYPE {
            return;
        }
        if zone_ty != t {
            let zt = self.game.zones[self.game.instances[inst as usize].zone as usize].ty;
            let p = self.error(
                "check::type",
                zone.span,
                format!(
                    "zone holds {} components, not {}",
                    self.game.types[zt as usize].name, ty.name
                ),
                "wrong zone for this type",
            );
            p.help = Some("components must start in a zone declared for their type".into());
            return;
        }
        let fields = self.game.types[t as usize].fields.clone();
        for e in entries {
            // Expand generators into every combination of values.
            let mut combos: Vec<Vec<(String, Value)>> = vec![vec![]];
            let mut ok = true;
            for g in &e.generators {
                let vals = self.const_coll(&g.coll);
                let Some(vals) = vals else {
                    ok = false;
                    break;
                };
                let mut next = vec![];
                for c in &combos {
                    for v in &vals {
                        let mut c2 = c.clone();
                        c2.push((g.var.name.clone(), *v));
                        next.push(c2);
                    }
                }
                combos = next;
            }
            if !ok {
                continue;
            }
            for (fname, _) in &e.fields {
                if !fields.iter().any(|f| f.name == fname.name) {
                    let p = self.error(
                        "check::unknown_field",
                        fname.span,
                        format!("`{}` has no field `{}`", ty.name, fname.name),
                        "unknown field",
                    );
                    p.help = Some(format!(
                        "fields of {}: {}",
                        ty.name,
                        fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            let template = self.name_template(&e.name, e.name_span, t, &combos[0]);
            for combo in &combos {
                let mut values = vec![];
                for (fi, f) in fields.iter().enumerate() {
                    let v = match e.fields.iter().find(|(n, _)| n.name == f.name) {
                        Some((_, x)) => {
                            let v = self.const_eval(x, combo).unwrap_or(Value::None);
                            let vt = self.value_type(v);
                            self.expect_type(vt, f.ty, x.span, &format!("field `{}`", f.name));
                            v
                        }
                        None => self.field_default(t, fi),
                    };
                    values.push(v);
                }
                let name = template
                    .iter()
                    .map(|p| match p {
                        TemplatePart::Text(s) => ir::NamePart::Text(s.clone()),
                        TemplatePart::Field(f) => ir::NamePart::Field(*f),
                        TemplatePart::Gen(g) => ir::NamePart::Text(
                            combo
                                .iter()
                                .find(|(n, _)| n == g)
                                .map(|(_, v)| self.const_text(*v))
                                .unwrap_or_default(),
                        ),
                    })
                    .collect();
                let base = self
                    .game
                    .comps
                    .last()
                    .map_or(0, |c: &ir::Comp| c.field_base + c.fields.len() as u32);
                self.game.comps.push(ir::Comp {
                    ty: t,
                    name,
                    fields: values,
                    field_base: base,
                    zone: inst,
                });
            }
        }
    }

    fn field_default(&self, t: u16, fi: usize) -> Value {
        let f = &self.game.types[t as usize].fields[fi];
        match (f.default, f.ty) {
            (Value::None, Type::Bool) => Value::Bool(false),
            (Value::None, Type::Int) => Value::Int(f.range.map_or(0, |(lo, hi)| 0.clamp(lo, hi))),
            (v, _) => v,
        }
    }

    fn name_template(
        &mut self,
        text: &str,
        span: ast::Span,
        t: u16,
        gens: &[(String, Value)],
    ) -> Vec<TemplatePart> {
        let mut out = vec![];
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                out.push(TemplatePart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                self.error(
                    "check::template",
                    span,
                    "unclosed `{` in a name",
                    "expected `}`",
                );
                return out;
            };
            let key = &rest[open + 1..open + close];
            if gens.iter().any(|(n, _)| n == key)
                && !self.game.types[t as usize]
                    .fields
                    .iter()
                    .any(|f| f.name == key)
            {
                out.push(TemplatePart::Gen(key.to_string()));
            } else if let Some(fi) = self.game.types[t as usize]
                .fields
                .iter()
                .position(|f| f.name == key)
            {
                if self.game.types[t as usize].fields[fi].seen_by.is_some() {
                    let p = self.error(
                        "check::template",
                        span,
                        format!("the name shows `{key}`, a secret field"),
                        "every player sees names",
                    );
                    p.help = Some(
                        "names appear in action texts and views; keep `seen by` fields out of them"
                            .into(),
                    );
                }
                out.push(TemplatePart::Field(fi as u16));
            } else {
                let p = self.error(
                    "check::template",
                    span,
                    format!("the name refers to `{key}`, which is neither a field nor a generator"),
                    "unknown name in braces",
                );
                p.help = Some("`{field}` shows a field's value in the component's name".into());
            }
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            out.push(TemplatePart::Text(rest.to_string()));
        }
        out
    }

    fn const_text(&self, v: Value) -> String {
        match v {
            Value::Int(n) => n.to_string(),
            Value::Enum(e, i) => self.game.enums[e as usize].values[i as usize].clone(),
            Value::Bool(b) => b.to_string(),
            _ => String::new(),
        }
    }

    pub(crate) fn value_type(&self, v: Value) -> Type {
        match v {
            Value::None => Type::Any,
            Value::Int(_) => Type::Int,
            Value::Bool(_) => Type::Bool,
            Value::Player(_) => Type::Player,
            Value::Enum(e, _) => Type::Enum(e),
            Value::Comp(c) => Type::Comp(self.game.comps[c as usize].ty),
            Value::Space(b, _) => Type::Space(b),
            Value::Zone(z) => {
                Type::Zone(self.game.zones[self.game.instances[z as usize].zone as usize].ty)
            }
        }
    }

    /// Evaluates an expression that must be known when the file is checked.
    pub(crate) fn const_eval(&mut self, e: &ast::Expr, gens: &[(String, Value)]) -> Option<Value> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Int(n) => Some(Value::Int(*n)),
            K::Bool(b) => Some(Value::Bool(*b)),
            K::None => Some(Value::None),
            K::Name(n) => {
                if let Some((_, v)) = gens.iter().rev().find(|(g, _)| g == n) {
                    return Some(*v);
                }
                match self.globals.get(n).copied() {
                    Some((Global::Const(c), _)) => {
                        self.used.insert(Global::Const(c));
                        Some(self.game.consts[c as usize].value)
                    }
                    Some((Global::EnumValue(en, v), _)) => Some(Value::Enum(en, v)),
                    Some((Global::Space(b, s), _)) => Some(Value::Space(b, s)),
                    _ => {
                        if let Some(list) = self.ambiguous_values.get(n) {
                            let names: Vec<String> = list
                                .iter()
                                .map(|e| self.game.enums[*e as usize].name.clone())
                                .collect();
                            let p = self.error(
                                "check::ambiguous",
                                e.span,
                                format!("`{n}` is a value of several enums"),
                                "ambiguous value",
                            );
                            p.help = Some(format!(
                                "write it with its enum: {}",
                                names
                                    .iter()
                                    .map(|x| format!("{x}.{n}"))
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ));
                        } else {
                            let p = self.error(
                                "check::not_constant",
                                e.span,
                                format!("`{n}` is not known when the file is read"),
                                "expected a constant",
                            );
                            p.help = Some(
                                "here only numbers, constants and enum values may be used".into(),
                            );
                        }
                        None
                    }
                }
            }
            K::Field(base, f) => {
                if let K::Name(en) = &base.kind {
                    if let Some((Global::Enum(ei), _)) = self.globals.get(en).copied() {
                        if let Some(vi) = self.game.enums[ei as usize]
                            .values
                            .iter()
                            .position(|v| *v == f.name)
                        {
                            self.used.insert(Global::Enum(ei));
                            return Some(Value::Enum(ei, vi as u16));
                        }
                    }
                }
                self.error(
                    "check::not_constant",
                    e.span,
                    "not a constant",
                    "expected a constant here",
                );
                None
            }
            K::Unary(ast::UnOp::Neg, x) => match self.const_eval(x, gens)? {
                Value::Int(n) => Some(Value::Int(-n)),
                _ => None,
            },
            K::Unary(ast::UnOp::Not, x) => match self.const_eval(x, gens)? {
                Value::Bool(b) => Some(Value::Bool(!b)),
                _ => None,
            },
            K::Binary(op, a, b) => {
                let (a, b) = (self.const_eval(a, gens)?, self.const_eval(b, gens)?);
                match (a, b) {
                    (Value::Int(x), Value::Int(y)) => Some(match op {
                        ast::BinOp::Add => Value::Int(x.wrapping_add(y)),
                        ast::BinOp::Sub => Value::Int(x.wrapping_sub(y)),
                        ast::BinOp::Mul => Value::Int(x.wrapping_mul(y)),
                        ast::BinOp::Div if y != 0 => Value::Int(x / y),
                        ast::BinOp::Mod if y != 0 => Value::Int(x.rem_euclid(y)),
                        ast::BinOp::Eq => Value::Bool(x == y),
                        ast::BinOp::Ne => Value::Bool(x != y),
                        ast::BinOp::Lt => Value::Bool(x < y),
                        ast::BinOp::Le => Value::Bool(x <= y),
                        ast::BinOp::Gt => Value::Bool(x > y),
                        ast::BinOp::Ge => Value::Bool(x >= y),
                        _ => return None,
                    }),
                    (a, b) => Some(match op {
                        ast::BinOp::Eq => Value::Bool(a == b),
                        ast::BinOp::Ne => Value::Bool(a != b),
                        _ => return None,
                    }),
                }
            }
            K::If(c, a, b) => match self.const_eval(c, gens)? {
                Value::Bool(true) => self.const_eval(a, gens),
                _ => self.const_eval(b, gens),
            },
            _ => {
                let p = self.error(
                    "check::not_constant",
                    e.span,
                    "this must be known when the file is read",
                    "not a constant",
                );
                p.help = Some("use numbers, constants, enum values and arithmetic".into());
                None
            }
        }
    }

    /// The values of a collection known when the file is read (enum values, a range, a list).
    fn const_coll(&mut self, e: &ast::Expr) -> Option<Vec<Value>> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Range(a, b) => match (self.const_eval(a, &[])?, self.const_eval(b, &[])?) {
                (Value::Int(a), Value::Int(b)) if b - a <= 100_000 => {
                    Some((a..=b).map(Value::Int).collect())
                }
                _ => {
                    self.error(
                        "check::range",
                        e.span,
                        "a generator range must be two numbers",
                        "not a number range",
                    );
                    None
                }
            },
            K::Name(n) => match self.globals.get(n).copied() {
                Some((Global::Enum(en), _)) => {
                    self.used.insert(Global::Enum(en));
                    Some(
                        (0..self.game.enums[en as usize].values.len() as u16)
                            .map(|v| Value::Enum(en, v))
                            .collect(),
                    )
                }
                _ => {
                    let p = self.error(
                        "check::not_constant",
                        e.span,
                        format!("`{n}` cannot generate components"),
                        "expected an enum, a range or a list",
                    );
                    p.help = Some("write `for suit in Suit` or `for rank in 2..10`".into());
                    None
                }
            },
            K::List(items) => items.iter().map(|i| self.const_eval(i, &[])).collect(),
            _ => {
                self.error(
                    "check::not_constant",
                    e.span,
                    "expected an enum, a range or a list",
                    "cannot generate from this",
                );
                None
            }
        }
    }

    fn const_zone(&mut self, e: &ast::Expr) -> Option<u32> {
        use ast::ExprKind as K;
        let (name, idx): (&String, &[ast::Expr]) = match &e.kind {
            K::Name(n) => (n, &[]),
            K::Index(b, i) => match &b.kind {
                K::Name(n) => (n, i.as_slice()),
                _ => (&String::new(), &[]),
            },
            _ => (&String::new(), &[]),
        };
        let Some((Global::Zone(z), _)) = self.globals.get(name).copied() else {
            let p = self.error(
                "check::unknown_zone",
                e.span,
                "components must start in a zone",
                "not a zone",
            );
            p.help = Some("write `components Card in deck { ... }` with a declared zone".into());
            return None;
        };
        self.used.insert(Global::Zone(z));
        let zd = self.game.zones[z as usize].clone();
        if idx.len() != zd.dims.len() {
            self.error(
                "check::arity",
                e.span,
                format!(
                    "zone `{}` takes {} index(es), got {}",
                    zd.name,
                    zd.dims.len(),
                    idx.len()
                ),
                "wrong number of indexes",
            );
            return None;
        }
        let mut inst = 0u32;
        for (i, x) in idx.iter().enumerate() {
            let v = self.const_eval(x, &[])?;
            let k = match (zd.dims[i], v) {
                (ir::Dim::Enum(e1), Value::Enum(e2, k)) if e1 == e2 => k as u32,
                (ir::Dim::Player, Value::Int(k)) if (k as u32) < zd.sizes[i] => k as u32,
                _ => {
                    self.error(
                        "check::type",
                        x.span,
                        "this index does not fit the zone",
                        "wrong index",
                    );
                    return None;
                }
            };
            inst = inst * zd.sizes[i] + k;
        }
        Some(zd.base + inst)
    }

    pub(crate) fn expect_type(&mut self, got: Type, want: Type, span: ast::Span, what: &str) {
        if got == want || got == Type::Any || want == Type::Any {
            return;
        }
        let p = self.error(
            "check::type",
            span,
            format!(
                "{what} must be {}, not {}",
                self.type_name(want),
                self.type_name(got)
            ),
            format!("this is {}", self.type_name(got)),
        );
        if want == Type::Bool && got == Type::Int {
            p.help = Some("compare it: `x > 0`".into());
        }
    }

    // -------- locals

    pub(crate) fn begin_locals(&mut self) {
        self.scopes.clear();
        self.next_local = 0;
        self.max_local = 0;
    }

    pub(crate) fn end_locals(&mut self) -> u16 {
        self.scopes.clear();
        self.max_local.max(self.next_local)
    }

    pub(crate) fn bind_local(&mut self, name: &str, ty: Type) -> u16 {
        let slot = self.alloc_local(1);
        self.scopes.push(Local {
            name: name.to_string(),
            slot,
            ty,
        });
        slot
    }

    pub(crate) fn alloc_local(&mut self, n: u16) -> u16 {
        let slot = self.next_local;
        self.next_local += n;
        self.max_local = self.max_local.max(self.next_local);
        slot
    }

    pub(crate) fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find(|l| l.name == name)
    }

    fn def_body(
        &mut self,
        name: &ast::Ident,
        params: &[(ast::Ident, ast::TypeExpr)],
        body: &ast::Expr,
    ) {
        let Some((Global::Def(d), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        self.begin_locals();
        for (p, t) in params {
            let (ty, _) = self.type_expr(t);
            self.bind_local(&p.name, ty);
        }
        let (x, t) = self.expr(body);
        let n = self.end_locals();
        if let Some(slot) = self.def_types.get_mut(d as usize) {
            *slot = t;
        }
        let def = &mut self.game.defs[d as usize];
        def.body = x;
        def.locals = n;
    }

    /// Splits a guard at `and` and tags each part with how many of the bindings it needs.
    pub(crate) fn guard_parts(
        &mut self,
        guard: Option<&ast::Expr>,
        slots: &[u16],
    ) -> Vec<(u16, ir::Expr)> {
        let Some(g) = guard else { return vec![] };
        let mut conj = vec![];
        split_and(g, &mut conj);
        let quiet = self.problems.len();
        let mut out = vec![];
        for c in conj {
            let (x, _) = self.expr(c);
            let mut need = 0u16;
            x.reads(&mut |l| {
                if let Some(pos) = slots.iter().position(|s| *s == l) {
                    need = need.max(pos as u16 + 1);
                }
            });
            out.push((need, x));
        }
        // The whole guard was checked already; its parts report nothing new.
        self.problems.truncate(quiet);
        out.sort_by_key(|p| p.0);
        out
    }

    fn set_body(
        &mut self,
        name: &ast::Ident,
        params: &[(ast::Ident, ast::TypeExpr)],
        cond: Option<&ast::Expr>,
        points: &ast::Expr,
    ) {
        let Some((Global::Set(id), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        self.begin_locals();
        for (p, t) in params {
            let (ty, _) = self.type_expr(t);
            if !matches!(ty, Type::Comp(_) | Type::Any) {
                let p = self.error(
                    "check::type",
                    t.span(),
                    "the members of a set are components",
                    "not a component type",
                );
                p.help = Some("write `set pair(a: Card, b: Card) ...`".into());
            }
            self.bind_local(&p.name, ty);
        }
        let mut conjuncts = vec![];
        if let Some(c) = cond {
            split_and(c, &mut conjuncts);
        }
        let n = params.len() as u16;
        let mut conds = vec![];
        for c in conjuncts {
            let (x, t) = self.expr(c);
            self.expect_type(t, Type::Bool, c.span, "a set's condition");
            let need = max_param(&x, n).unwrap_or(0);
            conds.push((need, x));
        }
        conds.sort_by_key(|c| c.0);
        let (pts, t) = self.expr(points);
        self.expect_type(t, Type::Int, points.span, "a set's value");
        let locals = self.end_locals();
        let s = &mut self.game.sets[id as usize];
        s.conds = conds;
        s.points = pts;
        s.locals = locals;
    }

    fn action_body(
        &mut self,
        name: &ast::Ident,
        params: &[ast::Binding],
        guard: Option<&ast::Expr>,
        body: &ast::Block,
    ) {
        let Some((Global::Action(a), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        if params.len() > ir::MAX_ARGS {
            self.error(
                "check::arity",
                name.span,
                format!("an action takes at most {} parameters", ir::MAX_ARGS),
                "too many parameters",
            );
        }
        self.begin_locals();
        let binds = self.bind_all(params);
        let g = guard.map(|g| {
            let (x, t) = self.expr(g);
            self.expect_type(t, Type::Bool, g.span, "a guard");
            x
        });
        let slots: Vec<u16> = binds.iter().map(|b| b.slot).collect();
        let parts = self.guard_parts(guard, &slots);
        let mut code = vec![];
        self.block(body, &mut code, &mut vec![]);
        let locals = self.end_locals();
        let proc = self.game.procs.len() as u32;
        self.game.procs.push(ir::Proc {
            name: name.name.clone(),
            code,
            locals,
        });
        let act = &mut self.game.actions[a as usize];
        act.params = binds;
        act.guard = g;
        act.guard_span = guard.map(|g| g.span);
        act.guard_parts = parts;
        act.proc = proc;
    }

    fn proc_body(&mut self, name: &str, b: &ast::Block) -> u32 {
        self.begin_locals();
        let mut code = vec![];
        self.block(b, &mut code, &mut vec![]);
        let locals = self.end_locals();
        let id = self.game.procs.len() as u32;
        self.game.procs.push(ir::Proc {
            name: name.to_string(),
            code,
            locals,
        });
        id
    }
}

enum TemplatePart {
    Text(String),
    Field(u16),
    Gen(String),
}

/// Splits `a and b and c` into its parts.
fn split_and<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match &e.kind {
        ast::ExprKind::Binary(ast::BinOp::And, a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        _ => out.push(e),
    }
}

/// The highest parameter (local below `n`) an expression reads.
fn max_param(e: &ir::Expr, n: u16) -> Option<u16> {
    use ir::Expr as E;
    let mut best: Option<u16> = None;
    let mut see = |x: Option<u16>| {
        if let Some(v) = x {
            best = Some(best.map_or(v, |b| b.max(v)));
        }
    };
    match e {
        E::Local(l) if *l < n => see(Some(*l)),
        E::Lit(_) | E::Const(_) | E::Local(_) | E::Me | E::Current | E::PlayerCount => {}
        E::Var(_, ix) | E::Zone(_, ix) | E::Builtin(_, ix, _) | E::CallDef(_, ix) => {
            ix.iter().for_each(|x| see(max_param(x, n)))
        }
        E::Field(x, _) | E::Not(x) | E::Neg(x) => see(max_param(x, n)),
        E::Bin(_, a, b, _) => {
            see(max_param(a, n));
            see(max_param(b, n));
        }
        E::If(a, b, c) => {
            see(max_param(a, n));
            see(max_param(b, n));
            see(max_param(c, n));
        }
        // Aggregates may read any parameter: evaluate them once all are bound.
        E::Agg(..) => see(Some(n.saturating_sub(1))),
    }
    best
}

/// The component type of a zone whose declared type is unknown (an error was reported).
pub(crate) const UNKNOWN_TYPE: u16 = u16::MAX;

/// The name of grid column `x` (from 0): `a`..`z`, then `aa`, `ab`, ... (space `b3` is column
/// 1, row 3).
pub fn col_name(x: u32) -> String {
    let mut s = String::new();
    let mut n = x + 1;
    while n > 0 {
        let r = (n - 1) % 26;
        s.insert(0, (b'a' + r as u8) as char);
        n = (n - 1) / 26;
    }
    s
}

/// FNV-1a: a stable hash of the rules text, the same on every machine.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}
