//! The play API's classes: `Session` (one match answered by the line protocol's session,
//! kept with the game it borrows) and `State` (a bare state with the game's action and view
//! codes, cheap to clone, for search algorithms).

use super::*;

/// What borrows the game: the session, kept with the game it borrows.
#[derive(yoke::Yokeable)]
pub(crate) struct Live<'g> {
    pub(crate) session: Session<'g>,
}

/// The play API: one match answered by the line protocol's session.
#[pyclass(name = "Session", module = "rulebook._native", unsendable)]
pub(crate) struct PySession {
    pub(crate) live: Yoke<Live<'static>, Arc<Game>>,
}

#[pymethods]
impl PySession {
    /// Answers one request (a JSON object as text) with its reply (JSON text).
    fn request(&mut self, py: Python<'_>, line: &str) -> String {
        let _ = py;
        let line = line.as_bytes().to_vec();
        self.live
            .with_mut_return(move |live| live.session.handle(&line))
    }

    /// Answers one request as a client bound to `seat` would be answered (`None`: the host),
    /// from that seat's view and legal actions only.
    #[pyo3(signature = (seat, line))]
    fn request_as(&mut self, seat: Option<u8>, line: &str) -> String {
        let reply = match rulebook::server::parse(line) {
            Ok(req) => self
                .live
                .with_mut_return(move |live| live.session.run_as(seat, req)),
            Err(e) => e.into(),
        };
        reply.to_line()
    }
}

/// What the states of one match share: the codes, the start state and the configuration.
pub(crate) struct Shared {
    pub(crate) codes: ActionCodes,
    pub(crate) views: ViewCodes,
    pub(crate) start: State,
    pub(crate) config: Config,
}

/// A bare state of a match, with the decisions that led to it.
#[pyclass(name = "State", module = "rulebook._native")]
pub(crate) struct PyState {
    pub(crate) game: Arc<Game>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) state: State,
    /// The decisions from the start: who made each (`None`: chance) and the action.
    pub(crate) history: Vec<(Option<u8>, Action)>,
}

impl PyState {
    pub(crate) fn legal_actions(&self, py: Python<'_>) -> PyResult<Vec<Action>> {
        let mut out = Vec::new();
        self.game
            .legal(&self.state, &mut out)
            .map_err(|e| run_error(py, &self.game, &e))?;
        Ok(out)
    }

    /// The code of each legal action: its action code, or its position in the legal list
    /// when the game's options are not numbered (and for chance outcomes).
    pub(crate) fn codes_of(&self, legal: &[Action]) -> Vec<u64> {
        let (g, st) = (&*self.game, &self.state);
        let numbered = self.shared.codes.refused().is_none() && g.actor(st) != Actor::Chance;
        legal
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if numbered {
                    self.shared.codes.encode(g, st, a).unwrap_or(u64::MAX)
                } else {
                    i as u64
                }
            })
            .collect()
    }

    fn apply_action(&mut self, py: Python<'_>, a: Action) -> PyResult<()> {
        let maker = match self.game.actor(&self.state) {
            Actor::Player(p) => Some(p),
            _ => None,
        };
        let mut next = self.state.clone();
        self.game
            .apply(&mut next, &a)
            .map_err(|e| run_error(py, &self.game, &e))?;
        self.state = next;
        self.history.push((maker, a));
        Ok(())
    }

    /// A seat of the match (`None`: a spectator); `ProtocolError` for one not in play.
    fn seat_ok(&self, py: Python<'_>, seat: Option<i64>) -> PyResult<Option<u8>> {
        match seat {
            Some(s) if !(0..self.state.players as i64).contains(&s) => Err(raise::<ProtocolError>(
                py,
                &format!(
                    "seat must be a number from 0 to {}",
                    self.state.players.saturating_sub(1)
                ),
                "bad_seat",
                None,
            )),
            other => Ok(other.map(|s| s as u8)),
        }
    }
}

