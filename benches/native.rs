//! Native playout speeds for the "Speed" tables of docs/benchmarks.md: the hand-written
//! engines of tests/native/ (checked against the interpreter by tests/native_agreement.rs) playing
//! random games for a second each, after a tenth of that as warm-up.
//!
//!     cargo bench --bench native
//!
//! It prints and asserts nothing: timing is not a test.

#[allow(dead_code)]
#[path = "../tests/native/mod.rs"]
mod native;

use native::connect_four::ConnectFour;
use native::omega_shift::OmegaShift;
use native::Rng;
use rulebook::run::bench::on_cpu;
use std::time::{Duration, Instant};

/// Native random playouts for `time` after a tenth of it as warm-up: (playouts, decisions,
/// elapsed, time on the CPU).
fn measure(
    time: Duration,
    mut playout: impl FnMut(&mut Rng) -> u32,
) -> (u64, u64, Duration, Option<Duration>) {
    let mut rng = Rng::new(0x5EED);
    let warm = Instant::now();
    while warm.elapsed() < time / 10 {
        std::hint::black_box(playout(&mut rng));
    }
    let (mut games, mut decisions) = (0u64, 0u64);
    let cpu = on_cpu();
    let start = Instant::now();
    while start.elapsed() < time {
        decisions += std::hint::black_box(playout(&mut rng)) as u64;
        games += 1;
    }
    let elapsed = start.elapsed();
    let cpu = match (cpu, on_cpu()) {
        (Some(a), Some(b)) => b.checked_sub(a),
        _ => None,
    };
    (games, decisions, elapsed, cpu)
}

fn main() {
    // `cargo test --benches` runs this too, in a debug build: keep that short.
    let time = if cfg!(debug_assertions) {
        Duration::from_millis(200)
    } else {
        Duration::from_secs(1)
    };
    type Playout = fn(&mut Rng) -> u32;
    let games: [(&str, Playout); 2] = [
        ("Omega Shift", |r| {
            let (d, s) = OmegaShift::playout(r);
            std::hint::black_box(s);
            d
        }),
        ("Connect Four", |r| {
            let (d, w) = ConnectFour::playout(r);
            std::hint::black_box(w);
            d
        }),
    ];
    for (name, playout) in games {
        let (n, d, t, cpu) = measure(time, playout);
        let s = t.as_secs_f64();
        println!(
            "native {name}: {:.0} playouts/s, {:.0} decisions/s, {:.2} decisions/game \
             ({n} playouts in {s:.2} s, cpu share {}{})",
            n as f64 / s,
            d as f64 / s,
            d as f64 / n.max(1) as f64,
            cpu.map_or("n/a".into(), |c| format!("{:.3}", c.as_secs_f64() / s)),
            if cfg!(debug_assertions) {
                ", debug build"
            } else {
                ""
            }
        );
    }
}
