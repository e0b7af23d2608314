//! The checked game: every name resolved to an index, every table flat.
//!
//! Nothing here is looked up by string while a game runs; names are kept for messages and
//! for the canonical text of actions only.

pub use crate::ops::{AssignOp, BinOp, EndKind};
pub use crate::source::{FileId, Source, Span};
use serde::{Deserialize, Serialize};

mod code;
mod expr;
pub mod geometry;
pub mod ids;
pub mod limits;
mod names;
pub mod present;
pub mod scenario;
pub mod vm;

pub use code::*;
pub use expr::*;
pub use geometry::*;
pub use ids::*;
pub use limits::*;
pub use names::*;
pub use present::{Look, Presentation};

/// A run-time value. Small and `Copy`: the interpreter never allocates to hold one.
///
/// Its layout is fixed (`repr(u64)`: a tag word, the variant's number in the order below,
/// then its fields laid out as in a C struct after it, from byte 8), so that native code
/// reads a variable of the state in place and writes options (`lir::jit`, `layout`): the
/// variants' order is relied on there, and `tests/lir.rs` fails at once when it and this
/// order differ. A tag word rather than a tag byte: the compiler then copies a value as two
/// aligned words. With a tag byte it copied the 15 bytes after the tag in two overlapping
/// moves, and a copy read back at once waited on the stores before it (a store-forwarding
/// stall: docs/benchmarks.md).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[repr(u64)]
pub enum Value {
    /// `none`: no value (an empty variable, no component, no player).
    #[default]
    None,
    /// A number.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A seat, from 0.
    Player(u8),
    /// An enum value: (enum, index), indexes into [`Game::enums`] and its `values`.
    Enum(EnumId, u16),
    /// A component: index into [`Game::comps`].
    Comp(CompId),
    /// A space: (board, index), indexes into [`Game::boards`] and its `space_names`.
    Space(BoardId, u32),
    /// One zone instance: index into [`Game::instances`] and the state's zones.
    Zone(InstId),
    /// An action held by a field of type `action` (index into [`Game::actions`]).
    Action(ActionId),
}

// Sixteen bytes, and the `None` of an `Option<Value>` kept in the tag word.
const _: () = assert!(std::mem::size_of::<Value>() == 16);
const _: () = assert!(std::mem::size_of::<Option<Value>>() == 16);

impl Value {
    /// The position of an index value in its dimension: a seat, an enum value's position, a
    /// space's index, or a number (a range index, `lo` already subtracted) that is not
    /// negative. `None` for anything else.
    #[inline(always)]
    pub fn index_pos(self) -> Option<u32> {
        match self {
            Value::Player(p) => Some(p as u32),
            Value::Enum(_, i) => Some(i as u32),
            Value::Space(_, i) => Some(i),
            Value::Int(n) => u32::try_from(n).ok(),
            _ => None,
        }
    }
}

/// A static type, for checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A number; a range type `lo..hi` is `Int`, its bounds kept with the field or variable.
    Int,
    /// `true` or `false`.
    Bool,
    /// A seat.
    Player,
    /// A value of an enum (index into [`Game::enums`]).
    Enum(EnumId),
    /// A component of a type (index into [`Game::types`]).
    Comp(TypeId),
    /// A space of a board (index into [`Game::boards`]).
    Space(BoardId),
    /// A zone holding components of a type (index into [`Game::types`]).
    Zone(TypeId),
    /// An action taking parameters of these types (index into [`Game::signatures`]), held by
    /// a field and run with `do x.field(args)`.
    Action(SigId),
    /// `none`, or a type the checker could not tell (an error was reported already).
    Any,
}

