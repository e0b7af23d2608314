//! `present { }` (issue 38): how a game is drawn changes no rule, and the page's scene follows
//! it (glyphs, colours and labels of values, the variables drawn as pieces, checkered boards,
//! zone roles, the fields a card shows) without showing a seat more than its view.

use rulebook::engine::Config;
use rulebook::run::{simulate_with, Options};
use rulebook::web::scene::{checkered, layouts, scene};
use rulebook::Game;

fn load(text: &str) -> Game {
    let l = rulebook::load("t.rules", text);
    l.game.unwrap_or_else(|| panic!("{:?}", l.diagnostics))
}

/// The text without its `present { ... }` sections (each closed by a `}` alone on a line).
fn without_present(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("present {") {
            inside = true;
        } else if inside && line == "}" {
            inside = false;
        } else if !inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The rules files that have a `present` section.
fn presented() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["rules", "rules/classic"] {
        for e in std::fs::read_dir(dir).expect("rules").flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "rules")
                && std::fs::read_to_string(&p)
                    .expect("readable")
                    .contains("\npresent {")
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

// Every rules file with a section plays as it does without one: the same summary of seeded
// random games, and along one game the same actor, legal actions and every seat's view at
// every decision.
#[test]
fn a_game_plays_identically_with_and_without_its_presentation() {
    let files = presented();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in ["chess.rules", "english_draughts.rules", "omnia.rules"] {
        assert!(names.iter().any(|n| n == want), "{want} has no section");
    }
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let bare = without_present(&text);
        assert!(!bare.contains("present {"), "{}", f.display());
        let (with, without) = (load(&text), load(&bare));
        assert_ne!(with.present, Default::default(), "{}", f.display());
        assert_eq!(without.present, Default::default(), "{}", f.display());
        let cfg = Config::seeded(with.min_players, 7);
        let opts = Options {
            max_turns: Some(300),
            ..Options::new(4)
        };
        let a = simulate_with(&with, &cfg, &opts).to_json().to_string();
        let b = simulate_with(&without, &cfg, &opts).to_json().to_string();
        assert_eq!(a, b, "{}: the summaries differ", f.display());
        let (mut s1, mut s2) = (
            with.start(&cfg).expect("starts"),
            without.start(&cfg).expect("starts"),
        );
        let (mut l1, mut l2) = (Vec::new(), Vec::new());
        for step in 0..200u64 {
            for seat in (0..cfg.players).map(Some).chain([None]) {
                assert_eq!(
                    with.view(&s1, seat),
                    without.view(&s2, seat),
                    "{}",
                    f.display()
                );
            }
            if s1.is_over() {
                break;
            }
            let (r1, r2) = (with.legal(&s1, &mut l1), without.legal(&s2, &mut l2));
            assert_eq!(r1.is_ok(), r2.is_ok(), "{}", f.display());
            if r1.is_err() || l1.is_empty() {
                break;
            }
            let t1: Vec<String> = l1.iter().map(|a| with.action_text(&s1, a)).collect();
            let t2: Vec<String> = l2.iter().map(|a| without.action_text(&s2, a)).collect();
            assert_eq!(t1, t2, "{} step {step}", f.display());
            let k = (step * 7919 % l1.len() as u64) as usize;
            let (a1, a2) = (l1[k], l2[k]);
            with.apply(&mut s1, &a1).expect("applies");
            without.apply(&mut s2, &a2).expect("applies");
        }
    }
}

const DRAUGHTS: &str = "game \"P\"\nplayers 2\nenum Rank { man, king }\nboard field = grid(4, 4)\n\
    board side = grid(3, 3)\nvar piece[field]: Player\nvar rank[field]: Rank = man\n\
    var taken[field]: bool\nvar mark[side]: Player\n\
    setup { piece[a1] = seat(0)  piece[b2] = seat(1)  rank[b2] = king  taken[a1] = true }\n\
    action go(s in field) where piece[s] == none { piece[s] = me  rank[s] = man  taken[s] = false }\n\
    flow { turn seat(0) { choose { go } } }\n";

// A king is drawn by its glyph in its colour inside its seat's disc; a variable the section
// does not name as a piece (`taken`) is in the tooltip only; without the section, the default
// label (`K`) and the bool drawn by its name.
#[test]
fn a_value_is_drawn_by_its_glyph_and_colour_and_only_pieces_on_the_spaces() {
    let present = "present {\n piece piece, rank\n value Rank.king glyph \"♛\" colour gold\n}\n";
    let view = |text: &str| {
        let g = load(text);
        let st = g.start(&Config::seeded(2, 1)).expect("starts");
        let s = scene(&g, &g.view(&st, Some(0)), 2);
        let at = |name: &str| {
            let k = g
                .boards
                .iter()
                .next()
                .unwrap()
                .space_names
                .iter()
                .position(|n| n == name);
            s.boards[0][k.expect(name)].clone()
        };
        (at("a1"), at("b2"))
    };
    let (a1, b2) = view(&format!("{DRAUGHTS}{present}"));
    let drawn: Vec<_> = b2.iter().filter(|t| t.kind != "note").collect();
    assert_eq!(drawn.len(), 1);
    assert_eq!((drawn[0].label.as_str(), drawn[0].seat), ("♛", Some(1)));
    assert_eq!(drawn[0].colour, Some("#b8860b"));
    assert!(a1
        .iter()
        .any(|t| t.kind == "note" && t.text == "taken[a1]: true"));
    assert!(!a1.iter().any(|t| t.kind == "value" && t.label == "taken"));
    let (a1, b2) = view(DRAUGHTS);
    let drawn: Vec<_> = b2.iter().filter(|t| t.kind != "note").collect();
    assert_eq!((drawn[0].label.as_str(), drawn[0].colour), ("K", None));
    assert!(a1.iter().any(|t| t.kind == "value" && t.label == "taken"));
}

