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
mod geometry;
mod legend;
mod lower;
mod memory;
mod names;
mod present;
pub mod scenario;
mod tables;
mod warnings;

pub use code::Code;
pub use diag::{Diagnostics, Problem};
pub use names::NameUse;

use crate::ir::{
    self, ActionId, BoardId, ConstId, DefId, EnumId, Game, InstId, SetId, Type, TypeId, VarId,
    VariantId, ZoneId,
};
use crate::source::{FileId, Listing, Source};
use crate::syntax::{self, ast};
use miette::Severity;
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
    /// Every name written in the file that the checker resolved, with its declaration (also
    /// when there were errors; empty when the file does not parse): for editors.
    pub uses: Vec<NameUse>,
}

/// The names a rules file declares, as the checker resolved them: what a scenario file
/// checked against the same game may refer to.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub(crate) globals: HashMap<String, (Global, ast::Span)>,
    pub(crate) ambiguous_values: HashMap<String, Vec<EnumId>>,
    pub(crate) def_types: ir::Table<DefId, Type>,
    pub(crate) action_arity: HashMap<ActionId, usize>,
    /// Each action's parameters and guard as written (for `can`).
    pub(crate) action_asts: HashMap<ActionId, (Vec<ast::Binding>, Option<ast::Expr>, ast::Span)>,
    /// Where each name is declared, for the record of names of a file checked against these.
    pub(crate) decls: names::Decls,
    /// Functions returning collections, inlined where they are called.
    pub(crate) coll_defs: HashMap<DefId, lower::CollDef>,
    /// Legends of positions written as text.
    pub(crate) legends: Vec<legend::LegendDef>,
    /// The actions declared as procedures.
    pub(crate) procedures: HashSet<ActionId>,
}

/// Parses and checks a rules file. Syntax errors come back as a single problem, as do the
/// limits checked before the tree is built (the file's size, how deeply it nests, numbers
/// too large).
pub fn load(name: &str, text: &str) -> Loaded {
    match syntax::parse_file(name, text) {
        Err(e) => Loaded {
            game: None,
            diagnostics: Diagnostics {
                problems: vec![Problem::from_syntax(&e)],
                ..Default::default()
            },
            symbols: None,
            uses: vec![],
        },
        Ok(file) => {
            let src = Arc::new(Listing::new(name, text));
            let mut c = Checker::new(name, text, src);
            c.run(&file);
            let diagnostics = c.diagnostics();
            let failed = diagnostics.has_errors();
            let uses = c.name_uses();
            let (mut game, symbols) = c.finish();
            if !failed {
                game.program = compile::compile(&game);
            }
            Loaded {
                game: (!failed).then_some(game),
                diagnostics,
                symbols: (!failed).then_some(symbols),
                uses,
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
    /// A named line of a graph board (`line mills = a, b, c`): a collection of its spaces.
    Line(BoardId, u32),
    Type(TypeId),
    Board(BoardId),
    Zone(ZoneId),
    Var(VarId),
    Def(DefId),
    Set(SetId),
    Action(ActionId),
    /// A `memory` declaration (index into [`Game::memories`]).
    Memory(u16),
    /// A `legend` (index into the checker's legends: the checker alone reads them).
    Legend(u16),
}

impl Global {
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Global::Const(_) => "constant",
            Global::Variant(_) => "variant",
            Global::Enum(_) => "enum",
            Global::EnumValue(..) => "enum value",
            Global::Space(..) => "space",
            Global::Line(..) => "line",
            Global::Type(_) => "component type",
            Global::Board(_) => "board",
            Global::Zone(_) => "zone",
            Global::Var(_) => "variable",
            Global::Def(_) => "function",
            Global::Set(_) => "set kind",
            Global::Action(_) => "action",
            Global::Memory(_) => "memory",
            Global::Legend(_) => "legend",
        }
    }
}

/// A local name in scope: a `let`, a binding or a parameter.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    name: String,
    slot: u16,
    ty: Type,
    /// Where it is declared, when known (see [`Checker::bind_local_at`]).
    decl: Option<ast::Span>,
    /// A parameter of a function returning a collection, inlined where it is called: the
    /// argument's value, lowered where the call is written (see `Checker::coll_call`).
    pub(crate) alias: Option<ir::Expr>,
}

