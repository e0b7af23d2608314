//! What the page draws, as data: the boards of a game (spaces with positions, and edges), and
//! one seat's scene, built from that seat's [`View`] alone and placed on the boards by the
//! structure the rules declare (which zones and variables are indexed by a board's spaces).

use crate::engine::View;
use crate::ir::ids::Id;
use crate::ir::{BoardShape, Dim, Game, Type, Visibility};
use serde::Serialize;

mod layout;
mod lines;
pub use layout::*;
pub use lines::*;
/// One thing drawn on a space, compact: a component the seat sees (equal ones counted once),
/// the back of one it does not, the value of a variable indexed by the space, or a note (a
/// value the rules never change after setup, shown in the space's tooltip only).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Token {
    /// `piece`, `back`, `value` or `note`.
    pub kind: &'static str,
    /// The whole text, for the tooltip (`piece[b8]: p2`, `pile[b2, west]: block`).
    pub text: String,
    /// What is drawn: a short label (an enum value's shortest prefix that tells it from the
    /// enum's other values, a number, a component's name), empty for a plain disc.
    pub label: String,
    /// Drawn as this seat's piece (a disc of its colour), the label inside: a variable whose
    /// value is a player, a component with a field whose value is a player.
    pub seat: Option<u8>,
    /// How many equal components it stands for (`block ×3`); 1 for anything else.
    pub count: usize,
    /// The canonical text a click on it stands for (a component's name, or the space's).
    pub value: String,
    /// The colour its label is drawn in (CSS), from the look the rules' `present` section
    /// gives its value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<&'static str>,
}

/// A zone that is not on a board, as a pile (hidden or top-only), a row (public) or a hand
/// (owned).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ZoneScene {
    /// The zone instance's name (`hand[p2]`), also what a click on it stands for.
    pub zone: String,
    /// `pile`, `row` or `hand` by its visibility, or the role the rules' `present` section
    /// gives it (`hand`, `row`, `deck`, `pile`).
    pub kind: &'static str,
    /// The owning seat, from 0.
    pub owner: Option<u8>,
    /// How many components it holds.
    pub count: usize,
    /// The components the seat sees (bottom to top), each with its fields not in its name.
    pub cards: Vec<Card>,
    /// How many it holds that the seat does not see (drawn as backs).
    pub backs: usize,
}

/// A component the seat sees.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Card {
    /// Its canonical name.
    pub name: String,
    /// Fields not shown by its name (`?` for a secret one): those the rules' `present`
    /// section names for its type (`component Card shows cost`), in that order, else all.
    pub fields: Vec<(String, String)>,
}

/// Everything on the board of one seat's view.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct Scene {
    /// Per board, per space, what lies there.
    pub boards: Vec<Vec<Vec<Token>>>,
    /// The zones that are not on a board.
    pub zones: Vec<ZoneScene>,
    /// Variables not indexed by a board: `(name, value)`.
    pub vars: Vec<(String, String)>,
    /// Once the game is over, the spaces `(board, space)` of the lines its winner holds (see
    /// [`line_tests`]), for the page to highlight.
    pub won: Vec<(u32, u32)>,
}

/// The zone instances a view lists, in its order: every instance but those owned by seats
/// not in play.
fn shown_instances(g: &Game, players: u8) -> impl Iterator<Item = crate::ir::InstId> + '_ {
    g.instances
        .ids()
        .filter(move |&i| g.instances[i].owner.is_none_or(|o| o < players))
}

