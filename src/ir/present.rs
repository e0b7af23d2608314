//! How a game is drawn (`present { }`): looks of enum values, the variables drawn as pieces,
//! the roles of zones, the fields a card shows and checkered boards. A side table the engine
//! never reads: no outcome, legal list or view depends on it.

use super::{BoardId, EnumId, TypeId, VarId, ZoneId};

/// The colours a look may name, as the page draws them (CSS colours).
pub const COLOURS: &[(&str, &str)] = &[
    ("black", "#222222"),
    ("white", "#f4f4f0"),
    ("grey", "#8a8a8a"),
    ("red", "#c62828"),
    ("orange", "#ef6c00"),
    ("yellow", "#d4a600"),
    ("gold", "#b8860b"),
    ("green", "#2e7d32"),
    ("teal", "#00897b"),
    ("blue", "#1565c0"),
    ("violet", "#6a1b9a"),
    ("pink", "#d81b60"),
    ("brown", "#6d4c41"),
];

/// The roles a zone off the board may play, in the order the page lists them.
pub const ZONE_ROLES: &[&str] = &["hand", "row", "deck", "pile"];

/// How one value is drawn: each part optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Look {
    /// A glyph drawn in place of the value's short label (`♚`).
    pub glyph: Option<String>,
    /// A short label, used where a glyph is not (the terminal) or instead of the default one.
    pub label: Option<String>,
    /// A colour, by name (one of [`COLOURS`]).
    pub colour: Option<&'static str>,
}

/// A game's presentation: empty when the file has no `present` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Presentation {
    /// Looks of enum values.
    pub looks: Vec<((EnumId, u16), Look)>,
    /// The board-indexed variables drawn on the spaces; when not empty, the other
    /// board-indexed variables are in a space's tooltip only.
    pub pieces: Vec<VarId>,
    /// Zones given a role (one of [`ZONE_ROLES`]), in the order written.
    pub zones: Vec<(ZoneId, &'static str)>,
    /// Per component type, the fields its cards show beside the name, in order (by index).
    pub shows: Vec<(TypeId, Vec<u16>)>,
    /// Looks of component types: how a component is drawn on a space.
    pub comp_looks: Vec<(TypeId, Look)>,
    /// Boards drawn checkered (`true`) or plain (`false`) whatever the default would say.
    pub boards: Vec<(BoardId, bool)>,
}

impl Presentation {
    /// How value `v` of enum `e` looks, if the section says.
    pub fn look(&self, e: EnumId, v: u16) -> Option<&Look> {
        self.looks
            .iter()
            .find(|(k, _)| *k == (e, v))
            .map(|(_, l)| l)
    }

    /// The role given to zone `z`, if any.
    pub fn role(&self, z: ZoneId) -> Option<&'static str> {
        self.zones.iter().find(|(k, _)| *k == z).map(|(_, r)| *r)
    }

    /// The fields the cards of type `t` show, if the section says.
    pub fn shows(&self, t: TypeId) -> Option<&[u16]> {
        self.shows
            .iter()
            .find(|(k, _)| *k == t)
            .map(|(_, f)| f.as_slice())
    }

    /// How a component of type `t` looks on a space, if the section says.
    pub fn comp_look(&self, t: TypeId) -> Option<&Look> {
        self.comp_looks
            .iter()
            .find(|(k, _)| *k == t)
            .map(|(_, l)| l)
    }

    /// Whether board `b` is drawn checkered (`Some(true)`), plain (`Some(false)`), or as the
    /// default says (`None`).
    pub fn checkered(&self, b: BoardId) -> Option<bool> {
        self.boards.iter().find(|(k, _)| *k == b).map(|(_, c)| *c)
    }

    /// The CSS colour of a colour's name.
    pub fn css(name: &str) -> Option<&'static str> {
        COLOURS.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }
}