#[pymethods]
impl PyState {
    /// A copy, sharing the game and its codes.
    fn clone(&self) -> PyState {
        PyState {
            game: self.game.clone(),
            shared: self.shared.clone(),
            state: self.state.clone(),
            history: self.history.clone(),
        }
    }

    /// `copy.deepcopy`: the same as [`PyState::clone`] (OpenSpiel's `clone()` and `child()`
    /// deep-copy a Python state with everything it holds).
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    /// The seat that must act (from 0), -1 for chance, -4 when the game is over (OpenSpiel's
    /// numbers).
    fn actor(&self) -> i32 {
        match self.game.actor(&self.state) {
            Actor::Player(p) => p as i32,
            Actor::Chance => -1,
            Actor::Nobody => -4,
        }
    }

    #[getter]
    fn players(&self) -> u8 {
        self.state.players
    }

    /// The number of decisions from the start.
    #[getter]
    fn decisions(&self) -> usize {
        self.history.len()
    }

    /// How many action codes the game has; its reason when they are refused.
    fn action_codes(&self) -> (u64, Option<String>) {
        let c = &self.shared.codes;
        (c.size(), c.refused().map(str::to_string))
    }

    /// The number of values of an observation tensor.
    fn view_size(&self) -> usize {
        self.shared.views.size()
    }

    /// The legal actions: (code, canonical text), in the engine's order.
    fn legal(&self, py: Python<'_>) -> PyResult<Vec<(u64, String)>> {
        let legal = self.legal_actions(py)?;
        let codes = self.codes_of(&legal);
        Ok(codes
            .into_iter()
            .zip(&legal)
            .map(|(c, a)| (c, self.game.action_text(&self.state, a)))
            .collect())
    }

    /// The codes of the legal actions, in the engine's order.
    fn legal_codes(&self, py: Python<'_>) -> PyResult<Vec<u64>> {
        let legal = self.legal_actions(py)?;
        Ok(self.codes_of(&legal))
    }

    /// The outcomes of the waiting chance event: (code, weight), with the total weight.
    fn chance_outcomes(&self, py: Python<'_>) -> PyResult<(Vec<(u64, u32)>, u32)> {
        let mut weights = Vec::new();
        let total = self
            .game
            .chance_outcomes(&self.state, &mut |_, w| weights.push(w))
            .map_err(|e| run_error(py, &self.game, &e))?;
        Ok((
            weights
                .into_iter()
                .enumerate()
                .map(|(i, w)| (i as u64, w))
                .collect(),
            total,
        ))
    }

    /// Applies the legal action with this code.
    fn apply_code(&mut self, py: Python<'_>, code: i64) -> PyResult<()> {
        let legal = self.legal_actions(py)?;
        let codes = self.codes_of(&legal);
        match codes.iter().position(|&c| i64::try_from(c) == Ok(code)) {
            Some(i) => self.apply_action(py, legal[i]),
            None if self.game.actor(&self.state) == Actor::Nobody => Err(raise::<GameOverError>(
                py,
                "the game is over",
                "finished",
                None,
            )),
            None => Err(raise::<IllegalActionError>(
                py,
                &match u64::try_from(code) {
                    Ok(c) => format!(
                        "action {code} ({}) is not a legal action now",
                        self.code_text(c)
                    ),
                    Err(_) => format!("action {code} is not a legal action now"),
                },
                "illegal_action",
                None,
            )),
        }
    }

    /// Applies the legal action with this canonical text.
    fn apply_text(&mut self, py: Python<'_>, text: &str) -> PyResult<()> {
        let a = self
            .game
            .parse_action(&self.state, text)
            .map_err(|e| run_error(py, &self.game, &e))?;
        self.apply_action(py, a)
    }

