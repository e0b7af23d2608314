//! The low-level IR (issue 36) against the reference evaluator: every guard part of every
//! rules file of the repository that the lowering builds, evaluated by its register
//! interpreter, as lowered and after the passes (the match's facts folded in, constants
//! folded, dead code removed), on seeded random games, with argument tuples drawn from the
//! parameters' types; each result equal to the reference's, or both failing. Natively too
//! (feature `jit`). Each action's options lowered to an enumerator are listed in every
//! decision that offers the action and compared with the reference's, in order. The figures:
//! `cargo test --test lir -- --nocapture`.

use rulebook::engine::{ChanceMode, Config};
use rulebook::ir::{ConstId, Game, Type, Value};
use rulebook::lir::passes::{dce, fold, specialise, Facts};
use rulebook::lir::{interp, lower, verify, Fail, Func, Term};
use rulebook::reference::lir::{compare, LirTally};

const FOLDERS: [&str; 4] = [
    "rules",
    "rules/classic",
    "tests/constructs",
    "tests/reference",
];

#[test]
fn lowered_guards_agree_with_the_reference() {
    let mut files = vec![];
    for dir in FOLDERS {
        for e in std::fs::read_dir(dir).expect("rules directory") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "rules") {
                files.push(p.display().to_string());
            }
        }
    }
    files.sort();
    let mut all = LirTally::default();
    let mut games = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let Some(g) = rulebook::load(path, &text).game else {
            continue;
        };
        // Every variant too (one seed each): a variant may close spaces, which neighbours
        // and rays pass over.
        let variants = g.variants.iter().map(|v| Some(v.name.clone()));
        let runs: Vec<(u64, Option<String>)> = (0..2)
            .map(|seed| (seed, None))
            .chain(variants.map(|v| (0, v)))
            .collect();
        for (seed, variant) in runs {
            let cfg = Config {
                players: g.min_players.max(2).min(g.max_players),
                variant,
                seed,
                chance: ChanceMode::Seeded,
                fuel: None,
                set: vec![],
            };
            let mut t = LirTally::default();
            if let Err(e) = compare(&g, &cfg, 60, &mut t) {
                panic!("{path} (seed {seed}, {:?}): {e}", cfg.variant);
            }
            games += 1;
            all.lowered += t.lowered;
            all.compared += t.compared;
            all.failed += t.failed;
            all.states += t.states;
            all.enumerators += t.enumerators;
            all.listings += t.listings;
            all.options += t.options;
            for (k, v) in t.enum_refused {
                *all.enum_refused.entry(k).or_default() += v;
            }
            for (k, v) in t.refused {
                *all.refused.entry(k).or_default() += v;
            }
        }
    }
    println!(
        "{} files, {games} games, {} states: {} guard parts lowered, {} evaluations compared ({} failing in both)",
        files.len(),
        all.states,
        all.lowered,
        all.compared,
        all.failed
    );
    println!("not lowered yet: {:?}", all.refused);
    println!(
        "enumerators: {} actions' options lowered, {} listings compared in four forms ({} options); not lowered: {:?}",
        all.enumerators, all.listings, all.options, all.enum_refused
    );
    assert!(all.lowered > 200, "the lowering covers too little to test");
    assert!(all.compared > 10_000);
    assert!(
        all.enumerators > 100 && all.options > 10_000,
        "too few enumerators compared"
    );
}

// The passes, each on a guard written for it: what the function computes is unchanged.
fn game() -> Game {
    let text = "game \"T\"\nplayers 2..4\nconst N = 3\nvar v[Player]: int\nflow { end }\n";
    rulebook::load("t.rules", text).game.expect("checks")
}

fn lowered(g: &Game, src: &str) -> Func {
    // The expression as a guard of an action, lowered from the checked file.
    let text = format!(
        "game \"T\"\nplayers 2..4\nconst N = 3\nvar v[Player]: int\naction a(k in 0..9) where {src} {{ }}\nflow {{ choose {{ a }} end }}\n"
    );
    let g2 = rulebook::load("t.rules", &text).game.expect("checks");
    let act = g2.actions.iter().next().expect("one action");
    let guard = act.guard.clone().expect("a guard");
    let f = lower::lower_expr(&g2, "a", &guard, &[Type::Int]).expect("lowers");
    verify::verify(&f, &g2).expect("verifies");
    let _ = g;
    f
}

