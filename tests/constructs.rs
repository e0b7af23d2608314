//! The constructs of issue 15 on small games of their own (tests/constructs/*.rules): what
//! scenarios cannot say (configurations refused, views and `determinize`, limits), one
//! check per test. The scenarios of these games are in tests/scenarios/.

use rulebook::engine::{ChanceMode, Config, RunError};
use rulebook::Game;

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    let loaded = rulebook::load(path, &text);
    match loaded.game {
        Some(g) => g,
        None => panic!("{path}: {}", loaded.diagnostics),
    }
}

fn config(players: u8, variant: Option<&str>, set: &[(&str, &str)]) -> Config {
    Config {
        players,
        variant: variant.map(str::to_string),
        seed: 0,
        chance: ChanceMode::Seeded,
        fuel: None,
        set: set
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
    }
}

/// The configuration error `start` gives, as text.
fn refused(g: &Game, cfg: &Config) -> String {
    match g.start(cfg) {
        Err(e @ RunError::Config { .. }) => e.to_string(),
        Err(e) => panic!("not a configuration error: {e}"),
        Ok(_) => panic!("{cfg:?} was accepted"),
    }
}

#[test]
fn two_variants_of_one_group_are_refused_naming_both() {
    let g = game("tests/constructs/tracks.rules");
    let e = refused(&g, &config(2, Some("rich,poor"), &[]));
    assert!(
        e.contains("`rich`") && e.contains("`poor`") && e.contains("`start`"),
        "{e}"
    );
}

#[test]
fn two_variants_setting_one_constant_differently_are_refused_naming_it() {
    let g = game("tests/constructs/tracks.rules");
    let e = refused(&g, &config(2, Some("generous, stingy"), &[]));
    assert!(
        e.contains("`GAIN`") && e.contains("9") && e.contains("1"),
        "{e}"
    );
}

#[test]
fn unknown_variants_constants_and_values_are_refused() {
    let g = game("tests/constructs/tracks.rules");
    assert!(refused(&g, &config(2, Some("rich,lavish"), &[])).contains("`lavish`"));
    assert!(refused(&g, &config(2, Some("rich,rich"), &[])).contains("twice"));
    assert!(refused(&g, &config(2, None, &[("SPEED", "3")])).contains("`SPEED`"));
    let e = refused(&g, &config(2, None, &[("GAIN", "lots")]));
    assert!(e.contains("whole number"), "{e}");
    let e = refused(&g, &config(2, None, &[("MOOD", "grumpy")]));
    assert!(e.contains("`calm`"), "{e}");
}

