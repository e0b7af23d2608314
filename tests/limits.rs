//! No input crashes the checker: nesting, sizes, numbers and text past the documented limits
//! (section "Limits" of the language reference) get a diagnostic with a place, never a stack
//! overflow, a panic or a huge allocation; and the deepest input accepted checks on a thread
//! with a small stack.

use rulebook::check::{load, Code};
use rulebook::syntax::limits::{MAX_DEPTH, MAX_NESTING, MAX_SOURCE_BYTES};

/// The stack of the threads these tests check on: a quarter of a main thread's. (In a test
/// build, the deepest shapes below need at most 1 MiB.)
const SMALL_STACK: usize = 2 << 20;

/// Runs `f` on a thread with [`SMALL_STACK`].
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

/// The codes of the problems of a rules text, with the line and column of each.
fn problems(text: &str) -> Vec<(Code, usize, usize)> {
    let loaded = load("test.rules", text);
    loaded
        .diagnostics
        .problems
        .iter()
        .map(|p| {
            let (line, col) = rulebook::source::line_col(text, p.span.start);
            (p.code, line, col)
        })
        .collect()
}

fn codes(text: &str) -> Vec<Code> {
    problems(text).into_iter().map(|p| p.0).collect()
}

/// A game around a flow body, with a few names to use.
fn game(flow: &str) -> String {
    format!(
        "players 2\nenum Suit {{ red, blue }}\nvar n: int\nvar b: bool\nvar s[Suit]: Suit\n\
         def f(x: int) = x\naction a() {{ n += 1 }}\nflow {{ {flow} end }}\n"
    )
}

/// A rules text nested `k` deep in some way.
type Shape = fn(usize) -> String;

/// The shapes of deep nesting, each as a function of how deep.
fn shapes() -> Vec<(&'static str, Shape)> {
    vec![
        ("parentheses", |k| {
            game(&format!("n = {}1{}", "(".repeat(k), ")".repeat(k)))
        }),
        ("not", |k| game(&format!("b = {}true", "not ".repeat(k)))),
        ("minus", |k| game(&format!("n = {}1", "- ".repeat(k)))),
        ("if in else", |k| {
            game(&format!("n = {}1", "if b then 1 else ".repeat(k)))
        }),
        ("if in condition", |k| {
            game(&format!(
                "b = {}b{}",
                "if ".repeat(k),
                " then b else b".repeat(k)
            ))
        }),
        ("sum", |k| game(&format!("n = 1{}", " + 1".repeat(k)))),
        ("let in value", |k| {
            game(&format!(
                "n = {}1{}",
                "let x = ".repeat(k),
                " in x".repeat(k)
            ))
        }),
        ("let in body", |k| {
            game(&format!("n = {}1", "let x = 1 in ".repeat(k)))
        }),
        ("let in a sum", |k| {
            game(&format!("n = 1{}", " + let x = 1 in x".repeat(k)))
        }),
        ("after", |k| {
            game(&format!("n = {}n", "after a(): ".repeat(k)))
        }),
        ("after in a sum", |k| {
            game(&format!("n = 1{}", " + after a(): n".repeat(k)))
        }),
        ("fields", |k| game(&format!("n = n{}", ".x".repeat(k)))),
        ("indexes", |k| {
            game(&format!("s[red] = {}red{}", "s[".repeat(k), "]".repeat(k)))
        }),
        ("calls", |k| {
            game(&format!("n = {}1{}", "f(".repeat(k), ")".repeat(k)))
        }),
        ("lists", |k| {
            game(&format!(
                "for x in {}1{} {{ }}",
                "[".repeat(k),
                "]".repeat(k)
            ))
        }),
        ("aggregates", |k| {
            game(&format!(
                "n = {}1{}",
                "count(x in 1..2 where x > ".repeat(k),
                ")".repeat(k)
            ))
        }),
        ("blocks", |k| {
            game(&format!("{}n = 1{}", "if b { ".repeat(k), " }".repeat(k)))
        }),
        ("else if", |k| {
            game(&format!("if b {{ }}{}", " else if b { n = 1 }".repeat(k)))
        }),
        ("loops and a sum", |k| {
            game(&format!(
                "{}n = 1{}{}",
                "for i in 1..2 { ".repeat(k / 2),
                " + 1".repeat(k),
                " }".repeat(k / 2)
            ))
        }),
    ]
}

/// Whether a text checks without a limit (other errors are fine: the shapes mistype things).
fn accepted(text: &str) -> bool {
    !codes(text).contains(&Code::Limit)
}

