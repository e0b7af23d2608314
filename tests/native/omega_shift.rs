//! Omega Shift as plain Rust, following rules/omega_shift.rules exactly (clauses of
//! seeds/omega_shift.md in brackets), down to the order of legal actions and of chance
//! outcomes, so that it can replay any interpreted game decision by decision.
//!
//! What the rules file fixes and this engine copies:
//! - setup: `shuffle omegas`, then the top omega card goes to row1, the next to row2, ...;
//!   `shuffle deck`, then 8 cards one by one to p1, then 8 to p2 (the first dealt lowest in
//!   the hand); then `roll p in players` chooses the first player [OS-2.6] [OS-A1].
//! - a shuffle in external chance mode is n - 1 chance decisions, top position first: each
//!   names a component among those not yet placed (listed bottom to top, identical alphas
//!   once, at their lowest place), which swaps with the component at the position being
//!   filled.
//! - a turn: `play` / `alpha` / `discard` options (each over the hand, bottom to top, equal
//!   cards once), a marker choice after a play or an alpha when one is possible, then
//!   `draw` / `take` (suits in order); the card just discarded may be taken back [OS-7.2],
//!   except under the variant `no_retake` [OS-V1] (`OmegaShift::no_retake`).
//! - the game ends at the first choice after the deck is empty, that is right after the
//!   draw of the last card [OS-8.1]; the ring neighbours are listed by position.
//! - scoring [OS-8.2] .. [OS-8.7], equal scores a draw.

use super::{Native, Rng, Turn};

const SUITS: usize = 5;
const SUIT_NAMES: [&str; SUITS] = ["red", "green", "blue", "white", "yellow"];
const DECK: usize = 60;
const HAND: usize = 8;
/// The rank slot of an alpha in a card code (`suit * 10 + slot`; slots 0..=8 are ranks 2..=10).
const ALPHA: u8 = 9;
const NO_SUIT: u8 = u8::MAX;
const GATE: u8 = 3;
const BONUS_CARDS: u8 = 5;
const PENALTY: i32 = 5;
/// The most legal moves at one decision: a deck shuffle step offers up to 50 distinct cards
/// (a turn at most 16: 8 plays or alphas and 8 discards).
pub const MAX_MOVES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// A number card, by code.
    Play(u8),
    /// An alpha, by code.
    Alpha(u8),
    /// Any card, by code.
    Discard(u8),
    Draw,
    /// The top of a suit's discard pile.
    Take(u8),
    /// After a play: the ring position a marker comes from.
    From(u8),
    /// After an alpha: a ring position, and whether the marker goes there (push) or comes
    /// from there (pull).
    Other(u8, bool),
    /// A chance outcome: an omega card's suit, a card code or a seat, by what is waiting.
    Chance(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    ShuffleOmegas,
    ShuffleDeck,
    Roll,
    /// Play, alpha or discard.
    Main,
    /// Draw or take.
    Draw,
    /// The marker choice after playing a number card of this suit.
    PlayMarker(u8),
    /// The marker choice after playing an alpha of this suit.
    AlphaMarker(u8),
    Over,
}

#[inline]
fn suit(code: u8) -> usize {
    (code / 10) as usize
}

#[inline]
fn is_alpha(code: u8) -> bool {
    code % 10 == ALPHA
}

#[inline]
fn rank(code: u8) -> u8 {
    code % 10 + 2
}

/// The two ring neighbours of a position, lowest position first (as the board lists them).
#[inline]
fn neighbours(pos: u8) -> [u8; 2] {
    let (a, b) = ((pos + 4) % 5, (pos + 1) % 5);
    if a < b {
        [a, b]
    } else {
        [b, a]
    }
}

fn card_name(code: u8) -> String {
    if is_alpha(code) {
        format!("{}-A", SUIT_NAMES[suit(code)])
    } else {
        format!("{}-{}", SUIT_NAMES[suit(code)], rank(code))
    }
}

#[derive(Clone)]
pub struct OmegaShift {
    /// The draw pile, bottom to top.
    deck: [u8; DECK],
    deck_len: u8,
    /// Hands, in the order the interpreter keeps them (the first card received lowest).
    hand: [[u8; HAND]; 2],
    hand_len: [u8; 2],
    /// Discard piles by suit, bottom to top (at most the 12 cards of the suit).
    pile: [[u8; 12]; SUITS],
    pile_len: [u8; SUITS],
    /// Each player's column per suit: how many cards, their rank sum and the highest rank.
    played_n: [[u8; SUITS]; 2],
    played_sum: [[i32; SUITS]; 2],
    played_top: [[u8; SUITS]; 2],
    /// Markers on each suit's omega card.
    markers: [u8; SUITS],
    /// The suit of the omega card at each ring position, and the position of each suit.
    ring: [u8; SUITS],
    pos_of: [u8; SUITS],
    /// The omega cards before they are laid out (bottom to top), and the step of a shuffle.
    omegas: [u8; SUITS],
    step: u8,
    /// Under `no_retake` [OS-V1], the suit of the card discarded this turn: its pile may not
    /// be taken from (its top is that card for the rest of the turn). `NO_SUIT` otherwise.
    ban: u8,
    /// The variant `no_retake` [OS-V1] is played.
    no_retake: bool,
    mover: u8,
    wait: Wait,
}

