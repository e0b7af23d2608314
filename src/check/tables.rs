//! `components` tables: generators, field values and name templates.

use super::*;
use crate::ir::{self, Type, Value};
use crate::syntax::ast;

impl Checker {
    pub(crate) fn components(&mut self, ty: &ast::Ident, zone: &ast::Expr, entries: &[ast::Entry]) {
        self.reading_table = true;
        self.components_table(ty, zone, entries);
        self.reading_table = false;
    }

    /// The components of a table: its type and zone checked, then each entry's components
    /// made.
    fn components_table(&mut self, ty: &ast::Ident, zone: &ast::Expr, entries: &[ast::Entry]) {
        let Some((t, inst)) = self.table_zone(ty, zone) else {
            return;
        };
        let fields = self.game.types[t].fields.clone();
        for e in entries {
            self.table_entry(ty, t, inst, &fields, e);
        }
    }

    /// A table's component type and the zone its components start in, which must hold that
    /// type; `None`, with an error reported, when either is wrong.
    fn table_zone(
        &mut self,
        ty: &ast::Ident,
        zone: &ast::Expr,
    ) -> Option<(ir::TypeId, ir::InstId)> {
        let t = match self.globals.get(&ty.name).copied() {
            Some((Global::Type(t), _)) => {
                self.note_use(ty.span, names::Target::Global(Global::Type(t)));
                t
            }
            _ => {
                self.error(
                    Code::UnknownType,
                    ty.span,
                    format!("unknown component type `{}`", ty.name),
                    "not a component type",
                );
                return None;
            }
        };
        let inst = self.const_zone(zone)?;
        let zone_ty = self.game.zones[self.game.instances[inst].zone].ty;
        if zone_ty == UNKNOWN_TYPE {
            return None;
        }
        if zone_ty != t {
            let zt = self.game.zones[self.game.instances[inst].zone].ty;
            let p = self.error(
                Code::Type,
                zone.span,
                format!(
                    "zone holds {} components, not {}",
                    self.game.types[zt].name, ty.name
                ),
                "wrong zone for this type",
            );
            p.help = Some("components must start in a zone declared for their type".into());
            return None;
        }
        Some((t, inst))
    }

