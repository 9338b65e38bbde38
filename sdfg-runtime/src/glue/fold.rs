//! Loops that fold a float local with `min`/`max` (`m = m.max(X[i, l])`),
//! as the CPU twins run them: in an integer order key instead of the float,
//! so the compiler vectorizes the loop (an integer `max` is a reduction it
//! recognizes; [`MinMaxNumber::max_number`](crate::MinMaxNumber), a chain of
//! float compares for NaN and signed zeros, is not).
//!
//! The key of a float orders like the float with `-0 < +0` (its bits, with
//! the magnitude bits of negative numbers flipped), and a NaN gets the key
//! that loses every comparison: the folds give exactly
//! `min_number`/`max_number` folded in any order (NaN ignored, a NaN only
//! when every value is one, then the type's canonical `NAN`).

/// A float with order keys for `min`/`max` folds (see the module).
pub trait FoldKey: Copy {
    /// The integer key type (`i32` for `f32`, `i64` for `f64`).
    type Key: Ord + Copy;
    /// The key of `self` in a `max` fold (NaN: the smallest key).
    fn max_key(self) -> Self::Key;
    /// The value of a `max` fold's key.
    fn from_max_key(key: Self::Key) -> Self;
    /// The key of `self` in a `min` fold (NaN: the largest key).
    fn min_key(self) -> Self::Key;
    /// The value of a `min` fold's key.
    fn from_min_key(key: Self::Key) -> Self;
}

macro_rules! fold_key {
    ($($t:ty => $key:ty, $unsigned:ty;)*) => {$(
        impl FoldKey for $t {
            type Key = $key;
            #[inline(always)]
            fn max_key(self) -> $key {
                if self.is_nan() { <$key>::MIN } else { order_key(self.to_bits() as $key) }
            }
            #[inline(always)]
            fn from_max_key(key: $key) -> $t {
                if key == <$key>::MIN { <$t>::NAN } else { <$t>::from_bits(order_key(key) as $unsigned) }
            }
            #[inline(always)]
            fn min_key(self) -> $key {
                if self.is_nan() { <$key>::MAX } else { order_key(self.to_bits() as $key) }
            }
            #[inline(always)]
            fn from_min_key(key: $key) -> $t {
                if key == <$key>::MAX { <$t>::NAN } else { <$t>::from_bits(order_key(key) as $unsigned) }
            }
        }
    )*};
}
fold_key! {
    f32 => i32, u32;
    f64 => i64, u64;
}

/// Bits as a signed integer -> a key that orders like the float (and back:
/// the map is its own inverse). Negative floats have their magnitude bits
/// flipped, so a larger magnitude is a smaller key; `-0` is `-1`, `+0` is 0.
#[inline(always)]
fn order_key<K: OrderBits>(bits: K) -> K {
    bits.flip_negative()
}

trait OrderBits: Copy {
    fn flip_negative(self) -> Self;
}

impl OrderBits for i32 {
    #[inline(always)]
    fn flip_negative(self) -> i32 {
        self ^ (((self >> 31) as u32) >> 1) as i32
    }
}

impl OrderBits for i64 {
    #[inline(always)]
    fn flip_negative(self) -> i64 {
        self ^ (((self >> 63) as u64) >> 1) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::FoldKey;
    use crate::MinMaxNumber;

    fn values() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xffff_ffff),
        ];
        v.extend((0..40).map(|i| (i as f32 - 20.0) * 0.37));
        v
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn keyed_pairs_are_min_number_and_max_number() {
        for &a in &values() {
            for &b in &values() {
                let max = f32::from_max_key(a.max_key().max(b.max_key()));
                let min = f32::from_min_key(a.min_key().min(b.min_key()));
                assert_eq!(
                    max.to_bits(),
                    a.max_number(b).to_bits(),
                    "max({a:?}, {b:?})"
                );
                assert_eq!(
                    min.to_bits(),
                    a.min_number(b).to_bits(),
                    "min({a:?}, {b:?})"
                );
            }
        }
    }

    #[test]
    fn keyed_folds_equal_sequential_folds() {
        let v: Vec<f64> = values().iter().map(|&x| x as f64).collect();
        for start in 0..v.len() {
            let run = &v[start..];
            let want = run[1..].iter().fold(run[0], |m, &x| m.max_number(x));
            let key = run.iter().map(|x| x.max_key()).max().unwrap();
            assert_eq!(f64::from_max_key(key).to_bits(), want.to_bits());
            let want = run[1..].iter().fold(run[0], |m, &x| m.min_number(x));
            let key = run.iter().map(|x| x.min_key()).min().unwrap();
            assert_eq!(f64::from_min_key(key).to_bits(), want.to_bits());
        }
        let nans = [f32::NAN, -f32::NAN];
        let key = nans.iter().map(|x| x.max_key()).max().unwrap();
        assert!(same(f32::from_max_key(key), f32::NAN));
    }
}
