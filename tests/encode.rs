//! The engine's numbers for learning libraries (`rulebook::engine::ActionCodes`,
//! `ViewCodes`): every option has one stable code whose text is the option's text; constants
//! bound ranges; options without a fixed numbering are refused with the reason; a seat's
//! encoded view holds only what it sees.

use rulebook::engine::{Actor, ChanceMode, Config};
use rulebook::Game;
use std::collections::HashMap;

fn game(text: &str) -> Game {
    let loaded = rulebook::load("t.rules", text);
    loaded
        .game
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics))
}

const MARKS: &str = r#"
    game "Marks"
    players 2
    const TOP = 3
    board grid = grid(2, 2)
    enum Kind { plain, bold }
    var mark[grid]: Player
    var used: int
    action place(cell in grid, kind in Kind) where mark[cell] == none {
        mark[cell] = me
        if all(s in grid: mark[s] != none) { end draw }
    }
    action take(n in 1..TOP) where used == 0 { used = n }
    flow { repeat { for p in players { turn p { choose { place take pass { } } } } } }
"#;

/// Every legal option has its own code, below the size; the codes follow declaration
/// order and the mixed radix of the parameters; each code's text is the option's text.
#[test]
fn codes_are_stable_and_distinct() {
    let g = game(MARKS);
    let mut st = g.start(&Config::seeded(2, 1)).expect("starts");
    let codes = g.action_codes(&st);
    assert_eq!(codes.refused(), None);
    // place: 4 cells x 2 kinds, take: 3 numbers, pass: 1.
    assert_eq!(codes.size(), 8 + 3 + 1);
    let mut legal = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..3 {
        g.legal(&st, &mut legal).expect("lists");
        for a in &legal {
            let c = codes.encode(&g, &st, a).expect("numbered");
            assert!(c < codes.size());
            assert_eq!(codes.text(&g, &st, c), Some(g.action_text(&st, a)));
            seen.insert(c);
        }
        let a = legal[0];
        g.apply(&mut st, &a).expect("applies");
    }
    let st = g.start(&Config::seeded(2, 1)).expect("starts");
    g.legal(&st, &mut legal).expect("lists");
    let code = |text: &str| {
        let a = g.parse_action(&st, text).expect("legal");
        codes.encode(&g, &st, &a)
    };
    assert_eq!(code("place cell=a1 kind=plain"), Some(0));
    assert_eq!(code("place cell=a1 kind=bold"), Some(1));
    assert_eq!(code("take n=1"), Some(8));
    assert_eq!(code("take n=3"), Some(10));
    assert_eq!(code("pass"), Some(11));
    assert!(seen.len() >= legal.len());
    assert_eq!(codes.text(&g, &st, 12), None);
}

/// A constant changed for the match changes the numbering of the range it bounds.
#[test]
fn constants_bound_ranges() {
    let g = game(MARKS);
    let cfg = Config {
        set: vec![("TOP".into(), "5".into())],
        ..Config::seeded(2, 1)
    };
    let st = g.start(&cfg).expect("starts");
    assert_eq!(g.action_codes(&st).size(), 8 + 5 + 1);
}

/// A sequence action and a range known only in play are refused, with the reason.
#[test]
fn unnumbered_options_are_refused() {
    let g = game(
        r#"
        game "Seq"
        players 2
        board grid = grid(2, 2)
        var mark[grid]: Player
        sequence action place(at in grid) where mark[at] == none {
            mark[at] = me
            choose also in grid where mark[also] == none { mark[also] = me }
            end draw
        }
        flow { turn seat(0) { choose { place } } }
    "#,
    );
    let st = g.start(&Config::seeded(2, 1)).expect("starts");
    let codes = g.action_codes(&st);
    assert!(codes.refused().is_some_and(|r| r.contains("`place`")));
    let g = game(
        r#"
        game "Bid"
        players 2
        var cap: int = 3
        flow { turn seat(0) { choose n in 0..cap { end } } }
    "#,
    );
    let st = g.start(&Config::seeded(2, 1)).expect("starts");
    let r = g.action_codes(&st);
    assert!(r.refused().is_some_and(|r| r.contains("`n`")), "{r:?}");
}

const HANDS: &str = r#"
    game "Hands"
    players 2
    component Card { rank: 0..2 }
    components Card in deck { "c{rank}" for r in 0..2 { rank = r } }
    zone deck: Card secret
    zone hand[Player]: Card owner
    var bets: 0..3
    action pass() { end }
    setup { shuffle deck  for p in players { deal 1 from deck to hand[p] } }
    flow { turn seat(0) { choose { pass } } }
"#;

/// The encoded view of a seat holds its own card, never another's: two deals that differ
/// only in the other seat's card encode the same for this seat.
#[test]
fn view_codes_hold_only_what_the_seat_sees() {
    let g = game(HANDS);
    let mut by_own: HashMap<String, Vec<Vec<f32>>> = HashMap::new();
    for seed in 0..24 {
        let st = g.start(&Config::seeded(2, seed)).expect("starts");
        let layout = g.view_codes(&st);
        let mut out = vec![0.0; layout.size()];
        layout.encode(&g.view(&st, Some(0)), &mut out);
        let own = g.view(&st, Some(0)).zones[1].visible.join(",");
        let theirs = g.view_all(&st).zones[2].visible.join(",");
        assert_ne!(own, theirs);
        by_own.entry(own).or_default().push(out.clone());
        // The whole state's view differs from the seat's.
        let mut all = vec![0.0; layout.size()];
        layout.encode(&g.view_all(&st), &mut all);
        assert_ne!(all[2 * 2 + 3..], out[2 * 2 + 3..]);
    }
    assert_eq!(by_own.len(), 3);
    for outs in by_own.values() {
        assert!(outs.windows(2).all(|w| w[0] == w[1]));
    }
}

/// The layout's header: the actor and the observer one-hot; a range variable one-hot.
#[test]
fn view_codes_layout() {
    let g = game(HANDS);
    let st = g.start(&Config::seeded(2, 3)).expect("starts");
    assert_eq!(g.actor(&st), Actor::Player(0));
    let layout = g.view_codes(&st);
    let mut out = vec![0.0; layout.size()];
    layout.encode(&g.view(&st, Some(1)), &mut out);
    assert_eq!(&out[..7], &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // deck (1 + 3 names), hand[p1], hand[p2]: 12 values; bets: 4 + none + hidden.
    assert_eq!(layout.size(), 7 + 12 + 6);
    assert_eq!(out[7 + 12], 1.0, "bets = 0");
    let cfg = Config {
        chance: ChanceMode::External,
        ..Config::seeded(2, 3)
    };
    let st = g.start(&cfg).expect("starts");
    assert_eq!(g.actor(&st), Actor::Chance);
    layout.encode(&g.view(&st, None), &mut out);
    assert_eq!(&out[..7], &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
}
