//! The searching agent of `rulebook::agents` (MCTS): it plays tic-tac-toe perfectly enough
//! never to lose to a random player and to draw against itself; it decides from its seat's
//! view only (the same view and seed give the same action, whatever is hidden); its choices
//! depend only on its seed and thread count; it plays simultaneous choices and cooperative
//! games. The long runs the issue asks for (200 games, Connect Four, the seed games, OpenSpiel)
//! are scripts in tests/long/.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::agents::{
    ActionStats, Agent, AgentSpec, Budget, Mcts, MctsConfig, RandomAgent, Search,
};
use rulebook::engine::{Action, Actor, Config, State};
use rulebook::run::{self, Seats};
use rulebook::Game;

fn game(name: &str, text: &str) -> Game {
    rulebook::load(name, text).game.expect("valid rules")
}

fn file(path: &str) -> Game {
    game(path, &std::fs::read_to_string(path).expect("readable"))
}

fn mcts(playouts: u64, seed: u64) -> Mcts {
    Mcts::new(
        MctsConfig {
            budget: Budget::Playouts(playouts),
            ..MctsConfig::default()
        },
        seed,
    )
}

/// An agent per seat, and a random one for chance.
struct BySeat<'a>(&'a mut [&'a mut dyn Agent], RandomAgent);

impl Agent for BySeat<'_> {
    fn choose(&mut self, g: &Game, st: &State, legal: &[Action]) -> Option<Action> {
        match g.actor(st) {
            Actor::Player(p) => self.0[p as usize].choose(g, st, legal),
            _ => self.1.choose(g, st, legal),
        }
    }
}

/// Plays one game with an agent per seat; returns the final state.
fn play<'a>(g: &Game, cfg: &Config, agents: &'a mut [&'a mut dyn Agent]) -> State {
    let mut st = g.start(cfg).expect("starts");
    let mut by_seat = BySeat(agents, RandomAgent::new(cfg.seed));
    let mut seats = Seats::One(&mut by_seat);
    run::playout(g, &mut st, &mut seats, &mut Vec::new(), |_, _| {}).expect("plays");
    st
}

/// MCTS with 2,000 playouts never loses tic-tac-toe to a random player (20 games here,
/// seats alternating; 200 in tests/long/agents.sh).
#[test]
fn mcts_never_loses_tic_tac_toe_to_random() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let mut wins = 0;
    for i in 0..20u64 {
        let seat = (i % 2) as u8;
        let mut m = mcts(2000, i);
        let mut r = RandomAgent::new(1000 + i);
        let mut agents: Vec<&mut dyn Agent> = if seat == 0 {
            vec![&mut m, &mut r]
        } else {
            vec![&mut r, &mut m]
        };
        let st = play(&g, &Config::seeded(2, i), &mut agents);
        let o = st.outcome().expect("over");
        assert!(
            o.winners.is_empty() || o.winners == [seat],
            "game {i}: MCTS (p{}) lost: {o:?}",
            seat + 1
        );
        wins += usize::from(o.winners == [seat]);
    }
    assert!(wins >= 15, "MCTS won only {wins} of 20 games");
}

/// Two MCTS players draw tic-tac-toe.
#[test]
fn two_mcts_players_draw_tic_tac_toe() {
    let g = file("rules/classic/tic_tac_toe.rules");
    for i in 0..4u64 {
        let (mut a, mut b) = (mcts(2000, 2 * i), mcts(2000, 2 * i + 1));
        let st = play(&g, &Config::seeded(2, i), &mut [&mut a, &mut b]);
        let o = st.outcome().expect("over");
        assert!(o.winners.is_empty(), "game {i}: {o:?}");
    }
}