impl Default for OmegaShift {
    fn default() -> Self {
        Self::new_external()
    }
}

impl OmegaShift {
    /// Components in the order of the rules file's tables: every number card suit by suit,
    /// then three alphas per suit; omega cards red to yellow.
    fn unshuffled() -> Self {
        let mut deck = [0u8; DECK];
        let mut n = 0;
        for s in 0..SUITS as u8 {
            for r in 0..9 {
                deck[n] = s * 10 + r;
                n += 1;
            }
        }
        for s in 0..SUITS as u8 {
            for _ in 0..3 {
                deck[n] = s * 10 + ALPHA;
                n += 1;
            }
        }
        OmegaShift {
            deck,
            deck_len: DECK as u8,
            hand: [[0; HAND]; 2],
            hand_len: [0; 2],
            pile: [[0; 12]; SUITS],
            pile_len: [0; SUITS],
            played_n: [[0; SUITS]; 2],
            played_sum: [[0; SUITS]; 2],
            played_top: [[0; SUITS]; 2],
            markers: [3; SUITS],
            ring: [0; SUITS],
            pos_of: [0; SUITS],
            omegas: [0, 1, 2, 3, 4],
            step: 0,
            ban: NO_SUIT,
            no_retake: false,
            mover: 0,
            wait: Wait::ShuffleOmegas,
        }
    }

    /// A game whose chance events wait for `Move::Chance` decisions, like the interpreter
    /// with external chance.
    pub fn new_external() -> Self {
        Self::unshuffled()
    }

    /// The same under the variant `no_retake` [OS-V1].
    pub fn no_retake() -> Self {
        OmegaShift {
            no_retake: true,
            ..Self::unshuffled()
        }
    }

    /// A game set up with the generator: both shuffles and the first player drawn at once.
    pub fn new_seeded(rng: &mut Rng) -> Self {
        let mut g = Self::unshuffled();
        for i in (1..SUITS).rev() {
            g.omegas.swap(i, rng.below(i + 1));
        }
        g.lay_out_omegas();
        for i in (1..DECK).rev() {
            g.deck.swap(i, rng.below(i + 1));
        }
        g.deal_hands();
        g.mover = rng.below(2) as u8;
        g.wait = Wait::Main;
        g
    }

    /// `for s in row { deal 1 from omegas to slot[s] }`: the top card to row1.
    fn lay_out_omegas(&mut self) {
        for p in 0..SUITS {
            let s = self.omegas[SUITS - 1 - p];
            self.ring[p] = s;
            self.pos_of[s as usize] = p as u8;
        }
    }

    /// `deal HAND from deck to hand[p]` for each player, one card at a time.
    fn deal_hands(&mut self) {
        for p in 0..2 {
            for _ in 0..HAND {
                self.deck_len -= 1;
                let c = self.deck[self.deck_len as usize];
                self.give(p, c);
            }
        }
    }

    #[inline]
    fn give(&mut self, p: usize, c: u8) {
        self.hand[p][self.hand_len[p] as usize] = c;
        self.hand_len[p] += 1;
    }

    /// Takes the lowest copy of a card out of the mover's hand, keeping the order.
    #[inline]
    fn take_from_hand(&mut self, c: u8) {
        let p = self.mover as usize;
        let n = self.hand_len[p] as usize;
        let h = &mut self.hand[p];
        let i = h[..n].iter().position(|&x| x == c).expect("in hand");
        h.copy_within(i + 1..n, i);
        self.hand_len[p] -= 1;
    }

    fn end_turn(&mut self) {
        self.ban = NO_SUIT;
        self.mover ^= 1;
        // [OS-8.1] `end when empty(deck)` is tested at the next choice: the game ends now.
        self.wait = if self.deck_len == 0 {
            Wait::Over
        } else {
            Wait::Main
        };
    }