/// The deepest `k` a shape is accepted at (at most 4,096).
fn deepest(shape: Shape) -> usize {
    let (mut ok, mut bad) = (0, 4096);
    while bad - ok > 1 {
        let mid = (ok + bad) / 2;
        if accepted(&shape(mid)) {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    ok
}

#[test]
fn every_shape_of_nesting_stops_at_its_limit_on_a_small_stack() {
    let found = small_stack(|| {
        let mut found = vec![];
        for (name, shape) in shapes() {
            let k = deepest(shape);
            eprintln!("{name}: {k}");
            // The deepest accepted checks (again, alone), one more gets a limit.
            assert!(accepted(&shape(k)), "{name}: {k} deep");
            assert!(codes(&shape(k + 1)).contains(&Code::Limit), "{name}");
            // Far deeper: the same diagnostic, found as early.
            assert!(codes(&shape(20_000)).contains(&Code::Limit), "{name}");
            found.push((name, k));
        }
        found
    });
    for (name, k) in found {
        // Every shape goes at least a third of the way (each level of a shape may count as
        // two or three), never past the limits.
        assert!(
            (MAX_NESTING.min(MAX_DEPTH) / 3..=MAX_NESTING.max(MAX_DEPTH)).contains(&k),
            "{name}: accepted {k} deep"
        );
    }
}

#[test]
fn a_deep_tree_is_reported_where_it_goes_too_deep() {
    // A sum of 6,800 terms is a tree leaning left: its diagnostic points into the chain.
    let text = game(&format!("n = 1{}", " + 1".repeat(6_800)));
    let p = problems(&text);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].0, p[0].1), (Code::Limit, 8));
    // 3,200 parentheses: the bracket that opens level 257 (the flow's brace is level 1).
    let text = game(&format!("n = {}1{}", "(".repeat(3_200), ")".repeat(3_200)));
    assert_eq!(
        problems(&text),
        [(Code::Limit, 8, "flow { n = ".len() + MAX_NESTING)]
    );
}

#[test]
fn a_file_larger_than_the_limit_is_refused_before_parsing() {
    let mut text = game("");
    text.push_str(&"// padding\n".repeat(MAX_SOURCE_BYTES / 11 + 1));
    assert_eq!(codes(&text), [Code::Limit]);
    let scen = format!(
        "rules \"x.rules\"\n{}",
        "// padding\n".repeat(MAX_SOURCE_BYTES / 11 + 1)
    );
    let e = rulebook::syntax::parse_scenarios("x.scenarios", &scen).expect_err("too large");
    assert_eq!(e.kind, rulebook::syntax::SyntaxKind::Limit);
}

#[test]
fn sizes_are_checked_before_anything_is_built() {
    let table = |gens: &str| {
        format!(
            "players 2\ncomponent C {{ a: int, b: int }}\nzone deck: C\n\
             components C in deck {{ \"c\" for {gens} {{ }} }}\nflow {{ end }}\n"
        )
    };
    for (what, text, code) in [
        ("grid", "players 2\nboard g = grid(10000, 10000)\nflow { end }\n".to_string(), Code::Limit),
        ("a product of generators", table("a in 1..100000, b in 1..100000"), Code::Limit),
        ("two generators within limits, their product not", table("a in 1..5000, b in 1..5000"), Code::Limit),
        ("a generator wider than i64", table("a in (0 - 9223372036854775807)..9223372036854775807"), Code::Limit),
        ("an empty range", table("a in 5..1"), Code::Range),
        ("an empty list", table("a in []"), Code::Range),
        (
            "zone instances",
            "players 2\nenum E { a, b, c, d, e, f }\ncomponent C { a: int }\nboard g = grid(100, 100)\nzone z[g, E]: C\nzone y[g, E]: C\nflow { end }\n".into(),
            Code::Limit,
        ),
        (
            "variable slots",
            "players 2\nboard g = grid(100, 100)\nvar v[g, g]: int\nflow { end }\n".into(),
            Code::Limit,
        ),
        (
            "a zone indexed by a board of invalid size",
            "players 2\ncomponent C { a: int }\nboard g = grid(0, 3)\nzone z[g]: C\ncomponents C in z[a1] { \"c\" { } }\nflow { end }\n".into(),
            Code::Board,
        ),
        (
            "a board too large indexing a zone",
            "players 2\ncomponent C { a: int }\nboard g = grid(200, 200)\nzone z[g, Player]: C\ncomponents C in z[a1, 0] { \"c\" { } }\nflow { end }\n".into(),
            Code::Limit,
        ),
        (
            "a memory's position",
            "players 2\nboard g = grid(100, 100)\nvar v[g]: int\nvar w[g]: int\nmemory m(v, w, 3)\nflow { remember m end }\n".into(),
            Code::Limit,
        ),
        ("players", "players 9\nflow { end }\n".into(), Code::Players),
    ] {
        let found = small_stack(move || codes(&text));
        assert!(found.contains(&code), "{what}: {found:?}");
    }
}

