//! Rules that try to crash, hang or exhaust the engine while it runs (issue 12's run-time
//! classes): each gets a run-time error with a stable code, never a panic, an overflow, an
//! allocation of the whole range or a loop without end. The checker's classes (nesting, sizes,
//! numbers, text) are in `tests/limits.rs`; the server's in `tests/protocol.rs`.

use rulebook::{Config, Game, RunError, State};

fn game(text: &str) -> Game {
    let loaded = rulebook::load("hostile.rules", text);
    loaded.game.unwrap_or_else(|| {
        let problems: Vec<_> = loaded
            .diagnostics
            .problems
            .iter()
            .map(|p| &p.message)
            .collect();
        panic!("does not check: {problems:?}\n{text}")
    })
}

/// Starts the game with a small work budget and applies the first legal action (if the
/// start itself did not fail), returning the first error.
fn run(text: &str) -> Result<State, RunError> {
    run_with_fuel(text, 200_000)
}

/// [`run`] with another work budget.
fn run_with_fuel(text: &str, fuel: u64) -> Result<State, RunError> {
    let g = game(text);
    let cfg = Config {
        players: 1,
        fuel: Some(fuel),
        ..Config::default()
    };
    let mut st = g.start(&cfg)?;
    let mut legal = Vec::new();
    g.legal(&st, &mut legal)?;
    if let Some(a) = legal.first() {
        g.apply(&mut st, a)?;
    }
    Ok(st)
}

fn error_code(text: &str) -> &'static str {
    match run(text) {
        Ok(_) => "ok",
        Err(e) => e.code(),
    }
}

const MIN: &str = "(0 - 9223372036854775807 - 1)";

#[test]
fn arithmetic_at_the_edges_of_int_is_an_error_not_a_wrap_or_a_panic() {
    for expr in [
        format!("{MIN} / (0 - 1)"),
        format!("{MIN} % (0 - 1)"),
        format!("0 - {MIN}"),
        format!("abs({MIN})"),
        "9223372036854775807 + 1".to_string(),
        "9223372036854775807 * 2".to_string(),
        "1 / (1 - 1)".to_string(),
    ] {
        // Computed at run time from a variable, so that the checker cannot fold it.
        let text = format!(
            "game \"g\"\nplayers 1\nvar x: int\nvar y: int\n\
             action go() {{ x = 1  y = {} }}\nflow {{ turn seat(0) {{ choose {{ go }} }} }}",
            expr.replace("9223372036854775807", "(9223372036854775806 + x)")
        );
        let err = run(&text).expect_err(&expr);
        assert_eq!(err.code(), "rules_error", "{expr}: {err:?}");
        assert!(err.span().is_some(), "{expr}: the error points at the rule");
    }
}

