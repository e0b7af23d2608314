//! Declarations: names, enums, constants, component types, zones, variables, variants and
//! signatures, in the order that lets each refer to the ones it needs.

use super::*;
use crate::ir::{self, Type, Value};
use crate::syntax::ast;
use std::collections::HashMap;

impl Checker {
    /// The game's name and players, the enums and their values, as global names.
    pub(super) fn declare_basics(&mut self, file: &ast::File) {
        let mut players_seen = false;
        // Pass 1: names that others refer to, in dependency order.
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Game(n) => self.game.name = n.clone(),
                ast::DeclKind::Players { min, max } => {
                    if players_seen {
                        self.error(
                            Code::Duplicate,
                            d.span,
                            "`players` is declared twice",
                            "second declaration",
                        );
                    }
                    players_seen = true;
                    if *min < 1 || *max < *min || *max > ir::MAX_PLAYERS as i64 {
                        let p = self.error(
                            Code::Players,
                            d.span,
                            "invalid player count",
                            "players must be between 1 and 8, min before max",
                        );
                        p.help = Some("write `players 2` or `players 2..4`".into());
                    } else {
                        self.game.min_players = *min as u8;
                        self.game.max_players = *max as u8;
                    }
                }
                ast::DeclKind::Enum { name, values } => {
                    let id = self.game.enums.next_id();
                    self.define(name, Global::Enum(id));
                    let mut seen: HashMap<&str, ast::Span> = HashMap::new();
                    for v in values {
                        if let Some(prev) = seen.insert(&v.name, v.span) {
                            let p = self.error(
                                Code::Duplicate,
                                v.span,
                                format!("`{}` appears twice in enum `{}`", v.name, name.name),
                                "repeated value",
                            );
                            p.related = Some((prev, "first here".into()));
                        }
                    }
                    for (vi, v) in values.iter().enumerate() {
                        let value = Global::EnumValue(id, vi as u16);
                        self.note_decl(v.span, names::Target::Global(value));
                    }
                    self.game.enums.push(ir::EnumDef {
                        name: name.name.clone(),
                        values: values.iter().map(|v| v.name.clone()).collect(),
                    });
                }
                _ => {}
            }
        }
        if !players_seen {
            let p = self.error(
                Code::Players,
                ast::Span::new(0, 0),
                "the game does not say how many players it takes",
                "expected `players N` or `players A..B`",
            );
            p.help = Some("add a line such as `players 2..4`".into());
        }
        // Enum values: global names unless they clash with another enum's value.
        for (ei, e) in self.game.enums.clone().enumerate() {
            for (vi, v) in e.values.iter().enumerate() {
                if let Some((Global::EnumValue(other, _), _)) = self.globals.get(v).copied() {
                    self.ambiguous_values
                        .entry(v.clone())
                        .or_insert_with(|| vec![other])
                        .push(ei);
                    continue;
                }
                if self.globals.contains_key(v) {
                    continue; // a type or other name wins; the value is reachable as Enum.value
                }
                self.globals.insert(
                    v.clone(),
                    (Global::EnumValue(ei, vi as u16), ast::Span::default()),
                );
            }
        }
        // A value name of several enums is no name at all: it must be qualified.
        for name in self.ambiguous_values.keys() {
            self.globals.remove(name);
        }
        self.declare_directions(file);
    }

    /// Constants, in order: each may use the ones above it.
    pub(super) fn declare_consts(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Const { name, value } = &d.kind {
                let v = self.const_eval(value, &[]).unwrap_or(Value::None);
                let id = self.game.consts.next_id();
                self.define(name, Global::Const(id));
                self.game.consts.push(ir::ConstDef {
                    name: name.name.clone(),
                    value: v,
                    table_read: None,
                });
            }
        }
    }

    /// Component types, boards and the fields of the types.
    pub(super) fn declare_types(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Component { name, .. } = &d.kind {
                let id = self.game.types.next_id();
                self.define(name, Global::Type(id));
                self.game.types.push(ir::CompType {
                    name: name.name.clone(),
                    fields: vec![],
                });
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Board {
                name,
                shape,
                args,
                flags,
                graph,
                closed,
            } = &d.kind
            {
                self.board(name, shape, args, flags, d.span);
                self.board_extras(graph.as_ref(), closed.as_ref());
            }
        }
        for d in &file.decls {
            if let ast::DeclKind::Component { name, fields } = &d.kind {
                let Some((Global::Type(t), _)) = self.globals.get(&name.name).copied() else {
                    continue;
                };
                let mut out: Vec<ir::FieldDef> = vec![];
                for f in fields {
                    if out.iter().any(|o| o.name == f.name.name) {
                        self.error(
                            Code::Duplicate,
                            f.name.span,
                            format!("field `{}` is declared twice", f.name.name),
                            "repeated field",
                        );
                        continue;
                    }
                    let (ty, range) = self.type_expr(&f.ty);
                    let default = match &f.default {
                        Some(e) if matches!(ty, Type::Action(_)) => {
                            let p = self.error(
                                Code::Effect,
                                e.span,
                                format!("the action field `{}` has no default", f.name.name),
                                "a default",
                            );
                            p.help = Some(
                                "name its action in each entry: `\"Bonus\" { effect = gain }`; an entry that names none holds `none`, which `do` skips".into(),
                            );
                            Value::None
                        }
                        Some(e) => {
                            let v = self.const_eval(e, &[]).unwrap_or(Value::None);
                            let vt = self.value_type(v);
                            self.expect_type(
                                vt,
                                ty,
                                e.span,
                                &format!("the default of `{}`", f.name.name),
                            );
                            v
                        }
                        None => Value::None,
                    };
                    self.note_decl(f.name.span, names::Target::Field(t, out.len() as u16));
                    out.push(ir::FieldDef {
                        name: f.name.name.clone(),
                        ty,
                        range,
                        clamp: f.ty.clamps(),
                        default,
                        seen_by: None,
                        kept: f.kept,
                    });
                }
                for f in fields {
                    let Some(by) = &f.seen_by else { continue };
                    match out.iter().position(|o| o.name == by.name) {
                        Some(bi) if out[bi].ty == Type::Player => {
                            self.note_use(by.span, names::Target::Field(t, bi as u16));
                            if let Some(me) = out.iter_mut().find(|o| o.name == f.name.name) {
                                me.seen_by = Some(bi as u16);
                            }
                        }
                        Some(_) => {
                            let p = self.error(
                                Code::Visibility,
                                by.span,
                                format!(
                                    "`{}` must be a Player field to say who sees `{}`",
                                    by.name, f.name.name
                                ),
                                "not a Player field",
                            );
                            p.help =
                                Some("declare it as `owner: Player` in the same component".into());
                        }
                        None => {
                            let p = self.error(
                                Code::UnknownField,
                                by.span,
                                format!("`{}` has no field `{}`", name.name, by.name),
                                "unknown field",
                            );
                            p.help =
                                Some("`seen by` names a Player field of the same component".into());
                        }
                    }
                }
                self.game.types[t].fields = out;
            }
        }
    }

    /// Zones and variables, their instances and slots, and the boards' space names.
    pub(super) fn declare_places(&mut self, file: &ast::File) {
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Zone {
                    name,
                    index,
                    ty,
                    visibility,
                } => self.zone(name, index, ty, visibility.as_ref()),
                ast::DeclKind::Var {
                    name,
                    index,
                    ty,
                    visibility,
                    ..
                } => {
                    self.var(name, index, ty, d.span);
                    self.var_visibility(name, visibility.as_ref());
                }
                _ => {}
            }
        }
        self.instances();
        // Space names (`a1`, `row3`) are values where no other name takes them.
        for (bi, b) in self.game.boards.enumerate() {
            for (si, n) in b.space_names.iter().enumerate() {
                self.globals
                    .entry(n.clone())
                    .or_insert((Global::Space(bi, si as u32), ast::Span::default()));
            }
        }
        // So are direction names (`north`, `clockwise`).
        if let Some(e) = self.game.direction_enum {
            for (i, n) in ir::DIRECTION_NAMES.iter().enumerate() {
                self.globals
                    .entry(n.to_string())
                    .or_insert((Global::EnumValue(e, i as u16), ast::Span::default()));
            }
        }
    }

    /// Variants and the constants they set.
    pub(super) fn declare_variants(&mut self, file: &ast::File) {
        for d in &file.decls {
            if let ast::DeclKind::Variant {
                name,
                description,
                group,
                sets,
            } = &d.kind
            {
                let id = self.game.variants.next_id();
                self.define(name, Global::Variant(id));
                let mut out = vec![];
                for (n, e) in sets {
                    match self.globals.get(&n.name).copied() {
                        Some((Global::Const(c), _)) => {
                            self.used.insert(Global::Const(c));
                            self.note_use(n.span, names::Target::Global(Global::Const(c)));
                            if let Some(v) = self.const_eval(e, &[]) {
                                out.push((c, v));
                            }
                        }
                        _ => {
                            let p = self.error(
                                Code::UnknownConst,
                                n.span,
                                format!(
                                    "variant `{}` sets `{}`, which is not a constant",
                                    name.name, n.name
                                ),
                                "not a `const`",
                            );
                            p.help = Some("a variant can only change values declared with `const NAME = value`".into());
                        }
                    }
                }
                self.game.variants.push(ir::VariantDef {
                    name: name.name.clone(),
                    description: description.clone(),
                    group: group.as_ref().map(|g| g.name.clone()),
                    sets: out,
                });
            }
        }
    }

    /// Signatures of functions, set kinds and actions before any body, so bodies may refer to each other.
    pub(super) fn declare_signatures(&mut self, file: &ast::File) {
        // Signatures of functions and actions before any body, so bodies may refer to each other.
        let mut score_at = None;
        for d in &file.decls {
            match &d.kind {
                ast::DeclKind::Score { .. } if score_at.is_none() => {
                    score_at = Some(ast::Span::new(d.span.start, d.span.start + "score".len()));
                }
                ast::DeclKind::Def { name, params, .. } => {
                    let id = self.game.defs.next_id();
                    self.define(name, Global::Def(id));
                    self.game.defs.push(ir::Def {
                        name: name.name.clone(),
                        params: params.len() as u16,
                        param_types: vec![],
                        locals: 0,
                        body: ir::Expr::Lit(Value::None),
                    });
                }
                ast::DeclKind::Procedure { name, params, .. } => {
                    let id = self.declare_action(name, params.len(), false, None);
                    self.procedures.insert(id);
                }
                ast::DeclKind::Set { name, params, .. } => {
                    let id = self.game.sets.next_id();
                    self.define(name, Global::Set(id));
                    self.game.sets.push(ir::SetDef {
                        name: name.name.clone(),
                        params: params.len() as u16,
                        locals: 0,
                        conds: vec![],
                        points: ir::Expr::Lit(Value::None),
                    });
                }
                ast::DeclKind::Action {
                    name,
                    params,
                    sequence,
                    window,
                    guard,
                    ..
                } => {
                    let window = match window {
                        None => None,
                        Some(ast::Window::Anytime) => Some(false),
                        Some(ast::Window::Before(w)) if w.name == "turn" => Some(true),
                        Some(ast::Window::Before(w)) => {
                            let p = self.error(
                                Code::Window,
                                w.span,
                                format!("windows open `before turn`, not before `{}`", w.name),
                                "not a window",
                            );
                            p.help = Some(
                                "write `action redeploy() before turn { ... }`, or `anytime`"
                                    .into(),
                            );
                            None
                        }
                    };
                    let id = self.declare_action(name, params.len(), *sequence, window);
                    self.action_asts
                        .insert(id, (params.clone(), guard.clone(), name.span));
                }
                _ => {}
            }
        }
        if let Some(head) = score_at {
            self.declare_score_function(head);
        }
    }

    /// A bound of a range type: a number, or a constant's value when the file is read (as
    /// board sizes: a variant or `--set` does not change a type). `None` when it is neither
    /// (reported).
    fn range_bound(&mut self, e: &ast::Expr) -> Option<i64> {
        match self.const_eval(e, &[])? {
            Value::Int(n) => Some(n),
            _ => {
                let p = self.error(
                    Code::Type,
                    e.span,
                    "a bound of a range type must be a number",
                    "not a number",
                );
                p.help = Some("write a number or the name of a number `const`".into());
                None
            }
        }
    }

    pub(crate) fn type_expr(&mut self, t: &ast::TypeExpr) -> (Type, Option<(i64, i64)>) {
        match t {
            ast::TypeExpr::Range { lo, hi, span, .. } => {
                let (Some(lo), Some(hi)) = (self.range_bound(lo), self.range_bound(hi)) else {
                    return (Type::Int, None);
                };
                if lo > hi {
                    self.error(
                        Code::Range,
                        *span,
                        "empty range",
                        "the low end is above the high end",
                    );
                }
                (Type::Int, Some((lo, hi)))
            }
            ast::TypeExpr::Action { params, .. } => {
                let mut tys = Vec::with_capacity(params.len());
                for p in params {
                    tys.push(self.value_type_expr(p).0);
                }
                let sig = match self.game.signatures.iter().position(|s| *s == tys) {
                    Some(i) => ir::SigId(i as u16),
                    None => {
                        let id = self.game.signatures.next_id();
                        self.game.signatures.push(tys);
                        id
                    }
                };
                (Type::Action(sig), None)
            }
            ast::TypeExpr::Named(n) => match n.name.as_str() {
                "int" => (Type::Int, None),
                "bool" => (Type::Bool, None),
                "Player" => (Type::Player, None),
                _ => match self.globals.get(&n.name).copied() {
                    Some((Global::Enum(e), _)) => {
                        self.used.insert(Global::Enum(e));
                        self.note_use(n.span, names::Target::Global(Global::Enum(e)));
                        (Type::Enum(e), None)
                    }
                    Some((Global::Type(c), _)) => {
                        self.note_use(n.span, names::Target::Global(Global::Type(c)));
                        (Type::Comp(c), None)
                    }
                    Some((Global::Board(b), _)) => {
                        self.used.insert(Global::Board(b));
                        self.note_use(n.span, names::Target::Global(Global::Board(b)));
                        (Type::Space(b), None)
                    }
                    _ => {
                        let p = self.error(
                            Code::UnknownType,
                            n.span,
                            format!("unknown type `{}`", n.name),
                            "not a type",
                        );
                        p.help = Some("types are int, bool, Player, a range such as 0..10, an enum, a component type or a board".into());
                        (Type::Any, None)
                    }
                },
            },
        }
    }

    /// The type of a variable, a parameter or an action's argument: an action type is
    /// refused (it is only a component field's type).
    pub(crate) fn value_type_expr(&mut self, t: &ast::TypeExpr) -> (Type, Option<(i64, i64)>) {
        let (ty, range) = self.type_expr(t);
        if let Type::Action(_) = ty {
            let p = self.error(
                Code::Effect,
                t.span(),
                "an action type is only a component field's type",
                "not a field",
            );
            p.help = Some(
                "declare `effect: action(Card)` in a `component`, then `do c.effect(c)`".into(),
            );
            return (Type::Any, None);
        }
        (ty, range)
    }

    pub(crate) fn dims(&mut self, index: &[ast::IndexType]) -> Vec<ir::Dim> {
        let mut out = vec![];
        for i in index {
            let i = match i {
                ast::IndexType::Name(i) => i,
                ast::IndexType::Range { lo, hi, span } => {
                    let (Some(lo), Some(hi)) = (self.range_bound(lo), self.range_bound(hi)) else {
                        out.push(ir::Dim::Range { lo: 0, size: 1 });
                        continue;
                    };
                    if lo > hi {
                        self.error(
                            Code::Range,
                            *span,
                            "empty range",
                            "the low end is above the high end",
                        );
                    }
                    // a size beyond the slots allowed is refused by `instances_of`
                    let size = (hi.saturating_sub(lo).saturating_add(1)).clamp(1, u32::MAX as i64);
                    out.push(ir::Dim::Range {
                        lo,
                        size: size as u32,
                    });
                    continue;
                }
            };
            if i.name == "Player" {
                out.push(ir::Dim::Player);
                continue;
            }
            match self.globals.get(&i.name).copied() {
                Some((Global::Enum(e), _)) => {
                    self.used.insert(Global::Enum(e));
                    self.note_use(i.span, names::Target::Global(Global::Enum(e)));
                    out.push(ir::Dim::Enum(e));
                }
                Some((Global::Board(b), _)) => {
                    self.used.insert(Global::Board(b));
                    self.note_use(i.span, names::Target::Global(Global::Board(b)));
                    out.push(ir::Dim::Board(b));
                }
                _ => {
                    let p = self.error(
                        Code::UnknownIndex,
                        i.span,
                        format!("cannot index by `{}`", i.name),
                        "not Player, an enum, a board or a range",
                    );
                    p.help = Some(
                        "zones and variables are indexed by Player, an enum, a board or a range \
                         of numbers (`1..50`)"
                            .into(),
                    );
                }
            }
        }
        out
    }

    pub(crate) fn zone(
        &mut self,
        name: &ast::Ident,
        index: &[ast::IndexType],
        ty: &ast::Ident,
        vis: Option<&ast::Ident>,
    ) {
        let dims = self.dims(index);
        let t = match self.globals.get(&ty.name).copied() {
            Some((Global::Type(t), _)) => {
                self.note_use(ty.span, names::Target::Global(Global::Type(t)));
                t
            }
            _ => {
                let p = self.error(
                    Code::UnknownType,
                    ty.span,
                    format!("unknown component type `{}`", ty.name),
                    "zones hold components of one type",
                );
                p.help = Some("declare it with `component Name { field: type }`".into());
                UNKNOWN_TYPE
            }
        };
        let visibility = match vis.map(|v| v.name.as_str()) {
            None | Some("public") => ir::Visibility::Public,
            Some("owner") => ir::Visibility::Owner,
            Some("hidden") => ir::Visibility::Hidden,
            Some("top") => ir::Visibility::Top,
            Some("secret") => ir::Visibility::Secret,
            Some(other) => {
                let p = self.error(
                    Code::Visibility,
                    vis.map_or(name.span, |v| v.span),
                    format!("unknown visibility `{other}`"),
                    "not a visibility",
                );
                p.help = Some("write `public`, `owner`, `hidden`, `top` or `secret`".into());
                ir::Visibility::Public
            }
        };
        let owner_dim = dims.iter().position(|d| *d == ir::Dim::Player);
        if visibility == ir::Visibility::Owner && owner_dim.is_none() {
            let p = self.error(
                Code::Visibility,
                vis.map_or(name.span, |v| v.span),
                format!("zone `{}` is `owner` but not indexed by Player", name.name),
                "no owner to see it",
            );
            p.help = Some("index it by player: `zone hand[Player]: Card owner`".into());
        }
        let (sizes, count) = self.instances_of(
            &dims,
            name,
            "zone",
            self.game.zone_instances as usize,
            ir::MAX_ZONE_INSTANCES,
        );
        let id = self.game.zones.next_id();
        self.define(name, Global::Zone(id));
        self.game.zones.push(ir::ZoneDef {
            name: name.name.clone(),
            dims,
            sizes,
            base: ir::InstId(self.game.zone_instances),
            count,
            ty: t,
            visibility,
            owner_dim,
        });
        self.game.zone_instances += count;
    }

    /// The size of each index of a zone or variable and how many instances it has, checked
    /// against the limit on all of them (`so_far` are taken). An index with no value (a board
    /// with an error) or too many instances leave it one instance, with sizes of 1, so that
    /// its uses still check.
    fn instances_of(
        &mut self,
        dims: &[ir::Dim],
        name: &ast::Ident,
        what: &str,
        so_far: usize,
        limit: usize,
    ) -> (Vec<u32>, u32) {
        let sizes: Vec<u32> = dims.iter().map(|d| self.game.dim_size(*d)).collect();
        let count = sizes
            .iter()
            .try_fold(1usize, |n, s| n.checked_mul(*s as usize))
            .unwrap_or(usize::MAX);
        if sizes.contains(&0) {
            return (vec![1; dims.len()], 1);
        }
        if count.saturating_add(so_far) > limit {
            let p = self.error(
                Code::Limit,
                name.span,
                format!(
                    "{what} `{}` would have {} instances, more than the {limit} a game may have",
                    name.name,
                    if count == usize::MAX {
                        "too many".to_string()
                    } else {
                        count.to_string()
                    }
                ),
                "too many combinations of its indexes",
            );
            p.help = Some(format!(
                "every combination of the indexes is one instance, and a game has at most \
                 {limit} for all its {what}s together (see \"Limits\" in the language reference)"
            ));
            return (vec![1; dims.len()], 1);
        }
        (sizes, count as u32)
    }

    pub(crate) fn instances(&mut self) {
        let mut out = Vec::with_capacity(self.game.zone_instances as usize);
        for (zi, z) in self.game.zones.enumerate() {
            for k in 0..z.count {
                let mut rest = k;
                let mut owner = None;
                let mut space = None;
                for i in (0..z.dims.len()).rev() {
                    let v = rest % z.sizes[i];
                    rest /= z.sizes[i];
                    match z.dims[i] {
                        ir::Dim::Player => owner = Some(v as u8),
                        ir::Dim::Board(b) => space = Some((b, v)),
                        ir::Dim::Enum(_) | ir::Dim::Range { .. } => {}
                    }
                }
                out.push(ir::Instance {
                    zone: zi,
                    owner,
                    space,
                });
            }
        }
        self.game.instances = out.into();
    }

    pub(crate) fn var(
        &mut self,
        name: &ast::Ident,
        index: &[ast::IndexType],
        ty: &ast::TypeExpr,
        span: ast::Span,
    ) {
        let dims = self.dims(index);
        let (t, range) = self.value_type_expr(ty);
        let (sizes, count) = self.instances_of(
            &dims,
            name,
            "variable",
            self.game.var_slots as usize,
            ir::MAX_VAR_SLOTS,
        );
        let id = self.game.vars.next_id();
        self.define(name, Global::Var(id));
        self.game.vars.push(ir::VarDef {
            name: name.name.clone(),
            dims,
            sizes,
            base: self.game.var_slots,
            count,
            ty: t,
            range,
            clamp: ty.clamps(),
            visibility: ir::Visibility::Public,
            owner_dim: None,
            init: None,
            span,
        });
        self.game.var_slots += count;
    }

    /// Who sees a variable's values: `public` (the default), `owner` (needs a Player index),
    /// `hidden` or `secret`; `top` is for zones only.
    pub(crate) fn var_visibility(&mut self, name: &ast::Ident, vis: Option<&ast::Ident>) {
        let Some((Global::Var(v), _)) = self.globals.get(&name.name).copied() else {
            return;
        };
        let Some(vis) = vis else { return };
        let owner_dim = self.game.vars[v]
            .dims
            .iter()
            .position(|d| *d == ir::Dim::Player);
        let visibility = match vis.name.as_str() {
            "public" => ir::Visibility::Public,
            "hidden" => ir::Visibility::Hidden,
            "secret" => ir::Visibility::Secret,
            "owner" if owner_dim.is_some() => ir::Visibility::Owner,
            "owner" => {
                let p = self.error(
                    Code::Visibility,
                    vis.span,
                    format!(
                        "variable `{}` is `owner` but not indexed by Player",
                        name.name
                    ),
                    "no owner to see it",
                );
                p.help = Some("index it by player: `var bid[Player]: 0..10 owner`".into());
                return;
            }
            _ => {
                let p = self.error(
                    Code::Visibility,
                    vis.span,
                    format!("a variable cannot be `{}`", vis.name),
                    "not a visibility of variables",
                );
                p.help = Some("variables are `public`, `owner`, `hidden` or `secret`".into());
                return;
            }
        };
        let var = &mut self.game.vars[v];
        var.visibility = visibility;
        var.owner_dim = owner_dim;
    }
}