/// A checked game: the tables the engine runs, every name resolved to an index. Built by
/// [`crate::load`]; the engine's methods on it ([`Game::start`], [`Game::legal`],
/// [`Game::apply`], ...) take the [`crate::State`] to work on.
#[derive(Clone, Debug)]
pub struct Game {
    /// The display name from `game "..."` (empty when not declared).
    pub name: String,
    /// The files spans point into: the rules file first ([`FileId::RULES`]), then any file
    /// checked against it (a scenario file), with their names and texts.
    pub sources: Vec<Source>,
    /// A stable hash of the source text, for saved games.
    pub source_hash: u64,
    /// The fewest seats the game takes (`players A..B`).
    pub min_players: u8,
    /// The most seats the game takes; Player-indexed zones and variables have this many
    /// entries.
    pub max_players: u8,
    /// Constants (`const`) with their values in the file; a variant overrides them per match.
    pub consts: Table<ConstId, ConstDef>,
    /// Variants, in declaration order; [`crate::Config::variant`] names those in play.
    pub variants: Table<VariantId, VariantDef>,
    /// Enums, in declaration order.
    pub enums: Table<EnumId, EnumDef>,
    /// Component types (`component`), in declaration order.
    pub types: Table<TypeId, CompType>,
    /// Every component, in the order of the `components` tables and their generators.
    pub comps: Table<CompId, Comp>,
    /// Boards, in declaration order.
    pub boards: Table<BoardId, Board>,
    /// The enum of directions (`Direction`: north, ..., clockwise, anticlockwise), which every
    /// game has unless it declares the name `Direction` itself.
    pub direction_enum: Option<EnumId>,
    /// Zone declarations, in declaration order; each spans `count` instances from `base`.
    pub zones: Table<ZoneId, ZoneDef>,
    /// Number of zone instances (all indices of all zones).
    pub zone_instances: u32,
    /// Per zone instance: its declaration, owning seat and board space, precomputed.
    pub instances: Table<InstId, Instance>,
    /// Variable declarations; each spans `count` of the state's variable slots from `base`.
    pub vars: Table<VarId, VarDef>,
    /// Number of variable slots (all indices of all variables).
    pub var_slots: u32,
    /// Functions (`def`), called by [`Expr::CallDef`].
    pub defs: Table<DefId, Def>,
    /// Set kinds (`set`), formed by `best_sets` ([`Agg::sets`]).
    pub sets: Table<SetId, SetDef>,
    /// Actions, in declaration order; referred to by [`Arm::Action`] and [`Instr::Do`].
    pub actions: Table<ActionId, ActionDef>,
    /// The parameter types of each action type written (`action(Card)`), each list once.
    pub signatures: Table<SigId, Vec<Type>>,
    /// Procedures: every action's effect, the setup, the flow, and the setups of checked
    /// scenarios (appended when a scenario file is checked against the game).
    pub procs: Table<ProcId, Proc>,
    /// Every `choose` statement, referred to by [`Instr::Choose`] and [`Instr::SimNext`].
    pub choices: Table<ChoiceId, Choice>,
    /// The procedure of `setup`, which runs before the flow; `None` when not declared.
    pub setup: Option<ProcId>,
    /// The procedure of `flow`; the game ends (and is scored) when it finishes.
    pub flow: ProcId,
    /// `end when` conditions with their spans, checked in order each time a `choose` is
    /// reached (and, with external chance, before waiting on chance); the first that holds
    /// ends the game.
    pub end_when: Vec<(Expr, Span)>,
    /// `when` triggers in declaration order, tested at every pause after `end when`.
    pub triggers: Vec<Trigger>,
    /// The choices a window offers, when some action is `anytime` or `before turn`: (the
    /// `anytime` actions and `pass`; those and the `before turn` actions and `pass`).
    pub windows: Option<(ChoiceId, ChoiceId)>,
    /// `score(p) = ...`, the player being local 0; `None`: every score is 0.
    pub score: Option<Expr>,
    /// `heuristic(p) = ...`, the player being local 0: the author's estimate of progress,
    /// for agents only (never part of an outcome); `None`: agents fall back on `score`.
    pub heuristic: Option<Expr>,
    /// `tiebreak(p) = ...` in declaration order, the player being local 0; compared in turn
    /// when scores tie.
    pub tiebreaks: Vec<Expr>,
    /// Locals needed to evaluate score, tiebreak and heuristic expressions (the player is
    /// local 0).
    pub score_locals: u16,
    /// `ties shared` (the default): every player tied for first wins; false for `ties draw`:
    /// such a tie is a draw.
    pub ties_shared: bool,
    /// `memory` declarations: positions remembered by `remember`, in declaration order.
    pub memories: Vec<MemoryDef>,
    /// How the game is drawn (`present { }`): read by the page and the terminal only.
    pub present: Presentation,
    /// Everything above compiled to flat code: what the engine runs.
    pub program: vm::Program,
    /// The actions' options compiled to native enumerators and the `end when` conditions to
    /// native tests (issue 36), built by the stage above the IR that compiles them
    /// (`lir::listing`) when first needed, and kept here; the engine lists an action's
    /// options with its enumerator, and tests a condition natively, when it has one.
    pub native: Lazy,
}