    /// One entry of a table: a component per combination of its generators' values, with the
    /// fields the entry gives (others take their defaults) and the name its template makes.
    fn table_entry(
        &mut self,
        ty: &ast::Ident,
        t: ir::TypeId,
        inst: ir::InstId,
        fields: &[ir::FieldDef],
        e: &ast::Entry,
    ) {
        // The values of every generator, then how many components they make, before
        // anything is expanded.
        let Some(gens) = self.entry_generators(e) else {
            return;
        };
        if !self.entry_fits(e, &gens) {
            return;
        }
        // Expand the generators into every combination of values.
        let combos = combinations(&gens);
        self.check_entry_fields(ty, t, fields, e);
        let first = combos.first().cloned().unwrap_or_default();
        let template = self.name_template(&e.name, e.name_span, t, &first);
        for combo in &combos {
            let mut values = vec![];
            for (fi, f) in fields.iter().enumerate() {
                let v = match e.fields.iter().find(|(n, _)| n.name == f.name) {
                    Some((_, x)) if matches!(f.ty, Type::Action(_)) => {
                        self.effect_value(x, f.ty, self.game.comps.next_id())
                    }
                    Some((_, x)) => {
                        let v = self.const_eval(x, combo).unwrap_or(Value::None);
                        let vt = self.value_type(v);
                        self.expect_type(vt, f.ty, x.span, &format!("field `{}`", f.name));
                        v
                    }
                    None => self.field_default(t, fi),
                };
                values.push(v);
            }
            let name = template
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(s) => ir::NamePart::Text(s.clone()),
                    TemplatePart::Field(f) => ir::NamePart::Field(*f),
                    TemplatePart::Gen(g) => ir::NamePart::Text(
                        combo
                            .iter()
                            .find(|(n, _)| n == g)
                            .map(|(_, v)| self.const_text(*v))
                            .unwrap_or_default(),
                    ),
                })
                .collect();
            let base = self
                .game
                .comps
                .last()
                .map_or(0, |c: &ir::Comp| c.field_base + c.fields.len() as u32);
            self.game.comps.push(ir::Comp {
                ty: t,
                name,
                fields: values,
                field_base: base,
                zone: inst,
            });
        }
    }

    /// The values of an entry's generators, in order; `None` when one of them is not known
    /// when the file is read, or is empty (reported).
    fn entry_generators<'e>(&mut self, e: &'e ast::Entry) -> Option<Vec<(&'e str, Vec<Value>)>> {
        let mut gens: Vec<(&str, Vec<Value>)> = vec![];
        for g in &e.generators {
            let Some(vals) = self.const_coll(&g.coll) else {
                break;
            };
            if vals.is_empty() {
                let p = self.error(
                    Code::Range,
                    g.coll.span,
                    format!("`{}` takes no value here", g.var.name),
                    "this generator is empty",
                );
                p.help = Some(
                    "a range `a..b` needs `a <= b`, a list at least one value; an entry \
                     with an empty generator would make no component"
                        .into(),
                );
                break;
            }
            gens.push((&g.var.name, vals));
        }
        (gens.len() == e.generators.len()).then_some(gens)
    }

    /// Whether the components an entry makes (every combination of its generators' values)
    /// stay within the game's limit; the first entry past it is reported.
    fn entry_fits(&mut self, e: &ast::Entry, gens: &[(&str, Vec<Value>)]) -> bool {
        let made = gens
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
            .and_then(|n| n.checked_add(self.game.comps.len()));
        if made.is_none_or(|n| n > ir::MAX_COMPONENTS) {
            if !self.too_many_components {
                self.too_many_components = true;
                let p = self.error(
                    Code::Limit,
                    e.name_span,
                    format!("a game has at most {} components", ir::MAX_COMPONENTS),
                    "with this entry there would be more",
                );
                p.help = Some(format!(
                    "every combination of the generators' values makes a component; see \
                     \"Limits\" in the language reference{}",
                    if gens.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (this entry makes {})",
                            gens.iter()
                                .map(|(_, v)| v.len().to_string())
                                .collect::<Vec<_>>()
                                .join(" x ")
                        )
                    }
                ));
            }
            return false;
        }
        true
    }

    /// Checks that every field an entry gives is a field of the table's type.
    fn check_entry_fields(
        &mut self,
        ty: &ast::Ident,
        t: ir::TypeId,
        fields: &[ir::FieldDef],
        e: &ast::Entry,
    ) {
        for (fname, _) in &e.fields {
            if let Some(fi) = fields.iter().position(|f| f.name == fname.name) {
                self.note_use(fname.span, names::Target::Field(t, fi as u16));
            } else {
                let p = self.error(
                    Code::UnknownField,
                    fname.span,
                    format!("`{}` has no field `{}`", ty.name, fname.name),
                    "unknown field",
                );
                p.help = Some(format!(
                    "fields of {}: {}",
                    ty.name,
                    fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }

    pub(crate) fn field_default(&self, t: ir::TypeId, fi: usize) -> Value {
        let f = &self.game.types[t].fields[fi];
        match (f.default, f.ty) {
            (Value::None, Type::Bool) => Value::Bool(false),
            // The value nearest 0 in the field's range (an empty range was reported).
            (Value::None, Type::Int) => Value::Int(f.range.map_or(0, |(lo, hi)| 0.min(hi).max(lo))),
            (v, _) => v,
        }
    }

    pub(crate) fn name_template(
        &mut self,
        text: &str,
        span: ast::Span,
        t: ir::TypeId,
        gens: &[(String, Value)],
    ) -> Vec<TemplatePart> {
        let mut out = vec![];
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                out.push(TemplatePart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                self.error(
                    Code::Template,
                    span,
                    "unclosed `{` in a name",
                    "expected `}`",
                );
                return out;
            };
            let key = &rest[open + 1..open + close];
            if gens.iter().any(|(n, _)| n == key)
                && !self.game.types[t].fields.iter().any(|f| f.name == key)
            {
                out.push(TemplatePart::Gen(key.to_string()));
            } else if let Some(fi) = self.game.types[t].fields.iter().position(|f| f.name == key) {
                if self.game.types[t].fields[fi].seen_by.is_some() {
                    let p = self.error(
                        Code::Template,
                        span,
                        format!("the name shows `{key}`, a secret field"),
                        "every player sees names",
                    );
                    p.help = Some(
                        "names appear in action texts and views; keep `seen by` fields out of them"
                            .into(),
                    );
                }
                out.push(TemplatePart::Field(fi as u16));
            } else {
                let p = self.error(
                    Code::Template,
                    span,
                    format!("the name refers to `{key}`, which is neither a field nor a generator"),
                    "unknown name in braces",
                );
                p.help = Some("`{field}` shows a field's value in the component's name".into());
            }
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            out.push(TemplatePart::Text(rest.to_string()));
        }
        out
    }

    pub(crate) fn const_text(&self, v: Value) -> String {
        match v {
            Value::Int(n) => n.to_string(),
            Value::Enum(e, i) => self.game.enums[e].values[i as usize].clone(),
            Value::Bool(b) => b.to_string(),
            _ => String::new(),
        }
    }
}

pub(crate) enum TemplatePart {
    Text(String),
    Field(u16),
    Gen(String),
}

impl Checker {
    /// The value of an action field in a table entry: the action named (or `none`). Its
    /// parameters are compared with the field's type once every action's are known
    /// ([`Checker::check_effects`]).
    fn effect_value(&mut self, x: &ast::Expr, ty: Type, comp: ir::CompId) -> Value {
        let Type::Action(sig) = ty else {
            return Value::None;
        };
        let name = match &x.kind {
            ast::ExprKind::None => return Value::None,
            ast::ExprKind::Name(n) => n,
            _ => {
                let p = self.error(
                    Code::Effect,
                    x.span,
                    "an action field holds the name of an action",
                    "not an action's name",
                );
                p.help = Some("write `effect = gain`, naming an `action gain(...)`".into());
                return Value::None;
            }
        };
        match self.globals.get(name).copied() {
            Some((Global::Action(a), _)) => {
                self.action_refs.insert(a);
                self.note_use(x.span, names::Target::Global(Global::Action(a)));
                // Only the first entry naming an action is checked against each signature.
                if !self.effect_uses.iter().any(|u| u.1 == a && u.2 == sig) {
                    self.effect_uses.push((x.span, a, sig, comp));
                }
                Value::Action(a)
            }
            _ => {
                let p = self.error(
                    Code::UnknownAction,
                    x.span,
                    format!("unknown action `{name}`"),
                    "not an action",
                );
                p.help = Some("declare it with `action name(...) { ... }`".into());
                Value::None
            }
        }
    }
}

/// Every combination of the generators' values, the first generator's values varying
/// slowest.
fn combinations(gens: &[(&str, Vec<Value>)]) -> Vec<Vec<(String, Value)>> {
    let mut combos: Vec<Vec<(String, Value)>> = vec![vec![]];
    for (name, vals) in gens {
        let mut next = Vec::with_capacity(combos.len() * vals.len());
        for c in &combos {
            for v in vals {
                let mut c2 = c.clone();
                c2.push((name.to_string(), *v));
                next.push(c2);
            }
        }
        combos = next;
    }
    combos
}
