//! rulebook: an interpreter for a declarative language of tabletop game rules.
//!
//! Text goes one way: [`syntax`] parses it to a tree with spans, [`check`] resolves names and
//! types and lowers it to the [`ir`], and the [`engine`] runs the IR. [`agents`] choose actions;
//! [`cli`] is the command line and the only place that prints.

pub mod agents;
pub mod check;
pub mod cli;
pub mod engine;
pub mod ir;
pub mod syntax;

pub use check::{load, Loaded};
pub use engine::{Action, Actor, ChanceMode, Config, Outcome, RunError, State};
pub use ir::Game;