/// Places a seat's view on the boards. Only `view` carries state: the game gives structure
/// (which zone instance and which variable slot belongs to which space).
pub fn scene(g: &Game, view: &View, players: u8) -> Scene {
    let mut out = Scene {
        boards: g
            .boards
            .iter()
            .map(|b| vec![Vec::new(); b.len() as usize])
            .collect(),
        ..Scene::default()
    };
    let mut order = Vec::new();
    for (z, inst) in view.zones.iter().zip(shown_instances(g, players)) {
        let info = g.instances[inst];
        if let Some((b, s)) = info.space {
            let space = &g.boards[b].space_names[s as usize];
            let tokens = &mut out.boards[b.index()][s as usize];
            let empty = Vec::new();
            for (k, name) in z.visible.iter().enumerate() {
                let fields = z.fields.get(k).unwrap_or(&empty);
                let seat = comp_seat(g, info.zone, fields);
                add_piece(
                    tokens,
                    name,
                    &z.zone,
                    seat,
                    g.present.comp_look(g.zones[info.zone].ty),
                );
            }
            if z.count > z.visible.len() {
                let n = z.count - z.visible.len();
                match tokens.iter_mut().find(|t| t.kind == "back") {
                    Some(t) => {
                        t.count += n;
                        t.text = format!("{} hidden", t.count);
                    }
                    None => tokens.push(Token {
                        kind: "back",
                        text: format!("{n} hidden"),
                        label: String::new(),
                        seat: None,
                        count: n,
                        value: space.clone(),
                        colour: None,
                    }),
                }
            }
            continue;
        }
        order.push(
            g.present
                .zones
                .iter()
                .position(|(k, _)| *k == info.zone)
                .unwrap_or(usize::MAX),
        );
        out.zones.push(zone_scene(g, z, info));
    }
    // The zones the rules give a role first, in the order written; then the others.
    let mut ranked: Vec<(usize, ZoneScene)> = order.into_iter().zip(out.zones).collect();
    ranked.sort_by_key(|(r, _)| *r);
    out.zones = ranked.into_iter().map(|(_, z)| z).collect();
    // Variables, in the order the view lists them.
    let mut entries = view.vars.iter();
    // The value of each variable indexed by a board alone, per space, as the view shows it.
    let mut values = std::collections::HashMap::new();
    for (vid, v) in g.vars.enumerate() {
        let board_dims = v.dims.iter().filter(|d| matches!(d, Dim::Board(_))).count();
        for k in 0..v.count {
            let mut rest = k;
            let mut skip = false;
            let mut on = None;
            for i in (0..v.dims.len()).rev() {
                let x = rest % v.sizes[i];
                rest /= v.sizes[i];
                match v.dims[i] {
                    Dim::Player => skip |= x >= players as u32,
                    Dim::Board(b) if board_dims == 1 => on = Some((b, x)),
                    _ => {}
                }
            }
            if skip {
                continue;
            }
            let Some((name, value)) = entries.next() else {
                return out;
            };
            match on {
                Some((b, s)) => {
                    if v.dims.len() == 1 {
                        values.insert((vid, s), value.as_str());
                    }
                    let space = &g.boards[b].space_names[s as usize];
                    if let Some(t) = value_token(g, vid, name, value, space) {
                        out.boards[b.index()][s as usize].push(t);
                    }
                }
                None => out.vars.push((name.clone(), value.clone())),
            }
        }
    }
    for spaces in &mut out.boards {
        for tokens in spaces.iter_mut() {
            merge_into_disc(tokens);
        }
    }
    if let Some(&[w]) = view.winners.as_deref() {
        let winner = crate::ir::player_name(w);
        for (b, n, var) in line_tests(g) {
            for run in runs(&g.boards[b], n) {
                if run
                    .iter()
                    .all(|&s| values.get(&(var, s)).is_some_and(|x| **x == winner))
                {
                    out.won.extend(run.iter().map(|&s| (b.0 as u32, s)));
                }
            }
        }
        out.won.sort_unstable();
        out.won.dedup();
    }
    out
}