/// The solver proves a win in one: p1 has two in a row and the third cell free.
#[test]
fn a_win_in_one_is_proven() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let mut st = g.start(&Config::seeded(2, 0)).expect("starts");
    // p1 takes a1 and b2; p2 takes b1 and c1: p1 wins at c3.
    for text in [
        "place cell=a1",
        "place cell=b1",
        "place cell=b2",
        "place cell=c1",
    ] {
        let a = g.parse_action(&st, text).expect(text);
        g.apply(&mut st, &a).expect(text);
    }
    let s = mcts(200, 7).search(&g, &st, 0).expect("searches");
    let best = s.best.expect("an action");
    assert_eq!(g.action_text(&st, &best), "place cell=c3");
    let stats = s.actions.iter().find(|x| x.action == best).expect("stats");
    assert_eq!(stats.proven, Some(1.0));
}

/// Plays `steps` random decisions of `g` from `seed`, then on to a player's decision with
/// more than one legal action; returns the state and that player.
fn random_position(g: &Game, players: u8, seed: u64, steps: u64) -> (State, u8) {
    let mut st = g.start(&Config::seeded(players, seed)).expect("starts");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut legal = Vec::new();
    let mut k = 0;
    loop {
        g.legal(&st, &mut legal).expect("legal");
        match g.actor(&st) {
            Actor::Player(p) if k >= steps && legal.len() > 1 => return (st, p),
            Actor::Nobody => panic!("the game ended before {steps} steps"),
            _ => {}
        }
        let a: Action = legal[rng.gen_range(0..legal.len())];
        g.apply(&mut st, &a).expect("applies");
        k += 1;
    }
}

/// No peeking: states that the seat to act cannot tell apart (drawn with `determinize`, so
/// the other seats' hands differ) give the same search, action and statistics, for the same
/// seed.
#[test]
fn the_same_view_and_seed_give_the_same_action_whatever_is_hidden() {
    for (path, players) in [
        ("rules/omnia.rules", 2),
        ("rules/atlantis_omni.rules", 3),
        ("rules/omega_shift.rules", 2),
    ] {
        let g = file(path);
        let (st, seat) = random_position(&g, players, 3, 6);
        let reference = mcts(100, 11).search(&g, &st, seat).expect("searches");
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut hidden_differs = false;
        for _ in 0..3 {
            let other = g.determinize(&st, Some(seat), &mut rng);
            assert_eq!(
                g.view(&st, Some(seat)),
                g.view(&other, Some(seat)),
                "{path}"
            );
            hidden_differs |= (0..players).any(|p| g.view(&st, Some(p)) != g.view(&other, Some(p)));
            let s = mcts(100, 11).search(&g, &other, seat).expect("searches");
            assert_eq!(s, reference, "{path}: the search saw hidden information");
        }
        assert!(
            hidden_differs,
            "{path}: nothing was hidden from p{}",
            seat + 1
        );
    }
}

/// Root parallelism: the same seed and thread count give the same search.
#[test]
fn searches_on_threads_repeat_for_a_seed() {
    let g = file("rules/classic/connect_four.rules");
    let (st, seat) = random_position(&g, 2, 1, 4);
    let search = |seed| {
        let config = MctsConfig {
            budget: Budget::Playouts(400),
            threads: 3,
            ..MctsConfig::default()
        };
        Mcts::new(config, seed)
            .search(&g, &st, seat)
            .expect("searches")
    };
    let a = search(9);
    assert_eq!(a.playouts, 400);
    assert_eq!(a.actions.iter().map(|x| x.visits).sum::<u64>(), 400);
    assert_eq!(a, search(9));
}

/// A simultaneous choice: each seat picks a number from 1 to 3 unseen by the other, and the
/// higher number scores it; MCTS learns that 3 never loses, whatever the other does.
#[test]
fn simultaneous_choices_are_searched_from_each_seat() {
    let g = game(
        "bid",
        r#"
        game "Bid"
        players 2
        var bid[Player]: int
        var points[Player]: int
        flow {
            repeat 3 {
                choose each p in players, n in 1..3 { bid[p] = n }
                if bid[seat(0)] > bid[seat(1)] { points[seat(0)] += 1 }
                if bid[seat(1)] > bid[seat(0)] { points[seat(1)] += 1 }
            }
        }
        score(p) = points[p]
        "#,
    );
    let st = g.start(&Config::seeded(2, 0)).expect("starts");
    for seat in 0..2 {
        let s = mcts(500, 3).search(&g, &st, seat).expect("searches");
        let best = s.best.expect("an action");
        assert_eq!(g.action_text(&st, &best), "n=3", "p{}: {s:?}", seat + 1);
    }
    let (mut a, mut b) = (mcts(200, 1), RandomAgent::new(2));
    let st = play(&g, &Config::seeded(2, 1), &mut [&mut a, &mut b]);
    assert!(st.outcome().is_some());
}

