//! What each seat may see, written down from the rulebooks (seeds/*.md and their texts),
//! independently of the visibility the .rules files declare: random games of every seed
//! game are played, and at every decision each seat's view (and a spectator's) must show
//! exactly what the rulebook lets it see. Unlike the `determinize` test in
//! tests/protocol.rs, this catches a zone or a field declared `public` by mistake: the last
//! test changes declarations in copies of the rules and expects the check to fail.

use rulebook::agents::RandomAgent;
use rulebook::engine::{ChanceMode, Config, View};
use rulebook::run::{self, Seats};
use rulebook::Game;
use std::cell::RefCell;

/// Who sees the components of a zone while the game runs.
#[derive(Clone, Copy, Debug)]
enum Sees {
    /// Every seat and spectators: the components lie face up.
    Everyone,
    /// Only the seat the zone belongs to (`hand[p2]`: p2): a hand, cards held face down.
    Owner,
    /// Nobody: a face-down pile.
    Nobody,
    /// Everyone sees the top component only: a face-up discard pile.
    Top,
    /// The rulebook does not say (components not in play, in the box).
    Unchecked,
}

/// A field of some components that only one seat knows: the seat named by the component's
/// field `known_by`.
struct Secret {
    field: &'static str,
    known_by: &'static str,
    /// Hidden from the others the whole game; otherwise only until the rules reveal it, so
    /// it is checked at the first decision.
    always: bool,
}

/// One game's visibility, as its rulebook states it.
struct Rulebook {
    rules: &'static str,
    /// Every zone of the game (by its declared name) and who sees it, with the clause.
    zones: &'static [(&'static str, Sees, &'static str)],
    secrets: &'static [Secret],
}

const OMEGA_SHIFT: Rulebook = Rulebook {
    rules: "rules/omega_shift.rules",
    zones: &[
        ("deck", Sees::Nobody, "OS-2.4 the face-down draw pile"),
        ("hand", Sees::Owner, "OS-2.4 cards dealt to each player"),
        ("played", Sees::Everyone, "OS-2.5 play columns"),
        (
            "pile",
            Sees::Top,
            "OS-2.5 face-up discard piles, one on the other",
        ),
        ("removed", Sees::Everyone, "OS-5.3 alphas leave the game"),
        (
            "omegas",
            Sees::Everyone,
            "the omega cards before they are laid out",
        ),
        ("slot", Sees::Everyone, "the row of omega cards"),
    ],
    secrets: &[],
};

const OMNIA: Rulebook = Rulebook {
    rules: "rules/omnia.rules",
    zones: &[
        ("box", Sees::Unchecked, "cards not in this game"),
        ("deck", Sees::Nobody, "ON-2.1 ON-2.2 face-down decks"),
        ("row", Sees::Everyone, "ON-2.2 face-up rows"),
        ("places", Sees::Everyone, "ON-2.1 the Place row, face up"),
        ("drawn", Sees::Owner, "ON-6.1 Places drawn secretly"),
        ("hand", Sees::Owner, "ON-3.2 action cards hidden in hand"),
        ("kept", Sees::Owner, "ON-4.1 cards kept face down"),
        ("passing", Sees::Owner, "ON-4.1 cards passed to this player"),
        (
            "tableau",
            Sees::Everyone,
            "ON-3.2 collected cards lie face up",
        ),
        ("discard", Sees::Everyone, "ON-5.4 played action cards"),
    ],
    secrets: &[],
};

const OMINOES: Rulebook = Rulebook {
    rules: "rules/ominoes.rules",
    zones: &[
        ("supply", Sees::Everyone, "OM-2.1 the dice off the board"),
        ("held", Sees::Everyone, "the die rolled this turn"),
        ("cell", Sees::Everyone, "dice on the board"),
    ],
    secrets: &[],
};

