// Symbols of a nested sdfg: a value of another type, a symbol the callee
// assigns itself, a symbol with no value, a value that reads data.
sdfg::sdfg! {
    sdfg Outer {
        symbol N: i32;
        symbol K: i64;
        host X: f64[K];
        host H: f64[4];
        sdfg Steps {
            symbol M: i64;
            symbol S: i64;
            host A: f64[4];
            state body { tasklet t { A[0] = A[0] + (M + S + k) as f64; } }
            body -> body if k < 3 { k = k + 1 }
        }
        state s {
            Steps(M = N, S = 1, A = H);
            Steps(M = 1, S = 1, k = 0, A = H);
            Steps(M = 1, A = H);
            Steps(M = X[0] as i64, S = 1, A = H);
        }
    }
}

fn main() {}