struct Match {
    players: u8,
}
impl interp::Env for Match {
    fn var(&self, slot: u32) -> Value {
        Value::Int(slot as i64 * 10)
    }
    fn field(&self, _: rulebook::ir::CompId, _: u16) -> Value {
        Value::None
    }
    fn me(&self) -> u8 {
        1
    }
    fn current(&self) -> Option<u8> {
        Some(1)
    }
    fn players(&self) -> u8 {
        self.players
    }
    fn constant(&self, _: ConstId) -> Value {
        Value::Int(3)
    }
    fn zone_len(&self, _: rulebook::ir::InstId) -> u32 {
        0
    }
    fn zone_end(&self, _: rulebook::ir::InstId, _: bool) -> Option<rulebook::ir::CompId> {
        None
    }
    fn place(&self, _: rulebook::ir::CompId) -> rulebook::ir::InstId {
        rulebook::ir::InstId(0)
    }
    fn zone_at(&self, _: rulebook::ir::InstId, _: u32) -> Option<rulebook::ir::CompId> {
        None
    }
    fn twin_below(&self, _: rulebook::ir::CompId) -> bool {
        false
    }
}

fn run(f: &Func, g: &Game, k: i64) -> Result<Value, Fail> {
    interp::run(f, g, &Match { players: 3 }, &[k], &mut 1000)
}

#[test]
fn specialising_and_folding_leave_what_the_guard_says() {
    let g = game();
    let mut f = lowered(&g, "k + N * player_count > 10 and v[me] == 10");
    let before: Vec<_> = (0..5).map(|k| run(&f, &g, k)).collect();
    let consts = [Value::Int(3)];
    assert_eq!(
        specialise(
            &mut f,
            &Facts {
                players: 3,
                consts: &consts
            }
        ),
        2
    );
    assert!(fold(&mut f, &g) >= 1, "N * player_count is known: {f}");
    dce(&mut f);
    verify::verify(&f, &g).expect("still verifies");
    let after: Vec<_> = (0..5).map(|k| run(&f, &g, k)).collect();
    assert_eq!(before, after);
    assert_eq!(after[1], Ok(Value::Bool(false)));
    assert_eq!(after[2], Ok(Value::Bool(true)));
}

#[test]
fn a_branch_on_a_known_condition_becomes_a_jump_and_the_other_side_goes() {
    let g = game();
    let mut f = lowered(&g, "if player_count > 2 then k > 1 else k > 5");
    let blocks = f.blocks.len();
    specialise(
        &mut f,
        &Facts {
            players: 3,
            consts: &[Value::Int(3)],
        },
    );
    fold(&mut f, &g);
    assert!(dce(&mut f) >= 1);
    assert!(f.blocks.len() < blocks, "{f}");
    verify::verify(&f, &g).expect("still verifies");
    assert_eq!(run(&f, &g, 2), Ok(Value::Bool(true)));
}

#[test]
fn an_instruction_that_would_fail_is_not_folded_away() {
    let g = game();
    let mut f = lowered(&g, "k >= 0 or 1 / 0 == 0");
    fold(&mut f, &g);
    dce(&mut f);
    verify::verify(&f, &g).expect("verifies");
    assert_eq!(run(&f, &g, 3), Ok(Value::Bool(true)));
    let mut f = lowered(&g, "1 / 0 == 0 or k >= 0");
    fold(&mut f, &g);
    dce(&mut f);
    assert_eq!(run(&f, &g, 3), Err(Fail::Arithmetic), "{f}");
}

#[test]
fn the_verifier_refuses_a_register_read_outside_its_block() {
    let g = game();
    let mut f = lowered(&g, "if k > 1 then k > 2 else k > 3");
    // Make the join block return a register defined in another block.
    let inner = f.blocks[1].insts[0].dst();
    let last = f.blocks.len() - 1;
    f.blocks[last].term = Term::Return(inner);
    let e = verify::verify(&f, &g).expect_err("refused");
    assert!(e.contains("not defined here"), "{e}");
}

#[test]
fn the_verifier_refuses_an_area_outside_the_scratch_words() {
    let g = game();
    let mut f = lowered(&g, "k > 1");
    let dst = f.reg(rulebook::lir::Ty::Int);
    let area = rulebook::lir::Area { at: 0, words: 4 };
    f.blocks[0]
        .insts
        .push(rulebook::lir::Inst::Clear { dst, area });
    let e = verify::verify(&f, &g).expect_err("no scratch words declared");
    assert!(e.contains("outside the scratch words"), "{e}");
    f.scratch = 4;
    verify::verify(&f, &g).expect("inside them");
}