    /// Writes the legal moves into `out`; returns how many.
    pub fn legal_into(&self, out: &mut [Move; MAX_MOVES]) -> usize {
        let mut n = 0;
        let mut push = |m: Move| {
            out[n] = m;
            n += 1;
        };
        match self.wait {
            Wait::Main => {
                let p = self.mover as usize;
                let hand = &self.hand[p][..self.hand_len[p] as usize];
                // [OS-4.2] [OS-4.3] strictly above the player's own column of that suit
                for &c in hand {
                    if !is_alpha(c) && rank(c) > self.played_top[p][suit(c)] {
                        push(Move::Play(c));
                    }
                }
                // equal alphas are offered once, at their lowest place in the hand
                let mut seen = 0u8;
                for &c in hand {
                    if is_alpha(c) && seen & (1 << suit(c)) == 0 {
                        seen |= 1 << suit(c);
                        push(Move::Alpha(c));
                    }
                }
                let mut seen = 0u8;
                for &c in hand {
                    if is_alpha(c) {
                        if seen & (1 << suit(c)) != 0 {
                            continue;
                        }
                        seen |= 1 << suit(c);
                    }
                    push(Move::Discard(c));
                }
            }
            Wait::Draw => {
                if self.deck_len > 0 {
                    push(Move::Draw);
                }
                for s in 0..SUITS as u8 {
                    if self.pile_len[s as usize] > 0 && s != self.ban {
                        push(Move::Take(s));
                    }
                }
            }
            Wait::PlayMarker(s) => {
                for nb in neighbours(self.pos_of[s as usize]) {
                    if self.markers[self.ring[nb as usize] as usize] > 0 {
                        push(Move::From(nb));
                    }
                }
            }
            Wait::AlphaMarker(s) => {
                let own = self.markers[s as usize];
                for nb in neighbours(self.pos_of[s as usize]) {
                    if self.markers[self.ring[nb as usize] as usize] > 0 {
                        push(Move::Other(nb, false));
                    }
                    if own > 0 {
                        push(Move::Other(nb, true));
                    }
                }
            }
            Wait::ShuffleOmegas => {
                let pos = SUITS - 1 - self.step as usize;
                for &s in &self.omegas[..=pos] {
                    push(Move::Chance(s));
                }
            }
            Wait::ShuffleDeck => {
                let pos = DECK - 1 - self.step as usize;
                let mut alphas = 0u8;
                for &c in &self.deck[..=pos] {
                    if is_alpha(c) {
                        if alphas & (1 << suit(c)) != 0 {
                            continue;
                        }
                        alphas |= 1 << suit(c);
                    }
                    push(Move::Chance(c));
                }
            }
            Wait::Roll => {
                push(Move::Chance(0));
                push(Move::Chance(1));
            }
            Wait::Over => {}
        }
        n
    }

    /// After a number card or an alpha: the marker choice, when it has an option.
    fn marker_wait(&mut self, s: usize, alpha: bool) {
        let [a, b] = neighbours(self.pos_of[s]);
        let nb = self.markers[self.ring[a as usize] as usize] > 0
            || self.markers[self.ring[b as usize] as usize] > 0;
        self.wait = if alpha && (nb || self.markers[s] > 0) {
            Wait::AlphaMarker(s as u8)
        } else if !alpha && nb {
            Wait::PlayMarker(s as u8)
        } else {
            // [OS-4.5] [OS-5.2] nothing can move: the choice is skipped
            Wait::Draw
        };
    }

    pub fn apply_move(&mut self, m: Move) {
        let p = self.mover as usize;
        match (self.wait, m) {
            (Wait::Main, Move::Play(c)) => {
                self.take_from_hand(c);
                let s = suit(c);
                self.played_n[p][s] += 1;
                self.played_sum[p][s] += rank(c) as i32;
                self.played_top[p][s] = rank(c);
                self.marker_wait(s, false);
            }
            (Wait::Main, Move::Alpha(c)) => {
                // [OS-5.3] the alpha leaves the game
                self.take_from_hand(c);
                self.marker_wait(suit(c), true);
            }
            (Wait::Main, Move::Discard(c)) => {
                self.take_from_hand(c);
                let s = suit(c);
                self.pile[s][self.pile_len[s] as usize] = c;
                self.pile_len[s] += 1;
                if self.no_retake {
                    self.ban = s as u8;
                }
                self.wait = Wait::Draw;
            }
            (Wait::PlayMarker(s), Move::From(nb)) => {
                // [OS-4.4] one marker from the neighbour onto the suit's omega card
                self.markers[self.ring[nb as usize] as usize] -= 1;
                self.markers[s as usize] += 1;
                self.wait = Wait::Draw;
            }
            (Wait::AlphaMarker(s), Move::Other(nb, push)) => {
                let other = self.ring[nb as usize] as usize;
                if push {
                    self.markers[s as usize] -= 1;
                    self.markers[other] += 1;
                } else {
                    self.markers[other] -= 1;
                    self.markers[s as usize] += 1;
                }
                self.wait = Wait::Draw;
            }
            (Wait::Draw, Move::Draw) => {
                self.deck_len -= 1;
                let c = self.deck[self.deck_len as usize];
                self.give(p, c);
                self.end_turn();
            }
            (Wait::Draw, Move::Take(s)) => {
                let s = s as usize;
                self.pile_len[s] -= 1;
                let c = self.pile[s][self.pile_len[s] as usize];
                self.give(p, c);
                self.end_turn();
            }
            (Wait::ShuffleOmegas, Move::Chance(x)) => {
                let pos = SUITS - 1 - self.step as usize;
                let i = self.omegas[..=pos]
                    .iter()
                    .position(|&o| o == x)
                    .expect("an omega card not yet placed");
                self.omegas.swap(i, pos);
                self.step += 1;
                if self.step as usize + 1 >= SUITS {
                    self.step = 0;
                    self.lay_out_omegas();
                    self.wait = Wait::ShuffleDeck;
                }
            }
            (Wait::ShuffleDeck, Move::Chance(x)) => {
                let pos = DECK - 1 - self.step as usize;
                let i = self.deck[..=pos]
                    .iter()
                    .position(|&c| c == x)
                    .expect("a card not yet placed");
                self.deck.swap(i, pos);
                self.step += 1;
                if self.step as usize + 1 >= DECK {
                    self.step = 0;
                    self.deal_hands();
                    self.wait = Wait::Roll;
                }
            }
            (Wait::Roll, Move::Chance(x)) => {
                self.mover = x;
                self.wait = Wait::Main;
            }
            (w, m) => panic!("{m:?} does not answer {w:?}"),
        }
    }