/// A zone instance off the board as the seat sees it: its kind (the role the rules'
/// `present` section gives it, else by its visibility and owner), its cards with the fields
/// their type shows, and its backs.
fn zone_scene(g: &Game, z: &crate::engine::ZoneView, info: crate::ir::Instance) -> ZoneScene {
    let def = &g.zones[info.zone];
    let kind = g.present.role(info.zone).unwrap_or(match def.visibility {
        Visibility::Owner => "hand",
        Visibility::Public if info.owner.is_some() => "hand",
        Visibility::Public => "row",
        Visibility::Hidden | Visibility::Secret | Visibility::Top => "pile",
    });
    let shows = g.present.shows(def.ty);
    ZoneScene {
        zone: z.zone.clone(),
        kind,
        owner: info.owner,
        count: z.count,
        cards: z
            .visible
            .iter()
            .zip(z.fields.iter().chain(std::iter::repeat(&Vec::new())))
            .map(|(name, fields)| Card {
                name: name.clone(),
                fields: match shows {
                    Some(shown) => shown_fields(g, def.ty, shown, fields),
                    None => fields.clone(),
                },
            })
            .collect(),
        backs: z.count.saturating_sub(z.visible.len()),
    }
}

/// Adds a component to a space's tokens: one token per name and seat, counted (`block ×3`),
/// its tooltip a line per zone instance (`pile[b2,west]: block ×2`).
/// A component whose type the rules' `present` section gives a look is drawn by its glyph
/// (or label) in its colour.
fn add_piece(
    tokens: &mut Vec<Token>,
    name: &str,
    zone: &str,
    seat: Option<u8>,
    look: Option<&crate::ir::Look>,
) {
    let line = format!("{zone}: {name}");
    let Some(t) = tokens
        .iter_mut()
        .find(|t| t.kind == "piece" && t.value == name && t.seat == seat)
    else {
        let label = look.and_then(|l| l.glyph.as_ref().or(l.label.as_ref()));
        tokens.push(Token {
            kind: "piece",
            text: line,
            label: label.map_or(name, |l| l.as_str()).to_string(),
            seat,
            count: 1,
            value: name.to_string(),
            colour: look
                .and_then(|l| l.colour)
                .and_then(crate::ir::Presentation::css),
        });
        return;
    };
    t.count += 1;
    let mut lines: Vec<String> = t.text.split('\n').map(str::to_string).collect();
    let times = format!("{line} ×");
    match lines
        .iter_mut()
        .find(|l| **l == line || l.starts_with(&times))
    {
        Some(l) => {
            let n: usize = l
                .strip_prefix(&times)
                .and_then(|k| k.parse().ok())
                .unwrap_or(1);
            *l = format!("{times}{}", n + 1);
        }
        None => lines.push(line),
    }
    t.text = lines.join("\n");
}

/// The seat a component is drawn for: the value of its one field of type player, as the
/// view shows it (`owner: p2`), when it has exactly one such field.
fn comp_seat(g: &Game, zone: crate::ir::ZoneId, fields: &[(String, String)]) -> Option<u8> {
    let ty = &g.types[g.zones[zone].ty];
    let players: Vec<&str> = ty
        .fields
        .iter()
        .filter(|f| f.ty == Type::Player)
        .map(|f| f.name.as_str())
        .collect();
    let [field] = players[..] else {
        return None;
    };
    fields
        .iter()
        .find(|(name, _)| name == field)
        .and_then(|(_, v)| seat_of(v))
}

/// The seat of a player's name (`p2`: 1).
fn seat_of(value: &str) -> Option<u8> {
    let n: u16 = value.strip_prefix('p')?.parse().ok()?;
    u8::try_from(n.checked_sub(1)?).ok()
}

