//! Exact index ranges: the interval arithmetic behind the bounds prechecks.
//!
//! The compiler decides which accesses are prechecked and, for each index,
//! emits a plan (`sdfg_compiler::ir::bounds::IntervalPlan`): a postfix
//! program of [`IntervalOp`]s over the values of symbol-only
//! subexpressions (*points*, which the glue evaluates exactly as the kernel
//! does) and the ranges of map parameters and loop variables (*vars*).
//! [`evaluate`] runs it in `i128`. Every operator in a plan is monotone in
//! each operand and the operands vary independently, so the result is the
//! exact range: its ends are values the index really takes. An
//! intermediate whose range leaves its integer type means the kernel's
//! arithmetic wraps there for some iteration; [`evaluate`] reports that as
//! a [`Wrap`] instead of guessing what the wrapped values are.
//!
//! The glue calls [`index_range`]; other generated code that needs a
//! range over a different set of iterations (a chunk of a map) can call
//! [`evaluate`] with the vars of that set.

use crate::error::Error;
use std::cell::RefCell;

/// An integer type of the tasklet language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntType {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u32`
    U32,
    /// `u64`
    U64,
}

impl IntType {
    /// The smallest and the largest value.
    pub fn range(self) -> (i128, i128) {
        match self {
            IntType::I8 => (i8::MIN as i128, i8::MAX as i128),
            IntType::I16 => (i16::MIN as i128, i16::MAX as i128),
            IntType::U8 => (0, u8::MAX as i128),
            IntType::U16 => (0, u16::MAX as i128),
            IntType::I32 => (i32::MIN as i128, i32::MAX as i128),
            IntType::I64 => (i64::MIN as i128, i64::MAX as i128),
            IntType::U32 => (0, u32::MAX as i128),
            IntType::U64 => (0, u64::MAX as i128),
        }
    }

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IntType::I8 | IntType::U8 => 8,
            IntType::I16 | IntType::U16 => 16,
            IntType::I32 | IntType::U32 => 32,
            IntType::I64 | IntType::U64 => 64,
        }
    }

    /// The Rust spelling, for messages.
    pub fn name(self) -> &'static str {
        match self {
            IntType::I8 => "i8",
            IntType::I16 => "i16",
            IntType::U8 => "u8",
            IntType::U16 => "u16",
            IntType::I32 => "i32",
            IntType::I64 => "i64",
            IntType::U32 => "u32",
            IntType::U64 => "u64",
        }
    }
}

/// One step of a plan; the type is the step's result type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalOp {
    /// Push the single value `points[k]`.
    Point(usize),
    /// Push `vars[k]`.
    Var(usize),
    /// Negation.
    Neg(IntType),
    /// Bitwise not.
    Not(IntType),
    /// Sum.
    Add(IntType),
    /// Difference.
    Sub(IntType),
    /// Product.
    Mul(IntType),
    /// Truncating division by `points[k]` (`x / 0 == 0`).
    DivBy(usize, IntType),
    /// Shift left by `points[k]`, the amount masked to the type's width.
    ShlBy(usize, IntType),
    /// Shift right by `points[k]` (arithmetic; the amount masked).
    ShrBy(usize, IntType),
    /// Minimum.
    Min(IntType),
    /// Maximum.
    Max(IntType),
    /// A cast to this type.
    Cast(IntType),
}

/// A closed range of integer values, computed exactly in i128.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The smallest value.
    pub lo: i128,
    /// The largest value.
    pub hi: i128,
}

