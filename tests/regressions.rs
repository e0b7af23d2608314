//! Bugs found in review, each with the smallest game that showed it.

use rulebook::engine::State;
use rulebook::source::{FileId, Source};
use rulebook::{Config, Game};

fn game(text: &str) -> Game {
    let loaded = rulebook::load("test.rules", text);
    loaded.game.unwrap_or_else(|| {
        panic!(
            "does not check:\n{}",
            loaded
                .diagnostics
                .problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// `roll c.f` without `in` rolls within the range of the field of `c`'s own type: another
/// type declared first, with a field at the same position, must not lend its range.
#[test]
fn a_rolled_field_uses_the_range_of_its_own_type() {
    let g = game(
        r#"
        players 1
        component Token { big: 10..15 }
        component Die { face: 1..6 }
        zone bag: Token
        zone tray: Die
        components Token in bag { "t" { big = 10 } }
        components Die in tray { "d" { face = 1 } }
        var seen: int
        action throw() { roll top(tray).face  seen = top(tray).face }
        flow { repeat 200 { turn seat(0) { choose { throw } } } }
        "#,
    );
    let mut faces = std::collections::BTreeSet::new();
    let mut st: State = g
        .start(&Config {
            players: 1,
            seed: 3,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    while !st.is_over() {
        g.legal(&st, &mut legal).expect("legal");
        g.apply(&mut st, &legal[0]).expect("applies");
        let seen = g.vars.iter().position(|v| v.name == "seen").unwrap();
        if let rulebook::ir::Value::Int(n) = st.var(g.vars.as_slice()[seen].base as usize) {
            faces.insert(n);
        }
    }
    assert_eq!(
        faces.into_iter().collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6],
        "a d6 rolls 1 to 6"
    );
}

/// A scenario whose game cannot start points at the rule that failed, in the rules file,
/// not at the same line of the scenario file.
#[test]
fn a_game_that_cannot_start_is_blamed_in_the_rules_file() {
    let rules = "players 2\n\nvar small: 1..3 = 7\nflow { end }\n";
    let loaded = rulebook::load("small.rules", rules);
    let (g, symbols) = (loaded.game.unwrap(), loaded.symbols.unwrap());
    let scen = "rules \"small.rules\"\nscenario \"starts\" {\n    expect not finished\n}\n";
    let file = rulebook::syntax::parse_scenarios("small.scenarios", scen).expect("parses");
    let source = Source {
        name: "small.scenarios".into(),
        text: scen.into(),
    };
    let (g, scenarios, diags) = rulebook::check::scenario::lower(g, symbols, source, &file);
    assert!(!diags.has_errors());
    let result = g.run_scenario(&scenarios[0]);
    let (span, message) = result.failure.expect("the game cannot start");
    assert!(message.contains("could not start"), "{message}");
    assert_eq!(span.file, FileId::RULES);
    let src = g.source(span);
    assert_eq!(src.name, "small.rules");
    assert_eq!(src.line_col(span.start).0, 3, "the `var` line of the rules");
}
