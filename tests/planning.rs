//! Option listing is planned (a guard split at `and`, a binding narrowed by a value index,
//! remembered lists of the next binding, `if` parts answered per element), but what it lists
//! is what the language reference says: an action's options are the values of its
//! parameters, in the order of their collections, for which its `where` holds. Here the
//! planned Breakthrough is played beside the same game whose guard is one function call,
//! tested whole for every (from, to): at every decision of seeded random games both list the
//! same options in the same order.

use rulebook::agents::RandomAgent;
use rulebook::engine::{Actor, ChanceMode, Config};
use rulebook::Game;

const GUARD: &str = "where pawn[from] == me and rank[to] == rank[from] + ahead(me)
    and (if file[to] == file[from] then pawn[to] == none else pawn[to] != me) {";

fn game(text: &str) -> Game {
    rulebook::load("test.rules", text)
        .game
        .expect("valid rules")
}

/// Breakthrough with the guard of `advance` replaced by `guard` (and `defs` added).
fn breakthrough(guard: &str, defs: &str) -> Game {
    let text = std::fs::read_to_string("rules/classic/breakthrough.rules").expect("readable");
    assert!(
        text.contains(GUARD),
        "the guard of `advance` is as this test expects"
    );
    let text = text
        .replace(GUARD, guard)
        .replace("setup {", &format!("{defs}\nsetup {{"));
    game(&text)
}

/// The options of every decision of `games` seeded random games, as texts, played on
/// `planned` and `whole` side by side; fails at the first decision where they differ.
fn same_options(planned: &Game, whole: &Game, games: u64) {
    same_options_of(planned, whole, games, 2);
}

/// [`same_options`] with `players` seats.
fn same_options_of(planned: &Game, whole: &Game, games: u64, players: u8) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for seed in 0..games {
        let cfg = Config::seeded(players, seed);
        let mut s1 = planned.start(&cfg).expect("starts");
        let mut s2 = whole.start(&cfg).expect("starts");
        let mut agent = RandomAgent::new(seed);
        let mut decisions = 0;
        while let Actor::Player(_) = planned.actor(&s1) {
            planned.legal(&s1, &mut a).expect("legal");
            whole.legal(&s2, &mut b).expect("legal");
            let ta: Vec<String> = a.iter().map(|x| planned.action_text(&s1, x)).collect();
            let tb: Vec<String> = b.iter().map(|x| whole.action_text(&s2, x)).collect();
            assert_eq!(ta, tb, "game {seed}, decision {decisions}");
            let chosen = agent.pick(&a).expect("a legal action");
            let i = a.iter().position(|x| *x == chosen).expect("listed");
            planned.apply(&mut s1, &a[i]).expect("applies");
            whole.apply(&mut s2, &b[i]).expect("applies");
            decisions += 1;
        }
        assert!(decisions > 0, "game {seed} had decisions");
        assert!(
            matches!(whole.actor(&s2), Actor::Nobody),
            "both games end together"
        );
    }
}

