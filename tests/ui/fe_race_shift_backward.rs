// Iteration `j` writes `A[j]`, which iteration `j - 1` reads as `A[j + 1]`.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host A: f64[N];
        state s {
            map shift[j in 0..N - 1] on cpu { A[j] = A[j + 1]; }
        }
    }
}

fn main() {}