/// How the value of variable `vid` at a space is drawn there, if at all: not a value that
/// marks nothing (`none`, `false`, the declared start value of an enum or a bool, as
/// `level[b8]: low` on every square of `var level[field]: Level = low`), nor one the seat may
/// not see (`?`); a player as
/// that player's disc; an enum value as its shortest prefix that tells it from the enum's
/// other values (`high` of `low, high`: `H`; `rose` beside `red`: `Ro`); a true bool as the
/// variable's
/// name; anything else as written. A variable no procedure but setup writes (each cell's row
/// number) is a note, in the space's tooltip only.
fn value_token(
    g: &Game,
    vid: crate::ir::VarId,
    name: &str,
    value: &str,
    space: &str,
) -> Option<Token> {
    let v = &g.vars[vid];
    let start = match &v.init {
        Some(crate::ir::Expr::Lit(x))
            if matches!(v.ty, Type::Enum(_) | Type::Bool | Type::Player) =>
        {
            Some(g.show_static(*x))
        }
        _ => None,
    };
    if value == "none" || value == "false" || value == "?" || start.as_deref() == Some(value) {
        return None;
    }
    let text = format!("{name}: {value}");
    let token = |kind, label: String, seat| Token {
        kind,
        text: text.clone(),
        label,
        seat,
        count: 1,
        value: space.to_string(),
        colour: None,
    };
    let pieces = &g.present.pieces;
    if g.program.frozen.contains(&vid) || !(pieces.is_empty() || pieces.contains(&vid)) {
        return Some(token("note", String::new(), None));
    }
    Some(match v.ty {
        Type::Player => token("value", String::new(), seat_of(value)),
        Type::Enum(e) => {
            let values = &g.enums[e].values;
            let look = values
                .iter()
                .position(|x| x == value)
                .and_then(|i| g.present.look(e, i as u16));
            let label = look
                .and_then(|l| l.glyph.clone().or_else(|| l.label.clone()))
                .unwrap_or_else(|| short_label(values, value));
            let mut t = token("value", label, None);
            t.colour = look
                .and_then(|l| l.colour)
                .and_then(crate::ir::Presentation::css);
            t
        }
        Type::Bool => token("value", v.name.clone(), None),
        _ => token("value", value.to_string(), None),
    })
}

/// The fields a card shows when the rules name them (`component Card shows cost, points`):
/// those of the seat's view of it (`?` where it may not see one), in the order named, but for
/// those whose value is `none` (which marks nothing, as on a space). A field its name already
/// tells is not in the view's list, and is left out here too.
fn shown_fields(
    g: &Game,
    ty: crate::ir::TypeId,
    shown: &[u16],
    fields: &[(String, String)],
) -> Vec<(String, String)> {
    shown
        .iter()
        .filter_map(|&f| {
            let name = &g.types[ty].fields[f as usize].name;
            fields
                .iter()
                .find(|(n, v)| n == name && v != "none")
                .cloned()
        })
        .collect()
}

/// The shortest prefix of `value` that no other of `values` begins with (the whole value when
/// another value begins with all of it), its first letter in capitals: `high` of `low, high`
/// is `H`; `red` and `rose` beside `blue` are `Re` and `Ro`.
pub fn short_label(values: &[String], value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let mut n = 1.min(chars.len());
    while n < chars.len() {
        let prefix: String = chars[..n].iter().collect();
        if !values.iter().any(|v| v != value && v.starts_with(&prefix)) {
            break;
        }
        n += 1;
    }
    let mut out: String = chars[..n].iter().collect();
    if let Some(first) = out.get(..1) {
        if first.is_ascii() {
            out.replace_range(..1, &first.to_ascii_uppercase());
        }
    }
    out
}