/// A simultaneous block (tests/constructs/simultaneous.rules: each keeps 2 cards of 4 unseen,
/// then takes a bonus or not): each seat searches from its own part only, so p2's search gives
/// the same answer whatever p1 chose in the block; MCTS plays the block to the end in every
/// seat, each pending seat deciding for itself.
#[test]
fn a_simultaneous_block_is_searched_from_each_seats_own_part() {
    let g = file("tests/constructs/simultaneous.rules");
    let st = g.start(&Config::seeded(2, 0)).expect("starts");
    let search = |s: &State| {
        let r = mcts(60, 7).search(&g, s, 1).expect("searches");
        (r.best, r.actions)
    };
    // That p1 is done is public (it is no longer pending), so the search is compared across
    // p1's finished parts: whatever p1 kept, p2's search is the same.
    let mut expected = None;
    let mut parts = vec![st.clone()];
    let mut done = 0;
    while let Some(s) = parts.pop() {
        let mut legal = Vec::new();
        g.legal_for(&s, 0, &mut legal).expect("legal");
        if legal.is_empty() {
            let found = search(&s);
            let first = expected.get_or_insert_with(|| found.clone());
            assert_eq!(&found, first, "p2's search after p1's part");
            done += 1;
            continue;
        }
        for a in legal {
            let mut next = s.clone();
            g.apply_for(&mut next, 0, &a).expect("applies");
            parts.push(next);
        }
    }
    assert_eq!(done, 24);
    for seed in 0..3 {
        let mut st = g.start(&Config::seeded(2, seed)).expect("starts");
        let mut agents = [mcts(40, seed), mcts(40, seed + 10)];
        while !st.is_over() {
            let pending = g.pending(&st);
            assert!(!pending.is_empty());
            for p in pending {
                let r = agents[p as usize].search(&g, &st, p).expect("searches");
                let a = r.best.expect("an action");
                g.apply_for(&mut st, p, &a).expect("applies");
            }
        }
        let (mut a, mut b) = (mcts(40, seed), RandomAgent::new(seed));
        let st = play(&g, &Config::seeded(2, seed), &mut [&mut a, &mut b]);
        assert!(st.outcome().is_some());
    }
}

/// A game where only the author's `heuristic` tells the first move apart: seat 0 takes
/// `forward` or `stay`, the rest is 12 meaningless decisions, and the game ends the same way
/// whatever happened (`end lose` in the cooperative form, a 0-0 `end` otherwise).
fn hint_game(ending: &str, heuristic: &str) -> Game {
    let text = format!(
        r#"
        game "Hint"
        players 2
        var steps: int
        action stay() {{ }}
        action forward() {{ steps += 1 }}
        action wait() {{ }}
        action idle() {{ }}
        flow {{
            turn seat(0) {{ choose {{ stay forward }} }}
            repeat 12 {{ turn seat(1) {{ choose {{ wait idle }} }} }}
            {ending}
        }}
        {heuristic}
        "#
    );
    game("hint", &text)
}

