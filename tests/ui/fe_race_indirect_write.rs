// The test cannot compare `A[B[i]]` across iterations (the index is data):
// the error offers the opt-in `#[independent(A)]`.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: f64[N];
        gpu B: i64[N];
        gpu V: f64[N];
        state s {
            map scatter[i in 0..N] on gpu { A[B[i]] = V[i]; }
        }
    }
}

fn main() {}