/// On a space, the values that are the same seat's disc are one disc (a seat's own record of
/// the space beside the space itself, once the game is over and both show); then, with one
/// seat's disc left and other values (the `H` of a piece whose level is high), the others'
/// labels are drawn inside the disc (in the first one's colour, if its look gives one): one
/// token, every value in its tooltip.
fn merge_into_disc(tokens: &mut Vec<Token>) {
    let disc = |t: &Token| t.kind == "value" && t.seat.is_some();
    let mut i = 0;
    while i < tokens.len() {
        let same = (0..i)
            .find(|&j| disc(&tokens[i]) && disc(&tokens[j]) && tokens[j].seat == tokens[i].seat);
        match same {
            Some(j) => {
                let t = tokens.remove(i);
                tokens[j].text = format!("{} / {}", tokens[j].text, t.text);
            }
            None => i += 1,
        }
    }
    let discs: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].kind == "value" && tokens[i].seat.is_some())
        .collect();
    let [disc] = discs[..] else {
        return;
    };
    let others: Vec<usize> = (0..tokens.len())
        .filter(|&i| i != disc && tokens[i].kind == "value")
        .collect();
    if others.is_empty() {
        return;
    }
    let label: Vec<String> = others.iter().map(|&i| tokens[i].label.clone()).collect();
    let text: Vec<String> = others.iter().map(|&i| tokens[i].text.clone()).collect();
    tokens[disc].label = label.join(" ");
    tokens[disc].colour = others.iter().find_map(|&i| tokens[i].colour);
    tokens[disc].text = format!("{} / {}", tokens[disc].text, text.join(" / "));
    let mut k = 0;
    tokens.retain(|_| {
        k += 1;
        !others.contains(&(k - 1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Game {
        crate::check::load("t.rules", text)
            .game
            .expect("valid rules")
    }

    #[test]
    fn a_grid_is_laid_out_row_one_at_the_bottom_and_a_ring_on_a_circle() {
        let g = load(
            "game \"B\"\nplayers 2\nboard grid = grid(3, 2)\nboard track = ring(8)\n\
             var mark[grid]: Player\nvar at[track]: int\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        assert_eq!(l[0].shape, "grid");
        let a1 = &l[0].spaces[0];
        let c2 = &l[0].spaces[5];
        assert_eq!((a1.name.as_str(), a1.x, a1.y), ("a1", 0.0, 1.0));
        assert_eq!((c2.name.as_str(), c2.x, c2.y), ("c2", 2.0, 0.0));
        assert_eq!(l[0].edges.len(), 7); // 2 rows of 2 + 3 columns of 1
        assert_eq!(l[1].shape, "ring");
        assert_eq!(l[1].edges.len(), 8);
        let first = distance(&l[1].spaces[0], &l[1].spaces[1]);
        assert!((0.5..1.5).contains(&first), "{first}");
    }

    fn distance(a: &SpaceLayout, b: &SpaceLayout) -> f64 {
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }

    // Hex boards (rhombus and hexagon) as hexagons: every neighbour 1 apart, no two cells
    // closer (none overlaps another), row 1 at the bottom and each row half a cell to the right
    // of the one below it.
    #[test]
    fn hex_boards_are_laid_out_as_hexagons_touching_their_neighbours() {
        let g = load(
            "game \"X\"\nplayers 2\nboard rhombus = hex(4, 3)\nboard star = hex(3)\n\
             var a[rhombus]: Player\nvar b[star]: Player\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        for (k, board) in g.boards.iter().enumerate() {
            let lay = &l[k];
            assert_eq!((lay.shape.as_str(), lay.cells), ("hex", true));
            for s in 0..board.len() {
                for &t in board.neighbours(s) {
                    let d = distance(&lay.spaces[s as usize], &lay.spaces[t as usize]);
                    assert!((d - 1.0).abs() < 1e-9, "{} to {}: {d}", s, t);
                }
                for t in 0..s {
                    let d = distance(&lay.spaces[s as usize], &lay.spaces[t as usize]);
                    assert!(d > 1.0 - 1e-9, "{s} and {t} overlap: {d}");
                }
            }
        }
        let at = |name: &str| {
            let s = l[0].spaces.iter().find(|s| s.name == name).expect(name);
            (s.x, s.y)
        };
        let (a1, b1, a2) = (at("a1"), at("b1"), at("a2"));
        assert!(a2.1 < a1.1, "row 2 above row 1 (y downwards)");
        assert!(
            (a2.0 - a1.0 - 0.5).abs() < 1e-9,
            "row 2 half a cell to the right"
        );
        assert!((b1.0 - a1.0 - 1.0).abs() < 1e-9 && b1.1 == a1.1);
    }

    // A graph whose spaces are named by column and row (a mill board) is placed by its names:
    // the three squares of Nine Men's Morris' names, a7 at the top left; other names on a
    // circle.
    #[test]
    fn a_graph_named_by_columns_and_rows_is_placed_by_its_names() {
        let g = load(
            "game \"M\"\nplayers 2\nboard mill = graph {\n spaces a7, d7, g7, b6, d6, a4, g1, d1, a1\n\
             edges a7 - d7, d7 - g7, a7 - a4, a4 - a1, a1 - d1, d1 - g1, d7 - d6, b6 - d6\n}\n\
             board web = graph {\n spaces north, south, east\n edges north - south, south - east\n}\n\
             var a[mill]: Player\nvar b[web]: Player\naction pass() { end draw }\n\
             flow { turn seat(0) { choose { pass } } }\n",
        );
        let l = layouts(&g);
        assert_eq!((l[0].shape.as_str(), l[0].cells), ("graph", false));
        let at = |name: &str| {
            let s = l[0].spaces.iter().find(|s| s.name == name).expect(name);
            (s.x, s.y)
        };
        assert_eq!(at("a7"), (0.0, 0.0));
        assert_eq!(at("g1"), (6.0, 6.0));
        assert_eq!(at("d6"), (3.0, 1.0));
        assert_eq!(at("b6"), (1.0, 1.0));
        // Not letters and numbers: on a circle, neighbours apart.
        let w = &l[1].spaces;
        assert!(distance(&w[0], &w[1]) > 0.5 && distance(&w[1], &w[2]) > 0.5);
    }

    #[test]
    fn hidden_hands_are_backs_and_board_variables_sit_on_their_spaces() {
        let g = load(
            "game \"H\"\nplayers 2\nboard grid = grid(2, 2)\nvar mark[grid]: Player\n\
             component Card { rank: int }\nzone deck: Card hidden\nzone hand[Player]: Card owner\n\
             components Card in deck { \"c{rank}\" for r in 1..10 { rank = r } }\n\
             setup { shuffle deck  for p in players { deal 3 from deck to hand[p] } mark[b2] = seat(1) }\n\
             action pass() { mark[a1] = me  end draw }\nflow { turn seat(0) { choose { pass } } }\n",
        );
        let cfg = crate::engine::Config {
            players: 2,
            seed: 3,
            ..Default::default()
        };
        let st = g.start(&cfg).expect("starts");
        let s = scene(&g, &g.view(&st, Some(0)), 2);
        let hand = |z: &str| s.zones.iter().find(|x| x.zone == z).expect(z);
        assert_eq!(
            (hand("hand[p1]").cards.len(), hand("hand[p1]").backs),
            (3, 0)
        );
        assert_eq!(
            (hand("hand[p2]").cards.len(), hand("hand[p2]").backs),
            (0, 3)
        );
        assert_eq!(hand("deck").kind, "pile");
        assert_eq!(hand("deck").cards.len(), 0);
        assert_eq!(s.boards[0][3].len(), 1);
        assert_eq!(s.boards[0][3][0].seat, Some(1));
        assert_eq!(s.boards[0][3][0].text, "mark[b2]: p2");
        assert!(s.boards[0][0].is_empty());
    }

    fn drawn(tokens: &[Token]) -> Vec<(&str, &str, Option<u8>, usize)> {
        tokens
            .iter()
            .filter(|t| t.kind != "note")
            .map(|t| (t.kind, t.label.as_str(), t.seat, t.count))
            .collect()
    }

    // Issue 38: a cell's contents are drawn compact. A variable whose value is a player is
    // that player's disc, another variable's enum value on the same cell a short label inside
    // it (`H` for a high level), a value that marks nothing not drawn (`none`, `false`, the
    // declared start value `low` of every empty square), a variable only setup writes (each
    // cell's row) only in the tooltip, and equal components one token with a count
    // (`block ×3`).
    #[test]
    fn a_cell_holds_a_disc_a_short_label_and_counted_components() {
        let g = load(
            "game \"D\"\nplayers 2\nenum Level { low, high }\nboard field = grid(3, 3)\n\
             var piece[field]: Player\nvar level[field]: Level = low\nvar taken[field]: bool\n\
             var row[field]: int\nvar mine[field]: Player\ncomponent Block { }\nzone supply: Block\n\
             zone pile[field]: Block public\ncomponents Block in supply { \"block\" for i in 1..4 { } }\n\
             setup { let i = 0  for s in field { row[s] = i / 3 + 1  i = i + 1 }\n\
             piece[a1] = seat(0)  mine[a1] = seat(0)  piece[c3] = seat(1)  level[c3] = high  taken[b2] = true\n\
             for k in 1..3 { move top(supply) to pile[b1] } move top(supply) to pile[a1] }\n\
             action raise(s in field) where level[s] == low { level[s] = high  taken[s] = false  piece[s] = me  mine[s] = me }\n\
             flow { turn seat(0) { choose { raise } } }\n",
        );
        let cfg = crate::engine::Config {
            players: 2,
            seed: 1,
            ..Default::default()
        };
        let st = g.start(&cfg).expect("starts");
        let s = scene(&g, &g.view(&st, Some(0)), 2);
        let at = |name: &str| {
            let k = g.boards[crate::ir::BoardId(0)]
                .space_names
                .iter()
                .position(|n| n == name)
                .expect(name);
            &s.boards[0][k]
        };
        // a1: p1's disc (low: nothing inside), once though two variables say p1, and a
        // block; the row only as a note.
        assert_eq!(
            drawn(at("a1")),
            [("piece", "block", None, 1), ("value", "", Some(0), 1)]
        );
        assert!(at("a1")
            .iter()
            .any(|t| t.kind == "note" && t.text == "row[a1]: 1"));
        assert!(at("a1")
            .iter()
            .any(|t| t.text == "piece[a1]: p1 / mine[a1]: p1"));
        // c3: p2's high piece, one disc with H inside, both values in its tooltip.
        assert_eq!(drawn(at("c3")), [("value", "H", Some(1), 1)]);
        let disc = at("c3").iter().find(|t| t.seat.is_some()).expect("a disc");
        assert_eq!(disc.text, "piece[c3]: p2 / level[c3]: high");
        // b1: three equal blocks as one token; b2: a true bool by its name; c1: nothing.
        assert_eq!(drawn(at("b1")), [("piece", "block", None, 3)]);
        assert_eq!(at("b1")[0].text, "pile[b1]: block ×3");
        assert_eq!(drawn(at("b2")), [("value", "taken", None, 1)]);
        assert!(drawn(at("c1")).is_empty());
    }

    #[test]
    fn an_enum_value_is_labelled_by_its_shortest_distinct_prefix() {
        let kinds: Vec<String> = ["red", "rose", "blue", "green", "grey", "gold"]
            .map(String::from)
            .to_vec();
        let labels: Vec<String> = kinds.iter().map(|k| short_label(&kinds, k)).collect();
        assert_eq!(labels, ["Re", "Ro", "B", "Gree", "Grey", "Go"]);
        let sides: Vec<String> = ["s1", "s12", "s2"].map(String::from).to_vec();
        assert_eq!(short_label(&sides, "s1"), "S1");
        assert_eq!(short_label(&sides, "s12"), "S12");
    }

    // Issue 38: a disc is dropped by clicking its column. A grid whose columns an enum names
    // (its values the column letters, in order) gives each space that enum's value; a grid
    // without one, none.
    #[test]
    fn a_grid_whose_columns_an_enum_names_gives_each_space_its_column() {
        let g = load(
            "game \"C\"\nplayers 2\nenum Column { a, b, c }\nenum Other { a, c }\n\
             board grid = grid(3, 2)\nboard wide = grid(4, 1)\nvar mark[grid]: Player\n\
             var m2[wide]: Player\naction drop(c in Column) { end draw }\n\
             flow { turn seat(0) { choose { drop } } }\n",
        );
        let l = layouts(&g);
        let cols: Vec<Option<&str>> = l[0].spaces.iter().map(|s| s.column.as_deref()).collect();
        assert_eq!(
            cols,
            [
                Some("a"),
                Some("b"),
                Some("c"),
                Some("a"),
                Some("b"),
                Some("c")
            ]
        );
        assert!(l[1].spaces.iter().all(|s| s.column.is_none()));
    }

    // Issue 38: the winning line highlighted at the end. A `line(s in grid, 3, c where mark[s]
    // == me)` the rules test gives the page, once p1 has won, the three spaces of its line
    // and no other (not p2's two marks, not p1's lone mark); nothing while the game goes on.
    #[test]
    fn the_winners_line_is_found_once_the_game_is_over() {
        let g = load(
            "game \"L\"\nplayers 2\nboard grid = grid(3, 3)\nvar mark[grid]: Player\n\
             action place(c in grid) where mark[c] == none {\n mark[c] = me\n\
             if line(s in grid, 3, c where mark[s] == me) { win me }\n}\n\
             flow { repeat { for p in players { turn p { choose { place } } } } }\n",
        );
        assert_eq!(line_tests(&g).len(), 1);
        let cfg = crate::engine::Config {
            players: 2,
            seed: 1,
            ..Default::default()
        };
        let mut st = g.start(&cfg).expect("starts");
        let moves = [
            "place c=a1",
            "place c=a3",
            "place c=b2",
            "place c=c1",
            "place c=c3",
        ];
        for (k, m) in moves.iter().enumerate() {
            let s = scene(&g, &g.view(&st, Some(0)), 2);
            assert!(s.won.is_empty(), "before move {k}");
            crate::engine::scenario::apply_texts(&g, &mut st, &[m]).expect(m);
        }
        let s = scene(&g, &g.view(&st, Some(1)), 2);
        let names: Vec<&str> = s
            .won
            .iter()
            .map(|&(b, sp)| g.boards[crate::ir::BoardId(b as _)].space_names[sp as usize].as_str())
            .collect();
        assert_eq!(names, ["a1", "b2", "c3"]);
    }

    // Issue 38: square boards checkered when the rules use one colour of squares. A grid whose
    // pieces start on squares of one colour (a1, c1, b2, d2) has those squares dark (a1, not
    // b1); a grid whose start uses both colours, or is empty, is plain.
    #[test]
    fn a_grid_whose_pieces_start_on_one_colour_is_checkered() {
        let game = |places: &str| {
            load(&format!(
                "game \"K\"\nplayers 2\nboard field = grid(4, 4)\nboard bare = grid(3, 3)\n\
                 var a[field]: Player\nvar c[bare]: Player\nsetup {{ {places} }}\n\
                 action go(s in field) {{ a[s] = me }}\naction go2(u in bare) {{ c[u] = me }}\n\
                 flow {{ turn seat(0) {{ choose {{ go go2 }} }} }}\n"
            ))
        };
        let g = game("a[a1] = seat(0)  a[c1] = seat(0)  a[b2] = seat(0)  a[d2] = seat(1)");
        assert_eq!(checkered(&g), [Some(0), None]);
        let l = layouts(&g);
        let dark = |name: &str| {
            l[0].spaces
                .iter()
                .find(|s| s.name == name)
                .expect(name)
                .dark
        };
        assert!(dark("a1") && dark("b2") && dark("c3"));
        assert!(!dark("b1") && !dark("a2"));
        assert!(l[1].spaces.iter().all(|s| !s.dark));
        let g = game("a[a1] = seat(0)  a[b1] = seat(0)  a[c1] = seat(0)  a[d1] = seat(1)");
        assert_eq!(checkered(&g), [None, None]);
    }
}