    /// The text of a code: the legal action's canonical text, else the option it numbers.
    fn code_text(&self, code: u64) -> String {
        let (g, st) = (&*self.game, &self.state);
        let mut legal = Vec::new();
        if g.legal(st, &mut legal).is_ok() {
            let codes = self.codes_of(&legal);
            if let Some(i) = codes.iter().position(|&c| c == code) {
                return g.action_text(st, &legal[i]);
            }
        }
        self.shared
            .codes
            .text(g, st, code)
            .unwrap_or_else(|| format!("action {code}"))
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.state.is_over()
    }

    /// The outcome once over: (scores, winners, kind).
    fn outcome(&self) -> Option<(Vec<i64>, Vec<u8>, String)> {
        self.state
            .outcome()
            .map(|o| (o.scores.clone(), o.winners.clone(), format!("{:?}", o.kind)))
    }

    /// The view of `seat` (None: a spectator) as JSON text.
    #[pyo3(signature = (seat=None))]
    fn view(&self, py: Python<'_>, seat: Option<i64>) -> PyResult<String> {
        let seat = self.seat_ok(py, seat)?;
        Ok(serde_json::to_string(&self.game.view(&self.state, seat)).unwrap_or_default())
    }

    /// The view of `seat` as numbers (the layout of `rulebook::engine::ViewCodes`).
    #[pyo3(signature = (seat=None))]
    fn view_tensor(&self, py: Python<'_>, seat: Option<i64>) -> PyResult<Vec<f32>> {
        let seat = self.seat_ok(py, seat)?;
        let mut out = vec![0.0; self.shared.views.size()];
        self.shared
            .views
            .encode(&self.game.view(&self.state, seat), &mut out);
        Ok(out)
    }

    /// What `seat` knows, as text: the views it had after each decision (a view equal to the
    /// one before it left out, so another seat's decision that changes nothing it sees
    /// leaves no trace), its own decisions by their texts, and its view now. Derived from its
    /// views and its own actions only.
    fn information_state(&self, py: Python<'_>, seat: i64) -> PyResult<String> {
        let seat = self.seat_ok(py, Some(seat))?.unwrap_or(0);
        let g = &*self.game;
        let mut st = self.shared.start.clone();
        let mut out = String::new();
        let mut last = serde_json::to_string(&g.view(&st, Some(seat))).unwrap_or_default();
        out.push_str(&last);
        for (maker, a) in &self.history {
            if *maker == Some(seat) {
                out.push_str("\nmine: ");
                out.push_str(&g.action_text(&st, a));
            }
            g.apply(&mut st, a).map_err(|e| run_error(py, g, &e))?;
            let now = serde_json::to_string(&g.view(&st, Some(seat))).unwrap_or_default();
            if now != last {
                out.push('\n');
                out.push_str(&now);
                last = now;
            }
        }
        Ok(out)
    }

    /// Why an action is (not) legal now, for `seat` (None: whoever must act): (legal,
    /// reason, line, column).
    #[pyo3(signature = (text, seat=None))]
    fn why(
        &self,
        py: Python<'_>,
        text: &str,
        seat: Option<i64>,
    ) -> PyResult<(bool, String, Option<usize>, Option<usize>)> {
        let seat = self.seat_ok(py, seat)?;
        let g = &*self.game;
        if let Some(s) = seat {
            if g.actor(&self.state) != Actor::Player(s) && !g.pending(&self.state).contains(&s) {
                return Ok((
                    false,
                    format!(
                        "{} must act now, not p{}",
                        actor_text(g.actor(&self.state)),
                        s + 1
                    ),
                    None,
                    None,
                ));
            }
        }
        let w = g
            .why_not_for(&self.state, seat, text)
            .map_err(|e| run_error(py, g, &e))?;
        let (line, column) = match w.span {
            Some(sp) => {
                let (l, c) = g.source(sp).line_col(sp.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        Ok((w.legal, w.reason, line, column))
    }

    /// The configuration's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.shared.config.seed
    }
}

pub(crate) fn actor_text(a: Actor) -> String {
    match a {
        Actor::Player(p) => format!("p{}", p + 1),
        Actor::Chance => "chance".into(),
        Actor::Nobody => "nobody".into(),
    }
}