#[test]
fn work_the_statements_do_not_show_is_counted_by_the_budget() {
    let board = "game \"g\"\nplayers 1\nboard b = grid(8, 8) diagonal\nvar n: int\n";
    let cases = [
        // paths of length 100 on an 8 x 8 board: about 8^100 walks.
        format!(
            "{board}action go() {{ n = count(t in paths(s in b, a1, 100 where true)) }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        ),
        // an aggregate over a range of 10^11 values.
        format!(
            "{board}action go() {{ n = count(i in 0..100000000000 where i < 0) }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        ),
        // a loop over a range of 10^11 values: neither built nor run for ever.
        format!(
            "{board}action go() {{ for i in 0..100000000000 {{ n = 1 }} }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        ),
        // parameters whose combinations multiply to 10^15, none of them legal.
        format!(
            "{board}action go(x in 0..100000, y in 0..100000, z in 0..100000) where x + y + z < 0 {{ n = 1 }}\n\
             action stop() {{ end draw }}\n\
             flow {{ turn seat(0) {{ choose {{ go stop }} }} }}"
        ),
        // a loop in the flow that does not reach a decision for 10^11 rounds.
        format!(
            "{board}action stop() {{ end draw }}\n\
             flow {{ for i in 0..100000000000 {{ n = 1 - n }} turn seat(0) {{ choose {{ stop }} }} }}"
        ),
    ];
    for text in &cases {
        let err = run(text).expect_err(text);
        assert_eq!(err.code(), "limit_reached", "{text}: {err:?}");
        assert!(
            err.span().is_some(),
            "{text}: the error points at the rule at work"
        );
    }
}

#[test]
fn a_roll_over_a_huge_range_is_drawn_without_building_it() {
    let text = "game \"g\"\nplayers 1\nvar x: int\n\
                flow { roll x in 0..9223372036854775807  end }";
    assert_eq!(error_code(text), "ok");
}

#[test]
fn a_line_of_a_huge_length_is_not_found_without_overflowing() {
    // The engine's walk once added `n - 1` steps to a column: an overflow (a panic in a
    // debug build) for a length near the largest number, and the reference built a run that
    // long on a ring. No space holds 1: no line is there, and every space is offered. The
    // reference agrees.
    for (board, offered) in [("grid(4, 4)", 16), ("hex(3)", 19), ("ring(5)", 5)] {
        let text = format!(
            "game \"L\"\nplayers 1\nboard b = {board}\nvar v[b]: int\n\
             action go(at in b) where not line(s in b, 9223372036854775807 where v[s] == 1)\n\
             and not line(s in b, 9223372036854775807, at where v[s] == 1) {{ end }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}\n"
        );
        let g = game(&text);
        let cfg = Config {
            players: 1,
            ..Config::default()
        };
        let st = g.start(&cfg).expect("starts");
        let mut legal = Vec::new();
        g.legal(&st, &mut legal).expect("lists");
        assert_eq!(legal.len(), offered, "{board}");
        match rulebook::reference::options(&g, &st) {
            Ok(rulebook::reference::Listing::Options(o)) => assert_eq!(o.len(), legal.len()),
            other => panic!("{board}: the reference gives {other:?}"),
        }
    }
}

#[test]
fn best_sets_over_more_than_64_members_is_an_error() {
    let text = "game \"g\"\nplayers 1\ncomponent Card { v: 1..9 }\nzone pile: Card\n\
                components Card in pile { \"c{i}\" for i in 1..70 { v = 1 } }\n\
                set pair(a: Card, b: Card) where a.v == b.v = 1\n\
                var n: int\n\
                flow { n = best_sets(c in pile, pair)  end }";
    let err = run(text).expect_err("70 members");
    assert_eq!(err.code(), "rules_error", "{err:?}");
}

/// Recursion stays within the 64-call limit, and deeper recursion is an error, on the small
/// stacks of `simulate`'s worker threads too: expressions run on the engine's own stack.
#[test]
fn deep_calls_run_or_stop_at_the_call_limit_on_a_small_stack() {
    let text = |depth: u32| {
        format!(
            "game \"g\"\nplayers 1\nvar n: int\n\
             def f(k: int) = if k == 0 then 0 else 1 + f(k - 1)\n\
             action go() {{ n = f({depth})  end draw }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        )
    };
    let (ok, deep) = (text(60), text(1000));
    let on_small_stack = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || (error_code(&ok), error_code(&deep)))
        .expect("a thread")
        .join()
        .expect("no stack overflow");
    assert_eq!(on_small_stack, ("ok", "rules_error"));
    let err = run(&text(1000)).expect_err("too deep");
    assert!(
        err.message().contains("more than 64 deep"),
        "{}",
        err.message()
    );
}

/// A function whose body walks a zone is compiled in place of its calls in guards and in
/// other functions; a recursive one is not, so that the limit still counts its every level
/// (here called from a guard, where the others are compiled in place).
#[test]
fn a_recursive_walking_function_in_a_guard_stops_at_the_call_limit() {
    let text = |depth: u32| {
        format!(
            "game \"g\"\nplayers 1\ncomponent Card {{ v: int }}\nzone pile: Card\n\
             components Card in pile {{ \"c{{i}}\" for i in 1..3 {{ v = i }} }}\n\
             def f(k: int) = if k == 0 then 0 else 1 + f(k - 1) + count(c in pile where c.v > 9)\n\
             action go() where f({depth}) >= 0 {{ end draw }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        )
    };
    assert_eq!(error_code(&text(60)), "ok");
    let err = run(&text(70)).expect_err("too deep");
    assert!(
        err.message()
            .contains("`f` calls functions more than 64 deep"),
        "{}",
        err.message()
    );
}

/// An error inside a function compiled in place of its call (in a guard) points at the
/// function's text, as it does when the function is called.
#[test]
fn an_error_in_a_function_compiled_in_place_points_into_its_body() {
    let text = "game \"g\"\nplayers 1\ncomponent Card { v: int }\nzone pile: Card\n\
                components Card in pile { \"c{i}\" for i in 1..3 { v = i } }\n\
                var zero: int\n\
                def ratio(k: int) = max(c in pile: c.v / k else 0)\n\
                action go() where ratio(zero) >= 0 { end draw }\n\
                flow { turn seat(0) { choose { go } } }";
    let err = run(text).expect_err("a division by zero");
    assert_eq!(err.code(), "rules_error", "{err:?}");
    let span = err.span().expect("the error points at the rule at work");
    assert_eq!(&text[span.start..span.end], "c.v / k");
}

/// During a `choose each` every seat picks from its own hidden hand. `why` asked by one seat
/// about a card in another seat's hand must answer exactly as for a card in the face-down
/// deck (both unseen): not legal, same reason, no place of a rule that looked at it. Asked in
/// the second round, it must not use the first round's binding (it once answered `legal:
/// true` for an opponent's card, while `apply` refused it).
#[test]
fn why_in_a_simultaneous_choice_tells_a_seat_nothing_about_other_hands() {
    let g = game(
        "game \"g\"\nplayers 2\ncomponent Card { rank: int }\n\
         zone deck: Card hidden\nzone hand[Player]: Card owner\nzone kept[Player]: Card owner\n\
         components Card in deck { \"c{i}\" for i in 1..9 { rank = i } }\n\
         setup { for p in players { repeat 3 { move top(deck) to hand[p] } } }\n\
         flow { repeat 2 { choose each p in players, card in hand[p] { move card to kept[p] } } end draw }",
    );
    let mut st = g
        .start(&Config {
            players: 2,
            ..Config::default()
        })
        .expect("starts");
    for round in 0..2 {
        let cards = |z: &str| {
            let v = g.view_all(&st);
            v.zones
                .iter()
                .find(|zv| zv.zone == z)
                .map(|zv| zv.visible.clone())
                .unwrap_or_default()
        };
        let (theirs, deck) = (cards("hand[p2]"), cards("deck"));
        assert!(!theirs.is_empty() && !deck.is_empty(), "round {round}");
        let ask = |card: &str| {
            g.why_not_for(&st, Some(0), &format!("card={card}"))
                .expect("an answer")
        };
        let (a, b) = (ask(&theirs[0]), ask(&deck[0]));
        assert!(!a.legal && !b.legal, "round {round}: {a:?} {b:?}");
        assert_eq!(
            a.reason.replace(&theirs[0], "X"),
            b.reason.replace(&deck[0], "X"),
            "round {round}"
        );
        assert_eq!(a.span, b.span);
        for seat in 0..2 {
            let mut legal = Vec::new();
            g.legal_for(&st, seat, &mut legal).expect("options");
            g.apply_for(&mut st, seat, &legal[0]).expect("commits");
        }
    }
}

/// Small functions are inlined into each other, four deep; a function body calling the next
/// eleven times, four levels down, would be 11^4 copies at every guard (a 1.4 KB file once
/// compiled to over a gigabyte). The nodes inlined into one expression are capped
/// (`MAX_INLINED_NODES`): further calls stay calls, and the program stays small.
#[test]
fn nested_calls_inlined_into_each_other_do_not_multiply_the_program() {
    let call = |f: usize| vec![format!("f{f}(p)"); 11].join(" + ");
    let mut text = String::from(
        "game \"g\"\nplayers 1\ncomponent Card { v: int }\nzone deck: Card public\n\
         zone hand[Player]: Card public\n\
         components Card in deck { \"c{v}\" for v in 1..6 { v = v } }\n",
    );
    for f in 0..5 {
        text += &format!("def f{f}(p: Player) = {}\n", call(f + 1));
    }
    text += "def f5(p: Player) = count(hand[p])\n";
    let mut actions = String::new();
    for k in 0..8 {
        text += &format!("action go{k}() where f0(me) + f1(me) >= {k} {{ end draw }}\n");
        actions += &format!(" go{k}");
    }
    text += &format!("flow {{ turn seat(0) {{ choose {{{actions} }} }} }}");
    let g = game(&text);
    let ops = g.program.ops.len();
    assert!(ops < 200_000, "{ops} ops");
    // The first action, `go0` (its guard holds), ends the game.
    assert!(run(&text).expect("plays").is_over());
}

/// Runs `text` with [`run`] on another thread and waits for its error code; a run still
/// going after a minute (work the budget does not bound) fails the test instead of hanging.
fn bounded_error_code(text: &str, fuel: u64) -> &'static str {
    let text = text.to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let code = match run_with_fuel(&text, fuel) {
            Ok(_) => "ok",
            Err(e) => e.code(),
        };
        let _ = tx.send(code);
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the work budget stops the run")
}

/// Issue 35: a `paths` walk whose condition the machine answers for every space (here
/// `empty(cell[s])`, every cell empty) on a board of at most 64 spaces is walked without
/// going round the op loop; its steps must still count as it goes, so that a walk of some
/// 10^30 paths stops at the budget instead of running first and counting after.
#[test]
fn a_paths_walk_answered_in_place_stops_at_the_work_budget() {
    for steps in [20, 40, 63] {
        let text = format!(
            "game \"g\"\nplayers 1\nboard b = grid(8, 8) diagonal\ncomponent P {{ v: int }}\n\
             zone cell[b]: P\nzone box: P\ncomponents P in box {{ \"p\" {{ v = 1 }} }}\n\
             var n: int\n\
             action go() {{ n = count(t in paths(s in b, a1, {steps} where empty(cell[s]))) }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        );
        assert_eq!(
            bounded_error_code(&text, 200_000),
            "limit_reached",
            "{steps} steps"
        );
    }
}

/// Issue 35: `best_sets` over 64 members with thousands of sets to try at each allocation
/// counts every set it tries, not only every allocation, and stops at the budget.
#[test]
fn best_sets_over_64_members_stops_at_the_work_budget() {
    let text = "game \"g\"\nplayers 1\ncomponent Card { v: 1..9 }\nzone pile: Card\n\
                components Card in pile { \"c{i}\" for i in 1..64 { v = 1 } }\n\
                set pair(a: Card, b: Card) where a.v == b.v = 1\n\
                var n: int\n\
                flow { n = best_sets(c in pile, pair)  end }";
    // 2,016 pairs: each allocation tried looks at every pair that could take its lowest
    // free member.
    assert_eq!(bounded_error_code(text, 10_000_000), "limit_reached");
}

/// Issue 35: `do a(7)` where `a` takes `k in 0..5` binds no value outside the parameter's
/// range: a run-time rules error pointing at the `do` statement.
#[test]
fn do_with_an_argument_outside_the_parameters_range_is_an_error() {
    let text = "game \"g\"\nplayers 1\nvar n: int\nvar seven: int = 7\n\
                action a(k in 0..5) { n = k }\n\
                action go() { do a(seven)  end draw }\n\
                flow { turn seat(0) { choose { go } } }";
    let err = run(text).expect_err("7 is not in 0..5");
    assert_eq!(err.code(), "rules_error", "{err:?}");
    assert!(err.message().contains("0..5"), "{}", err.message());
    let span = err.span().expect("the error points at the rule at work");
    assert_eq!(&text[span.start..span.end], "do a(seven)");
    // in the range, and at its ends, it runs
    for k in ["0", "5", "seven - 3"] {
        let ok = text.replace("do a(seven)", &format!("do a({k})"));
        assert!(run(&ok).expect("runs").is_over(), "{k}");
    }
}

/// Issue 35: a run-time error's label covers its own statement: the head of a `for` or of a
/// `repeat` whose collection or count fails, not the loop with its whole body; a `turn`
/// whose player is no seat, not the turn's body.
#[test]
fn a_run_time_error_points_at_its_own_statement_only() {
    let cases = [
        (
            "for i in 1..(6 / zero) { n = i  n = n + 1 }",
            "for i in 1..(6 / zero)",
        ),
        ("repeat (6 / zero) { n = 1  n = 2 }", "repeat (6 / zero)"),
        ("n = 1  n = 6 / zero  n = 2", "n = 6 / zero"),
    ];
    for (body, want) in cases {
        let text = format!(
            "game \"g\"\nplayers 1\nvar n: int\nvar zero: int\n\
             action go() {{ {body} }}\n\
             flow {{ turn seat(0) {{ choose {{ go }} }} }}"
        );
        let err = run(&text).expect_err(body);
        assert_eq!(err.code(), "rules_error", "{body}: {err:?}");
        let span = err.span().expect("a place");
        // the failing expression, or the statement's head: within `want`, never the body
        let at = text.find(want).expect("the statement");
        assert!(
            span.start >= at && span.end <= at + want.len(),
            "{body}: {:?}",
            &text[span.start..span.end]
        );
    }
    let text = "game \"g\"\nplayers 1\nvar n: int\nvar who: Player\n\
                action go() { end draw }\n\
                flow { turn who { n = 1  choose { go } } }";
    let err = run(text).expect_err("no seat");
    let span = err.span().expect("a place");
    assert_eq!(&text[span.start..span.end], "turn who");
}
