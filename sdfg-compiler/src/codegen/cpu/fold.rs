//! A `for` loop whose whole body folds a float local with `min` or `max`
//! (`for l in 1..SM { m = m.max(X[i, l]); }`), emitted as a fold of integer
//! order keys (`runtime::__glue::fold`): the same value bit for bit as
//! `MinMaxNumber` applied in order, in a loop the compiler vectorizes.

use super::body::BodyEmitter;
use crate::codegen::runtime_paths as rt;
use crate::ir::{range_end, Expr, ExprKind, LocalId, MathFn, ScalarType, Stmt, VarRef};
use proc_macro2::TokenStream;
use quote::quote;

impl BodyEmitter<'_> {
    /// The keyed form of `s`, when it is such a loop.
    pub(super) fn keyed_fold(&self, s: &Stmt) -> Option<TokenStream> {
        let Stmt::For {
            var,
            start,
            end,
            inclusive,
            step,
            body,
            ..
        } = s
        else {
            return None;
        };
        let [Stmt::AssignLocal { local, value, .. }] = body.as_slice() else {
            return None;
        };
        if self.lanes
            || !matches!(
                self.body.locals[*local].ty,
                ScalarType::F32 | ScalarType::F64
            )
        {
            return None;
        }
        let ExprKind::Call { func, args } = &value.kind else {
            return None;
        };
        let is_acc = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::Local(l)) if l == *local);
        let other = match args.as_slice() {
            [a, b] if is_acc(a) && !mentions(b, *local) => b,
            [a, b] if is_acc(b) && !mentions(a, *local) => a,
            _ => return None,
        };
        let fk = rt::fold_key();
        let (key, from, pick) = match func {
            MathFn::Max => (quote!(max_key), quote!(from_max_key), quote!(max)),
            MathFn::Min => (quote!(min_key), quote!(from_min_key), quote!(min)),
            _ => return None,
        };
        let place = self.local_place(*local);
        let v = self.expr(other);
        let step_body = quote! {
            __fold_key = ::core::cmp::Ord::#pick(__fold_key, #fk::#key(#v));
        };
        let each = self.for_loop(
            *var,
            start,
            range_end(end, *inclusive),
            step.as_ref(),
            step_body,
        );
        Some(quote! {{
            let mut __fold_key = #fk::#key(#place);
            #each
            #place = #fk::#from(__fold_key);
        }})
    }
}

/// Whether `e` reads local `l`.
fn mentions(e: &Expr, l: LocalId) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Var(VarRef::Local(m)) if m == l));
    found
}

#[cfg(test)]
mod tests {
    fn keyed(body: &str) -> bool {
        let src = format!(
            "sdfg S {{ symbol N: i64; gpu X: f32[N, N]; gpu D: f64[N, N]; gpu R: f32[N]; \
             state a {{ map m[i in 0..N] on gpu {{ {body} }} }} }}"
        );
        let out = crate::expand(src.parse().expect("lexes")).to_string();
        assert!(!out.contains("compile_error"), "{out}");
        out.contains("from_max_key") || out.contains("from_min_key")
    }

    #[test]
    fn min_and_max_loops_of_a_float_local_fold_in_keys() {
        for body in [
            "let mut m = X[i, 0]; for l in 1..N { m = m.max(X[i, l]); } R[i] = m;",
            "let mut m = X[i, 0]; for l in 1..N { m = X[i, l].min(m); } R[i] = m;",
            "let mut m = D[i, 0]; for l in (0..=N - 1).step_by(2) { m = m.max(D[i, l] * 2.0); } \
             R[i] = m as f32;",
        ] {
            assert!(keyed(body), "{body}");
        }
    }

    #[test]
    fn other_loops_keep_min_number_and_max_number() {
        for body in [
            // The accumulator read twice, a second statement, an integer.
            "let mut m = X[i, 0]; for l in 1..N { m = m.max(X[i, l] + m); } R[i] = m;",
            "let mut m = X[i, 0]; let mut s = 0.0f32; \
             for l in 1..N { m = m.max(X[i, l]); s += 1.0; } R[i] = m + s;",
            "let mut m = 0i64; for l in 1..N { m = m.max(l); } R[i] = m as f32;",
            "let mut m = X[i, 0]; for l in 1..N { m = m + X[i, l]; } R[i] = m;",
        ] {
            assert!(!keyed(body), "{body}");
        }
    }
}
