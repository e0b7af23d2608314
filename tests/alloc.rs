//! No allocation per decision in the steady state of a playout: a counting allocator watches
//! random games, leaving out each game's start, its first two decisions (while the stacks of
//! frames and locals reach their working size) and the decision that ends it (the outcome is
//! built then). Zones may still grow past an earlier size now and then, so the count per
//! decision must be close to zero, not exactly zero.

use rulebook::agents::RandomAgent;
use rulebook::engine::{Actor, ChanceMode, Config};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests count every allocation of the process: they run one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Allocations per decision over `games` random games, counting from each game's start.
fn allocations_per_decision(path: &str, games: u64) -> f64 {
    let text = std::fs::read_to_string(path).expect("readable");
    let g = rulebook::load(path, &text).game.expect("valid");
    let mut buf = Vec::with_capacity(256);
    let (mut allocs, mut decisions) = (0u64, 0u64);
    for seed in 0..games {
        let mut st = g
            .start(&Config {
                players: g.min_players,
                variant: None,
                seed,
                chance: ChanceMode::Seeded,
                fuel: None,
                set: Vec::new(),
            })
            .expect("starts");
        let mut agent = RandomAgent::new(seed);
        let mut k = 0;
        while g.actor(&st) != Actor::Nobody {
            let before = ALLOCS.load(Ordering::Relaxed);
            g.legal(&st, &mut buf).expect("legal");
            let a = agent.pick(&buf).expect("an action");
            g.apply(&mut st, &a).expect("applies");
            k += 1;
            if k > 2 && !st.is_over() {
                allocs += ALLOCS.load(Ordering::Relaxed) - before;
                decisions += 1;
            }
        }
    }
    allocs as f64 / decisions as f64
}

#[test]
fn playouts_do_not_allocate_per_decision() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for path in [
        "rules/classic/tic_tac_toe.rules",
        "rules/classic/connect_four.rules",
        "rules/omega_shift.rules",
        "rules/classic/hex.rules",
        "rules/classic/english_draughts.rules",
        "rules/classic/nine_mens_morris.rules",
        "rules/classic/breakthrough_geometry.rules",
    ] {
        let per = allocations_per_decision(path, 50);
        println!("{path}: {per:.3} allocations per decision");
        assert!(per < 0.1, "{path}: {per:.3} allocations per decision");
    }
}

/// The cost of a request does not grow with the match (issue 35): `status`, `view` and `log`
/// from the last decision on a match of 20,000 decisions allocate as often as on a match of
/// 20 (a copy of the log per request, as `serve` made to undo a panic, is 20,000
/// allocations).
#[test]
fn a_request_costs_the_same_on_a_long_match() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    use rulebook::server::Session;
    let g = rulebook::load(
        "long.rules",
        "game \"Long\"\nplayers 1\nvar n: int\n\
         action pass() { n += 1  if n == 1000000000 { end draw } }\n\
         flow { repeat { turn seat(0) { choose { pass } } } }\n",
    )
    .game
    .expect("valid rules");
    let cost = |decisions: usize| -> u64 {
        let mut session = Session::new(&g, None);
        session.handle(br#"{"cmd":"new"}"#);
        for _ in 0..decisions {
            session.handle(br#"{"cmd":"apply","action":"pass"}"#);
        }
        let from = format!(r#"{{"cmd":"log","from":{decisions}}}"#);
        // Once to let the lazily derived log catch up, then counted.
        session.handle(from.as_bytes());
        let before = ALLOCS.load(Ordering::Relaxed);
        for _ in 0..10 {
            session.handle(br#"{"cmd":"status"}"#);
            session.handle(br#"{"cmd":"view"}"#);
            session.handle(from.as_bytes());
        }
        ALLOCS.load(Ordering::Relaxed) - before
    };
    let (short, long) = (cost(20), cost(20_000));
    assert!(
        long <= short + 10,
        "30 requests allocated {short} times on a match of 20 decisions, {long} on 20,000"
    );
}