// A board the section calls checkered is, a1 dark, though no piece starts on one colour; one
// it calls plain is not, though its pieces would make it so by default.
#[test]
fn a_board_is_checkered_or_plain_as_the_section_says() {
    let g = load(DRAUGHTS);
    assert_eq!(checkered(&g), [None, None]);
    let g = load(&format!("{DRAUGHTS}present {{ board side checkered }}\n"));
    assert_eq!(checkered(&g), [None, Some(0)]);
    let l = layouts(&g);
    let dark: Vec<&str> = l[1]
        .spaces
        .iter()
        .filter(|s| s.dark)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(dark, ["a1", "c1", "b2", "a3", "c3"]);
    let start = "setup { piece[a1] = seat(0)  piece[c1] = seat(0)  piece[b2] = seat(1)  piece[d2] = seat(1) }\n";
    let text = DRAUGHTS.replace(
        "setup { piece[a1] = seat(0)  piece[b2] = seat(1)  rank[b2] = king  taken[a1] = true }\n",
        start,
    );
    assert_eq!(checkered(&load(&text)), [Some(0), None]);
    let plain = load(&format!("{text}present {{ board field plain }}\n"));
    assert_eq!(checkered(&plain), [None, None]);
}

const CARDS: &str = "game \"C\"\nplayers 2\ncomponent Card { holder: Player, cost: int, points: int, colour: int, \
    secret_note: int seen by holder }\n\
    zone deck: Card hidden\nzone hand[Player]: Card owner\nzone market: Card public\n\
    components Card in deck { \"c{n}\" for n in 1..9 { cost = n, points = n * 2, colour = 1, secret_note = 5 } }\n\
    setup { for p in players { deal 3 from deck to hand[p] } deal 2 from deck to market\n\
    for c in market { c.holder = seat(1) } }\n\
    action pass() { end draw }\nflow { turn seat(0) { choose { pass } } }\n";

// A card shows its name and the fields the section names, in that order, and what the seat
// may not see stays hidden: another's hand as backs, a field seen by another as `?`; zones
// given a role come first, in the order written, under that role.
#[test]
fn a_card_shows_the_fields_named_and_no_more_than_the_seat_sees() {
    let present = "present {\n zone market as row\n zone deck as deck\n component Card shows points, secret_note, holder\n}\n";
    let g = load(&format!("{CARDS}{present}"));
    let st = g.start(&Config::seeded(2, 3)).expect("starts");
    let s = scene(&g, &g.view(&st, Some(0)), 2);
    let zones: Vec<(&str, &str)> = s.zones.iter().map(|z| (z.zone.as_str(), z.kind)).collect();
    assert_eq!(
        zones,
        [
            ("market", "row"),
            ("deck", "deck"),
            ("hand[p1]", "hand"),
            ("hand[p2]", "hand")
        ]
    );
    let market = &s.zones[0];
    assert_eq!(market.cards.len(), 2);
    for c in &market.cards {
        let names: Vec<&str> = c.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["points", "secret_note", "holder"], "{}", c.name);
        assert_eq!(c.fields[1].1, "?", "held by p2: p1 does not see it");
    }
    // In the seat's own hand, no holder: a field whose value is `none` is not shown.
    for c in &s.zones[2].cards {
        let names: Vec<&str> = c.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["points", "secret_note"], "{}", c.name);
    }
    let theirs = &s.zones[3];
    assert_eq!((theirs.cards.len(), theirs.backs), (0, 3));
    // p2 sees the notes of the market's cards; without the section, every field is shown.
    let s2 = scene(&g, &g.view(&st, Some(1)), 2);
    assert!(s2.zones[0]
        .cards
        .iter()
        .all(|c| c.fields[1] == ("secret_note".into(), "5".into())));
    let bare = load(CARDS);
    let s = scene(&bare, &bare.view(&st, Some(0)), 2);
    let market = s.zones.iter().find(|z| z.zone == "market").expect("market");
    assert_eq!(market.cards[0].fields.len(), 5);
}

// A component whose type has a look is drawn on its space by its glyph, in its colour, equal
// ones counted; a component of a type without one keeps its name.
#[test]
fn a_component_on_a_space_is_drawn_by_its_types_glyph() {
    let text = "game \"B\"\nplayers 2\nboard field = grid(2, 1)\ncomponent Block { }\n\
        component Stone { }\nzone supply: Block\nzone stones: Stone\nzone pile[field]: Block public\n\
        zone heap[field]: Stone public\ncomponents Block in supply { \"block\" for i in 1..3 { } }\n\
        components Stone in stones { \"stone\" { } }\n\
        setup { for k in 1..3 { move top(supply) to pile[a1] } move top(stones) to heap[a1] }\n\
        action pass() { end draw }\nflow { turn seat(0) { choose { pass } } }\n\
        present { component Block glyph \"■\" colour brown }\n";
    let g = load(text);
    let st = g.start(&Config::seeded(2, 1)).expect("starts");
    let s = scene(&g, &g.view(&st, Some(0)), 2);
    let drawn: Vec<(&str, usize, Option<&str>)> = s.boards[0][0]
        .iter()
        .map(|t| (t.label.as_str(), t.count, t.colour))
        .collect();
    assert_eq!(drawn, [("■", 3, Some("#6d4c41")), ("stone", 1, None)]);
    assert_eq!(
        s.boards[0][0][0].value, "block",
        "a click still names the component"
    );
}
