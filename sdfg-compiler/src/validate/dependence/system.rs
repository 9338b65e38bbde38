//! Integer linear equations `form = 0` over the dependence test's
//! variables, and the three ways to show they have no solution that the
//! test uses: the GCD test and the bounds test on each equation, and
//! rational elimination of the whole system (inconsistent, or the distance
//! of a parameter determined).
//!
//! Every answer errs on one side only: "no solution" is proven; anything
//! else (including arithmetic that would overflow `i128`) means "maybe".

use crate::ir::linear::Linear;
use std::collections::BTreeMap;

/// `lo <= v <= hi`, each a form over the variables kept symbolic (symbols);
/// None where unknown.
#[derive(Clone, Debug)]
pub(super) struct Bounds<V> {
    pub lo: Option<Linear<V>>,
    pub hi: Option<Linear<V>>,
}

/// Whether `form = 0` has no integer solution because of divisibility:
/// the gcd of the coefficients does not divide the constant.
pub(super) fn gcd_excludes<V: Ord + Clone>(form: &Linear<V>) -> bool {
    let g = form.terms.values().fold(0i128, |g, &k| gcd(g, k));
    if g == 0 {
        return form.constant != 0;
    }
    form.constant % g != 0
}

/// Whether `form = 0` has no solution with every bounded variable inside
/// its bounds: the least value of the form is above 0 or the greatest
/// below 0. `bounds` gives the bounds of a variable, or None for a variable
/// kept symbolic (it stays a term of the extremes, so `i + N - j` with `i,
/// j` in `0..=N-1` has the least value 1).
pub(super) fn bounds_exclude<V: Ord + Clone>(
    form: &Linear<V>,
    bounds: &impl Fn(&V) -> Option<Bounds<V>>,
) -> bool {
    let extreme = |least: bool| -> Option<Linear<V>> {
        let mut out = Linear::constant(form.constant);
        for (v, &k) in &form.terms {
            match bounds(v) {
                None => out = out.add(&Linear::var(v.clone()), k)?,
                Some(b) => {
                    let bound = if (k > 0) == least { b.lo } else { b.hi };
                    out = out.add(&bound?, k)?;
                }
            }
        }
        Some(out)
    };
    let least = extreme(true).and_then(|f| f.as_constant());
    let greatest = extreme(false).and_then(|f| f.as_constant());
    least.is_some_and(|c| c > 0)
        || greatest.is_some_and(|c| c < 0)
        || search_excludes(form, bounds) == Some(true)
}

/// Steps [`search_excludes`] may take before it gives up.
const SEARCH_BUDGET: u32 = 20_000;

/// Whether `form = 0` has no solution with every variable inside constant
/// bounds, by an exhaustive search: the variables in order of decreasing
/// coefficient, each over the values that leave the rest able to reach 0.
/// Decides what the bounds test alone cannot, as `d + 32 * (q - q')` with
/// `d` in `1..=31` and `q, q'` in `0..=7` (a strided loop inside a thread
/// map). None when a variable's bounds are not constants, or the search
/// would take more than [`SEARCH_BUDGET`] steps.
fn search_excludes<V: Ord + Clone>(
    form: &Linear<V>,
    bounds: &impl Fn(&V) -> Option<Bounds<V>>,
) -> Option<bool> {
    let mut vars: Vec<(i128, i128, i128)> = Vec::new();
    for (v, &k) in &form.terms {
        let b = bounds(v)?;
        let (lo, hi) = (b.lo?.as_constant()?, b.hi?.as_constant()?);
        if lo > hi {
            // An empty range: no solution at all.
            return Some(true);
        }
        vars.push((k, lo, hi));
    }
    vars.sort_by_key(|(k, _, _)| std::cmp::Reverse(k.unsigned_abs()));
    // The least and greatest value of the terms from position n on.
    let mut rest = vec![(0i128, 0i128); vars.len() + 1];
    for n in (0..vars.len()).rev() {
        let (k, lo, hi) = vars[n];
        let (a, b) = (k.checked_mul(lo)?, k.checked_mul(hi)?);
        rest[n] = (
            rest[n + 1].0.checked_add(a.min(b))?,
            rest[n + 1].1.checked_add(a.max(b))?,
        );
    }
    let mut budget = SEARCH_BUDGET;
    let found = solvable(&vars, &rest, 0, form.constant.checked_neg()?, &mut budget)?;
    Some(!found)
}

