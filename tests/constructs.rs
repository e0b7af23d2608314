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
