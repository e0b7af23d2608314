//! The messages of the line protocol (`rulebook serve`): one [`Request`] per line in, one
//! [`Reply`] per line out, both JSON. Replies hold canonical texts only (action texts,
//! component and space names), never the engine's internal encodings.

use crate::engine::View;
use serde::{Deserialize, Serialize};

/// The longest request line the server reads: 1 MiB. The rest of a longer line is skipped
/// without being stored, and the line is answered with [`Code::TooLong`].
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How many characters of a request a message quotes at most.
pub const QUOTE_CHARS: usize = 64;

/// One request: a JSON object whose `"cmd"` names the command. Unknown fields are refused.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Starts a new match in place of any other (the host only).
    New {
        /// Seats (default: the fewest the game allows).
        players: Option<u8>,
        /// The seed of the match's generator (default 0).
        seed: Option<u64>,
        /// The variant to play (default: none).
        variant: Option<String>,
        /// How chance is resolved (default: seeded).
        chance: Option<ChanceModeName>,
        /// Constants set for the match, after the variants: `{"CALM": 4}`.
        set: Option<std::collections::BTreeMap<String, SetValue>>,
    },
    /// The legal actions now (or the chance outcomes, when chance must act).
    Legal {},
    /// Applies a legal action given by its canonical text.
    Apply {
        /// The action's canonical text.
        action: String,
    },
    /// What one seat may see (from 0; none: a spectator, or the bound seat).
    View {
        /// The seat, from 0.
        seat: Option<u8>,
    },
    /// The decisions from the `from`-th on (default 0) as one seat may read them (from 0;
    /// none: a spectator, or the bound seat): its own in full, the others' as its views
    /// show them ([`crate::engine::Match::log_seen`]).
    Log {
        /// The first decision wanted, from 0.
        from: Option<usize>,
        /// The seat, from 0.
        seat: Option<u8>,
    },
    /// Whether an action is legal now, and if not why.
    Why {
        /// The action's canonical text.
        action: String,
    },
    /// Who acts, how many decisions, scores and winners once over.
    Status {},
    /// Everything, hidden things included, and the log (trusted clients only).
    State {},
    /// One decision back (a client bound to a seat: its own last decision only).
    Undo {},
    /// The save of the match, as RON (trusted clients only).
    Save {},
    /// Replays a save in place of the current match (the host only).
    Load {
        /// The RON text of a save.
        data: String,
    },
    /// The action a Monte Carlo tree search suggests to the seat that must act (the bound
    /// seat, from its view), searched with this many playouts.
    Suggest {
        /// Playouts (default [`crate::agents::DEFAULT_PLAYOUTS`]; at most
        /// [`MAX_SUGGEST_PLAYOUTS`]).
        playouts: Option<u64>,
    },
}

/// The most playouts a `suggest` may ask for.
pub const MAX_SUGGEST_PLAYOUTS: u64 = crate::agents::MAX_PLAYOUTS;

impl Request {
    /// Every command, as written in `"cmd"`.
    pub const COMMANDS: [&'static str; 12] = [
        "new", "legal", "apply", "view", "log", "why", "status", "state", "undo", "save", "load",
        "suggest",
    ];
}

/// A constant's value in `new`'s `set`: a number, a flag, or a name (`"red"`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum SetValue {
    /// A whole number.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// An enum value's name (or a number or flag written as text).
    Text(String),
}

impl SetValue {
    /// The value as text, as [`crate::engine::Config::set`] takes it.
    pub fn text(&self) -> String {
        match self {
            SetValue::Int(n) => n.to_string(),
            SetValue::Bool(b) => b.to_string(),
            SetValue::Text(t) => t.clone(),
        }
    }
}

/// How chance is resolved in a new match: `"seeded"` or `"external"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChanceModeName {
    /// The match's seeded generator settles every shuffle and roll.
    Seeded,
    /// Every shuffle and roll waits for a decision of the chance actor.
    External,
}

/// The code of an error reply. README.md lists every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The line is not JSON (or not UTF-8, or empty).
    BadJson,
    /// The line is longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// A JSON line that is not a request: no `"cmd"` string, a field missing, of the wrong
    /// type or unknown.
    BadRequest,
    /// A `"cmd"` that is not a command.
    UnknownCommand,
    /// A request on a match before any `new` or `load`.
    NoMatch,
    /// `new` with a player count the game does not take, or an unknown variant.
    BadConfig,
    /// `apply` of a text that is not a legal action now.
    IllegalAction,
    /// `apply` by a client bound to a seat (`serve --seat`) when another seat must act.
    NotYourTurn,
    /// `apply` after the game is over.
    Finished,
    /// `view` of a seat that is not in play, or not the client's own.
    BadSeat,
    /// `new`, `load`, `state` or `save` by a client bound to a seat, or its `undo` of a
    /// decision that is not its own.
    Forbidden,
    /// `load` of data that is not a save of this rules file that replays.
    BadSave,
    /// `undo` at the start of the match.
    NothingToUndo,
    /// A rule failed while running (with its line and column when known).
    RulesError,
    /// The rules ran longer than a limit allows without reaching a decision (with the line
    /// and column of what was running).
    LimitReached,
    /// rulebook itself failed while answering (a bug); the match is as it was.
    InternalError,
}

impl Code {
    /// Every code.
    pub const ALL: [Code; 16] = [
        Code::BadJson,
        Code::TooLong,
        Code::BadRequest,
        Code::UnknownCommand,
        Code::NoMatch,
        Code::BadConfig,
        Code::IllegalAction,
        Code::NotYourTurn,
        Code::Finished,
        Code::BadSeat,
        Code::Forbidden,
        Code::BadSave,
        Code::NothingToUndo,
        Code::RulesError,
        Code::LimitReached,
        Code::InternalError,
    ];