const ATLANTIS_OMNI: Rulebook = Rulebook {
    rules: "rules/atlantis_omni.rules",
    zones: &[
        (
            "omni_box",
            Sees::Unchecked,
            "Omnis of factions nobody plays",
        ),
        (
            "wheel_box",
            Sees::Unchecked,
            "wheels of factions nobody plays",
        ),
        ("supply", Sees::Unchecked, "cubes before setup places them"),
        ("spots", Sees::Everyone, "AO-4.2 Omnis on the board"),
        ("out", Sees::Everyone, "AO-5.5 Omnis out of Atlantis"),
        (
            "reserve",
            Sees::Everyone,
            "AO-2.5 wheels under the base (values secret)",
        ),
        (
            "column",
            Sees::Everyone,
            "AO-6.1 wheel columns (values secret)",
        ),
        ("cubes", Sees::Everyone, "AO-2.3 cubes on sources"),
        ("supports", Sees::Everyone, "AO-2.2 cubes under tiles"),
        ("stock", Sees::Everyone, "AO-4.8 cubes taken"),
        ("deck", Sees::Nobody, "AO-4.6 the face-down energy pile"),
        ("hand", Sees::Owner, "AO-4.6 cards taken face down"),
        (
            "active",
            Sees::Everyone,
            "AO-A7 an activated Shield lies face up",
        ),
        ("discard", Sees::Everyone, "AO-A7 the discard pile"),
    ],
    secrets: &[
        // AO-6.7: wheel values are seen by their faction only; a Scout (AO-A14) shows one to
        // its player, so the check holds from the start until a card may have been played.
        Secret {
            field: "value",
            known_by: "owner",
            always: false,
        },
        // AO-6.7, AO-A16: floors are hidden from opponents until a battle reveals them.
        Secret {
            field: "element",
            known_by: "owner",
            always: false,
        },
    ],
};

const ATLANTIS_RISING: Rulebook = Rulebook {
    rules: "rules/atlantis_rising.rules",
    zones: &[
        ("island", Sees::Everyone, "the island tiles"),
        ("box", Sees::Everyone, "AR-2.7 Atlanteans of unused colours"),
        ("pool", Sees::Everyone, "AR-4.1 each player's pool"),
        ("reserve", Sees::Everyone, "AR-2.7 followers in the supply"),
        ("volunteers", Sees::Everyone, "AR-1.9 the grey volunteers"),
        ("holo_home", Sees::Everyone, "the hologram between rounds"),
        ("auto_home", Sees::Everyone, "the automaton between rounds"),
        ("on", Sees::Everyone, "AR-4.3 Atlanteans on the island"),
        ("centre", Sees::Everyone, "AR-4.3 the Mystic Power Source"),
        ("bspot", Sees::Everyone, "AR-4.5 build spots"),
        ("pspot", Sees::Everyone, "AR-6.12 built components"),
        ("gatebox", Sees::Everyone, "AR-2.5 component tiles"),
        ("blueprint", Sees::Everyone, "AR-2.5 the blueprint"),
        ("gateboard", Sees::Everyone, "AR-6.12 the cosmic gate board"),
        ("misdeck", Sees::Nobody, "AR-2.3 AR-R20 drawn at random"),
        ("misdiscard", Sees::Everyone, "misfortunes resolved"),
        ("misdrawn", Sees::Everyone, "the misfortune being resolved"),
        (
            "floodbox",
            Sees::Everyone,
            "AR-A3 AR-A13 basic Floods not in the deck",
        ),
        (
            "misbox",
            Sees::Everyone,
            "AR-A3 AR-A13 special misfortunes not in the deck",
        ),
        (
            "calmbox",
            Sees::Unchecked,
            "Calm Seas not used at this level",
        ),
        (
            "ctrlbox",
            Sees::Unchecked,
            "Controlled Floods not used at this level",
        ),
        (
            "glimpse",
            Sees::Owner,
            "AR-R20 only the Astrologer's player sees it",
        ),
        (
            "artbox",
            Sees::Nobody,
            "AR-2.2 artifacts not in the game: nobody sees them, ever",
        ),
        ("libdeck", Sees::Nobody, "AR-2.2 the shuffled library deck"),
        ("libbottom", Sees::Nobody, "AR-6.5 cards put under the deck"),
        ("libdiscard", Sees::Everyone, "the library discards"),
        (
            "hand",
            Sees::Owner,
            "AR-6.7 cards in hand, unlike artifacts (AR-9.2)",
        ),
        ("arts", Sees::Everyone, "AR-9.2 artifacts face up"),
        ("drawn", Sees::Owner, "cards drawn, not yet kept"),
        ("councils", Sees::Everyone, "AR-2.6 boards to pick from"),
        ("seat_board", Sees::Everyone, "AR-2.6 each seat's board"),
        ("stack", Sees::Nobody, "AR-2.13 AR-9.4 the councilor stack"),
        ("stackdiscard", Sees::Everyone, "discarded boards"),
        ("offer", Sees::Everyone, "AR-9.4 the top 2 boards, shown"),
        ("holo_board", Sees::Everyone, "AR-9.4 the hologram's board"),
    ],
    secrets: &[],
};

