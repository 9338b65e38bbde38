sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu A: i64[N];
        state s {
            map m[i in 0..N] on gpu { i = i + 1; A[i] = i; }
        }
    }
}

fn main() {}