#[test]
fn too_many_declarations_of_one_kind_are_refused() {
    let text = format!(
        "players 2\n{}flow {{ end }}\n",
        (0..=rulebook::ir::MAX_DECLS)
            .map(|i| format!("const C{i} = 1\n"))
            .collect::<String>()
    );
    assert!(text.len() <= MAX_SOURCE_BYTES);
    assert_eq!(codes(&text), [Code::Limit]);
    let text = format!(
        "players 2\nenum E {{ {} }}\nflow {{ end }}\n",
        (0..=rulebook::ir::MAX_DECLS)
            .map(|i| format!("v{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(codes(&text), [Code::Limit]);
}

#[test]
fn the_checker_does_not_panic_on_empty_or_overflowing_values() {
    for (what, text, code) in [
        (
            "a field of an empty range with no value",
            "players 2\ncomponent C { v: 5..3 }\nzone deck: C\ncomponents C in deck { \"c\" { } }\nflow { end }\n",
            Code::Range,
        ),
        (
            "70,000 locals in one procedure",
            "", // built below
            Code::TooManyLocals,
        ),
    ] {
        let text = if text.is_empty() {
            game(&"let x = 1 ".repeat(70_000))
        } else {
            text.to_string()
        };
        let found = codes(&text);
        assert!(found.contains(&code), "{what}: {found:?}");
    }
}

#[test]
fn numbers_too_large_and_constant_arithmetic_are_diagnostics() {
    let c = |expr: &str| {
        codes(&format!(
            "players 2\nconst C = {expr}\nvar n: int\nflow {{ n = C end }}\n"
        ))
    };
    assert_eq!(c("99999999999999999999"), [Code::Number]);
    assert_eq!(c("1000000000000000000000000000000"), [Code::Number]);
    assert_eq!(c("9223372036854775807 + 1"), [Code::Number]);
    assert_eq!(c("0 - 9223372036854775807 - 2"), [Code::Number]);
    assert_eq!(c("4294967296 * 4294967296"), [Code::Number]);
    assert_eq!(c("1 / 0"), [Code::Number]);
    assert_eq!(c("1 % 0"), [Code::Number]);
    assert_eq!(c("-(0 - 9223372036854775807 - 1)"), [Code::Number]);
    assert_eq!(c("(0 - 9223372036854775807 - 1) / -1"), [Code::Number]);
    assert_eq!(c("(0 - 9223372036854775807 - 1) % -1"), [Code::Number]);
    assert_eq!(c("9223372036854775807"), []);
    assert_eq!(c("0 - 9223372036854775807 - 1"), []);
    assert_eq!(c("true + 1"), [Code::Type]);
    // Where a number is too large: the literal.
    let text = "players 2\nvar n: int\nflow { n = 99999999999999999999 end }\n";
    assert_eq!(problems(text), [(Code::Number, 3, 12)]);
    // A range type and a player count too large.
    assert_eq!(
        codes("players 2\nvar n: 0..99999999999999999999\nflow { end }\n"),
        [Code::Number]
    );
    assert_eq!(
        codes("players 99999999999999999999\nflow { end }\n"),
        [Code::Number]
    );
}

#[test]
fn a_byte_order_mark_is_skipped_and_columns_do_not_count_it() {
    let text = "\u{feff}players 2\nvar n: int\nflow { n = x end }\n";
    assert_eq!(problems(text), [(Code::UnknownName, 3, 12)]);
    let text = "\u{feff}players 2 var n: int flow { n = x end }\n";
    assert_eq!(problems(text), [(Code::UnknownName, 1, 33)]);
    let rendered = rulebook::render::plain(&load("bom.rules", text).diagnostics.problems[0]);
    assert!(rendered.contains("[bom.rules:1:33]"), "{rendered}");
}

#[test]
fn lines_may_end_in_cr_lf_or_cr_alone() {
    for end in ["\n", "\r\n", "\r"] {
        let text = [
            "players 2",
            "// a comment",
            "var n: int",
            "flow { n = x end }",
            "",
        ]
        .join(end);
        assert_eq!(problems(&text), [(Code::UnknownName, 4, 12)], "{end:?}");
        let rendered = rulebook::render::plain(&load("end.rules", &text).diagnostics.problems[0]);
        assert!(rendered.contains("[end.rules:4:12]"), "{end:?}: {rendered}");
        assert!(!rendered.contains('\r'), "{end:?}: {rendered}");
    }
}

#[test]
fn control_characters_never_reach_the_terminal() {
    // In a syntax error, in a name's string, in the source lines shown.
    for text in [
        "players 2\nvar \u{1b}[31mx: int\nflow { end }\n",
        "game \"\u{7}\u{1b}]0;title\u{7}\u{9b}\u{202e}\"\nplayers 2\nflow { n = 1 end }\n",
        "players 2\ncomponent C { a: int }\nzone deck: C\ncomponents C in deck { \"\u{1b}c\" { } }\nflow { move named(\"\u{1b}x\") to deck end }\n",
    ] {
        let loaded = load("ctrl.rules", text);
        assert!(!loaded.diagnostics.problems.is_empty());
        for p in &loaded.diagnostics.problems {
            let out = rulebook::render::plain(p);
            assert!(
                !out.chars().any(|c| rulebook::source::is_unsafe(c) && c != '\n'),
                "{out:?}"
            );
        }
    }
}

#[test]
fn a_diagnostic_at_the_end_of_a_very_long_line_renders() {
    let text = format!(
        "players 2\nflow {{ end }}\nconst X = 1{} +\n",
        " + 1".repeat(17_500)
    );
    let loaded = load("long.rules", &text);
    let out = rulebook::render::plain(&loaded.diagnostics.problems[0]);
    assert!(out.contains("at long.rules:3:"), "{out}");
    assert!(out.len() < 2_000, "{} bytes", out.len());
    // A short line still shows its source.
    let out = rulebook::render::plain(
        &load("short.rules", "players 2\nflow { if }\n")
            .diagnostics
            .problems[0],
    );
    assert!(out.contains("flow { if }"), "{out}");
}

#[test]
fn many_problems_are_counted_and_the_first_ones_kept() {
    let n = 20_000;
    let text = format!(
        "players 2\n{}flow {{ end }}\n",
        (0..n)
            .map(|i| format!("const C{i} = {i}\n"))
            .collect::<String>()
    );
    let started = std::time::Instant::now();
    let loaded = load("many.rules", &text);
    let rendered: usize = loaded
        .diagnostics
        .problems
        .iter()
        .map(|p| rulebook::render::plain(p).len())
        .sum();
    eprintln!(
        "{n} unused constants: checked and rendered in {:?} ({rendered} bytes)",
        started.elapsed()
    );
    let d = &loaded.diagnostics;
    assert_eq!((d.errors(), d.warnings()), (0, n));
    assert!(loaded.game.is_some());
    assert_eq!(d.problems.len(), rulebook::ir::MAX_DIAGNOSTICS + 1);
    let note = d.problems.last().expect("a note");
    assert_eq!(note.code, Code::Limit);
    assert!(note.message.starts_with("19500 more"), "{}", note.message);
    // Errors past the limit still fail the file.
    let text = format!(
        "players 2\n{}flow {{ end }}\n",
        (0..1000)
            .map(|i| format!("var v{i}: nothing\n"))
            .collect::<String>()
    );
    let loaded = load("errors.rules", &text);
    assert!(loaded.game.is_none());
    assert_eq!(loaded.diagnostics.errors(), 1000);
}

/// Functions returning collections and legends are written out where they are used, so
/// uses inside uses multiply: four uses a level, ten levels deep, would be a million copies.
/// The checker stops at its limit on written-out text (`check::limit`, about a second in a
/// debug build) instead of building them, and a legend whose block lays itself out is refused.
#[test]
fn nested_write_outs_stop_at_their_limit() {
    let mut text = String::from(
        "game \"H\"\nplayers 2\nboard row = grid(3, 1)\nvar n: int\ndef f0(s: row) = [s, s, s, s]\n",
    );
    for k in 1..10 {
        let p = k - 1;
        text += &format!(
            "def f{k}(s: row) = paths(t in row, s, 1 where count(x in f{p}(t)) > 0 \
             and count(y in f{p}(t)) > 0 and count(z in f{p}(t)) > 0 and count(w in f{p}(t)) > 0)\n"
        );
    }
    text +=
        "legend l(s in row) { \"x\" { n += 1 l \"x2\" } }\nflow { n = count(s in f9(a1)) end }\n";
    let found = small_stack(move || codes(&text));
    assert!(found.contains(&Code::Limit), "{found:?}");
    assert!(found.contains(&Code::Layout), "{found:?}");
}