const GAMES: [&Rulebook; 5] = [
    &OMEGA_SHIFT,
    &OMNIA,
    &OMINOES,
    &ATLANTIS_OMNI,
    &ATLANTIS_RISING,
];

/// `p2` as seat 1.
fn seat_of(label: &str) -> Option<u8> {
    let n: u8 = label.strip_prefix('p')?.parse().ok()?;
    n.checked_sub(1)
}

/// Whether `view` (of `seat`; `None`: a spectator) shows what the rulebook allows, no more,
/// no less; `start` at the first decision.
fn check_view(book: &Rulebook, view: &View, seat: Option<u8>, start: bool) -> Result<(), String> {
    let who = seat.map_or("a spectator".to_string(), |s| format!("p{}", s + 1));
    for z in &view.zones {
        let (base, labels) = z.zone.split_once('[').unwrap_or((&z.zone, ""));
        let Some(&(_, sees, clause)) = book.zones.iter().find(|(n, ..)| *n == base) else {
            return Err(format!("{}: no expectation for zone `{base}`", book.rules));
        };
        let owner = labels.trim_end_matches(']').split(',').find_map(seat_of);
        let shown = z.visible.len();
        let want = match sees {
            Sees::Everyone => z.count,
            Sees::Owner if seat.is_some() && owner == seat => z.count,
            Sees::Owner | Sees::Nobody => 0,
            Sees::Top => z.count.min(1),
            Sees::Unchecked => shown,
        };
        if shown != want {
            return Err(format!(
                "{}: {who} sees {shown} of the {} components of {} ({clause}): the rulebook says {want}",
                book.rules, z.count, z.zone
            ));
        }
        for fields in &z.fields {
            for secret in book.secrets {
                let Some((_, value)) = fields.iter().find(|(f, _)| f == secret.field) else {
                    continue;
                };
                let knower = fields
                    .iter()
                    .find(|(f, _)| f == secret.known_by)
                    .and_then(|(_, v)| seat_of(v));
                let hidden = value == "?";
                if seat.is_some() && knower == seat && hidden {
                    return Err(format!(
                        "{}: {who} cannot see its own `{}` in {}",
                        book.rules, secret.field, z.zone
                    ));
                }
                if (knower != seat || seat.is_none()) && !hidden && (secret.always || start) {
                    return Err(format!(
                        "{}: {who} sees the `{}` of another's component in {} ({value})",
                        book.rules, secret.field, z.zone
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Plays a few random games of every configuration (each player count; each variant with
/// the fewest and the most players) and checks every seat's view, and a spectator's, at
/// every decision.
fn check_game(book: &Rulebook, text: &str) -> Result<(), String> {
    let g: Game = rulebook::load(book.rules, text)
        .game
        .ok_or_else(|| format!("{}: does not load", book.rules))?;
    let mut configs = vec![];
    for players in g.min_players..=g.max_players {
        configs.push((players, None));
    }
    for v in &g.variants {
        for players in [g.min_players, g.max_players] {
            configs.push((players, Some(v.name.clone())));
        }
    }
    for (players, variant) in configs {
        for seed in 0..2u64 {
            let cfg = Config {
                players,
                variant: variant.clone(),
                seed,
                chance: ChanceMode::Seeded,
                fuel: None,
                set: Vec::new(),
            };
            let mut st = g.start(&cfg).map_err(|e| e.to_string())?;
            let mut agent = RandomAgent::new(run::agent_seed(seed));
            let failure = RefCell::new(None);
            let mut decisions = 0;
            let played = run::playout(
                &g,
                &mut st,
                &mut Seats::One(&mut agent),
                &mut Vec::new(),
                |st, _| {
                    decisions += 1;
                    if failure.borrow().is_some() || st.is_over() {
                        return;
                    }
                    let seats = (0..players).map(Some).chain([None]);
                    for seat in seats {
                        let view = g.view(st, seat);
                        if let Err(e) = check_view(book, &view, seat, decisions == 1) {
                            *failure.borrow_mut() = Some(format!(
                                "{e} (players {players}, variant {variant:?}, seed {seed}, decision {decisions})"
                            ));
                            return;
                        }
                    }
                },
            );
            if let Some(e) = failure.into_inner() {
                return Err(e);
            }
            played.map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).expect("readable")
}

#[test]
fn every_seat_sees_what_its_rulebook_allows() {
    for book in GAMES {
        if let Err(e) = check_game(book, &read(book.rules)) {
            panic!("{e}");
        }
    }
}

/// Every seed game in rules/ has its rulebook's visibility written down here.
#[test]
fn every_seed_game_is_covered() {
    let mut files: Vec<String> = std::fs::read_dir("rules")
        .expect("rules/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    let mut covered: Vec<String> = GAMES.iter().map(|b| b.rules.to_string()).collect();
    covered.sort();
    assert_eq!(files, covered);
}

/// The check fails when a declaration is wrongly made public: a hand, a face-down pile, a
/// secret field.
#[test]
fn a_wrongly_public_declaration_is_caught() {
    let mutations: [(&Rulebook, &str, &str); 4] = [
        (
            &OMEGA_SHIFT,
            "zone hand[Player]: Card owner",
            "zone hand[Player]: Card public",
        ),
        (
            &OMEGA_SHIFT,
            "zone deck: Card hidden",
            "zone deck: Card public",
        ),
        (
            &OMNIA,
            "zone kept[Player]: Card owner",
            "zone kept[Player]: Card public",
        ),
        (
            &ATLANTIS_OMNI,
            "value: 0..3 seen by owner secret",
            "value: 0..3",
        ),
    ];
    for (book, from, to) in mutations {
        let text = read(book.rules);
        assert!(text.contains(from), "{}: `{from}` not found", book.rules);
        let changed = text.replacen(from, to, 1);
        let r = check_game(book, &changed);
        assert!(r.is_err(), "{}: `{to}` was not caught", book.rules);
    }
}

/// A field declared `seen by f secret` is not turned over when the game ends, unless the rules
/// reveal it; a plain `seen by f` field is (grammar 3.4.1).
#[test]
fn a_field_seen_by_its_owner_secret_stays_hidden_at_the_end() {
    let text = r#"
        game "Kept"
        players 2
        component Token { owner: Player, points: 0..3 seen by owner secret, mark: 0..3 seen by owner }
        zone row: Token public
        components Token in row { "t{n}" for n in 1..2 { points = n, mark = n } }
        setup { for t in row { t.owner = seat(0) } }
        action flip() { reveal top(row).points end }
        flow { turn seat(0) { choose { flip } } }
    "#;
    let g: Game = rulebook::load("kept.rules", text).game.expect("checks");
    let mut st = g
        .start(&Config {
            players: 2,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    g.legal(&st, &mut legal).expect("legal");
    let field = |view: &View, comp: usize, name: &str| -> String {
        let row = view.zones.iter().find(|z| z.zone == "row").expect("row");
        let fields = &row.fields[comp];
        fields
            .iter()
            .find(|(f, _)| f == name)
            .expect("field")
            .1
            .clone()
    };
    let before = g.view(&st, Some(1));
    assert_eq!(field(&before, 0, "points"), "?");
    assert_eq!(field(&before, 0, "mark"), "?");
    g.apply(&mut st, &legal[0]).expect("applies");
    assert!(st.is_over());
    for seat in [Some(1), None] {
        let after = g.view(&st, seat);
        // t1 was never revealed: its `secret` field stays hidden, the plain one is shown
        assert_eq!(field(&after, 0, "points"), "?");
        assert_eq!(field(&after, 0, "mark"), "1");
        // t2 (the top) was revealed by the rules
        assert_eq!(field(&after, 1, "points"), "2");
    }
    assert_eq!(field(&g.view(&st, Some(0)), 0, "points"), "1");
}