#[test]
fn a_planned_guard_lists_what_the_whole_guard_lists() {
    let whole = breakthrough(
        "where step_ok(from, to, me) {",
        "def step_ok(from: field, to: field, p: Player) = pawn[from] == p
    and rank[to] == rank[from] + ahead(p)
    and (if file[to] == file[from] then pawn[to] == none else pawn[to] != p)",
    );
    let planned = breakthrough(GUARD, "");
    same_options(&planned, &whole, 20);
    // A part that reads only `from` (tested between the narrowed binding and the remembered
    // list of `to`) and one that reads both bindings after the split `if`.
    let parts = breakthrough(
        "where pawn[from] == me and pawn[from] != none and rank[to] == rank[from] + ahead(me)
    and (if file[to] == file[from] then pawn[to] == none else pawn[to] != me)
    and to != from {",
        "",
    );
    same_options(&parts, &whole, 20);
    // A list whose elements' last part is read in one step only for some of them (`pawn[to]
    // == none` straight ahead; `pawn[to] != pawn[from]` diagonally, which compares two
    // cells): the elements that are not are tested in full, in their place in the list.
    let mixed = breakthrough(
        "where pawn[from] == me and rank[to] == rank[from] + ahead(me)
    and (if file[to] == file[from] then pawn[to] == none else pawn[to] != pawn[from]) {",
        "",
    );
    same_options(&mixed, &whole, 20);
}

#[test]
fn a_count_tested_per_listed_element_lists_what_the_whole_guard_lists() {
    const DROP: &str = "where not empty(open[column]) {";
    let text = std::fs::read_to_string("rules/classic/connect_four.rules").expect("readable");
    assert!(
        text.contains(DROP),
        "the guard of `drop` is as this test expects"
    );
    let whole = game(&text.replace(DROP, "where open_at(column) {").replace(
        "flow {",
        "def open_at(c: Column) = not empty(open[c])\n\nflow {",
    ));
    same_options(&game(&text), &whole, 20);
}

#[test]
fn an_any_over_a_zone_led_by_its_emptiness_lists_what_the_whole_guard_lists() {
    // `any(x in open[column] where ...)` is false for a full column (an empty zone): the
    // planned listing tests `not empty(open[column])` first and runs the loop only on the
    // others; the whole guard, one call of a function, always runs it.
    const DROP: &str = "where not empty(open[column]) {";
    let text = std::fs::read_to_string("rules/classic/connect_four.rules").expect("readable");
    assert!(
        text.contains(DROP),
        "the guard of `drop` is as this test expects"
    );
    let planned = game(&text.replace(
        DROP,
        "where any(x in open[column] where mark[x.at] == none) {",
    ));
    let whole = game(&text.replace(DROP, "where free_in(column) {").replace(
        "flow {",
        "def free_in(c: Column) = any(x in open[c] where mark[x.at] == none)\n\nflow {",
    ));
    same_options(&planned, &whole, 20);
    same_options(&planned, &game(&text), 20);
}

/// Actions whose last parameters index a zone and whose guard asks for a component in it:
/// over two enums (`flip`), the same after a parameter of their own with a part of its own
/// (`lift`), over an enum and the players (`give`: the zone has room for three seats, two
/// games of three and two players), over a board with a closed space (`take`). `FLIP` and
/// the like are the guards' `any` parts, written in place or as function calls. `put` and
/// `stack` take a stone of the player's bag, whose guards read only whether it is odd
/// (`put`: big and small stones list the same places) and its owner (`stack`); `PUT` and
/// `STACK` are these guards (`DROP` reads nothing of it), alone or with a part that reads
/// the stone whole.
const SCAN: &str = "game \"Scan\"
players 2..3
const PIT = true
enum Row { r1, r2, r3 }
enum Col { c1, c2, c3, c4 }
board field = grid(3, 3) closed [b2] when PIT
enum Kind { big, small, odd }
component Stone { kind: Kind, owner: Player, up: bool = false }
zone box: Stone public
zone bag[Player]: Stone public
zone cell[Row, Col]: Stone public
zone tray[Row, Player]: Stone public
zone pit[field]: Stone public
components Stone in box {
    \"b{n}\" for n in 1..6 { kind = big }
    \"s{n}\" for n in 1..6 { kind = small }
    \"o{n}\" for n in 1..6 { kind = odd }
}
DEFS
action put(s in bag[me], r in Row, c in Col) where PUT { move s to cell[r, c] }
action stack(s in bag[me], r in Row, q in players) where STACK { move s to tray[r, q] }
action drop(s in bag[me], x in field) where DROP { move s to pit[x] }
action flip(r in Row, c in Col) where FLIP {
    let x = first(y in cell[r, c] where y.owner == me and not y.up)
    x.up = true
}
action lift(q in players, r in Row, c in Col) where q != me and LIFT {
    move first(y in cell[r, c] where y.owner == q) to bag[me]
}
action give(r in Row, q in players) where GIVE {
    move first(y in tray[r, q] where y.owner == me) to bag[q]
}
action take(x in field) where TAKE { move top(pit[x]) to bag[me] }
action pass() { }
setup {
    shuffle box
    for p in players {
        repeat 5 {
            let s = top(box)
            s.owner = p
            move s to bag[p]
        }
    }
}
flow { repeat 25 { for p in players { turn p { choose { put stack drop flip lift give take pass } } } } }
";

/// The game of [`SCAN`] with its guards' `any` parts in place (`planned`) or in functions.
fn scan_game(planned: bool) -> Game {
    const PUT: &str = "(if s.kind == odd then count(cell[r, c]) == 1 else count(cell[r, c]) < 2)";
    const STACK: &str = "count(tray[r, q]) < 2 and q != s.owner";
    let (put_whole, stack_whole) = (
        format!("zone_of(s) == bag[me] and {PUT}"),
        format!("zone_of(s) == bag[me] and {STACK}"),
    );
    let parts = [
        ("PUT", PUT, put_whole.as_str()),
        ("STACK", STACK, stack_whole.as_str()),
        (
            "DROP",
            "empty(pit[x])",
            "zone_of(s) == bag[me] and empty(pit[x])",
        ),
        (
            "FLIP",
            "any(x in cell[r, c] where x.owner == me and not x.up)",
            "mine_down(r, c)",
        ),
        (
            "LIFT",
            "any(x in cell[r, c] where x.owner == q)",
            "held_by(q, r, c)",
        ),
        (
            "GIVE",
            "any(x in tray[r, q] where x.owner == me)",
            "mine_in(r, q)",
        ),
        (
            "TAKE",
            "any(s in pit[x] where s.owner != me)",
            "not_mine(x)",
        ),
    ];
    let defs =
        "def mine_down(r: Row, c: Col) = any(x in cell[r, c] where x.owner == me and not x.up)
def held_by(q: Player, r: Row, c: Col) = any(x in cell[r, c] where x.owner == q)
def mine_in(r: Row, q: Player) = any(x in tray[r, q] where x.owner == me)
def not_mine(x: field) = any(s in pit[x] where s.owner != me)";
    let mut text = SCAN.replace("DEFS", if planned { "" } else { defs });
    for (name, inline, call) in parts {
        text = text.replace(name, if planned { inline } else { call });
    }
    game(&text)
}

#[test]
fn parameters_walked_over_a_zone_led_by_its_emptiness_list_what_the_whole_guard_lists() {
    // Planned, the last parameters of `flip`, `lift`, `give` and `take` pass over the empty
    // instances of the zone they index without binding them; in a function, the `any` is
    // tested on every value. A stone of `put` or `stack` that reads as an earlier one has
    // that one's places copied; read whole, every stone is walked over every place.
    let (planned, whole) = (scan_game(true), scan_game(false));
    same_options_of(&planned, &whole, 20, 2);
    same_options_of(&planned, &whole, 20, 3);
}

#[test]
fn parameters_walked_over_a_zone_spend_the_work_of_the_values_they_pass_over() {
    // Each value of a parameter costs a unit of work, also one passed over for its empty
    // instance, and a stone whose places are copied costs what its walk would: at every
    // budget both games run out at the same decisions, with the same error, and list the
    // same options at the others.
    let (planned, whole) = (scan_game(true), scan_game(false));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut limited = 0;
    for fuel in 120..=320 {
        for seed in 0..4 {
            let cfg = Config {
                players: 2 + (seed % 2) as u8,
                variant: None,
                seed,
                chance: ChanceMode::Seeded,
                fuel: Some(fuel),
                set: Vec::new(),
            };
            let (mut s1, mut s2) = match (planned.start(&cfg), whole.start(&cfg)) {
                (Ok(s1), Ok(s2)) => (s1, s2),
                (Err(x), Err(y)) => {
                    assert_eq!(x.to_string(), y.to_string(), "fuel {fuel}, seed {seed}");
                    limited += 1;
                    continue;
                }
                (x, y) => panic!(
                    "fuel {fuel}, seed {seed}: {:?} against {:?}",
                    x.err(),
                    y.err()
                ),
            };
            let mut agent = RandomAgent::new(seed);
            while let Actor::Player(_) = planned.actor(&s1) {
                let (ra, rb) = (planned.legal(&s1, &mut a), whole.legal(&s2, &mut b));
                match (ra, rb) {
                    (Ok(()), Ok(())) => {}
                    (Err(x), Err(y)) => {
                        assert_eq!(x.to_string(), y.to_string(), "fuel {fuel}, seed {seed}");
                        limited += 1;
                        break;
                    }
                    (x, y) => panic!("fuel {fuel}, seed {seed}: {x:?} against {y:?}"),
                }
                let ta: Vec<String> = a.iter().map(|x| planned.action_text(&s1, x)).collect();
                let tb: Vec<String> = b.iter().map(|x| whole.action_text(&s2, x)).collect();
                assert_eq!(ta, tb, "fuel {fuel}, seed {seed}");
                let chosen = agent.pick(&a).expect("a legal action");
                let i = a.iter().position(|x| *x == chosen).expect("listed");
                let (ra, rb) = (planned.apply(&mut s1, &a[i]), whole.apply(&mut s2, &b[i]));
                match (ra, rb) {
                    (Ok(()), Ok(())) => {}
                    (Err(x), Err(y)) => {
                        assert_eq!(x.to_string(), y.to_string(), "fuel {fuel}, seed {seed}");
                        limited += 1;
                        break;
                    }
                    (x, y) => panic!("fuel {fuel}, seed {seed}: {x:?} against {y:?}"),
                }
            }
        }
    }
    assert!(limited > 100, "some budgets run out: {limited}");
}