    /// [OS-8.2] .. [OS-8.6] one suit of one player.
    fn suit_score(&self, p: usize, s: usize) -> i32 {
        let n = self.played_n[p][s];
        if n == 0 || self.markers[s] < GATE {
            0
        } else if n >= BONUS_CARDS {
            self.played_sum[p][s]
        } else {
            self.played_sum[p][s] - PENALTY * self.markers[s] as i32
        }
    }

    /// [OS-8.7] the sum of the five suit scores.
    pub fn score(&self, p: usize) -> i32 {
        (0..SUITS).map(|s| self.suit_score(p, s)).sum()
    }

    pub fn is_over(&self) -> bool {
        self.wait == Wait::Over
    }

    /// Plays a whole game with uniformly random choices at every decision. Returns the
    /// decisions taken and the scores.
    pub fn playout(rng: &mut Rng) -> (u32, [i32; 2]) {
        let mut g = OmegaShift::new_seeded(rng);
        let mut moves = [Move::Draw; MAX_MOVES];
        let mut decisions = 0;
        while g.wait != Wait::Over {
            let n = g.legal_into(&mut moves);
            g.apply_move(moves[rng.below(n)]);
            decisions += 1;
        }
        (decisions, [g.score(0), g.score(1)])
    }
}

impl Native for OmegaShift {
    type Move = Move;

    fn turn(&self) -> Turn {
        match self.wait {
            Wait::ShuffleOmegas | Wait::ShuffleDeck | Wait::Roll => Turn::Chance,
            Wait::Over => Turn::Over,
            _ => Turn::Player(self.mover),
        }
    }

    fn legal(&self, out: &mut Vec<Move>) {
        let mut moves = [Move::Draw; MAX_MOVES];
        let n = self.legal_into(&mut moves);
        out.clear();
        out.extend_from_slice(&moves[..n]);
    }

    fn text(&self, m: Move) -> String {
        match m {
            Move::Play(c) => format!("play card={}", card_name(c)),
            Move::Alpha(c) => format!("alpha card={}", card_name(c)),
            Move::Discard(c) => format!("discard card={}", card_name(c)),
            Move::Draw => "draw".into(),
            Move::Take(s) => format!("take suit={}", SUIT_NAMES[s as usize]),
            Move::From(nb) => format!("from=row{}", nb + 1),
            Move::Other(nb, push) => {
                format!(
                    "other=row{} way={}",
                    nb + 1,
                    if push { "push" } else { "pull" }
                )
            }
            Move::Chance(x) => match self.wait {
                Wait::ShuffleOmegas => format!("chance omega-{}", SUIT_NAMES[x as usize]),
                Wait::ShuffleDeck => format!("chance {}", card_name(x)),
                _ => format!("chance p{}", x + 1),
            },
        }
    }

    fn apply(&mut self, m: Move) {
        self.apply_move(m);
    }

    fn outcome(&self) -> Option<(Vec<i64>, Vec<u8>)> {
        if !self.is_over() {
            return None;
        }
        let (a, b) = (self.score(0), self.score(1));
        let winners = match a.cmp(&b) {
            std::cmp::Ordering::Greater => vec![0],
            std::cmp::Ordering::Less => vec![1],
            // [OS-8.7] equal scores: a draw (`ties draw`)
            std::cmp::Ordering::Equal => vec![],
        };
        Some((vec![a as i64, b as i64], winners))
    }
}
