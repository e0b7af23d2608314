//! The limits of a game, checked when a file is read or a match is started.

/// The most values one action or choice may bind (parameters of an action, bindings of a choice).
pub const MAX_ARGS: usize = 4;
/// The most seats any game may declare.
pub const MAX_PLAYERS: usize = 8;
/// The most local names one procedure (the flow, the setup, an action's effect) may use.
pub const MAX_LOCALS: usize = 64;
/// The most local names one function (`def`) or set kind may use.
pub const DEF_LOCALS: usize = 16;
/// How deep functions may call each other (or themselves) while one expression is evaluated.
pub const MAX_CALL_DEPTH: u16 = 64;
/// The most spaces one board may have.
pub const MAX_BOARD_SPACES: usize = 10_000;
/// The most components a game may have, all `components` tables together; a table is
/// refused before its generators are expanded.
pub const MAX_COMPONENTS: usize = 10_000;
/// The most values one generator of a `components` table may take (`for r in 1..100`).
pub const MAX_GENERATOR_VALUES: usize = 10_000;
/// The most zone instances a game may have: every zone, once per combination of its indexes.
pub const MAX_ZONE_INSTANCES: usize = 100_000;
/// The most variable slots a game may have: every variable, once per combination of its
/// indexes.
pub const MAX_VAR_SLOTS: usize = 100_000;
/// The most declarations of one kind (constants, enums, component types, boards, zones,
/// variables, functions, set kinds, actions, variants), values of one enum, or fields of one
/// component type.
pub const MAX_DECLS: usize = 50_000;
/// The most diagnostics one file reports in full; the others are counted in a last note.
pub const MAX_DIAGNOSTICS: usize = 500;
/// The most values of one position of a `memory` (its variables' entries and its values).
pub const MAX_MEMORY_WIDTH: usize = 10_000;
/// The most values the memories of one match hold together (every position remembered, of
/// every memory): past it, `remember` is a run-time limit error.
pub const MAX_MEMORY_VALUES: usize = 1_000_000;
/// Text the checker writes out where it is used, in all, per file: the bodies of functions
/// returning collections at their calls, legends' blocks at their positions, the guards
/// `can` asks about (a use inside a use is counted again, so nesting cannot multiply it
/// past this).
pub const MAX_WRITTEN_OUT: usize = 4 * 1024 * 1024;
