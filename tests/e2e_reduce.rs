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
        let mut rng = sdfg_testkit::rng::Rng::new(11);
        let a: Vec<f64> = (0..n).map(|_| rng.signed_unit()).collect();
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

sdfg! {
    /// Nested 32-bit min/max with a negated operand: the ptxas of CUDA 13.0
    /// (driver 580's JIT) fuses `neg.s32` into a three-input min/max and
    /// drops the negation; the backend negates as `!c + 1` instead.
    pub sdfg NegatedMinMax {
        symbol N: i64;
        gpu A: i32[N];
        gpu B: i32[N];
        gpu C: i32[N];
        gpu MX: i32[N];
        gpu MN: i32[N];
        state s {
            map m[i in 0..N] on gpu {
                MX[i] = A[i].max(B[i].max(-C[i]));
                MN[i] = A[i].min(B[i].min(-C[i]));
            }
        }
    }
}

#[test]
fn nested_min_max_of_a_negated_operand() {
    for device in common::devices("negated_min_max") {
        // The element the GPU differential test caught first, then random ones.
        let mut rng = sdfg_testkit::rng::Rng::new(5);
        let mut a = vec![2i32];
        let mut b = vec![-596i32];
        let mut c = vec![-139_737_078i32];
        for _ in 0..4095 {
            a.push(rng.next_u64() as i32);
            b.push(rng.next_u64() as i32);
            c.push(if rng.next_u64().is_multiple_of(8) {
                i32::MIN
            } else {
                rng.next_u64() as i32
            });
        }
        let n = a.len();
        let program = NegatedMinMax::load(&device).unwrap();
        let up = |v: &[i32]| DeviceBuffer::from_slice(&device, v).unwrap();
        let (da, db, dc) = (up(&a), up(&b), up(&c));
        let mut mx = DeviceBuffer::<i32>::zeros(&device, n).unwrap();
        let mut mn = DeviceBuffer::<i32>::zeros(&device, n).unwrap();
        program
            .run(NegatedMinMaxArgs {
                N: n as i64,
                A: &da,
                B: &db,
                C: &dc,
                MX: &mut mx,
                MN: &mut mn,
            })
            .unwrap();
        let (mx, mn) = (mx.to_vec().unwrap(), mn.to_vec().unwrap());
        for i in 0..n {
            let neg = c[i].wrapping_neg();
            assert_eq!(
                mx[i],
                a[i].max(b[i].max(neg)),
                "{}: max at {i}",
                device.name()
            );
            assert_eq!(
                mn[i],
                a[i].min(b[i].min(neg)),
                "{}: min at {i}",
                device.name()
            );
        }
    }
}