// `add`, `sub`, `neg` and `mul` saturate instead of overflowing, unlike the
// operators their names suggest (an i128 never overflows for values of the
// language's types, and a saturated result lies outside every type anyway).
#[allow(clippy::should_implement_trait)]
impl Interval {
    /// The single value `v`.
    pub fn point(v: i128) -> Interval {
        Interval { lo: v, hi: v }
    }
    /// The values `start + k * step` for `k` in `0..count` (count >= 1).
    pub fn strided(start: i128, count: u64, step: i128) -> Interval {
        let last = start + (count.max(1) as i128 - 1) * step;
        Interval {
            lo: start.min(last),
            hi: start.max(last),
        }
    }
    /// The values a `for v in start..end` loop with `step` takes (`end`
    /// exclusive; an inclusive end is passed plus one, in i128), or None
    /// when the loop runs no iteration.
    pub fn of_loop(start: i128, end: i128, step: i128) -> Option<Interval> {
        if step <= 0 || end <= start {
            return None;
        }
        let count = (end - start + step - 1) / step;
        Some(Interval {
            lo: start,
            hi: start + (count - 1) * step,
        })
    }
    /// Sums of one value of each.
    pub fn add(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.saturating_add(o.lo),
            hi: self.hi.saturating_add(o.hi),
        }
    }
    /// Differences of one value of each.
    pub fn sub(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.saturating_sub(o.hi),
            hi: self.hi.saturating_sub(o.lo),
        }
    }
    /// Negations.
    pub fn neg(self) -> Interval {
        Interval {
            lo: self.hi.saturating_neg(),
            hi: self.lo.saturating_neg(),
        }
    }
    /// Products of one value of each (the extremes are at the corners).
    pub fn mul(self, o: Interval) -> Interval {
        let c = [
            self.lo.saturating_mul(o.lo),
            self.lo.saturating_mul(o.hi),
            self.hi.saturating_mul(o.lo),
            self.hi.saturating_mul(o.hi),
        ];
        Interval {
            lo: c.into_iter().min().unwrap_or(0),
            hi: c.into_iter().max().unwrap_or(0),
        }
    }
    /// `f` applied to both ends, for a monotone `f` (either direction).
    fn monotone(self, f: impl Fn(i128) -> i128) -> Interval {
        let (a, b) = (f(self.lo), f(self.hi));
        Interval {
            lo: a.min(b),
            hi: a.max(b),
        }
    }
    fn within(self, ty: IntType) -> bool {
        let (min, max) = ty.range();
        self.lo >= min && self.hi <= max
    }
}

/// An intermediate of an index whose range leaves its type: some iteration
/// wraps around there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrap {
    /// The intermediate's type.
    pub ty: IntType,
    /// Its exact range, before wrapping.
    pub range: Interval,
}

thread_local! {
    /// The evaluation stack of [`evaluate`], kept per thread: evaluating
    /// runs for every prechecked index of every call, so it neither
    /// allocates (after a thread's first plans) nor initializes more than
    /// it uses (a zeroed inline array of 16 was 5% of a ten-kernel call on
    /// the CPU device).
    static STACK: RefCell<Vec<Interval>> = const { RefCell::new(Vec::new()) };
}

/// Runs a plan (see the module documentation). A plan the compiler emitted
/// is well formed; a malformed one (an index out of `points`/`vars`, a
/// stack underflow) yields the widest interval, which no check accepts.
pub fn evaluate(ops: &[IntervalOp], points: &[i128], vars: &[Interval]) -> Result<Interval, Wrap> {
    let fresh = || evaluate_on(&mut Vec::new(), ops, points, vars);
    STACK
        .try_with(|stack| match stack.try_borrow_mut() {
            Ok(mut stack) => {
                stack.clear();
                evaluate_on(&mut stack, ops, points, vars)
            }
            // Not reentered today; a fresh stack if it ever is.
            Err(_) => fresh(),
        })
        .unwrap_or_else(|_| fresh())
}