/// The best action of seat 0 at the start of `g` and the mean rewards of `stay` and
/// `forward`, with `rollout` the playouts' longest run.
fn first_move(g: &Game, rollout: u64) -> (String, f64, f64) {
    let st = g.start(&Config::seeded(2, 0)).expect("starts");
    let mut agent = Mcts::new(
        MctsConfig {
            budget: Budget::Playouts(200),
            max_rollout: rollout,
            ..MctsConfig::default()
        },
        5,
    );
    let s = agent.search(g, &st, 0).expect("searches");
    let mean = |text: &str| {
        let stats = s
            .actions
            .iter()
            .find(|a| g.action_text(&st, &a.action) == text);
        stats.expect("legal").mean
    };
    let best = g.action_text(&st, &s.best.expect("an action"));
    (best, mean("stay"), mean("forward"))
}

/// MCTS uses the game's `heuristic`: in a cooperative game that is always lost, the loss
/// after `forward` ends with more progress, and a playout cut short is judged by it; in a
/// competitive game, a playout cut short is judged by it (the finished game, a 0-0 tie, is
/// not). Without it, both moves look the same.
#[test]
fn mcts_uses_the_heuristic() {
    let heuristic = "heuristic(p) = steps";
    let coop = hint_game("end lose", heuristic);
    for rollout in [100_000, 4] {
        let (best, stay, forward) = first_move(&coop, rollout);
        assert_eq!(best, "forward", "rollout {rollout}: {stay} {forward}");
        assert!(forward > stay, "rollout {rollout}: {stay} {forward}");
    }
    let (_, stay, forward) = first_move(&hint_game("end lose", ""), 4);
    assert_eq!(
        stay, forward,
        "without a heuristic every playout is the same loss"
    );

    let mine = "heuristic(p) = if p == seat(0) then steps else 0";
    let (best, stay, forward) = first_move(&hint_game("end", mine), 4);
    assert_eq!(best, "forward", "{stay} {forward}");
    assert!(forward > stay);
    let (_, stay, forward) = first_move(&hint_game("end", mine), 100_000);
    assert_eq!(
        stay, forward,
        "a finished competitive game is judged by its result"
    );
}

/// The `heuristic` is not a rule: Atlantis Rising played by random agents gives the same
/// summary (outcomes, scores, lengths, actions) with and without its heuristic declaration.
#[test]
fn a_heuristic_changes_no_outcome() {
    let path = "rules/atlantis_rising.rules";
    let text = std::fs::read_to_string(path).expect("readable");
    let start = text
        .find("\nheuristic(p)")
        .expect("the file declares a heuristic")
        + 1;
    // The declaration runs on over the lines that start with a space.
    let mut end = start;
    for line in text[start..].split_inclusive('\n') {
        if end > start && !line.starts_with(' ') {
            break;
        }
        end += line.len();
    }
    let stripped = format!("{}{}", &text[..start], &text[end..]);
    let with = game(path, &text);
    let without = game(path, &stripped);
    assert!(with.heuristic.is_some() && without.heuristic.is_none());
    let cfg = Config::seeded(2, 11);
    let opts = run::Options {
        lead: true,
        ..run::Options::new(12)
    };
    let mut a = run::simulate_with(&with, &cfg, &opts);
    let mut b = run::simulate_with(&without, &cfg, &opts);
    assert_eq!(a.completed, 12);
    // The measures of play read the lead from the heuristic (README, "Measures of play"), so
    // only theirs differ: the options and forced decisions are the same, the rest is set aside.
    let (pa, pb) = (&a.play, &b.play);
    assert_eq!(
        (pa.decisions, pa.options, pa.forced),
        (pb.decisions, pb.options, pb.forced)
    );
    assert_eq!((pa.lead_games, pb.lead_games), (12, 0));
    a.play = Default::default();
    b.play = Default::default();
    assert_eq!(a, b);
    assert_eq!(
        a.all_zero, 12,
        "no score is declared: the heuristic is not one"
    );
}

/// A one-player game won only by taking `up`, the one move of four that adds to `steps`,
/// at each of 12 turns: a uniformly random playout wins once in 4^12; one that follows the
/// heuristic (`steps`) wins every time.
fn staircase() -> Game {
    game(
        "staircase",
        r#"
        game "Staircase"
        players 1
        var steps: int
        action up() { steps += 1 }
        action left() { }
        action right() { }
        action down() { }
        flow {
            repeat 12 { turn seat(0) { choose { up left right down } } }
            if steps == 12 { win all } else { end lose }
        }
        heuristic(p) = steps
        "#,
    )
}

