//! The codes of the checker's diagnostics. Each code's documentation shows a small rules file
//! that triggers it; a test checks every one of these programs (and a failing file under
//! `tests/fail/` per code), so the documentation cannot drift from the checker.

use std::fmt;

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $text:literal;)*) => {
        /// What kind of problem a diagnostic reports; shown as `rulebook::<code>`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[$doc])* $name,)*
        }

        impl Code {
            /// Every code, in the order declared.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];

            /// The code as written in diagnostics, e.g. `check::unknown_name`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $text,)*
                }
            }
        }
    };
}

codes! {
    /// The text does not parse (the first syntax error stops the file).
    /// ```rules
    /// game "Broken" players 2 flow { if }
    /// ```
    Syntax = "syntax";
    /// No `players` declaration, or a count outside 1..8, or the minimum above the maximum.
    /// ```rules
    /// game "Crowd" players 12 flow { end }
    /// ```
    Players = "check::players";
    /// A top-level name, enum value, field, `players`, `setup`, `flow`, `score` or `heuristic`
    /// declared twice.
    /// ```rules
    /// players 2
    /// var points: int
    /// var points: int
    /// flow { end }
    /// ```
    Duplicate = "check::duplicate";
    /// A name that nothing declares (with a "did you mean" hint), or an unknown `Enum.value`.
    /// ```rules
    /// players 2
    /// var score: int
    /// flow { scroe = 1 end }
    /// ```
    UnknownName = "check::unknown_name";
    /// A bare value name that several enums declare.
    /// ```rules
    /// players 2
    /// enum Suit { red, blue }
    /// enum Light { red, green }
    /// var s: Suit
    /// flow { s = red end }
    /// ```
    Ambiguous = "check::ambiguous";
    /// Something that must be known when the file is read is not: a `const`, a variant's value,
    /// a default, a table entry, a board size, a generator.
    /// ```rules
    /// players 2
    /// var x: int
    /// const C = x + 1
    /// flow { end }
    /// ```
    NotConstant = "check::not_constant";
    /// A variant sets a name that is not a `const`.
    /// ```rules
    /// players 2
    /// var speed: int
    /// variant fast { speed = 2 }
    /// flow { end }
    /// ```
    UnknownConst = "check::unknown_const";
    /// A type, or a zone's content type, that nothing declares.
    /// ```rules
    /// players 2
    /// zone deck: Crad
    /// flow { end }
    /// ```
    UnknownType = "check::unknown_type";
    /// An index type other than `Player`, an enum or a board.
    /// ```rules
    /// players 2
    /// var points[int]: int
    /// flow { end }
    /// ```
    UnknownIndex = "check::unknown_index";
    /// A `components` table whose target is not a zone.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// components Card in nowhere { "c" { rank = 1 } }
    /// flow { end }
    /// ```
    UnknownZone = "check::unknown_zone";
    /// A field that the component type does not have; `seen by` naming no field.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// zone deck: Card
    /// components Card in deck { "c" { rank = 1 } }
    /// flow { if top(deck).colour == 1 { end } end }
    /// ```
    UnknownField = "check::unknown_field";
    /// A `choose` or `do` that names no action.
    /// ```rules
    /// players 2
    /// flow { turn seat(0) { choose { shuffle_hand } } }
    /// ```
    UnknownAction = "check::unknown_action";
    /// An unknown function or aggregate.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = size(3) end }
    /// ```
    UnknownFunction = "check::unknown_function";
    /// `best_sets` given something that is not a `set` kind.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// zone deck: Card
    /// components Card in deck { "c" { rank = 1 } }
    /// var n: int
    /// flow { n = best_sets(c in deck, nothing) end }
    /// ```
    UnknownSet = "check::unknown_set";
    /// `named("...")` matches no component.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// zone deck: Card
    /// components Card in deck { "c{rank}" for r in 1..3 { rank = r } }
    /// flow { move named("c11") to deck end }
    /// ```
    UnknownComponent = "check::unknown_component";
    /// The wrong number of indexes or arguments; more than 4 parameters; a malformed `line`,
    /// `paths`, `group` or `best_sets`.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = max(3) end }
    /// ```
    Arity = "check::arity";
    /// A value of the wrong type.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = true end }
    /// ```
    Type = "check::type";
    /// A collection used as a value, or a value used as a collection.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = [1, 2] end }
    /// ```
    Collection = "check::collection";
    /// An enum, board, type, function, action or set kind used as a value.
    /// ```rules
    /// players 2
    /// enum Suit { red, blue }
    /// var n: int
    /// flow { n = Suit end }
    /// ```
    NotAValue = "check::not_a_value";
    /// A variable, zone or other name called like a function.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = n(1) end }
    /// ```
    NotCallable = "check::not_callable";
    /// Something indexed that is not a zone or a variable.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { n = (n + 1)[2] end }
    /// ```
    Index = "check::index";
    /// An assignment to something that is not a variable, a field or a local.
    /// ```rules
    /// players 2
    /// flow { player_count = 3 end }
    /// ```
    Assign = "check::assign";
    /// An empty range type (`5..1`), or a generator range that is not two numbers.
    /// ```rules
    /// players 2
    /// var n: 5..1
    /// flow { end }
    /// ```
    Range = "check::range";
    /// A board size that is not a positive constant, an unknown shape or option.
    /// ```rules
    /// players 2
    /// board b = grid(0, 3)
    /// flow { end }
    /// ```
    Board = "check::board";
    /// `owner` on a zone without a `Player` index; `seen by` a field that is not a `Player`.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// zone deck: Card owner
    /// flow { end }
    /// ```
    Visibility = "check::visibility";
    /// A bad name template; a name that shows a secret field.
    /// ```rules
    /// players 2
    /// component Card { rank: int }
    /// zone deck: Card
    /// components Card in deck { "c{rank" { rank = 1 } }
    /// flow { end }
    /// ```
    Template = "check::template";
    /// `reveal` or `hide` of something that is not a component's field.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { reveal n end }
    /// ```
    Reveal = "check::reveal";
    /// A `when` trigger whose condition is known when the file is read: always true (it
    /// would fire forever) or always false.
    /// ```rules
    /// players 2
    /// var n: int
    /// when always true { n += 1 }
    /// flow { end }
    /// ```
    Trigger = "check::trigger";
    /// A `memory` part that depends on who asks or binds names, or `remember`, `forget` or
    /// `repeated` of something that is not a memory.
    /// ```rules
    /// players 2
    /// var board[1..3]: int
    /// memory seen(board, me)
    /// flow { remember seen end }
    /// ```
    Memory = "check::memory";
    /// An action's window that is neither `anytime` nor `before turn`.
    /// ```rules
    /// players 2
    /// action swap() before round { }
    /// flow { end }
    /// ```
    Window = "check::window";
    /// A `roll` whose possible values cannot be known.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { roll n end }
    /// ```
    Roll = "check::roll";
    /// A `choose` with no option, or with both `by` and `each`.
    /// ```rules
    /// players 2
    /// flow { turn seat(0) { choose { } } end }
    /// ```
    Choose = "check::choose";
    /// `break` outside a loop.
    /// ```rules
    /// players 2
    /// flow { break }
    /// ```
    Break = "check::break";
    /// `ties` followed by something other than `draw` or `shared`.
    /// ```rules
    /// players 2
    /// ties split
    /// flow { end }
    /// ```
    Ties = "check::ties";
    /// No `flow`.
    /// ```rules
    /// players 2
    /// setup { }
    /// ```
    NoFlow = "check::no_flow";
    /// Nothing can end the game: no `end when`, no `end` or `win`, and a loop that repeats
    /// forever.
    /// ```rules
    /// players 2
    /// action pass() { }
    /// flow { repeat { turn seat(0) { choose { pass } } } }
    /// ```
    NeverEnds = "check::never_ends";
    /// A procedure with more local names than the limit (64; a `def` or `set`: 16).
    /// ```rules
    /// players 2
    /// def f(a: int) = a + count(x1 in 1..2, x2 in 1..2, x3 in 1..2, x4 in 1..2, x5 in 1..2, x6 in 1..2, x7 in 1..2, x8 in 1..2, x9 in 1..2, x10 in 1..2, x11 in 1..2, x12 in 1..2, x13 in 1..2, x14 in 1..2, x15 in 1..2, x16 in 1..2)
    /// var n: int
    /// flow { n = f(1) end }
    /// ```
    TooManyLocals = "check::too_many_locals";
    /// A file, nesting, board, table, range or zone larger than a documented limit (section
    /// "Limits" of the language reference); also the last note of a file with more problems
    /// than are shown.
    /// ```rules
    /// players 2
    /// board huge = grid(5000, 5000)
    /// flow { end }
    /// ```
    Limit = "check::limit";
    /// A number that does not fit in 64 bits; arithmetic on constants that overflows or
    /// divides by zero.
    /// ```rules
    /// players 2
    /// const BIG = 9223372036854775807 + 1
    /// var n: int
    /// flow { n = BIG end }
    /// ```
    Number = "check::number";
    /// Directions or coordinates asked of a board that has none: `step`, `ray`, `col`, `row`
    /// or `directions` on a graph board.
    /// ```rules
    /// players 2
    /// board m = graph { spaces a, b edges a - b }
    /// var at: m
    /// flow { at = step(a, north) end }
    /// ```
    Geometry = "check::geometry";
    /// A misused `sequence action`: a choice inside it made by another player (`choose by`,
    /// `choose each`), offered in a `choose each`, or offering another sequence action.
    /// ```rules
    /// players 2
    /// sequence action hop() { choose by next(me) { stop { } } }
    /// flow { turn seat(0) { choose { hop } } end }
    /// ```
    Sequence = "check::sequence";
    /// A statement a simultaneous block cannot hold, in its body or in an action it runs:
    /// `turn`, `roll`, `shuffle`, `end`, `win`, `choose each`, a choice by another player, a
    /// sequence action, another simultaneous block.
    /// ```rules
    /// players 2
    /// var n: int
    /// flow { simultaneous p in players { choose by next(p) x in 1..3 { n += x } } end }
    /// ```
    Simultaneous = "check::simultaneous";
    /// A warning: something declared and never used; an action never offered; a zone used but
    /// never filled.
    /// ```rules
    /// players 2
    /// var unused_counter: int
    /// flow { end }
    /// ```
    Unused = "check::unused";
    /// An action-typed field misused: `do x.f` where `f` is not a field of type `action`, a
    /// table entry naming an action whose parameters differ from the field's type, an action
    /// type outside a component, or a default for an action field.
    /// ```rules
    /// players 2
    /// component Card { amount: int, effect: action(Card) }
    /// zone deck: Card
    /// var energy: int
    /// action gain() { energy += 1 }
    /// components Card in deck { "Bonus" { amount = 3, effect = gain } }
    /// flow { end }
    /// ```
    Effect = "check::effect";
    /// A position written as text that does not fit its board or its legend, or a legend
    /// whose entry is not one character or whose binding is not a board with rows.
    /// ```rules
    /// players 2
    /// board grid = grid(3, 3)
    /// var stone[grid]: Player
    /// legend stones(s in grid) { "x" { stone[s] = seat(0) } }
    /// setup { stones "x2/3/1o1" }
    /// flow { end }
    /// ```
    Layout = "check::layout";
    /// A `present` section that does not fit the game: a name of the wrong kind, a look
    /// without its value or too long, an unknown colour, role or style, a piece that is not a
    /// variable of a board's spaces, a zone on a board given a role, something said twice.
    /// ```rules
    /// players 2
    /// board grid = grid(3, 3)
    /// var mark[grid]: Player
    /// var turns: int
    /// present { piece turns }
    /// flow { end }
    /// ```
    Present = "check::present";
    /// A scenario's `chance` step names no chance mode.
    /// ```rules
    /// rules "../../rules/classic/tic_tac_toe.rules"
    /// scenario "dice" { chance loaded }
    /// ```
    ScenarioChance = "scenario::chance";
    /// A scenario's `expect ... sees` names something that is not a component's field, a
    /// zone or a variable.
    /// ```rules
    /// rules "../../rules/classic/tic_tac_toe.rules"
    /// scenario "looks" { expect seat(0) sees 3 }
    /// ```
    ScenarioSees = "scenario::sees";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