/// Whether the terms from position `n` on can sum to `target` (None: out
/// of budget or overflow).
fn solvable(
    vars: &[(i128, i128, i128)],
    rest: &[(i128, i128)],
    n: usize,
    target: i128,
    budget: &mut u32,
) -> Option<bool> {
    let Some(&(k, lo, hi)) = vars.get(n) else {
        return Some(target == 0);
    };
    // k * v must lie in [target - rest_max, target - rest_min].
    let (want_lo, want_hi) = (
        target.checked_sub(rest[n + 1].1)?,
        target.checked_sub(rest[n + 1].0)?,
    );
    let (from, to) = match k.signum() {
        1 => (div_ceil(want_lo, k)?, want_hi.div_euclid(k)),
        -1 => {
            let m = k.checked_neg()?;
            (
                div_ceil(want_hi.checked_neg()?, m)?,
                want_lo.checked_neg()?.div_euclid(m),
            )
        }
        // A variable without effect: one value stands for all.
        _ if want_lo <= 0 && 0 <= want_hi => (lo, lo),
        _ => return Some(false),
    };
    for v in from.max(lo)..=to.min(hi) {
        *budget = budget.checked_sub(1)?;
        if solvable(
            vars,
            rest,
            n + 1,
            target.checked_sub(k.checked_mul(v)?)?,
            budget,
        )? {
            return Some(true);
        }
    }
    Some(false)
}

/// `a / b` rounded up, `b > 0`.
fn div_ceil(a: i128, b: i128) -> Option<i128> {
    a.checked_neg()?.div_euclid(b).checked_neg()
}

/// A rational number `n / d`, `d > 0`, in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ratio {
    pub n: i128,
    pub d: i128,
}

impl Ratio {
    fn int(n: i128) -> Ratio {
        Ratio { n, d: 1 }
    }
    fn new(n: i128, d: i128) -> Option<Ratio> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let (n, d) = (n / g, d / g);
        Some(if d < 0 {
            Ratio {
                n: n.checked_neg()?,
                d: d.checked_neg()?,
            }
        } else {
            Ratio { n, d }
        })
    }
    fn is_zero(self) -> bool {
        self.n == 0
    }
    fn add(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(
            self.n
                .checked_mul(o.d)?
                .checked_add(o.n.checked_mul(self.d)?)?,
            self.d.checked_mul(o.d)?,
        )
    }
    fn sub(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(
            self.n
                .checked_mul(o.d)?
                .checked_sub(o.n.checked_mul(self.d)?)?,
            self.d.checked_mul(o.d)?,
        )
    }
    fn mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.n.checked_mul(o.n)?, self.d.checked_mul(o.d)?)
    }
    fn div(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.n.checked_mul(o.d)?, self.d.checked_mul(o.n)?)
    }
    /// The value when it is an integer.
    pub fn integer(self) -> Option<i128> {
        (self.d == 1).then_some(self.n)
    }
}

/// A system `sum(k * v) = rhs` in reduced row echelon form.
pub(super) struct Reduced<V> {
    /// Each row: its pivot variable, its coefficients (pivot 1, no other
    /// pivot), its right-hand side.
    rows: Vec<(V, BTreeMap<V, Ratio>, Ratio)>,
}

/// What elimination says about a system of equations `form = 0`.
pub(super) enum Elimination<V> {
    /// No rational solution: no solution at all.
    Inconsistent,
    Reduced(Reduced<V>),
    /// The arithmetic would overflow: nothing is known.
    Unknown,
}

/// Gauss-Jordan elimination over the rationals.
pub(super) fn eliminate<V: Ord + Clone>(equations: &[Linear<V>]) -> Elimination<V> {
    match try_eliminate(equations) {
        Some(Some(r)) => Elimination::Reduced(r),
        Some(None) => Elimination::Inconsistent,
        None => Elimination::Unknown,
    }
}

