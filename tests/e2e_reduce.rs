//! WCR reductions: concurrent `+=`, `*=`, min and max give the sequential
//! answer (exactly for integers, within reassociation bounds for floats).

mod common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Reductions {
        symbol N: i64;
        gpu A: f64[N];
        gpu I: i64[N];
        gpu SUM: f64;
        gpu ISUM: i64;
        gpu IMIN: i64;
        gpu IMAX: i64;
        host HA: f64[N];
        host HSUM: f64[1];
        state reduce {
            map s[i in 0..N] on gpu {
                SUM += A[i];
                ISUM += I[i];
                IMIN = IMIN.min(I[i]);
                IMAX = IMAX.max(I[i]);
            }
            map h[i in 0..N] on cpu { HSUM[0] += HA[i]; }
        }
    }
}

#[test]
fn sums_and_extrema_match_a_sequential_reference() {
    for device in common::devices("reductions") {
        let n = 100_000usize;
        let mut rng = common::Rng::new(11);
        let a: Vec<f64> = (0..n).map(|_| rng.f64()).collect();
        let ints: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() % 2_000_001) as i64 - 1_000_000)
            .collect();
        let program = Reductions::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let di = DeviceBuffer::from_slice(&device, &ints).unwrap();
        let mut sum = DeviceBuffer::from_slice(&device, &[0.0f64]).unwrap();
        let mut isum = DeviceBuffer::from_slice(&device, &[0i64]).unwrap();
        let mut imin = DeviceBuffer::from_slice(&device, &[i64::MAX]).unwrap();
        let mut imax = DeviceBuffer::from_slice(&device, &[i64::MIN]).unwrap();
        let mut hsum = vec![0.0f64];
        program
            .run(ReductionsArgs {
                N: n as i64,
                A: &da,
                I: &di,
                SUM: &mut sum,
                ISUM: &mut isum,
                IMIN: &mut imin,
                IMAX: &mut imax,
                HA: &a,
                HSUM: &mut hsum,
            })
            .unwrap();
        let exact: f64 = a.iter().sum();
        let bound = n as f64 * f64::EPSILON * a.iter().map(|x| x.abs()).sum::<f64>();
        let got = sum.to_vec().unwrap()[0];
        assert!(
            (got - exact).abs() <= bound,
            "{got} vs {exact} on {}",
            device.name()
        );
        assert!((hsum[0] - exact).abs() <= bound, "{} vs {exact}", hsum[0]);
        assert_eq!(isum.to_vec().unwrap()[0], ints.iter().sum::<i64>());
        assert_eq!(imin.to_vec().unwrap()[0], *ints.iter().min().unwrap());
        assert_eq!(imax.to_vec().unwrap()[0], *ints.iter().max().unwrap());
    }
}
