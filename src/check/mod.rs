//! Check: resolve names, check types and arity, and lower the syntax tree to the IR.
//!
//! The checker never stops at the first problem: it records every error and warning it finds
//! and returns them together.

mod board;
mod bodies;
mod code;
mod compile;
mod consts;
mod decls;
mod diag;
mod lower;
pub mod scenario;
mod tables;
mod warnings;

pub use code::Code;
pub use diag::{Diagnostics, Problem};

use crate::ir::{
    self, ActionId, BoardId, ConstId, DefId, EnumId, Game, InstId, SetId, Type, TypeId, VarId,
    VariantId, ZoneId,
};
use crate::source::{FileId, Source};
use crate::syntax::{self, ast};
use miette::{NamedSource, Severity};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The result of loading a rules file: a checked game (when there were no errors), every
/// problem found, and the names the file declares (to check scenario files against it).
pub struct Loaded {
    /// The checked game; `None` when there was any error (warnings alone keep it).
    pub game: Option<Game>,
    /// Every error and warning found, in the order found.
    pub diagnostics: Diagnostics,
    /// The names the rules declare, resolved; `None` when there was any error.
    pub symbols: Option<Symbols>,
}

/// The names a rules file declares, as the checker resolved them: what a scenario file
/// checked against the same game may refer to.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub(crate) globals: HashMap<String, (Global, ast::Span)>,
    pub(crate) ambiguous_values: HashMap<String, Vec<EnumId>>,
    pub(crate) def_types: ir::Table<DefId, Type>,
    pub(crate) action_arity: HashMap<ActionId, usize>,
}

/// Parses and checks a rules file. Syntax errors come back as a single problem.
pub fn load(name: &str, text: &str) -> Loaded {
    let src = Arc::new(NamedSource::new(name, text.to_string()));
    match syntax::parse_file(name, text) {
        Err(e) => Loaded {
            game: None,
            diagnostics: Diagnostics {
                problems: vec![Problem::from_syntax(&e, src)],
            },
            symbols: None,
        },
        Ok(file) => {
            let mut c = Checker::new(name, text, src);
            c.run(&file);
            let problems = std::mem::take(&mut c.problems);
            let failed = problems.iter().any(|p| p.severity == Severity::Error);
            let (mut game, symbols) = c.finish();
            if !failed {
                game.program = compile::compile(&game);
            }
            Loaded {
                game: (!failed).then_some(game),
                diagnostics: Diagnostics { problems },
                symbols: (!failed).then_some(symbols),
            }
        }
    }
}

/// A name at the top level of a rules file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Global {
    Const(ConstId),
    Variant(VariantId),
    Enum(EnumId),
    EnumValue(EnumId, u16),
    /// A named space of a board (`a1`, `row3`).
    Space(BoardId, u32),
    Type(TypeId),
    Board(BoardId),
    Zone(ZoneId),
    Var(VarId),
    Def(DefId),
    Set(SetId),
    Action(ActionId),
}

impl Global {
    pub(crate) fn kind(self) -> &'static str {
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
    /// The file being checked: spans written into the game point into it.
    pub(crate) file: FileId,
    pub(crate) globals: HashMap<String, (Global, ast::Span)>,
    /// Enum value names that more than one enum declares.
    pub(crate) ambiguous_values: HashMap<String, Vec<EnumId>>,
    pub(crate) used: HashSet<Global>,
    pub(crate) filled_zones: HashSet<InstId>,
    pub(crate) scopes: Vec<Local>,
    pub(crate) next_local: u16,
    pub(crate) max_local: u16,
    /// Spans of declarations, for warnings.
    pub(crate) decl_spans: HashMap<Global, ast::Span>,
    pub(crate) action_refs: HashSet<ActionId>,
    pub(crate) ends: bool,
    pub(crate) unbounded_loop: Option<ast::Span>,
    /// Result types of functions, known once their bodies are lowered.
    pub(crate) def_types: ir::Table<DefId, Type>,
    /// Parameter counts of actions, known from their signatures.
    pub(crate) action_arity: HashMap<ActionId, usize>,
    /// Locals used by variable initial values and end conditions.
    pub(crate) aux_locals: u16,
    /// The component type of the last field lowered (for the range of a rolled field).
    pub(crate) field_owner: Option<TypeId>,
}