/// [`evaluate`] on `stack` (empty).
fn evaluate_on(
    stack: &mut Vec<Interval>,
    ops: &[IntervalOp],
    points: &[i128],
    vars: &[Interval],
) -> Result<Interval, Wrap> {
    const MALFORMED: Interval = Interval {
        lo: i128::MIN,
        hi: i128::MAX,
    };
    let point = |k: usize| points.get(k).copied();
    for &op in ops {
        let (result, ty) = match op {
            IntervalOp::Point(k) => {
                stack.push(point(k).map_or(MALFORMED, Interval::point));
                continue;
            }
            IntervalOp::Var(k) => {
                stack.push(vars.get(k).copied().unwrap_or(MALFORMED));
                continue;
            }
            IntervalOp::Neg(ty) | IntervalOp::Not(ty) | IntervalOp::Cast(ty) => {
                let Some(a) = stack.pop() else {
                    return Ok(MALFORMED);
                };
                let r = match op {
                    IntervalOp::Neg(_) => a.neg(),
                    // Two's complement: !x == -x - 1 for signed types,
                    // MAX - x for unsigned ones; both decreasing.
                    IntervalOp::Not(_) => a.monotone(|x| ty.range().1 + ty.range().0 - x),
                    _ => a,
                };
                (r, ty)
            }
            IntervalOp::DivBy(k, ty) | IntervalOp::ShlBy(k, ty) | IntervalOp::ShrBy(k, ty) => {
                let (Some(a), Some(b)) = (stack.pop(), point(k)) else {
                    return Ok(MALFORMED);
                };
                // The kernel's `wrapping_shl(b as u32)`: the amount modulo the width.
                let amount = b.rem_euclid(ty.bits() as i128) as u32;
                let r = match op {
                    IntervalOp::DivBy(..) if b == 0 => Interval::point(0),
                    // Truncating division by a constant is monotone.
                    IntervalOp::DivBy(..) => a.monotone(|x| x / b),
                    IntervalOp::ShlBy(..) => a.monotone(|x| {
                        x.checked_mul(1i128 << amount).unwrap_or(if x < 0 {
                            i128::MIN
                        } else {
                            i128::MAX
                        })
                    }),
                    // An arithmetic shift is a division rounding down.
                    _ => a.monotone(|x| x >> amount),
                };
                (r, ty)
            }
            IntervalOp::Add(ty)
            | IntervalOp::Sub(ty)
            | IntervalOp::Mul(ty)
            | IntervalOp::Min(ty)
            | IntervalOp::Max(ty) => {
                let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                    return Ok(MALFORMED);
                };
                let r = match op {
                    IntervalOp::Add(_) => a.add(b),
                    IntervalOp::Sub(_) => a.sub(b),
                    IntervalOp::Mul(_) => a.mul(b),
                    IntervalOp::Min(_) => Interval {
                        lo: a.lo.min(b.lo),
                        hi: a.hi.min(b.hi),
                    },
                    _ => Interval {
                        lo: a.lo.max(b.lo),
                        hi: a.hi.max(b.hi),
                    },
                };
                (r, ty)
            }
        };
        if !result.within(ty) {
            return Err(Wrap { ty, range: result });
        }
        stack.push(result);
    }
    match (stack.pop(), stack.is_empty()) {
        (Some(r), true) => Ok(r),
        _ => Ok(MALFORMED),
    }
}

