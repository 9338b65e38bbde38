//! Ranges of `for` loops, maps and subsets: `a..b`, `a..=b` and
//! `(a..b).step_by(s)`, with bounds unified to one integer type.

use super::*;
use syn::spanned::Spanned;

/// A lowered range `start..end` (end exclusive) with an optional step.
/// `inclusive`: written `start..=last`, `end` is `last + 1` (see
/// `ir::inclusive_end`).
pub(crate) struct LoweredRange {
    pub ty: ScalarType,
    pub start: Expr,
    pub end: Expr,
    pub inclusive: bool,
    pub step: Option<Expr>,
}

impl Lowerer<'_> {
    /// `a..b`, `a..=b` or `(a..b).step_by(s)`: bounds unified to one integer type.
    pub(crate) fn range(&mut self, sc: &mut Scope, e: &syn::Expr) -> Option<LoweredRange> {
        self.range_typed(sc, e, None)
    }

    /// The range of a loop variable (`for`, thread maps), typed like Rust:
    /// bounds of unsuffixed literals only take the type the variable's
    /// first typed use needs (`for i in 0..8 { A[base + i] }` with `base:
    /// i64` makes `i` an `i64`), found by the probe pass of `Lowerer::body`
    /// through `key`. Returns the range and, in the probe pass for such a
    /// range, the key under which the variable's uses record that type.
    pub(crate) fn loop_range(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        key: LetKey,
    ) -> (Option<LoweredRange>, Option<LetKey>) {
        let open = self.range_is_flexible(sc, e);
        let hint = if open {
            sc.hints.get(&key).copied()
        } else {
            None
        };
        let range = self.range_typed(sc, e, hint);
        let still_open = (sc.probing && open && hint.is_none()).then_some(key);
        (range, still_open)
    }

    /// Whether every bound (and the step) of a range is flexible.
    fn range_is_flexible(&self, sc: &Scope, e: &syn::Expr) -> bool {
        let stripped = strip_parens(e);
        let (range, step) = match stripped {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let syn::Expr::Range(r) = range else {
            return false;
        };
        [r.start.as_deref(), r.end.as_deref(), step]
            .into_iter()
            .flatten()
            .all(|p| is_flexible(self, sc, p))
    }

    /// [`Lowerer::range`]; `hint` types bounds of unsuffixed literals only.
    fn range_typed(
        &mut self,
        sc: &mut Scope,
        e: &syn::Expr,
        hint: Option<ScalarType>,
    ) -> Option<LoweredRange> {
        let stripped = strip_parens(e);
        let (range, step) = match stripped {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let syn::Expr::Range(r) = range else {
            self.error(
                Diagnostic::error(
                    e.span(),
                    format!("expected a range, found `{}`", source_text(e)),
                )
                .help("write `a..b`, `a..=b` or `(a..b).step_by(s)`"),
            );
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.error(
                Diagnostic::error(r.span(), "a range needs both bounds").help("write `0..N`"),
            );
            return None;
        };
        let mut parts: Vec<&syn::Expr> = vec![start, end];
        parts.extend(step);
        // The first part with a type of its own sets the type.
        let mut lowered: Vec<Option<Expr>> = vec![None; parts.len()];
        let mut ok = true;
        let fixed = parts.iter().position(|p| !is_flexible(self, sc, p));
        let ty = match fixed {
            Some(k) => {
                lowered[k] = self.expr(sc, parts[k], None);
                // On an error, the other parts are still lowered (for their errors).
                ok &= lowered[k].is_some();
                lowered[k].as_ref().map(|e| e.ty)
            }
            None => hint.or_else(|| self.default_for(sc, &parts)),
        };
        for (k, part) in parts.iter().enumerate() {
            if lowered[k].is_none() && Some(k) != fixed {
                lowered[k] = self.expr(sc, part, ty);
                ok &= lowered[k].is_some();
            }
        }
        if !ok {
            return None;
        }
        let mut lowered = lowered.into_iter().flatten();
        let (start_e, end_e) = (lowered.next()?, lowered.next()?);
        let step_e = lowered.next();
        let ty = start_e.ty;
        if !ty.is_integer() {
            self.error(
                Diagnostic::error(
                    start.span(),
                    format!("range bounds must be integers, found `{ty}`"),
                )
                .help(format!(
                    "convert them: {}",
                    cast_hint(&source_text(start), ScalarType::I64)
                )),
            );
            return None;
        }
        let (end_e, inclusive) = match r.limits {
            syn::RangeLimits::HalfOpen(_) => (end_e, false),
            syn::RangeLimits::Closed(_) => self.plus_one(end_e)?,
        };
        if let Some(s) = &step_e {
            if let ExprKind::Lit(v) = s.kind {
                if v.as_i128().is_some_and(|v| v <= 0) {
                    self.error(
                        Diagnostic::error(s.span, "the step of a range must be positive")
                            .help("write `(a..b).step_by(1)` or a larger step"),
                    );
                    return None;
                }
            }
        }
        Some(LoweredRange {
            ty,
            start: start_e,
            end: end_e,
            inclusive,
            step: step_e,
        })
    }

    /// The exclusive end of an inclusive range ending at `e`: a literal
    /// below the type's maximum folded, else `e + 1` marked inclusive,
    /// which run-time code evaluates without overflow (`0..=u32::MAX` in
    /// a `u32` range runs to the maximum).
    fn plus_one(&mut self, e: Expr) -> Option<(Expr, bool)> {
        let ty = e.ty;
        if let ExprKind::Lit(v) = e.kind {
            let next = v.as_i128()? + 1;
            // The end keeps the range's type (`1u16..=1u16` ends at `2u16`).
            if ty.int_range().is_some_and(|(_, max)| next <= max) {
                let folded = Value::from_bits(ty, next as u128);
                return Some((Expr::lit(folded, e.span), false));
            }
        }
        Some((crate::ir::inclusive_end(e), true))
    }
}