/// Something a stage above the IR builds from a game on first use and keeps with it, of a
/// type this stage does not know (shared by the game's clones).
#[derive(Clone, Default)]
pub struct Lazy(std::sync::Arc<std::sync::OnceLock<Box<Derived>>>);

/// What a [`Lazy`] holds: any value that threads may share and that a panic cannot leave
/// half-written.
pub type Derived =
    dyn std::any::Any + Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe;

impl Lazy {
    /// Already built, holding `v`.
    pub fn with(v: Box<Derived>) -> Lazy {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(v);
        Lazy(std::sync::Arc::new(cell))
    }

    /// What it holds, built by `f` now if it was not.
    pub fn get_or_init(
        &self,
        f: impl FnOnce() -> Box<Derived>,
    ) -> &(dyn std::any::Any + Send + Sync) {
        self.0.get_or_init(f).as_ref()
    }
}

impl std::fmt::Debug for Lazy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let built = self.0.get().is_some();
        write!(f, "Lazy({})", if built { "built" } else { "not built" })
    }
}

/// A `memory name(parts)` declaration: what a position is made of. The state keeps, per
/// memory, the positions remembered (`remember`), each as the values of `parts` then.
#[derive(Clone, Debug)]
pub struct MemoryDef {
    /// The memory's name.
    pub name: String,
    /// The values of a position, in order: a variable named whole gives one part per entry.
    /// They read neither `me` nor locals, so they mean the same wherever they are evaluated.
    pub parts: Vec<Expr>,
}

/// A `const` declaration.
#[derive(Clone, Debug)]
pub struct ConstDef {
    /// The constant's name.
    pub name: String,
    /// Its value in the file, computed when the file is checked (a variant may override it).
    pub value: Value,
    /// Where a `components` table first reads it (a count or a field): tables are fixed when
    /// the file is read, so a variant or `--set` that changes it is refused at the start.
    pub table_read: Option<Span>,
}

/// A `variant`: a named set of constant overrides.
#[derive(Clone, Debug)]
pub struct VariantDef {
    /// The variant's name.
    pub name: String,
    /// The description string after the name, if any.
    pub description: Option<String>,
    /// `group NAME`: two variants of one group cannot be played together.
    pub group: Option<String>,
    /// The overrides: (constant, value), the constant an index into [`Game::consts`].
    pub sets: Vec<(ConstId, Value)>,
}

/// An `enum`: a closed set of named values.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// The enum's name.
    pub name: String,
    /// Its value names, in declaration order ([`Value::Enum`] indexes here).
    pub values: Vec<String>,
}

/// A component type (`component`).
#[derive(Clone, Debug)]
pub struct CompType {
    /// The type's name.
    pub name: String,
    /// Its fields, in declaration order.
    pub fields: Vec<FieldDef>,
}

/// One field of a component type.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The field's name.
    pub name: String,
    /// Its type ([`Type::Int`] for a range).
    pub ty: Type,
    /// For a range type `lo..hi`: the bounds, checked on every assignment.
    pub range: Option<(i64, i64)>,
    /// `lo..hi clamp`: a value assigned outside the range takes the nearest bound.
    pub clamp: bool,
    /// The declared default (`= value`), or [`Value::None`]; a component whose table gives no
    /// value gets it (an undeclared default is `false` for bool and 0, clamped into the range,
    /// for int).
    pub default: Value,
    /// For a secret field: the field of the same component that holds the player who sees it.
    pub seen_by: Option<u16>,
    /// `seen by f secret`: the field stays secret when the game is over (unless revealed).
    pub kept: bool,
}

/// One component.
#[derive(Clone, Debug)]
pub struct Comp {
    /// Its type (index into [`Game::types`]).
    pub ty: TypeId,
    /// Its name template: text, and fields shown with their current values.
    pub name: Vec<NamePart>,
    /// Initial field values, in the type's field order.
    pub fields: Vec<Value>,
    /// Offset of this component's fields in the state's flat field table.
    pub field_base: u32,
    /// The zone instance it starts in.
    pub zone: InstId,
}