/// Greedy playouts (`g=1`) follow the heuristic: from the start of the staircase, playouts
/// after `up` win (the tree's own moves, tried in turn, lose the others), so `up` is played;
/// uniform playouts never win. The same seed gives the same search.
#[test]
fn greedy_playouts_follow_the_heuristic() {
    let g = staircase();
    let st = g.start(&Config::seeded(1, 0)).expect("starts");
    let search = |spec: &str, seed| {
        let AgentSpec::Mcts(c) = spec.parse().expect("parses") else {
            panic!("{spec} is not MCTS");
        };
        Mcts::new(c, seed).search(&g, &st, 0).expect("searches")
    };
    let text = |a: &ActionStats| g.action_text(&st, &a.action);
    let greedy = search("mcts:200:w=0:g=1:k=4", 3);
    assert_eq!(g.action_text(&st, &greedy.best.expect("an action")), "up");
    for a in &greedy.actions {
        assert_eq!(a.mean > 0.0, text(a) == "up", "{}: {greedy:?}", text(a));
    }
    assert_eq!(greedy, search("mcts:200:w=0:g=1:k=4", 3));
    // Uniform playouts, or one candidate tried (a uniform pick): no win anywhere.
    for spec in ["mcts:200:w=0", "mcts:200:w=0:g=1:k=1"] {
        let s = search(spec, 3);
        assert!(s.actions.iter().all(|a| a.mean == 0.0), "{spec}: {s:?}");
    }
}

/// Progressive widening (`pw=C`): at a root with 40 actions and 100 playouts, at most
/// ceil(C * sqrt(101)) of them get a visit (without it every one does), and the searches
/// repeat for a seed.
#[test]
fn progressive_widening_tries_few_actions_at_a_wide_node() {
    let g = game(
        "wide",
        r#"
        game "Wide"
        players 2
        var total: int
        action pick(n in 1..40) { total += n }
        flow {
            repeat 4 { turn seat(0) { choose { pick } } turn seat(1) { choose { pick } } }
            if total % 3 == 0 { win seat(0) } else { win seat(1) }
        }
        "#,
    );
    let st = g.start(&Config::seeded(2, 0)).expect("starts");
    let search = |spec: &str| {
        let AgentSpec::Mcts(c) = spec.parse().expect("parses") else {
            panic!("{spec} is not MCTS");
        };
        Mcts::new(c, 7).search(&g, &st, 0).expect("searches")
    };
    let tried = |s: &Search| s.actions.iter().filter(|a| a.visits > 0).count();
    let all = search("mcts:100");
    assert_eq!(all.actions.len(), 40);
    assert_eq!(tried(&all), 40);
    let wide = search("mcts:100:pw=1");
    assert!((2..=11).contains(&tried(&wide)), "{}", tried(&wide));
    assert_eq!(wide.actions.iter().map(|a| a.visits).sum::<u64>(), 100);
    assert_eq!(wide, search("mcts:100:pw=1"));
}

/// Agents are named as on the command line, and `simulate` runs them.
#[test]
fn simulate_runs_the_agents_named() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let agents = AgentSpec::parse_list("mcts:300,random").expect("parses");
    let opts = |games, threads, agents| run::Options {
        threads,
        agents,
        ..run::Options::new(games)
    };
    let s = run::simulate_agents(&g, &Config::seeded(2, 1), &opts(6, 2, &agents)).expect("runs");
    assert_eq!(s.agents, ["mcts:300", "random"]);
    assert_eq!(s.completed, 6);
    assert_eq!(s.wins[1], 0, "{:?}", s.wins);
    assert!(s.win_rates()[0].low > 0.0);
    let again =
        run::simulate_agents(&g, &Config::seeded(2, 1), &opts(6, 1, &agents)).expect("runs");
    assert_eq!(again.scores, s.scores);
    assert_eq!(again.lengths, s.lengths);
    assert!(run::simulate_agents(&g, &Config::seeded(2, 1), &opts(1, 1, &agents[..1])).is_ok());
    let three = AgentSpec::parse_list("random,random,random").expect("parses");
    assert!(run::simulate_agents(&g, &Config::seeded(2, 1), &opts(1, 1, &three)).is_err());
}