#[test]
fn what_is_not_built_is_refused_with_its_reason() {
    let text = "game \"T\"\nplayers 2\nboard grid = grid(3, 3)\nvar v[grid]: int\naction a() where count(t in groups(s in grid where v[s] > 0)) > 0 { }\nflow { choose { a } end }\n";
    let g = rulebook::load("t.rules", text).game.expect("checks");
    let guard = g
        .actions
        .iter()
        .next()
        .and_then(|a| a.guard.clone())
        .expect("a guard");
    let e = lower::lower_expr(&g, "a", &guard, &[]).expect_err("not built");
    assert_eq!(e, "an aggregate over this kind of collection");
    // `line` is lowered on a grid and a graph; on a ring and a hex board, and with a length
    // not written as a number, it is left to the engine, and says why.
    for (board, n, why) in [
        ("grid(4, 4)", "3", None),
        ("ring(5)", "3", Some("a line on a ring or a hex board")),
        ("hex(3)", "3", Some("a line on a ring or a hex board")),
        (
            "grid(4, 4)",
            "N",
            Some("a line whose length is not written as a number"),
        ),
    ] {
        let text = format!(
            "game \"T\"\nplayers 2\nconst N = 3\nboard b = {board}\nvar v[b]: int\n\
             action a() where line(s in b, {n} where v[s] > 0) {{ }}\nflow {{ choose {{ a }} end }}\n"
        );
        let g = rulebook::load("t.rules", &text).game.expect("checks");
        let guard = g.actions.iter().next().and_then(|a| a.guard.clone());
        let got = lower::lower_expr(&g, "a", &guard.expect("a guard"), &[]);
        assert_eq!(got.err().as_deref(), why, "{board}, {n}");
    }
}

// Native code (feature `jit`) on guards written for the cases where a number runs out:
// overflow, division by zero, none in arithmetic, and a budget of work too small. Each
// result or failure is the interpreter's (with a small budget, see below).
#[cfg(feature = "jit")]
#[test]
fn native_code_fails_where_the_interpreter_fails() {
    use rulebook::lir::jit::Compiled;
    let g = game();
    let cases = [
        "k * 4611686018427387904 > 0",
        "10 / (k - 3) > 1",
        "k % (k - 2) == 0",
        "v[me] + k == 12",
        "-k - 9223372036854775807 < 0",
        "count(i in 0..k where i > 2) > 1",
        "(if k > 4 then none else k) < 3",
    ];
    let mut failures = 0;
    for src in cases {
        let f = lowered(&g, src);
        let native = Compiled::new(&g, &[&f]).expect("compiles");
        for fuel in [4, 1000] {
            for k in 0..9 {
                let env = Match { players: 3 };
                let (mut f1, mut f2) = (fuel, fuel);
                let want = interp::run(&f, &g, &env, &[k], &mut f1);
                let got = native.run(0, &g, &env, &[k], &mut f2);
                // The native code spends a block's work at its entry and checks the budget
                // at loops' heads and exits: with too small a budget one may fail for the
                // budget where the other meets another failure first, but neither fails
                // where the other succeeds.
                let spent = |r: &Result<Value, Fail>| r == &Err(Fail::Fuel);
                if (spent(&got) || spent(&want)) && fuel < 1000 {
                    assert!(
                        want.is_err() && got.is_err(),
                        "{src} at k = {k}, fuel {fuel}: {want:?} against {got:?}"
                    );
                } else {
                    assert_eq!(got, want, "{src} at k = {k}, fuel {fuel}\n{f}");
                }
                failures += want.is_err() as u32;
            }
        }
    }
    // Every kind of failure above happened at least once.
    assert!(failures > 20, "{failures}");
}

/// A function of one instruction over its parameters (typed `params`), returning its result.
#[cfg(feature = "jit")]
fn one(
    name: &str,
    params: &[rulebook::lir::Ty],
    ret: rulebook::lir::Ty,
    inst: impl Fn(&[rulebook::lir::Reg], rulebook::lir::Reg) -> rulebook::lir::Inst,
) -> Func {
    use rulebook::lir::{Block, Reg};
    let regs: Vec<Reg> = (0..params.len() as u32).map(Reg).collect();
    let dst = Reg(params.len() as u32);
    let mut tys = params.to_vec();
    tys.push(ret);
    Func {
        name: name.into(),
        params: regs.clone(),
        regs: tys,
        blocks: vec![Block {
            params: vec![],
            insts: vec![inst(&regs, dst)],
            term: Term::Return(dst),
        }],
        ret,
        scratch: 0,
    }
}

