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
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for seed in 0..games {
        let cfg = Config {
            players: 2,
            variant: None,
            seed,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: Vec::new(),
        };
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