/// Speed (not a check): playouts per second of MCTS and decisions per second at the default
/// budget, on positions a few random decisions into each game. Run it alone, in release:
/// `cargo test --release --test agents -- --ignored --nocapture speed`.
#[test]
#[ignore]
fn speed() {
    for (path, players, steps) in [
        ("rules/classic/tic_tac_toe.rules", 2, 0),
        ("rules/classic/connect_four.rules", 2, 2),
        ("rules/classic/breakthrough.rules", 2, 2),
        ("rules/omega_shift.rules", 2, 4),
        ("rules/omnia.rules", 2, 4),
        ("rules/ominoes.rules", 2, 4),
        ("rules/atlantis_omni.rules", 3, 6),
        ("rules/atlantis_rising.rules", 2, 6),
    ] {
        let g = file(path);
        let (st, seat) = random_position(&g, players, 1, steps);
        let mut agent = Mcts::new(MctsConfig::default(), 1);
        let (mut playouts, mut decisions) = (0, 0);
        let start = std::time::Instant::now();
        while start.elapsed().as_secs_f64() < 3.0 {
            let s = agent.search(&g, &st, seat).expect("searches");
            playouts += s.playouts;
            decisions += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{path}: {:.0} playouts/s, {:.2} decisions/s at mcts:{} ({decisions} searches in {secs:.1} s)",
            playouts as f64 / secs,
            decisions as f64 / secs,
            rulebook::agents::DEFAULT_PLAYOUTS
        );
    }
}

/// Tree reuse (`reuse=1`, exact games): the next search starts from the part of the last
/// tree below the position reached, so its root counts the playouts of both searches; a
/// position the last tree does not lead to (a new game) starts afresh; without the setting
/// every search starts afresh.
#[test]
fn tree_reuse_keeps_the_subtree_of_the_position_reached() {
    let g = file("rules/classic/connect_four.rules");
    let spec = |text: &str| -> Mcts {
        let AgentSpec::Mcts(c) = text.parse().expect("parses") else {
            panic!("{text} is not MCTS");
        };
        Mcts::new(c, 5)
    };
    let visits = |s: &Search| s.actions.iter().map(|a| a.visits).sum::<u64>();
    let start = g.start(&Config::seeded(2, 0)).expect("starts");
    for (text, reuses) in [("mcts:400:reuse=1", true), ("mcts:400", false)] {
        let mut agent = spec(text);
        let first = agent.search(&g, &start, 0).expect("searches");
        assert_eq!(visits(&first), 400, "{text}");
        // The same position again: with reuse, the whole tree goes on.
        let again = agent.search(&g, &start, 0).expect("searches");
        assert_eq!(visits(&again), if reuses { 800 } else { 400 }, "{text}");
        // Two decisions later (its move, then the reply it explored most).
        let mut st = start.clone();
        g.apply(&mut st, &again.best.expect("a move"))
            .expect("applies");
        let mut reply_search = spec("mcts:400");
        let reply = reply_search.search(&g, &st, 1).expect("searches");
        g.apply(&mut st, &reply.best.expect("a reply"))
            .expect("applies");
        let later = agent.search(&g, &st, 0).expect("searches");
        if reuses {
            assert!(visits(&later) > 400, "{text}: {}", visits(&later));
        } else {
            assert_eq!(visits(&later), 400, "{text}");
        }
        // A new game: nothing of the last tree leads there.
        let other = agent.search(&g, &start, 0).expect("searches");
        assert_eq!(visits(&other), 400, "{text}");
    }
}
