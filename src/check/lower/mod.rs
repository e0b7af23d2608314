//! Lowering of expressions, collections and statements to the IR, with type checks.

mod after;
mod builtin;
mod call;
mod choose;
mod coll;
mod colldef;
mod expr;
mod simul;
mod stmt;
mod write;

use super::{Checker, Global, Local};
use crate::ir::{Expr, Type};
pub(crate) use colldef::CollDef;

/// Break targets of the enclosing loops: positions of `Jump` instructions to patch.
type Loops = Vec<Vec<usize>>;
/// Builds a variable or zone expression once its indexes are lowered.
type MakeExpr = Box<dyn Fn(Vec<Expr>) -> (Expr, Type)>;