impl Checker {
    pub(crate) fn new(name: &str, text: &str, src: Arc<NamedSource<String>>) -> Self {
        Checker {
            game: Game {
                name: String::new(),
                sources: vec![Source {
                    name: name.to_string(),
                    text: text.to_string(),
                }],
                source_hash: ir::fnv1a(text.as_bytes()),
                min_players: 1,
                max_players: 1,
                consts: Default::default(),
                variants: Default::default(),
                enums: Default::default(),
                types: Default::default(),
                comps: Default::default(),
                boards: Default::default(),
                zones: Default::default(),
                zone_instances: 0,
                instances: Default::default(),
                vars: Default::default(),
                var_slots: 0,
                defs: Default::default(),
                sets: Default::default(),
                actions: Default::default(),
                procs: Default::default(),
                choices: Default::default(),
                setup: None,
                flow: ir::ProcId(0),
                end_when: vec![],
                triggers: vec![],
                windows: None,
                score: None,
                tiebreaks: vec![],
                score_locals: 1,
                ties_shared: true,
                program: Default::default(),
            },
            problems: vec![],
            src,
            file: FileId::RULES,
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
            def_types: Default::default(),
            action_arity: HashMap::new(),
            aux_locals: 0,
            field_owner: None,
        }
    }

    /// The checked game and the names it declares.
    pub(crate) fn finish(self) -> (Game, Symbols) {
        (
            self.game,
            Symbols {
                globals: self.globals,
                ambiguous_values: self.ambiguous_values,
                def_types: self.def_types,
                action_arity: self.action_arity,
            },
        )
    }

    /// A checker that goes on with a checked game and its names, to check another file (a
    /// scenario file) against them; its problems point into that file.
    pub(crate) fn resume(game: Game, symbols: Symbols, file: Source) -> Self {
        let src = Arc::new(NamedSource::new(&file.name, file.text.clone()));
        let mut c = Checker::new("", "", src);
        c.file = FileId(game.sources.len() as u16);
        c.game = game;
        c.game.sources.push(file);
        c.globals = symbols.globals;
        c.ambiguous_values = symbols.ambiguous_values;
        c.def_types = symbols.def_types;
        c.action_arity = symbols.action_arity;
        c
    }

    pub(crate) fn error(
        &mut self,
        code: Code,
        span: ast::Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Problem {
        self.push(Severity::Error, code, span, message.into(), label.into())
    }

    pub(crate) fn warn(
        &mut self,
        code: Code,
        span: ast::Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Problem {
        self.push(Severity::Warning, code, span, message.into(), label.into())
    }

    pub(crate) fn push(
        &mut self,
        severity: Severity,
        code: Code,
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

    pub(crate) fn define(&mut self, name: &ast::Ident, g: Global) {
        if let Some((prev, prev_span)) = self
            .globals
            .get(&name.name)
            .copied()
            .filter(|(g, _)| !matches!(g, Global::EnumValue(..) | Global::Space(..)))
        {
            let p = self.error(
                Code::Duplicate,
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
        self.declare_basics(file);
        self.declare_consts(file);
        self.declare_types(file);
        self.declare_places(file);
        self.declare_variants(file);
        self.declare_signatures(file);
        self.lower_bodies(file);
        self.window_choices();
        let flow_seen = self.lower_flow(file);
        self.check_limits();
        self.check_ending(flow_seen);
        self.warnings(file);
    }

    pub(crate) fn name_of(&self, g: Global) -> String {
        match g {
            Global::Const(i) => self.game.consts[i].name.clone(),
            Global::Variant(i) => self.game.variants[i].name.clone(),
            Global::Enum(i) => self.game.enums[i].name.clone(),
            Global::EnumValue(e, v) => self.game.enums[e].values[v as usize].clone(),
            Global::Space(b, s) => self.game.boards[b].space_names[s as usize].clone(),
            Global::Type(i) => self.game.types[i].name.clone(),
            Global::Board(i) => self.game.boards[i].name.clone(),
            Global::Zone(i) => self.game.zones[i].name.clone(),
            Global::Var(i) => self.game.vars[i].name.clone(),
            Global::Def(i) => self.game.defs[i].name.clone(),
            Global::Set(i) => self.game.sets[i].name.clone(),
            Global::Action(i) => self.game.actions[i].name.clone(),
        }
    }

    pub(crate) fn type_name(&self, t: Type) -> String {
        match t {
            Type::Int => "int".into(),
            Type::Bool => "bool".into(),
            Type::Player => "Player".into(),
            Type::Enum(e) => self.game.enums[e].name.clone(),
            Type::Comp(c) => self.game.types[c].name.clone(),
            Type::Space(b) => format!("a space of `{}`", self.game.boards[b].name),
            Type::Zone(c) => format!("a zone of {}", self.game.types[c].name),
            Type::Any => "any".into(),
        }
    }

    pub(crate) fn expect_type(&mut self, got: Type, want: Type, span: ast::Span, what: &str) {
        if got == want || got == Type::Any || want == Type::Any {
            return;
        }
        let p = self.error(
            Code::Type,
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
}

/// The component type of a zone whose declared type is unknown (an error was reported).
pub(crate) const UNKNOWN_TYPE: TypeId = TypeId(u16::MAX);
