//! Inputs and comparisons shared by the kernels.

/// `n` values in [-1, 1) from a fixed seed.
pub fn random(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = sdfg_testkit::rng::Rng::new(seed);
    (0..n).map(|_| rng.signed_unit()).collect()
}

/// Equal bit for bit (NaN equal to NaN).
pub fn same_bits(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}[{k}]: got {g:e}, want {w:e}"
        );
    }
}

/// Equal within `rel` of the larger magnitude (sums in another order).
pub fn close(got: &[f64], want: &[f64], rel: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let scale = g.abs().max(w.abs()).max(1e-300);
        assert!(
            (g - w).abs() <= rel * scale || (g.is_nan() && w.is_nan()),
            "{what}[{k}]: got {g:e}, want {w:e}"
        );
    }
}

/// `got` equals `want` within `rel` times the largest magnitude of `want`
/// (for sums whose order differs from the reference: an element near zero
/// may carry the rounding of its larger terms).
pub fn close_to_scale(got: &[f64], want: &[f64], rel: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * scale,
            "{what}[{k}]: got {g:e}, want {w:e} (scale {scale:e})"
        );
    }
}