/// Native code reads the zones' arrays, the fields and the game's tables in place: in states
/// of games with stacks of several components, every zone's count, emptiness, top, bottom and
/// k-th component, every component's place and every field, natively and through the state's
/// methods (the interpreter), equal.
#[cfg(feature = "jit")]
#[test]
fn zones_and_fields_read_in_place_equal_what_the_state_says() {
    use rulebook::lir::jit::Compiled;
    use rulebook::lir::{Held, Inst, Place, Ty};
    use rulebook::reference::lir::StateEnv;
    let (mut compared, mut tall, mut ok) = (0u64, 0u64, 0u64);
    for path in [
        "rules/classic/goofspiel.rules",
        "rules/atlantis_omni.rules",
        "rules/ominoes.rules",
    ] {
        let text = std::fs::read_to_string(path).expect("readable");
        let g = rulebook::load(path, &text).game.expect("checks");
        let cfg = Config {
            players: 2,
            variant: None,
            seed: 5,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: vec![],
        };
        let mut st = g.start(&cfg).expect("starts");
        let mut funcs: Vec<(Func, Vec<Vec<i64>>)> = vec![];
        let board = g.instances.iter().find_map(|i| i.space.map(|(b, _)| b));
        for (zi, z) in g.instances.iter().enumerate() {
            let ct = g.zones[z.zone].ty;
            for what in [Held::Count, Held::Empty, Held::Top, Held::Bottom] {
                let ret = match what {
                    Held::Count => Ty::Int,
                    Held::Empty => Ty::Bool,
                    _ => Ty::Comp(ct),
                };
                let f = one("held", &[Ty::Zone(ct)], ret, |p, dst| Inst::Held {
                    dst,
                    what,
                    zone: p[0],
                });
                funcs.push((f, vec![vec![zi as i64]]));
            }
            let f = one("at", &[Ty::Zone(ct), Ty::Int], Ty::Comp(ct), |p, dst| {
                Inst::ZoneAt {
                    dst,
                    zone: p[0],
                    k: p[1],
                }
            });
            funcs.push((f, (-1..20).map(|k| vec![zi as i64, k]).collect()));
        }
        for (ci, c) in g.comps.iter().enumerate() {
            let ct = c.ty;
            let mut places = vec![(Place::Zone, Ty::Zone(ct)), (Place::Owner, Ty::Player)];
            places.extend(board.map(|b| (Place::Space, Ty::Space(b))));
            for (what, ret) in places {
                let f = one("place", &[Ty::Comp(ct)], ret, |p, dst| Inst::Place {
                    dst,
                    what,
                    comp: p[0],
                });
                funcs.push((f, vec![vec![ci as i64], vec![u32::MAX as i64]]));
            }
            for (fi, fd) in g.types[ct].fields.iter().enumerate() {
                let Some(ret) = Ty::of(fd.ty) else { continue };
                let f = one("field", &[Ty::Comp(ct)], ret, |p, dst| Inst::Field {
                    dst,
                    comp: p[0],
                    field: fi as u16,
                });
                funcs.push((f, vec![vec![ci as i64], vec![u32::MAX as i64]]));
            }
        }
        for (f, _) in &funcs {
            verify::verify(f, &g).unwrap_or_else(|e| panic!("{path}: {e}\n{f}"));
        }
        let native =
            Compiled::new(&g, &funcs.iter().map(|f| &f.0).collect::<Vec<_>>()).expect("compiles");
        let mut legal = vec![];
        for turn in 0..24 {
            let env = StateEnv::new(&g, &st, 0);
            for (k, (f, argsets)) in funcs.iter().enumerate() {
                for args in argsets {
                    let (mut f1, mut f2) = (100, 100);
                    let want = interp::run(f, &g, &env, args, &mut f1);
                    let got = native.run(k, &g, &env, args, &mut f2);
                    assert_eq!(got, want, "{path}, turn {turn}, {args:?}\n{f}");
                    compared += 1;
                    ok += want.is_ok() as u64;
                }
            }
            tall += g.instances.ids().filter(|&z| st.zone(z).len() >= 3).count() as u64;
            if g.legal(&st, &mut legal).is_err() || legal.is_empty() {
                break;
            }
            let a = legal[turn % legal.len()];
            g.apply(&mut st, &a).expect("applies");
        }
    }
    // Stacks of three or more (top, bottom and the middle differ) were read, and most reads
    // succeeded.
    assert!(tall > 100, "{tall}");
    assert!(ok * 2 > compared, "{ok} of {compared}");
}

/// An environment lending nothing in place: native code computes the value index bits (and
/// copies the variables) from what it reads one by one.
#[cfg(feature = "jit")]
struct Bare<'a>(rulebook::reference::lir::StateEnv<'a>);

