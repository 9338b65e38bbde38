//! The one seeded generator of the workspace's tests, fuzzers and examples:
//! splitmix64 (Steele, Lea and Flood), small, fast, every seed usable
//! (zero included), and no dependency. The same seed gives the same stream
//! on every platform, so a failing seed reproduces.

/// A splitmix64 stream.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `items` (not empty), uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Uniform in [0, 1), 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-1, 1), 53 random bits.
    pub fn signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// The stream is splitmix64's (the reference outputs for seed 0), so a
    /// seed a failing run prints reproduces it anywhere.
    #[test]
    fn stream_is_splitmix64() {
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn floats_stay_in_their_ranges() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            let (u, s, x) = (r.unit(), r.signed_unit(), r.range(0.5, 2.0));
            assert!((0.0..1.0).contains(&u), "{u}");
            assert!((-1.0..1.0).contains(&s), "{s}");
            assert!((0.5..2.0).contains(&x), "{x}");
            assert!(r.below(3) < 3 && r.below(0) == 0);
        }
    }
}