/// Some(None): inconsistent; None: overflow.
fn try_eliminate<V: Ord + Clone>(equations: &[Linear<V>]) -> Option<Option<Reduced<V>>> {
    let mut rows: Vec<(BTreeMap<V, Ratio>, Ratio)> = equations
        .iter()
        .map(|f| {
            let coefs = f
                .terms
                .iter()
                .map(|(v, &k)| (v.clone(), Ratio::int(k)))
                .collect();
            Some((coefs, Ratio::int(f.constant.checked_neg()?)))
        })
        .collect::<Option<_>>()?;
    let mut done: Vec<(V, BTreeMap<V, Ratio>, Ratio)> = Vec::new();
    while let Some((mut coefs, mut rhs)) = rows.pop() {
        // Eliminate the pivots found so far from this row.
        for (pivot, prow, prhs) in &done {
            if let Some(&k) = coefs.get(pivot) {
                for (v, &c) in prow {
                    let entry = coefs.entry(v.clone()).or_insert(Ratio::int(0));
                    *entry = entry.sub(k.mul(c)?)?;
                }
                rhs = rhs.sub(k.mul(*prhs)?)?;
                coefs.retain(|_, c| !c.is_zero());
            }
        }
        let Some((pivot, &lead)) = coefs.iter().next().map(|(v, c)| (v.clone(), c)) else {
            if !rhs.is_zero() {
                return Some(None);
            }
            continue;
        };
        for c in coefs.values_mut() {
            *c = c.div(lead)?;
        }
        rhs = rhs.div(lead)?;
        // Eliminate the new pivot from the rows found so far.
        for (_, prow, prhs) in &mut done {
            if let Some(&k) = prow.get(&pivot) {
                for (v, &c) in &coefs {
                    let entry = prow.entry(v.clone()).or_insert(Ratio::int(0));
                    *entry = entry.sub(k.mul(c)?)?;
                }
                *prhs = prhs.sub(k.mul(rhs)?)?;
                prow.retain(|_, c| !c.is_zero());
            }
        }
        done.push((pivot, coefs, rhs));
    }
    Some(Some(Reduced { rows: done }))
}

