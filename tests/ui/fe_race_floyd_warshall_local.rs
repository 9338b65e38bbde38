// The same update spelled through a local means the same, and gets the
// same error as fe_race_floyd_warshall.rs.
sdfg::sdfg! {
    sdfg FloydWarshall {
        symbol N: i64;
        symbol K: i64;
        gpu P: f64[N, N];
        state step {
            map relax[i in 0..N, j in 0..N] on gpu {
                let c = P[i, j];
                P[i, j] = c.min(P[i, K] + P[K, j]);
            }
        }
    }
}

fn main() {}