/// One piece of a component's name.
#[derive(Clone, Debug)]
pub enum NamePart {
    /// Literal text (values of the table's generators are already filled in).
    Text(String),
    /// The value of a field (index in the type's fields), read when the name is shown.
    Field(u16),
}

/// The shape of a board, which fixes its spaces' names and neighbours.
#[derive(Clone, Debug)]
pub enum BoardShape {
    /// `grid(width, height)`: spaces `a1`, `b1`, ... row by row (column letters, row numbers
    /// from 1); space `s` is column `s % width`, row `s / width`.
    Grid {
        /// Number of columns.
        width: u32,
        /// Number of rows.
        height: u32,
        /// The `diagonal` flag: 8 neighbours instead of 4.
        diagonal: bool,
    },
    /// `ring(size)`: spaces `<board>1` .. `<board>N` in a cycle, each next to the one before
    /// and the one after.
    Ring {
        /// Number of spaces.
        size: u32,
    },
    /// `hex(width, height)` (a rhombus; `side` 0) or `hex(side)` (a hexagon inside a
    /// (2 side - 1) square box): hexagons named like a grid's cells, each next to the 6 cells
    /// (c±1, r), (c, r±1), (c+1, r-1), (c-1, r+1).
    Hex {
        /// Columns of the bounding box.
        width: u32,
        /// Rows of the bounding box.
        height: u32,
        /// The side of a hexagon; 0 for a rhombus.
        side: u32,
    },
    /// `graph { ... }`: named spaces, declared edges and lines; no directions.
    Graph,
}

/// A board: named spaces and who neighbours whom.
#[derive(Clone, Debug)]
pub struct Board {
    /// The board's name.
    pub name: String,
    /// Its shape and sizes.
    pub shape: BoardShape,
    /// The space names, by space index.
    pub space_names: Vec<String>,
    /// Adjacency in compressed rows: the neighbours of space `s` are
    /// `adj[adj_start[s]..adj_start[s + 1]]`.
    pub adj_start: Vec<u32>,
    /// Every space's neighbours, in increasing order per space, one space after another.
    pub adj: Vec<u32>,
    /// Its geometry: directions, steps, coordinates, declared lines and closed spaces.
    pub geo: Geometry,
}

impl Board {
    /// The number of spaces.
    pub fn len(&self) -> u32 {
        self.space_names.len() as u32
    }
    /// Whether the board has no space.
    pub fn is_empty(&self) -> bool {
        self.space_names.is_empty()
    }
    /// The neighbours of space `s`, in increasing order.
    pub fn neighbours(&self, s: u32) -> &[u32] {
        &self.adj[self.adj_start[s as usize] as usize..self.adj_start[s as usize + 1] as usize]
    }
}

/// What a zone or variable is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// By seat: [`Game::max_players`] entries.
    Player,
    /// By the values of an enum (index into [`Game::enums`]).
    Enum(EnumId),
    /// By the spaces of a board (index into [`Game::boards`]).
    Board(BoardId),
    /// By the numbers `lo..lo + size - 1`; the index expressions subtract `lo`, so the
    /// engine sees positions `0..size` ([`Value::index_pos`]).
    Range {
        /// The lowest index.
        lo: i64,
        /// How many numbers.
        size: u32,
    },
}

/// Who sees a zone's contents, or a variable's values (`public` when the declaration says
/// nothing). Views show `hidden` and `top` zones (and `hidden` variables) in full once the
/// game is over; `secret` ones never.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Everybody sees the contents.
    Public,
    /// Only the player the zone is indexed by sees the contents; others see the count.
    Owner,
    /// Nobody sees the contents, only the count.
    Hidden,
    /// Everybody sees the top component only, and the count.
    Top,
    /// Nobody sees the contents, only the count, even when the game is over (and the secret
    /// fields of the components in it stay secret then).
    Secret,
}

