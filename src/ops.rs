//! Operators shared by the syntax tree and the IR: a leaf module that depends on nothing.

/// An assignment operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`.
    Set,
    /// `+=`.
    Add,
    /// `-=`.
    Sub,
}

/// How an `end` statement ends the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    /// `end`: the game is scored (winners by score and tie-breakers).
    Score,
    /// `end draw`: nobody wins.
    Draw,
    /// `end lose`: everybody loses.
    Lose,
}

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `not`.
    Not,
    /// `-`.
    Neg,
}

/// A binary operator (left-associative but `^`; from loosest: `or`, `and`, comparisons,
/// `+ -`, `* / %`, then `^` above the prefix `-`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `or`.
    Or,
    /// `and`.
    And,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%` (Euclidean: never negative).
    Mod,
    /// `^`: a power (right-associative, above the prefix `-`: `-2 ^ 2` is -4).
    Pow,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
        }
    }
}