/// The range of a prechecked index, or an `Err` naming it (`what`) when
/// its arithmetic wraps around for some iteration.
pub fn index_range(
    what: &dyn Fn() -> String,
    ops: &[IntervalOp],
    points: &[i128],
    vars: &[Interval],
) -> Result<Interval, Error> {
    evaluate(ops, points, vars).map_err(|w| Error::OutOfBounds {
        what: format!(
            "{} wraps around `{}` for some iteration (an intermediate value takes {}..={}); \
             the kernel would compute a different index",
            what(),
            w.ty.name(),
            w.range.lo,
            w.range.hi
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntType::*;
    use IntervalOp::*;

    fn run(ops: &[IntervalOp], points: &[i128], vars: &[Interval]) -> Result<Interval, Wrap> {
        evaluate(ops, points, vars)
    }

    fn iv(lo: i128, hi: i128) -> Interval {
        Interval { lo, hi }
    }

    #[test]
    fn a_deep_stack_comes_back() {
        // 20 points pushed, then 19 additions: 1 + 2 + ... + 20.
        let n = 20;
        let mut ops: Vec<IntervalOp> = (0..n).map(Point).collect();
        ops.extend(std::iter::repeat_n(Add(I64), n - 1));
        let points: Vec<i128> = (1..=n as i128).collect();
        let sum = (n * (n + 1) / 2) as i128;
        assert_eq!(run(&ops, &points, &[]), Ok(iv(sum, sum)));
        // One operand too few: malformed, not a panic.
        assert_eq!(run(&ops[1..], &points, &[]).map(|r| r.hi), Ok(i128::MAX));
    }

    #[test]
    fn affine_indices_are_exact() {
        // j + 1 over j in 1..2799
        let j = Interval::strided(1, 2798, 1);
        assert_eq!(
            run(&[Var(0), Point(0), Add(I64)], &[1], &[j]),
            Ok(iv(2, 2799))
        );
        // -2 * v over v in -2..=3
        assert_eq!(
            run(&[Point(0), Var(0), Mul(I64)], &[-2], &[iv(-2, 3)]),
            Ok(iv(-6, 4))
        );
        assert_eq!(Interval::of_loop(0, 10, 3), Some(iv(0, 9)));
        assert_eq!(Interval::of_loop(3, 3, 1), None);
    }

    #[test]
    fn division_and_shifts_by_points_are_monotone() {
        let i = iv(0, 9);
        // (S / 2) * i is a point times i; i / 2, i / -2, i / 0
        assert_eq!(run(&[Var(0), DivBy(0, I32)], &[2], &[i]), Ok(iv(0, 4)));
        assert_eq!(run(&[Var(0), DivBy(0, I32)], &[-2], &[i]), Ok(iv(-4, 0)));
        assert_eq!(run(&[Var(0), DivBy(0, I32)], &[0], &[i]), Ok(iv(0, 0)));
        // Shift amounts are masked: 33 is 1 for a 32-bit type, -1 is 31.
        assert_eq!(run(&[Var(0), ShlBy(0, I64)], &[3], &[i]), Ok(iv(0, 72)));
        assert_eq!(run(&[Var(0), ShlBy(0, I32)], &[33], &[i]), Ok(iv(0, 18)));
        assert_eq!(
            run(&[Var(0), ShrBy(0, I32)], &[-1], &[iv(-5, 5)]),
            Ok(iv(-1, 0))
        );
        assert_eq!(
            run(&[Var(0), ShrBy(0, I32)], &[1], &[iv(-5, 5)]),
            Ok(iv(-3, 2))
        );
    }

    #[test]
    fn not_min_max_and_casts() {
        assert_eq!(run(&[Var(0), Not(I32)], &[], &[iv(0, 3)]), Ok(iv(-4, -1)));
        assert_eq!(
            run(&[Var(0), Not(U32)], &[], &[iv(0, 3)]),
            Ok(iv(u32::MAX as i128 - 3, u32::MAX as i128))
        );
        let clamp = [Var(0), Point(0), Min(I32), Point(1), Max(I32)];
        assert_eq!(run(&clamp, &[7, 2], &[iv(-3, 10)]), Ok(iv(2, 7)));
        assert_eq!(run(&[Var(0), Cast(U32)], &[], &[iv(0, 5)]), Ok(iv(0, 5)));
    }

    #[test]
    fn wrapping_intermediates_are_reported() {
        let big = iv(0, i32::MAX as i128);
        let w = run(&[Var(0), Point(0), Add(I32)], &[1], &[big]).unwrap_err();
        assert_eq!(w.ty, I32);
        assert_eq!(w.range.hi, i32::MAX as i128 + 1);
        assert!(run(&[Var(0), Cast(U32)], &[], &[iv(-1, 5)]).is_err());
        assert!(run(&[Var(0), ShlBy(0, U64)], &[63], &[iv(0, 4)]).is_err());
        // i32::MIN / -1 wraps in the kernel.
        assert!(run(&[Var(0), DivBy(0, I32)], &[-1], &[iv(i32::MIN as i128, 0)]).is_err());
        let e = index_range(
            &|| "index 0 of `A`".into(),
            &[Var(0), Neg(U32)],
            &[],
            &[iv(0, 1)],
        );
        let text = e.unwrap_err().to_string();
        assert!(text.contains("index 0 of `A` wraps around `u32`"), "{text}");
    }

    #[test]
    fn malformed_plans_give_the_widest_range() {
        assert_eq!(run(&[Add(I32)], &[], &[]), Ok(iv(i128::MIN, i128::MAX)));
        assert_eq!(run(&[Point(3)], &[], &[]), Ok(iv(i128::MIN, i128::MAX)));
        assert_eq!(run(&[], &[], &[]), Ok(iv(i128::MIN, i128::MAX)));
    }
}