/// A `zone` declaration: one zone instance per combination of its indexes, numbered
/// row-major from `base`.
#[derive(Clone, Debug)]
pub struct ZoneDef {
    /// The zone's name.
    pub name: String,
    /// What it is indexed by, in order (empty: a single instance).
    pub dims: Vec<Dim>,
    /// The size of each dimension ([`Game::dim_size`]).
    pub sizes: Vec<u32>,
    /// Zone instance of index (0, 0, ...).
    pub base: InstId,
    /// Number of instances: the product of `sizes` (1 when not indexed).
    pub count: u32,
    /// The component type it holds (index into [`Game::types`]).
    pub ty: TypeId,
    /// Who sees its contents.
    pub visibility: Visibility,
    /// Which dimension is the owning player, if any.
    pub owner_dim: Option<usize>,
}

/// What a zone instance is: its declaration, and the seat and space it is indexed by.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    /// Its declaration (index into [`Game::zones`]).
    pub zone: ZoneId,
    /// The seat of its Player index, when the zone is indexed by Player.
    pub owner: Option<u8>,
    /// The (board, space) of its board index, when the zone is indexed by a board.
    pub space: Option<(BoardId, u32)>,
}

/// A `var` declaration: one slot per combination of its indexes, numbered row-major from
/// `base`.
#[derive(Clone, Debug)]
pub struct VarDef {
    /// The variable's name.
    pub name: String,
    /// What it is indexed by, in order (empty: a single slot).
    pub dims: Vec<Dim>,
    /// The size of each dimension ([`Game::dim_size`]).
    pub sizes: Vec<u32>,
    /// The state's variable slot of index (0, 0, ...).
    pub base: u32,
    /// Number of slots: the product of `sizes` (1 when not indexed).
    pub count: u32,
    /// The type of its values ([`Type::Int`] for a range).
    pub ty: Type,
    /// For a range type `lo..hi`: the bounds, checked on every assignment.
    pub range: Option<(i64, i64)>,
    /// `lo..hi clamp`: a value assigned (or starting) outside the range takes the nearest
    /// bound.
    pub clamp: bool,
    /// Who sees its values: `public`, `owner` (the seat of its Player index sees its own
    /// entries), `hidden` (nobody until the game is over) or `secret` (nobody, ever).
    pub visibility: Visibility,
    /// Which dimension is the owning player, for an `owner` variable.
    pub owner_dim: Option<usize>,
    /// The initial value (`= expr`), evaluated once at the start and stored in every slot;
    /// without one, int starts at 0 (clamped into the range), bool at false, others at none.
    pub init: Option<Expr>,
    /// The whole declaration, blamed when the initial value fails.
    pub span: Span,
}

/// A function (`def`): a pure expression of its parameters.
#[derive(Clone, Debug)]
pub struct Def {
    /// The function's name.
    pub name: String,
    /// Number of parameters, bound to locals `0..params`.
    pub params: u16,
    /// The parameters' types, once its body is checked (empty before, and for a function
    /// whose body is a collection).
    pub param_types: Vec<Type>,
    /// Local slots its body needs, parameters included (at most
    /// [`DEF_LOCALS`]).
    pub locals: u16,
    /// The expression it computes.
    pub body: Expr,
}

/// A kind of set for `best_sets`: `params` components that together meet the conditions.
#[derive(Clone, Debug)]
pub struct SetDef {
    /// The set kind's name.
    pub name: String,
    /// Number of members, bound to locals `0..params`.
    pub params: u16,
    /// Local slots its conditions and points need, members included.
    pub locals: u16,
    /// The conditions split at `and`, each with the last parameter it needs, so that a
    /// partial choice of members is pruned as early as possible.
    pub conds: Vec<(u16, Expr)>,
    /// What one set of this kind is worth; a set worth 0 or less is never formed.
    pub points: Expr,
}

/// A `when` trigger.
#[derive(Clone, Debug)]
pub struct Trigger {
    /// Its name (for messages).
    pub name: String,
    /// The test: a `bool`, or for a trigger per element `first(x in C where cond)` (the
    /// element it fires for, `none` when none qualifies).
    pub test: Expr,
    /// A trigger per element: the body's local slot of the element.
    pub each: Option<u16>,
    /// Locals the test needs.
    pub test_locals: u16,
    /// Its body (index into [`Game::procs`]).
    pub proc: ProcId,
    /// The trigger's name in its declaration.
    pub span: Span,
}