pub(crate) struct Checker {
    pub(crate) game: Game,
    /// The problems kept (at most [`ir::MAX_DIAGNOSTICS`]).
    problems: Vec<Problem>,
    /// Problems found past the limit: counted (errors, warnings), not kept.
    omitted: (usize, usize),
    /// While above 0, problems are not reported at all (a silent pass over code that is
    /// checked again, or was checked already).
    pub(crate) quiet: u32,
    /// Where a problem not kept is written, so that its finder may still fill it in.
    scratch: Problem,
    pub(crate) src: Arc<Listing>,
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
    /// Actions named by action fields of table entries: where, which, the field's signature
    /// and the component (checked by [`Checker::check_effects`] once parameters are known).
    pub(crate) effect_uses: Vec<(ast::Span, ActionId, ir::SigId, ir::CompId)>,
    /// Each action's parameter types, known once its body is lowered.
    pub(crate) action_params: HashMap<ActionId, Vec<Type>>,
    pub(crate) ends: bool,
    pub(crate) unbounded_loop: Option<ast::Span>,
    /// Result types of functions, known once their bodies are lowered.
    pub(crate) def_types: ir::Table<DefId, Type>,
    /// The function `score(p)` calls: the `score` declaration's formula, when no other
    /// name `score` is declared.
    pub(crate) score_def: Option<DefId>,
    /// Each action's parameters and guard as written, for `can(p, action)`, and the name.
    pub(crate) action_asts: HashMap<ActionId, (Vec<ast::Binding>, Option<ast::Expr>, ast::Span)>,
    /// While `can(p, ...)` lowers an action's guard: what `me` stands for (the player `p`),
    /// and the actions being expanded (a guard that names its own action is refused).
    pub(crate) me_as: Option<ir::Expr>,
    pub(crate) can_stack: Vec<ActionId>,
    /// Functions whose body is a collection (`def jumps(s: Space) = [...]`), with their
    /// parameters and body as written: inlined where they are called after `in`.
    pub(crate) coll_defs: HashMap<DefId, lower::CollDef>,
    /// The functions returning collections being inlined (one that reaches itself is refused).
    pub(crate) coll_stack: Vec<DefId>,
    /// The legends being laid out (one whose block lays itself out is refused).
    pub(crate) legend_stack: Vec<u16>,
    /// While a `components` table is read: the constants it reads are marked
    /// ([`ir::ConstDef::table_read`]).
    pub(crate) reading_table: bool,
    /// Bytes of text written out where used so far ([`ir::MAX_WRITTEN_OUT`]); set past it
    /// once the limit is reported.
    pub(crate) written_out: usize,
    /// Legends of positions written as text (`Global::Legend` indexes them).
    pub(crate) legends: Vec<legend::LegendDef>,
    /// The actions declared as `procedure`s: run by a call statement, never offered.
    pub(crate) procedures: HashSet<ActionId>,
    /// An action `can` met again while expanding a guard quietly (reported by the outer `can`).
    pub(crate) can_cycle: Option<ActionId>,
    /// Parameter counts of actions, known from their signatures.
    pub(crate) action_arity: HashMap<ActionId, usize>,
    /// Locals used by variable initial values and end conditions.
    pub(crate) aux_locals: u16,
    /// The component type of the last field lowered (for the range of a rolled field).
    pub(crate) field_owner: Option<TypeId>,
    /// Whether the components went past [`ir::MAX_COMPONENTS`] (reported once).
    pub(crate) too_many_components: bool,
    /// How many "did you mean" hints were searched for.
    pub(crate) hints: usize,
    /// Lowering the effect of a `sequence action`: its choices are part of the move.
    pub(crate) in_sequence: bool,
    /// Lowering the body of a simultaneous block: the local slot and name of its player.
    pub(crate) simul: Option<(u16, String)>,
    /// The names noted for editors (see `names.rs`), and where each thing is declared.
    pub(crate) noted: Vec<names::Noted>,
    pub(crate) decl_of: names::Decls,
    /// The kind and type of each local name noted, by its declaration.
    pub(crate) local_kinds: HashMap<ast::Span, (&'static str, Type)>,
}

impl Checker {
    pub(crate) fn new(name: &str, text: &str, src: Arc<Listing>) -> Self {
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
                direction_enum: None,
                zones: Default::default(),
                zone_instances: 0,
                instances: Default::default(),
                vars: Default::default(),
                var_slots: 0,
                defs: Default::default(),
                sets: Default::default(),
                actions: Default::default(),
                signatures: Default::default(),
                procs: Default::default(),
                choices: Default::default(),
                setup: None,
                flow: ir::ProcId(0),
                end_when: vec![],
                triggers: vec![],
                windows: None,
                score: None,
                heuristic: None,
                tiebreaks: vec![],
                score_locals: 1,
                ties_shared: true,
                memories: vec![],
                present: Default::default(),
                program: Default::default(),
                native: Default::default(),
            },
            problems: vec![],
            omitted: (0, 0),
            quiet: 0,
            scratch: Problem {
                code: Code::Limit,
                severity: Severity::Warning,
                message: String::new(),
                span: Default::default(),
                label: String::new(),
                related: None,
                help: None,
                src: src.clone(),
            },
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
            effect_uses: vec![],
            action_params: HashMap::new(),
            ends: false,
            unbounded_loop: None,
            def_types: Default::default(),
            score_def: None,
            action_asts: Default::default(),
            me_as: None,
            can_stack: Vec::new(),
            coll_defs: HashMap::new(),
            coll_stack: Vec::new(),
            legend_stack: Vec::new(),
            reading_table: false,
            written_out: 0,
            legends: Vec::new(),
            procedures: HashSet::new(),
            can_cycle: None,
            action_arity: HashMap::new(),
            aux_locals: 0,
            field_owner: None,
            too_many_components: false,
            hints: 0,
            in_sequence: false,
            simul: None,
            noted: vec![],
            decl_of: HashMap::new(),
            local_kinds: HashMap::new(),
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
                action_asts: self.action_asts,
                decls: self.decl_of,
                coll_defs: self.coll_defs,
                legends: self.legends,
                procedures: self.procedures,
            },
        )
    }

    /// A checker that goes on with a checked game and its names, to check another file (a
    /// scenario file) against them; its problems point into that file.
    pub(crate) fn resume(game: Game, symbols: Symbols, file: Source) -> Self {
        let src = Arc::new(Listing::new(&file.name, &file.text));
        let mut c = Checker::new("", "", src);
        c.file = FileId(game.sources.len() as u16);
        c.game = game;
        c.game.sources.push(file);
        c.globals = symbols.globals;
        c.ambiguous_values = symbols.ambiguous_values;
        c.def_types = symbols.def_types;
        c.action_arity = symbols.action_arity;
        c.action_asts = symbols.action_asts;
        c.decl_of = symbols.decls;
        c.coll_defs = symbols.coll_defs;
        c.legends = symbols.legends;
        c.procedures = symbols.procedures;
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
        let p = Problem {
            code,
            severity,
            message,
            span,
            label,
            related: None,
            help: None,
            src: self.src.clone(),
        };
        if self.quiet > 0 {
            self.scratch = p;
            return &mut self.scratch;
        }
        if self.problems.len() >= ir::MAX_DIAGNOSTICS {
            match severity {
                Severity::Error => self.omitted.0 += 1,
                _ => self.omitted.1 += 1,
            }
            self.scratch = p;
            return &mut self.scratch;
        }
        self.problems.push(p);
        self.problems.last_mut().expect("just pushed")
    }

    /// Whether a problem reported now would be kept (callers skip costly hints otherwise).
    pub(crate) fn reporting(&self) -> bool {
        self.quiet == 0 && self.problems.len() < ir::MAX_DIAGNOSTICS
    }

    /// Every problem found: the ones kept, and a last note counting the others.
    pub(crate) fn diagnostics(&mut self) -> Diagnostics {
        let mut problems = std::mem::take(&mut self.problems);
        let (errors, warnings) = std::mem::take(&mut self.omitted);
        if errors + warnings > 0 {
            problems.push(Problem {
                code: Code::Limit,
                severity: if errors > 0 {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                message: format!(
                    "{} more problem(s) not shown: {errors} error(s), {warnings} warning(s)",
                    errors + warnings
                ),
                span: ast::Span::in_file(0, 0, self.file),
                label: "this file has more problems".into(),
                related: None,
                help: Some(format!(
                    "at most {} problems are shown in full: fix these and check again",
                    ir::MAX_DIAGNOSTICS
                )),
                src: self.src.clone(),
            });
        }
        Diagnostics {
            problems,
            omitted_errors: errors,
            omitted_warnings: warnings,
        }
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
        self.note_decl(name.span, names::Target::Global(g));
    }

    pub(crate) fn run(&mut self, file: &ast::File) {
        if !self.within_limits(file) {
            return; // too many names to give each an id: nothing else is checked
        }
        self.declare_basics(file);
        self.declare_consts(file);
        self.declare_types(file);
        self.declare_places(file);
        self.declare_variants(file);
        self.declare_signatures(file);
        self.declare_memories(file);
        self.declare_legends(file);
        self.memory_parts(file);
        self.lower_bodies(file);
        self.check_legends();
        self.check_present(file);
        self.check_effects();
        self.window_choices();
        let flow_seen = self.lower_flow(file);
        self.check_simultaneous();
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
            Global::Line(b, l) => self.game.boards[b].geo.line_names[l as usize].0.clone(),
            Global::Type(i) => self.game.types[i].name.clone(),
            Global::Board(i) => self.game.boards[i].name.clone(),
            Global::Zone(i) => self.game.zones[i].name.clone(),
            Global::Var(i) => self.game.vars[i].name.clone(),
            Global::Def(i) => self.game.defs[i].name.clone(),
            Global::Set(i) => self.game.sets[i].name.clone(),
            Global::Action(i) => self.game.actions[i].name.clone(),
            Global::Memory(i) => self.game.memories[i as usize].name.clone(),
            Global::Legend(i) => self.legends[i as usize].name.clone(),
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
            Type::Action(s) => {
                let ps: Vec<String> = self.game.signatures[s]
                    .iter()
                    .map(|t| self.type_name(*t))
                    .collect();
                if ps.is_empty() {
                    "action".into()
                } else {
                    format!("action({})", ps.join(", "))
                }
            }
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
            decl: None,
            alias: None,
        });
        slot
    }

    pub(crate) fn alloc_local(&mut self, n: u16) -> u16 {
        let slot = self.next_local;
        // Saturates: past the limit, `check_limits` reports the procedure.
        self.next_local = self.next_local.saturating_add(n);
        self.max_local = self.max_local.max(self.next_local);
        slot
    }

    /// Counts `span`'s text as written out once more where it is used; false (and
    /// `check::limit` at `at`, once) past [`ir::MAX_WRITTEN_OUT`] in all.
    pub(crate) fn write_out(&mut self, span: ast::Span, at: ast::Span) -> bool {
        if self.written_out > ir::MAX_WRITTEN_OUT {
            return false;
        }
        self.written_out = self
            .written_out
            .saturating_add(span.end.saturating_sub(span.start));
        if self.written_out <= ir::MAX_WRITTEN_OUT {
            return true;
        }
        self.quiet_error_anyway(
            at,
            format!(
                "functions, legends and `can` written out where they are used come to more than {} bytes of text",
                ir::MAX_WRITTEN_OUT
            ),
        );
        false
    }

    /// A `check::limit` problem reported even inside a quiet pass (a limit is met once).
    fn quiet_error_anyway(&mut self, at: ast::Span, message: String) {
        let quiet = std::mem::replace(&mut self.quiet, 0);
        let p = self.error(Code::Limit, at, message, "written out past the limit here");
        p.help = Some(
            "a function returning a collection, a legend's block or an action `can` asks about is written out at each use, uses inside uses included: use them less deeply nested".into(),
        );
        self.quiet = quiet;
    }

    pub(crate) fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.scopes.iter().rev().find(|l| l.name == name)
    }
}

/// The component type of a zone whose declared type is unknown (an error was reported).
pub(crate) const UNKNOWN_TYPE: TypeId = TypeId(u16::MAX);
