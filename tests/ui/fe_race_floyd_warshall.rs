// `P[i, j] = P[i, j].min(e)` with an `e` that reads `P` is not a min
// reduction but a read-modify-write; iteration `(K, j)` writes `P[K, j]`,
// which every iteration `(i, j)` reads.
sdfg::sdfg! {
    sdfg FloydWarshall {
        symbol N: i64;
        symbol K: i64;
        gpu P: f64[N, N];
        state step {
            map relax[i in 0..N, j in 0..N] on gpu { P[i, j] = P[i, j].min(P[i, K] + P[K, j]); }
        }
    }
}

fn main() {}