#[cfg(feature = "jit")]
impl interp::Env for Bare<'_> {
    fn var(&self, slot: u32) -> Value {
        self.0.var(slot)
    }
    fn field(&self, c: rulebook::ir::CompId, f: u16) -> Value {
        self.0.field(c, f)
    }
    fn me(&self) -> u8 {
        self.0.me()
    }
    fn current(&self) -> Option<u8> {
        self.0.current()
    }
    fn players(&self) -> u8 {
        self.0.players()
    }
    fn constant(&self, c: ConstId) -> Value {
        self.0.constant(c)
    }
    fn zone_len(&self, z: rulebook::ir::InstId) -> u32 {
        self.0.zone_len(z)
    }
    fn zone_end(&self, z: rulebook::ir::InstId, top: bool) -> Option<rulebook::ir::CompId> {
        self.0.zone_end(z, top)
    }
    fn place(&self, c: rulebook::ir::CompId) -> rulebook::ir::InstId {
        self.0.place(c)
    }
    fn zone_at(&self, z: rulebook::ir::InstId, k: u32) -> Option<rulebook::ir::CompId> {
        self.0.zone_at(z, k)
    }
    fn twin_below(&self, c: rulebook::ir::CompId) -> bool {
        self.0.twin_below(c)
    }
}

/// A binding over a board with a guard part `v[x] == e` (`e` a plain value) is a loop over the
/// positions holding `e` only (`Inst::Seek`), listing what the loop over every position lists:
/// in the interpreter, natively with the state's index bits and natively with bits computed
/// from the variables. A part before it that may fail (here a division) keeps the full loop,
/// where the reference finds the failure on any position.
#[cfg(feature = "jit")]
#[test]
fn a_binding_narrowed_by_a_value_lists_what_the_full_loop_lists() {
    use rulebook::lir::jit::Compiled;
    use rulebook::lir::Inst;
    use rulebook::reference::lir::StateEnv;
    let text = "game \"T\"\nplayers 2\nconst K = 2\nboard grid = grid(9, 9)\nvar v[grid]: Player\n\
        action put(s in grid) where v[s] == none { v[s] = me }\n\
        action mine(s in grid) where 100 / (col(s) + K) > 0 and v[s] == me { }\n\
        action theirs(s in grid, t in grid) where v[s] == next(me) and v[t] == v[s] { }\n\
        end when count(s in grid where v[s] == none) == 0\n\
        flow { repeat { for p in players { turn p { choose { put mine theirs } } } } }\n";
    let g = rulebook::load("t.rules", text).game.expect("checks");
    let funcs: Vec<Func> = g
        .actions
        .iter()
        .map(|a| lower::lower_options(&g, a).expect("lowers"))
        .collect();
    let seeks = |f: &Func| {
        (f.blocks.iter())
            .flat_map(|b| &b.insts)
            .filter(|i| matches!(i, Inst::Seek { .. }))
            .count()
    };
    // `put` by `none`; not `mine` (a division first, on each cell), nor `theirs` (`next(me)` and `v[s]`
    // are not plain values: read on every position, they may fail there).
    assert_eq!(
        funcs.iter().map(seeks).collect::<Vec<_>>(),
        [1, 0, 0],
        "{}",
        funcs[0]
    );
    for f in &funcs {
        verify::verify(f, &g).expect("verifies");
    }
    let native = Compiled::new(&g, &funcs.iter().collect::<Vec<_>>()).expect("compiles");
    let mut st = g.start(&Config::seeded(2, 3)).expect("starts");
    let mut legal = vec![];
    let mut listed = 0;
    for turn in 0..60 {
        let me = turn % 2;
        let env = StateEnv::new(&g, &st, me as u8);
        for (k, f) in funcs.iter().enumerate() {
            let mut want = vec![];
            let w = interp::run_into(f, &g, &env, &[], &mut 1_000_000, &mut want);
            for lend in [true, false] {
                let mut got = vec![];
                let bare = Bare(StateEnv::new(&g, &st, me as u8));
                let e: &dyn interp::Env = if lend { &env } else { &bare };
                let r = native.run_into(k, &g, e, &[], &mut 1_000_000, &mut got);
                assert_eq!((&r, &got), (&w, &want), "turn {turn}, {}", f.name);
            }
            listed += want.len();
        }
        legal.clear();
        g.legal(&st, &mut legal).expect("lists");
        // A `put` (arm 0) on a cell picked by the turn.
        let puts: Vec<_> = legal.iter().filter(|a| a.arm == 0).copied().collect();
        if puts.is_empty() {
            break;
        }
        g.apply(&mut st, &puts[(turn * 7) % puts.len()])
            .expect("applies");
    }
    assert!(listed > 500, "{listed} values listed");
}