    /// The code as written in replies, e.g. `bad_json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::BadJson => "bad_json",
            Code::TooLong => "too_long",
            Code::BadRequest => "bad_request",
            Code::UnknownCommand => "unknown_command",
            Code::NoMatch => "no_match",
            Code::BadConfig => "bad_config",
            Code::IllegalAction => "illegal_action",
            Code::NotYourTurn => "not_your_turn",
            Code::Finished => "finished",
            Code::BadSeat => "bad_seat",
            Code::Forbidden => "forbidden",
            Code::BadSave => "bad_save",
            Code::NothingToUndo => "nothing_to_undo",
            Code::RulesError => "rules_error",
            Code::LimitReached => "limit_reached",
            Code::InternalError => "internal_error",
        }
    }
}

/// Why a request was not carried out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Error {
    /// What kind of error.
    pub code: Code,
    /// What went wrong, in words.
    pub message: String,
    /// For a rule error: the line of the rule in the rules file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For a rule error: the column of the rule in the rules file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Error {
    /// An error without a place in the rules.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

/// A legal action: its canonical text, and the same in parts for programs that map clicks to
/// actions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LegalAction {
    /// The canonical text, e.g. `place cell=a1`; `apply` takes it.
    pub text: String,
    /// The action or the labelled option (`place`, `pass`); `None` for a value choice
    /// (`from=row2`).
    pub name: Option<String>,
    /// Each bound name with the canonical text of its value, in order: `[["cell", "a1"]]`.
    pub args: Vec<(String, String)>,
}

/// An outcome of the waiting chance event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChanceOutcome {
    /// Its canonical text, e.g. `chance 4`; `apply` takes it.
    pub text: String,
    /// `weight / total`.
    pub probability: f64,
    /// Its weight.
    pub weight: u32,
    /// The sum of the weights of all outcomes.
    pub total: u32,
}

/// A place in the rules file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
    /// The text there.
    pub text: String,
}

/// One reply. Serialised as a JSON object with its keys in alphabetical order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// `new`, `load`, `undo`: the match now waits on `actor`.
    Ready {
        /// `pN`, `chance` or `nobody`.
        actor: String,
        /// Always true.
        ok: bool,
    },
    /// `apply`.
    Applied {
        /// Who acts next.
        actor: String,
        /// Whether the game is over.
        finished: bool,
        /// Always true.
        ok: bool,
    },
    /// `legal` when a seat must act (an empty list when the client's bound seat must not).
    Actions {
        /// The legal actions, in the engine's order.
        actions: Vec<LegalAction>,
        /// Who must act.
        actor: String,
    },
    /// `legal` when chance must act.
    Outcomes {
        /// `chance`.
        actor: String,
        /// The outcomes, in the engine's order.
        outcomes: Vec<ChanceOutcome>,
    },
    /// `view`.
    View {
        /// What the seat may see.
        view: View,
    },
    /// `log`.
    Log {
        /// The decisions asked for, oldest first: who made each (`pN`, `chance`) and its
        /// text as the seat may read it (`(hidden)` for what it may not).
        entries: Vec<crate::engine::SeenLine>,
        /// How many decisions the match has in all.
        decisions: usize,
    },
    /// `why`.
    Why {
        /// The rule that decides, when one does.
        at: Option<Place>,
        /// Whether the action is legal now.
        legal: bool,
        /// Why, in words.
        reason: String,
    },
    /// `status`.
    Status {
        /// Who acts.
        actor: String,
        /// Decisions taken so far.
        decisions: usize,
        /// Whether the game is over.
        finished: bool,
        /// The final scores, once over.
        scores: Option<Vec<i64>>,
        /// The winning seats, once over.
        winners: Option<Vec<u8>>,
    },
    /// `state`: everything, as canonical texts.
    State {
        /// The decisions so far, as canonical texts.
        log: Vec<String>,
        /// The state with nothing hidden.
        state: View,
    },
    /// `save`.
    Save {
        /// The RON text of the save.
        data: String,
    },
    /// `suggest`.
    Suggestion {
        /// The canonical text of the action suggested.
        action: String,
    },
    /// Any request that was not carried out.
    Error {
        /// Why.
        error: Error,
    },
}

impl Reply {
    /// The reply as one line of JSON, its keys in alphabetical order.
    pub fn to_line(&self) -> String {
        serde_json::to_value(self)
            .map(|v| v.to_string())
            .unwrap_or_else(|e| {
                serde_json::json!({"error": {"code": "internal_error", "message": e.to_string()}})
                    .to_string()
            })
    }
}

impl From<Error> for Reply {
    fn from(error: Error) -> Self {
        Reply::Error { error }
    }
}

/// At most [`QUOTE_CHARS`] characters of `s`, cut on a character boundary, with `...` when
/// cut.
pub fn quote(s: &str) -> String {
    match s.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// `message` with every quoted part (between backticks or double quotes) cut by [`quote`]:
/// messages of the engine and of the JSON reader may quote the request whole.
pub fn cut_quotes(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let mark = &rest[open..open + 1];
        let Some(len) = rest[open + 1..].find(mark) else {
            break;
        };
        out.push_str(&rest[..=open]);
        out.push_str(&quote(&rest[open + 1..open + 1 + len]));
        out.push_str(mark);
        rest = &rest[open + 2 + len..];
    }
    out.push_str(&quote_tail(rest));
    out
}

/// An unclosed quote may still hold a whole request: cut what follows it.
fn quote_tail(rest: &str) -> String {
    match rest.find(['`', '"']) {
        Some(open) => format!("{}{}", &rest[..=open], quote(&rest[open + 1..])),
        None => rest.to_string(),
    }
}
