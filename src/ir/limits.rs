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
/// Instructions the rules may run between two decisions before they are stopped.
pub const STEP_LIMIT: u64 = 2_000_000;
/// The most spaces one board may have.
pub const MAX_BOARD_SPACES: usize = 10_000;