impl<V: Ord + Clone> Reduced<V> {
    /// The value of `sum(k * v)` (`query`) in every solution, when the
    /// equations determine it; None when it can vary (or on overflow).
    pub fn determined(&self, query: &BTreeMap<V, i128>) -> Option<Ratio> {
        let mut rest: BTreeMap<V, Ratio> = query
            .iter()
            .filter(|(_, &k)| k != 0)
            .map(|(v, &k)| (v.clone(), Ratio::int(k)))
            .collect();
        let mut value = Ratio::int(0);
        for (pivot, row, rhs) in &self.rows {
            let Some(&lambda) = rest.get(pivot) else {
                continue;
            };
            for (v, &c) in row {
                let entry = rest.entry(v.clone()).or_insert(Ratio::int(0));
                *entry = entry.sub(lambda.mul(c)?)?;
            }
            rest.retain(|_, c| !c.is_zero());
            value = value.add(lambda.mul(*rhs)?)?;
        }
        rest.is_empty().then_some(value)
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i128::try_from(a).unwrap_or(i128::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(terms: &[(&'static str, i128)], constant: i128) -> Linear<&'static str> {
        Linear {
            terms: terms.iter().copied().collect(),
            constant,
        }
    }

    #[test]
    fn gcd_test_separates_even_from_odd() {
        // 2i - 2j + 1 = 0: no integer solution; i - j + 1 = 0 has one.
        assert!(gcd_excludes(&form(&[("i", 2), ("j", -2)], 1)));
        assert!(!gcd_excludes(&form(&[("i", 1), ("j", -1)], 1)));
        assert!(gcd_excludes(&form(&[], 3)));
        assert!(!gcd_excludes(&form(&[], 0)));
    }

    #[test]
    fn bounds_test_keeps_symbols_symbolic() {
        // i + N - j = 0 with i, j in [0, N - 1]: least value 1.
        let in_range = Bounds {
            lo: Some(Linear::constant(0)),
            hi: Some(form(&[("N", 1)], -1)),
        };
        let bounds = |v: &&str| (*v != "N").then(|| in_range.clone());
        assert!(bounds_exclude(
            &form(&[("i", 1), ("N", 1), ("j", -1)], 0),
            &bounds
        ));
        // i - j + 1 = 0 has solutions in range.
        assert!(!bounds_exclude(&form(&[("i", 1), ("j", -1)], 1), &bounds));
        // With constant bounds [0, 9]: i - j = 100 is out of reach.
        let small = |_: &&str| {
            Some(Bounds {
                lo: Some(Linear::constant(0)),
                hi: Some(Linear::constant(9)),
            })
        };
        assert!(bounds_exclude(&form(&[("i", 1), ("j", -1)], -100), &small));
    }

    #[test]
    fn search_decides_bounded_equations_the_bounds_test_cannot() {
        let range = |lo: i128, hi: i128| Bounds {
            lo: Some(Linear::constant(lo)),
            hi: Some(Linear::constant(hi)),
        };
        // d + 32 q - 32 q' = 0, d in [1, 31], q, q' in [0, 7]: the terms
        // span [-223, 255], but no combination is 0.
        let strided = |v: &&str| Some(if *v == "d" { range(1, 31) } else { range(0, 7) });
        let eq = form(&[("d", 1), ("q", 32), ("q2", -32)], 0);
        assert!(bounds_exclude(&eq, &strided));
        // With d up to 32 there is a solution (d = 32, q' = q + 1).
        let wider = |v: &&str| Some(if *v == "d" { range(1, 32) } else { range(0, 7) });
        assert!(!bounds_exclude(&eq, &wider));
        // 4 d + 64 (h - h') + (i - i') with d in [1, 15], h in [0, 1], i in
        // [0, 3]: rows 64 h + 4 ty + i of a register-blocked tile.
        let tile = |v: &&str| {
            Some(match *v {
                "d" => range(1, 15),
                "h" | "h2" => range(0, 1),
                _ => range(0, 3),
            })
        };
        let eq = form(&[("d", 4), ("h", 64), ("h2", -64), ("i", 1), ("i2", -1)], 0);
        assert!(bounds_exclude(&eq, &tile));
        // Negative coefficients first: -3 a + 6 b = 1 (no solution: gcd).
        let any = |_: &&str| Some(range(-5, 5));
        assert!(bounds_exclude(&form(&[("a", -3), ("b", 6)], -1), &any));
        assert!(!bounds_exclude(&form(&[("a", -3), ("b", 6)], -3), &any));
        // A symbolic bound: the search does not run.
        let symbolic = |v: &&str| {
            Some(Bounds {
                lo: Some(Linear::constant(0)),
                hi: Some(form(&[("N", 1)], 0)),
            })
            .filter(|_| *v != "N")
        };
        assert!(!bounds_exclude(
            &form(&[("d", 1), ("q", 32), ("q2", -32)], 0),
            &symbolic
        ));
        // Past the budget: no answer (and no claim). 2 a - 2 b + 2 c - 2 e
        // is never odd, but every prefix leaves the rest able to reach 1.
        let huge = |_: &&str| Some(range(0, 1 << 20));
        let eq = form(&[("a", 2), ("b", -2), ("c", 2), ("e", -2)], -1);
        assert_eq!(search_excludes(&eq, &huge), None);
        assert!(gcd_excludes(&eq)); // the GCD test decides this one
    }

    #[test]
    fn elimination_determines_distances() {
        // a + b = 1, a - b = 1 (a = i - i', b = j - j' in effect).
        let eqs = [
            form(&[("a", 1), ("b", 1)], -1),
            form(&[("a", 1), ("b", -1)], -1),
        ];
        let Elimination::Reduced(r) = eliminate(&eqs) else {
            panic!("consistent")
        };
        assert_eq!(
            r.determined(&BTreeMap::from([("a", 1)])),
            Some(Ratio::int(1))
        );
        assert_eq!(
            r.determined(&BTreeMap::from([("b", 1)])),
            Some(Ratio::int(0))
        );
        // a + b = 1, a - b = 0: a = 1/2.
        let eqs = [
            form(&[("a", 1), ("b", 1)], -1),
            form(&[("a", 1), ("b", -1)], 0),
        ];
        let Elimination::Reduced(r) = eliminate(&eqs) else {
            panic!("consistent")
        };
        assert_eq!(r.determined(&BTreeMap::from([("a", 1)])), Ratio::new(1, 2));
        // One equation in two variables: a alone is free, a + b is not.
        let Elimination::Reduced(r) = eliminate(&eqs[..1]) else {
            panic!("consistent")
        };
        assert_eq!(r.determined(&BTreeMap::from([("a", 1)])), None);
        assert_eq!(
            r.determined(&BTreeMap::from([("a", 2), ("b", 2)])),
            Some(Ratio::int(2))
        );
        // a = 1 and a = 2.
        let eqs = [form(&[("a", 1)], -1), form(&[("a", 1)], -2)];
        assert!(matches!(eliminate(&eqs), Elimination::Inconsistent));
    }
}
