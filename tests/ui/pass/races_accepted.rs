// What the race test accepts in parallel maps, run on the CPU device:
// subscripts that never meet (`A[2 * i]` and `A[2 * i + 1]`, one row per
// iteration), reductions (`+=`, `.max()`, and `.min()` spelled through a
// local), a write by one iteration (`if i == 0`), a `seq` map (ordered),
// and the opt-in `#[independent(A)]` for a scatter through a permutation.
use sdfg::prelude::*;

sdfg! {
    sdfg Accepted {
        symbol N: i64;
        gpu A: f64[2 * N];
        gpu Rows: f64[N, 4];
        gpu RowSum: f64[N];
        gpu Peak: f64;
        gpu Low: f64;
        gpu First: f64;
        gpu Perm: i64[N];
        gpu Scattered: f64[N];
        host Prefix: f64[N];
        state parallel {
            map pairs[i in 0..N] on gpu { A[2 * i] = A[2 * i + 1]; }
            map rows[r in 0..N, c in 0i64..4] on gpu { Rows[r, c] = (r * 4 + c) as f64; }
            map sums[r in 0..N, c in 0i64..4] on gpu { RowSum[r] += Rows[r, c]; }
            map peak[i in 0..N] on gpu { Peak = Peak.max(A[2 * i]); }
            map low[i in 0..N] on gpu { let c = Low; Low = c.min(A[2 * i]); }
            map first[i in 0..N] on gpu { if i == 0 { First = A[1]; } }
            #[independent(Scattered)]
            map scatter[i in 0..N] on gpu { Scattered[Perm[i]] = i as f64; }
        }
        state ordered {
            map prefix[i in 0..N - 1] on seq { Prefix[i + 1] = Prefix[i] + 1.0; }
        }
        parallel -> ordered;
    }
}

fn main() -> Result<(), Error> {
    let device = Device::cpu();
    let program = Accepted::load(&device)?;
    let n = 3usize;
    let a: Vec<f64> = (0..2 * n).map(|k| k as f64).collect();
    let mut a = DeviceBuffer::from_slice(&device, &a)?;
    let mut rows = DeviceBuffer::<f64>::zeros(&device, n * 4)?;
    let mut row_sum = DeviceBuffer::<f64>::zeros(&device, n)?;
    let mut peak = DeviceBuffer::from_slice(&device, &[f64::NEG_INFINITY])?;
    let mut low = DeviceBuffer::from_slice(&device, &[f64::INFINITY])?;
    let mut first = DeviceBuffer::<f64>::zeros(&device, 1)?;
    let perm = DeviceBuffer::from_slice(&device, &[2i64, 0, 1])?;
    let mut scattered = DeviceBuffer::<f64>::zeros(&device, n)?;
    let mut prefix = vec![10.0; n];
    program.run(AcceptedArgs {
        N: n as i64,
        A: &mut a,
        Rows: &mut rows,
        RowSum: &mut row_sum,
        Peak: &mut peak,
        Low: &mut low,
        First: &mut first,
        Perm: &perm,
        Scattered: &mut scattered,
        Prefix: &mut prefix,
    })?;
    assert_eq!(a.to_vec()?, [1.0, 1.0, 3.0, 3.0, 5.0, 5.0]);
    assert_eq!(row_sum.to_vec()?, [6.0, 22.0, 38.0]);
    assert_eq!(peak.to_vec()?, [5.0]);
    assert_eq!(low.to_vec()?, [1.0]);
    assert_eq!(first.to_vec()?, [1.0]);
    assert_eq!(scattered.to_vec()?, [1.0, 2.0, 0.0]);
    assert_eq!(prefix, [10.0, 11.0, 12.0]);
    Ok(())
}
