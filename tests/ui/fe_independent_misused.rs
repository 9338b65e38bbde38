// `#[independent(...)]` names containers a parallel map writes.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        gpu B: i64[N];
        host H: f64[N];
        state s {
            #[independent(B)]
            map reads_b[i in 0..N] on gpu { A[i] = B[i] as f64; }
            #[independent(H)]
            map ordered[i in 0..N] on seq { H[i] = 1.0; }
        }
    }
}

fn main() {}
