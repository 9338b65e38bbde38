// Bindings whose shape is not the callee's: an extent that differs (after
// the callee's symbols take their values), a matrix bound to a vector, an
// array bound to a scalar.
sdfg::sdfg! {
    sdfg Outer {
        symbol N: i64;
        host X: f64[N];
        host Y: f64[N, N];
        sdfg Pair {
            symbol M: i64;
            host U: f64[M];
            host V: f64[M + 1];
            host s: f64;
            state st { tasklet t { s = U[0] + V[0]; } }
        }
        state s {
            Pair(U = X, V = X, s = X[0]);
            Pair(U = Y, V = X, s = X[0]);
            Pair(M = N - 1, U = X[1..N], V = X, s = X);
        }
    }
}

fn main() {}