#[test]
fn variants_and_set_constants_apply_in_order() {
    let g = game("tests/constructs/tracks.rules");
    let st = g
        .start(&config(
            2,
            Some("rich,generous"),
            &[("START", "12"), ("MOOD", "Mood.angry")],
        ))
        .expect("starts");
    let view = g.view(&st, None);
    let var = |name: &str| {
        view.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(var("energy[p1]").as_deref(), Some("12"));
    assert_eq!(var("wrath").as_deref(), Some("3"));
}

#[test]
fn the_line_protocol_sets_constants_in_new() {
    let g = game("tests/constructs/tracks.rules");
    let mut s = rulebook::server::Session::new(&g, None);
    let ok =
        s.handle(br#"{"cmd":"new","variant":"rich,generous","set":{"START":12,"MOOD":"angry"}}"#);
    assert!(ok.contains(r#""ok":true"#), "{ok}");
    let view = s.handle(br#"{"cmd":"view"}"#);
    assert!(view.contains(r#"["energy[p1]","12"]"#), "{view}");
    assert!(view.contains(r#"["wrath","3"]"#), "{view}");
    let bad = s.handle(br#"{"cmd":"new","set":{"GAIN":true}}"#);
    assert!(
        bad.contains("bad_config") && bad.contains("`GAIN`"),
        "{bad}"
    );
    let bad = s.handle(br#"{"cmd":"new","variant":"rich,poor"}"#);
    assert!(bad.contains("bad_config"), "{bad}");
}

#[test]
fn the_command_line_takes_several_variants_and_set() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(args)
            .output()
            .expect("runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let file = "tests/constructs/tracks.rules";
    let base = ["simulate", file, "--games", "2"];
    let (code, err) = run(&[
        &base[..],
        &["--variant", "rich,generous", "--set", "GAIN=3"],
    ]
    .concat());
    assert_eq!(code, 0, "{err}");
    let (code, err) = run(&[&base[..], &["--variant", "rich,poor"]].concat());
    assert_ne!(code, 0);
    assert!(err.contains("`start`"), "{err}");
    let (code, err) = run(&[&base[..], &["--set", "GAIN"]].concat());
    assert_ne!(code, 0);
    assert!(err.contains("NAME=VALUE"), "{err}");
}

/// One variable entry of a view, as shown.
fn shown(view: &rulebook::engine::View, name: &str) -> String {
    view.vars
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name} in the view"))
}

#[test]
fn views_show_question_marks_for_variables_a_seat_may_not_see() {
    let g = game("tests/constructs/secrets.rules");
    let mut m = rulebook::engine::Match::new(&g, config(2, None, &[])).expect("starts");
    m.apply_text("raise n=2").expect("legal");
    let st = m.state();
    assert_eq!(shown(&g.view(st, Some(0)), "bid[p1]"), "2");
    assert_eq!(shown(&g.view(st, Some(1)), "bid[p1]"), "?");
    assert_eq!(shown(&g.view(st, None), "bid[p1]"), "?");
    assert_eq!(shown(&g.view(st, Some(0)), "pledge[p1]"), "?");
    assert_eq!(shown(&g.view(st, Some(0)), "plan"), "?");
    assert_eq!(shown(&g.view_all(st), "plan"), "2");
    m.apply_text("stop").expect("legal");
    let st = m.state();
    assert_eq!(shown(&g.view(st, Some(1)), "pledge[p1]"), "2");
    assert_eq!(shown(&g.view(st, Some(1)), "plan"), "?");
    let box_ = g
        .view(st, Some(0))
        .zones
        .into_iter()
        .find(|z| z.zone == "box")
        .expect("the box");
    assert!(
        !box_.open && box_.visible.iter().all(|n| n == "?"),
        "{box_:?}"
    );
}

#[test]
fn determinize_resamples_hidden_variables_and_keeps_the_view() {
    use rand::SeedableRng;
    let g = game("tests/constructs/secrets.rules");
    let mut m = rulebook::engine::Match::new(&g, config(3, None, &[])).expect("starts");
    for a in ["raise n=1", "raise n=3", "raise n=2"] {
        m.apply_text(a).expect("legal");
    }
    let st = m.state();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut differs = false;
    for _ in 0..20 {
        let guess = g.determinize(st, Some(1), &mut rng);
        assert_eq!(g.view(&guess, Some(1)), g.view(st, Some(1)));
        let all = g.view_all(&guess);
        differs |= shown(&all, "bid[p1]") != "1";
        assert_eq!(shown(&all, "bid[p2]"), "3");
    }
    assert!(differs, "the other seats' bids were never exchanged");
}

#[test]
fn a_trigger_that_keeps_holding_runs_out_of_work_blaming_the_trigger() {
    let text = r#"
        game "Loop"
        players 2
        var n: int
        when stuck n >= 0 { n = n }
        action go() { end }
        flow { turn seat(0) { choose { go } } }
    "#;
    let loaded = rulebook::load("loop.rules", text);
    let g = loaded.game.expect("valid rules");
    let cfg = Config {
        fuel: Some(10_000),
        ..config(2, None, &[])
    };
    match g.start(&cfg) {
        Err(e @ RunError::Limit { .. }) => {
            let span = e.span().expect("a span");
            assert_eq!(&text[span.start..span.end], "stuck", "{e}");
        }
        Err(e) => panic!("not a limit: {e}"),
        Ok(_) => panic!("a trigger that always holds did not stop"),
    }
}

#[test]
fn random_matches_with_windows_end_and_replay_from_their_saves() {
    use rand::{Rng, SeedableRng};
    let g = game("tests/constructs/windows.rules");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let mut passes = 0;
    for seed in 0..30 {
        let cfg = Config {
            seed,
            ..config(3, None, &[])
        };
        let mut m = rulebook::engine::Match::new(&g, cfg).expect("starts");
        for _ in 0..300 {
            if m.state().is_over() {
                break;
            }
            let legal = m.legal().expect("options");
            let (_, text) = &legal[rng.gen_range(0..legal.len())];
            passes += usize::from(text == "pass");
            m.apply_text(&text.clone()).expect("legal");
        }
        let again = rulebook::engine::Match::load(&g, &m.save()).expect("replays");
        assert_eq!(g.view(again.state(), None), g.view(m.state(), None));
    }
    assert!(passes > 0, "no window was ever offered");
}

#[test]
fn a_view_and_its_json_show_an_action_field_by_the_actions_name() {
    let g = game("tests/constructs/effects.rules");
    let m = rulebook::engine::Match::new(&g, config(2, None, &[])).expect("starts");
    let view = g.view(m.state(), Some(0));
    let hand = view
        .zones
        .iter()
        .find(|z| z.zone == "hand[p1]")
        .expect("p1's hand");
    // The deal takes the top of the deck: Blank (no effect), Pick and Wall.
    let i = hand.visible.iter().position(|n| n == "Pick").expect("Pick");
    assert!(
        hand.fields[i].contains(&("effect".to_string(), "pick".to_string())),
        "{:?}",
        hand.fields[i]
    );
    let json = serde_json::to_string(&view).expect("json");
    assert!(json.contains(r#"["effect","pick"]"#), "{json}");
    assert!(json.contains(r#"["effect","none"]"#), "{json}");
}

// ---------------------------------------------------------------- simultaneous blocks

/// What seat `seat` is shown while the block of tests/constructs/simultaneous.rules waits:
/// its view, its legal actions with their texts, why three texts are or are not legal, and
/// the spectator's view. Who is still choosing is public (the views' actor is the first of
/// them): it is left out.
fn shown_to(g: &Game, st: &rulebook::State, seat: u8) -> String {
    let mut legal = Vec::new();
    g.legal_for(st, seat, &mut legal).expect("legal");
    let texts: Vec<String> = legal
        .iter()
        .map(|a| g.action_text_for(st, seat, a))
        .collect();
    let why: Vec<String> = ["card=c12", "card=c8", "bonus"]
        .iter()
        .map(|t| format!("{:?}", g.why_not_for(st, Some(seat), t).expect("why")))
        .collect();
    let view = |s: Option<u8>| {
        let mut v = g.view(st, s);
        v.actor.clear();
        v
    };
    format!(
        "{:?}\n{texts:?}\n{why:?}\n{:?}",
        view(Some(seat)),
        view(None)
    )
}

/// Every sequence of choices p1 can make in its part of the block (two cards, then `bonus`
/// or `skip`), applied from `st`.
fn p1_parts(g: &Game, st: &rulebook::State) -> Vec<rulebook::State> {
    let mut out = Vec::new();
    let mut todo = vec![st.clone()];
    while let Some(s) = todo.pop() {
        let mut legal = Vec::new();
        g.legal_for(&s, 0, &mut legal).expect("legal");
        if legal.is_empty() {
            out.push(s);
            continue;
        }
        for a in legal {
            let mut next = s.clone();
            g.apply_for(&mut next, 0, &a).expect("applies");
            todo.push(next);
        }
    }
    out
}

#[test]
fn what_a_player_is_shown_in_a_simultaneous_block_never_depends_on_the_others_choices() {
    let g = game("tests/constructs/simultaneous.rules");
    let st = g.start(&config(2, None, &[])).expect("starts");
    assert_eq!(g.pending(&st), vec![0, 1]);
    // p2 before it chooses, and after its first choice: whatever p1 chose in the block
    // (12 orders of two cards of four, then bonus or skip: 24 parts), p2 is shown the same.
    let mut p2_first = st.clone();
    let mut legal = Vec::new();
    g.legal_for(&p2_first, 1, &mut legal).expect("legal");
    g.apply_for(&mut p2_first, 1, &legal[0]).expect("applies");
    for start in [&st, &p2_first] {
        let parts = p1_parts(&g, start);
        assert_eq!(parts.len(), 24);
        let expected = shown_to(&g, start, 1);
        for (i, part) in parts.iter().enumerate() {
            assert_eq!(g.pending(part), vec![1], "p1 is done");
            assert_eq!(shown_to(&g, part, 1), expected, "part {i}");
        }
    }
}

#[test]
fn determinizing_a_simultaneous_block_forgets_the_others_choices_and_keeps_the_view() {
    use rand::SeedableRng;
    let g = game("tests/constructs/simultaneous.rules");
    let st = g.start(&config(3, None, &[])).expect("starts");
    let mut p2 = st.clone();
    let mut legal = Vec::new();
    g.legal_for(&p2, 1, &mut legal).expect("legal");
    g.apply_for(&mut p2, 1, &legal[1]).expect("applies");
    let parts = p1_parts(&g, &p2);
    let sample = |s: &rulebook::State| {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        g.determinize(s, Some(1), &mut rng)
    };
    let first = sample(&parts[0]);
    assert_eq!(g.view(&first, Some(1)), g.view(&parts[0], Some(1)));
    // p1 is done (that is public): its choices are drawn at random in the sample.
    assert_eq!(g.pending(&first), g.pending(&parts[0]));
    assert_eq!(g.pending(&first), vec![1, 2]);
    for part in &parts {
        let d = sample(part);
        assert_eq!(g.view_all(&d), g.view_all(&first));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        g.legal_for(&d, 1, &mut a).expect("legal");
        g.legal_for(&first, 1, &mut b).expect("legal");
        assert_eq!(a, b);
    }
}

#[test]
fn a_match_through_a_simultaneous_block_replays_from_its_save() {
    let g = game("tests/constructs/simultaneous.rules");
    let mut m = rulebook::engine::Match::new(&g, config(3, None, &[])).expect("starts");
    // Out of seat order: p3 first, then p1, then p2.
    for seat in [2, 0, 2, 1, 0, 0, 1, 1, 2] {
        let legal = m.legal_for(seat).expect("legal");
        let (_, text) = legal.last().expect("an option").clone();
        m.apply_for(seat, &text).expect("applies");
    }
    assert!(m.state().is_over());
    let text = m.save_text();
    let back = rulebook::engine::Match::load_text(&g, &text).expect("replays");
    assert_eq!(back.state().outcome(), m.state().outcome());
}

/// A flow loop whose body is one `if` (fused into one step that passes over the elements
/// failing the condition) spends the units of work of the steps it stands for, four per
/// element that fails, so the budget runs out at the same point and blames the same loop as
/// before loops were fused: the outcome of every budget below was measured at 755cbcf, where
/// each element ran as separate steps.
#[test]
fn a_filtered_loop_spends_the_work_of_the_steps_it_stands_for() {
    let text = r#"
        game "Filtered"
        players 2
        board row = grid(8, 1)
        var lit[row]: int
        var n: int
        action go() { end }
        setup { lit[c1] = 1  lit[f1] = 1 }
        flow {
            for s in row { if lit[s] == 1 { n += 1 } }
            turn seat(0) { choose { go } }
        }
    "#;
    let loaded = rulebook::load("filtered.rules", text);
    let mut g = loaded.game.expect("valid rules");
    // The steps' own work: the loop runs as steps (native code counts its work per block of
    // its own code, a region of statements included: docs/internals.md).
    g.native = rulebook::lir::listing::off();
    let outcome = |fuel: u64| {
        let cfg = Config {
            fuel: Some(fuel),
            ..config(2, None, &[])
        };
        match g.start(&cfg) {
            Ok(_) => "runs",
            Err(e @ RunError::Limit { .. }) => match e.span() {
                Some(s) if text[s.start..s.end].starts_with("for s in row") => "the loop",
                Some(_) => panic!("blames something else: {e}"),
                None => "no loop",
            },
            Err(e) => panic!("not a limit: {e}"),
        }
    };
    let expected = |fuel: u64| match fuel {
        1..=4 | 13..=15 => "no loop",
        5..=12 | 16..=50 => "the loop",
        _ => "runs",
    };
    for fuel in 1..=56 {
        assert_eq!(outcome(fuel), expected(fuel), "with a budget of {fuel}");
    }
}

/// A def that walks a zone, called in a guard with arguments that read no binding, is
/// answered once per listing (a remembered answer costs no work): 50 values of `k` test
/// `total(0)` at the cost of one walk of 20 tokens, not 50 walks, so a budget of 300 units
/// lists the options. (Compiled in place of the call, the walk spent its work at each use
/// and the budget ran out.)
#[test]
fn a_walking_def_with_fixed_arguments_is_walked_once_per_listing() {
    let text = r#"
        game "Memo"
        players 2
        component Tok { v: int }
        zone pile: Tok public
        components Tok in pile { "t{v}" for v in 1..20 { v = v } }
        def total(z: int) = count(t in pile where t.v > z)
        action pick(k in 1..50) where total(0) > k { end }
        flow { turn seat(0) { choose { pick } } }
    "#;
    let loaded = rulebook::load("memo.rules", text);
    let g = loaded.game.expect("valid rules");
    let cfg = Config {
        fuel: Some(300),
        ..config(2, None, &[])
    };
    let st = g.start(&cfg).expect("starts within the budget");
    let mut options = Vec::new();
    g.legal(&st, &mut options).expect("lists within the budget");
    // `total(0)` is 20: `pick` for k in 1..19.
    assert_eq!(options.len(), 19);
}

/// Guard parts read in place (issue 13) list exactly the options the guards state: fields
/// against literals and numbers (`==`, `!=`, `<=`), parameters against a literal and a number,
/// a field against a fold over a zone, interchangeable cards (the two red and the two blue
/// wilds: equal fields that nothing writes) offered once, and `end when empty(pile)` ending the
/// game once the pile's last card is taken.
#[test]
fn guard_parts_read_in_place_list_what_the_guards_state() {
    let g = game("tests/constructs/hand_guards.rules");
    let mut st = g.start(&config(2, None, &[])).expect("starts");
    let mut legal = Vec::new();
    g.legal(&st, &mut legal).expect("legal");
    let texts: Vec<String> = legal.iter().map(|a| g.action_text(&st, a)).collect();
    // the hand: red-1, red-3, blue-2, blue-3, red-W, red-W, blue-W, blue-W; red-2 shown
    assert_eq!(
        texts,
        [
            "show card=red-3",
            "show card=blue-2",
            "show card=blue-3",
            "wild card=red-W",
            "wild card=blue-W",
            "low card=red-1",
            "low card=red-W",
            "low card=blue-W",
            "pick c=red",
            "take n=2",
            "take n=3",
        ]
    );
    // a wild back onto the pile: the game goes on
    let wild = legal[3];
    g.apply(&mut st, &wild).expect("applies");
    assert!(!st.is_over());
    // the pile's two cards taken: the game is over
    for _ in 0..2 {
        g.legal(&st, &mut legal).expect("legal");
        let take = legal
            .iter()
            .find(|a| g.action_text(&st, a) == "take n=2")
            .copied()
            .expect("take offered");
        g.apply(&mut st, &take).expect("applies");
    }
    assert!(st.is_over());
}

/// tests/constructs/setup_only.rules: only `setup` writes `traitor`, and nobody sees it. A
/// determinized world deals its entries again; the options each world lists follow its own
/// traitor (`accuse` a player who is not the traitor), not the world listed before it.
#[test]
fn determinized_worlds_list_the_options_of_their_own_hidden_setup_variables() {
    use rand::SeedableRng;
    let g = game("tests/constructs/setup_only.rules");
    let m = rulebook::engine::Match::new(&g, config(3, None, &[])).expect("starts");
    let st = m.state();
    let traitor = |w: &rulebook::State| -> Vec<bool> {
        let all = g.view_all(w);
        (1..=3)
            .map(|p| match shown(&all, &format!("traitor[p{p}]")).as_str() {
                "true" => true,
                "false" => false,
                other => panic!("traitor[p{p}] shows {other}"),
            })
            .collect()
    };
    let accusations = |w: &rulebook::State| -> Vec<String> {
        let mut legal = Vec::new();
        g.legal(w, &mut legal).expect("legal");
        legal
            .iter()
            .map(|a| g.action_text(w, a))
            .filter(|t| t.starts_with("accuse"))
            .collect()
    };
    let first = traitor(st);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut moved = 0;
    for i in 0..20 {
        let world = g.determinize(st, Some(0), &mut rng);
        let own = traitor(&world);
        assert_eq!(
            own.iter().filter(|&&t| t).count(),
            1,
            "one traitor: {own:?}"
        );
        let expected: Vec<String> = (0..3)
            .filter(|&p| !own[p])
            .map(|p| format!("accuse p=p{}", p + 1))
            .collect();
        assert_eq!(accusations(&world), expected, "world {i}, traitor {own:?}");
        moved += usize::from(own != first);
    }
    assert!(moved > 0, "the traitor never moved");
}

/// `after` (reference 5): an effect that reaches a choice, or a chance event, leaves no known
/// state, so asking about it is a rule error naming the action, not a guess.
#[test]
fn after_cannot_look_past_a_choice_or_chance() {
    let cases = [
        (
            "action ask() { choose { yes { } no { } } }",
            "`after ask(...)` cannot look past a choice",
        ),
        (
            "var die: 1..6\naction ask() { roll die }",
            "`after` cannot look past a chance event",
        ),
    ];
    for (ask, message) in cases {
        let text = format!(
            "game \"Ask\"\nplayers 2\n{ask}\naction go() where after ask(): true {{ }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}\n"
        );
        let loaded = rulebook::load("ask.rules", &text);
        let g = loaded
            .game
            .unwrap_or_else(|| panic!("{}", loaded.diagnostics));
        // The options are listed when the game reaches its first decision.
        match g.start(&config(2, None, &[])) {
            Err(e) => assert!(e.to_string().contains(message), "{e}"),
            Ok(_) => panic!("started, listing `go`, for {ask}"),
        }
    }
}

/// `after` does not touch the game it looks at: the state after listing is the state before.
#[test]
fn after_leaves_the_game_as_it_was() {
    let g = game("tests/constructs/after.rules");
    let st = g.start(&config(2, None, &[])).expect("starts");
    let before = st.clone();
    let mut legal = Vec::new();
    g.legal(&st, &mut legal).expect("legal");
    assert_eq!(legal.len(), 3);
    assert!(st.same_position(&before));
}

/// A procedure's range parameter keeps its bounds when it runs: `put(s, me, 4)` where `n`
/// takes 1..3 is a run-time error at the call, naming the parameter and its range.
#[test]
fn a_procedure_refuses_an_argument_outside_its_range() {
    let g = game("tests/constructs/procedures.rules");
    let mut m = rulebook::engine::Match::new(&g, config(2, None, &[])).expect("starts");
    for t in ["place s=a1", "place s=b1", "place s=c1", "place s=d1"] {
        m.apply_text(t).expect("legal");
    }
    let e = m
        .apply_text("overflow s=e1")
        .expect_err("4 is outside 1..3");
    assert!(e.to_string().contains("`n` in 1..3, not 4"), "{e}");
    assert_eq!(m.state().decisions, 4, "the failed decision is not applied");
}

/// A `components` table is made when the file is read: a variant or `--set` that would
/// change a constant it reads (a count or a field) is refused, naming the table's line,
/// instead of playing a match whose table kept the value written; the value written, and a
/// constant only the rules read, are accepted.
#[test]
fn a_constant_a_components_table_reads_cannot_be_changed_at_the_start() {
    let g = game("tests/constructs/table_consts.rules");
    let e = refused(&g, &config(2, Some("more"), &[]));
    assert!(
        e.contains("variant `more`") && e.contains("`COPIES`") && e.contains("line 14"),
        "{e}"
    );
    let e = refused(&g, &config(2, None, &[("WORTH", "1")]));
    assert!(e.contains("`--set`") && e.contains("`WORTH`"), "{e}");
    for (variant, set) in [
        (Some("same"), vec![]),
        (Some("far"), vec![]),
        (None, vec![("TARGET", "9")]),
        (None, vec![("COPIES", "3")]),
    ] {
        let cfg = config(2, variant, &set);
        assert!(g.start(&cfg).is_ok(), "{cfg:?}");
    }
}
