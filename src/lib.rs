//! rulebook: an interpreter for a declarative language of tabletop game rules.
//!
//! Text goes one way: [`syntax`] parses it to a tree with spans, [`check`] resolves names and
//! types and lowers it to the [`ir`], and the [`engine`] runs the IR. [`agents`] choose actions;
//! [`run`] plays whole matches with them (simulations, tree counts, benchmarks, scenarios);
//! `report` (feature `report`) draws a simulation's figures into an HTML page;
//! [`reference`] is a plain tree walker over the IR, the oracle the engine is tested against;
//! [`server`] answers the JSON line protocol; `web` serves a page that draws and plays a
//! game in a browser; [`cli`] is the command line and the only place
//! that prints.
//!
//! A whole game of tic-tac-toe, always taking the first legal action:
//!
//! ```
//! use rulebook::{engine::OutcomeKind, Actor, Config};
//!
//! let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
//! let loaded = rulebook::load("tic_tac_toe.rules", &text);
//! let game = loaded.game.expect("valid rules"); // else see `loaded.diagnostics`
//!
//! let config = Config { players: 2, seed: 1, ..Default::default() };
//! let mut state = game.start(&config).unwrap();
//! let mut legal = Vec::new();
//! while game.actor(&state) != Actor::Nobody {
//!     game.legal(&state, &mut legal).unwrap();
//!     let action = legal[0];
//!     println!("{:?}: {}", game.actor(&state), game.action_text(&state, &action));
//!     game.apply(&mut state, &action).unwrap();
//! }
//!
//! let outcome = state.outcome().expect("the game is over");
//! println!("{:?}, winners {:?}, scores {:?}", outcome.kind, outcome.winners, outcome.scores);
//! // p1 takes a1, c1, b2, then a3: the diagonal c1-b2-a3.
//! assert_eq!((outcome.kind, outcome.winners.as_slice()), (OutcomeKind::Won, &[0][..]));
//! assert_eq!(state.decisions, 7);
//! ```

#![warn(missing_docs)]

pub mod agents;
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod engine;
pub mod fmt;
pub mod ir;
pub mod lir;
#[cfg(feature = "cli")]
pub mod lsp;
pub mod ops;
pub mod reference;
#[cfg(feature = "cli")]
pub mod render;
#[cfg(feature = "report")]
pub mod report;
pub mod run;
pub mod server;
pub mod source;
pub mod syntax;
#[cfg(feature = "web")]
pub mod web;

pub use check::{load, Loaded};
pub use engine::{Action, Actor, ChanceMode, Config, Outcome, RunError, State};
pub use ir::Game;