/// An `action` declaration.
#[derive(Clone, Debug)]
pub struct ActionDef {
    /// The action's name, the first word of its canonical texts.
    pub name: String,
    /// Its parameters `x in C`, in order; their values are the [`crate::Action::args`].
    pub params: Vec<Bind>,
    /// The whole `where` condition, if any (for "why not" answers).
    pub guard: Option<Expr>,
    /// Where the `where` condition is written.
    pub guard_span: Option<Span>,
    /// The guard split at `and`, each part with the number of parameters it needs bound:
    /// listing options checks each part as soon as it can, pruning early.
    pub guard_parts: Vec<(u16, Expr)>,
    /// Listed in some `choose` (not only run by `do`).
    pub offered: bool,
    /// `sequence action`: the choices its effect reaches are part of one option.
    pub sequence: bool,
    /// `anytime` (`Some(false)`) or `before turn` (`Some(true)`): offered at windows.
    pub window: Option<bool>,
    /// Its effect (index into [`Game::procs`]).
    pub proc: ProcId,
    /// The action's name in its declaration.
    pub span: Span,
}

/// `x in collection`: the local slot written and the collection read.
#[derive(Clone, Debug)]
pub struct Bind {
    /// The bound name (also the key in canonical texts: `name=value`).
    pub name: String,
    /// The local slot each value is written to.
    pub slot: u16,
    /// The collection the values come from.
    pub coll: Coll,
    /// The type of the values.
    pub ty: Type,
    /// Where the collection was written, for "why not" answers.
    pub span: Span,
}

impl Game {
    /// The size of one index dimension.
    pub fn dim_size(&self, d: Dim) -> u32 {
        match d {
            Dim::Player => self.max_players as u32,
            Dim::Enum(e) => self.enums[e].values.len() as u32,
            Dim::Board(b) => self.boards[b].len(),
            Dim::Range { size, .. } => size,
        }
    }

    /// The name of one index value of a dimension: `p1`, `red`, `a1`.
    pub fn dim_value_name(&self, d: Dim, v: u32) -> String {
        match d {
            Dim::Player => player_name(v as u8),
            Dim::Enum(e) => self.enums[e].values[v as usize].clone(),
            Dim::Board(b) => self.boards[b].space_names[v as usize].clone(),
            Dim::Range { lo, .. } => (lo + v as i64).to_string(),
        }
    }

    /// Index labels of a zone instance, e.g. `hand[p1]`.
    pub fn zone_instance_name(&self, inst: InstId) -> String {
        let Some(z) = self.instances.get(inst).map(|i| &self.zones[i.zone]) else {
            return format!("zone#{}", inst.0);
        };
        let idx = z.index_values(inst);
        if idx.is_empty() {
            return z.name.clone();
        }
        let parts: Vec<String> = z
            .dims
            .iter()
            .zip(idx)
            .map(|(d, v)| self.dim_value_name(*d, v))
            .collect();
        format!("{}[{}]", z.name, parts.join(","))
    }

    /// The slot in the state's field table of field `f` (index in its type's fields) of `c`.
    #[inline(always)]
    pub fn field_slot(&self, c: CompId, f: u16) -> usize {
        self.comps[c].field_base as usize + f as usize
    }

    /// The zone instance with this name (`hand[p2]`, `deck`), if there is one.
    pub fn zone_instance(&self, name: &str) -> Option<InstId> {
        self.instances
            .ids()
            .find(|&i| self.zone_instance_name(i) == name)
    }

    /// The source file a span points into (the rules file when the span's file is unknown).
    pub fn source(&self, span: Span) -> &Source {
        self.sources
            .get(span.file.0 as usize)
            .unwrap_or(&self.sources[0])
    }
}

impl ZoneDef {
    /// Its instances, in order.
    pub fn instances(&self) -> impl Iterator<Item = InstId> {
        (self.base.0..self.base.0 + self.count).map(InstId)
    }
    /// Whether an instance is one of its own.
    pub fn has(&self, inst: InstId) -> bool {
        inst.0 >= self.base.0 && inst.0 < self.base.0 + self.count
    }

    /// The index values of one of its instances, in dimension order.
    pub fn index_values(&self, inst: InstId) -> Vec<u32> {
        let mut rest = inst.0 - self.base.0;
        let mut idx = vec![0; self.dims.len()];
        for i in (0..self.dims.len()).rev() {
            idx[i] = rest % self.sizes[i];
            rest /= self.sizes[i];
        }
        idx
    }
}
