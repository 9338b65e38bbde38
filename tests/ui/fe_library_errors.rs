// Library statements: shapes that do not fit, a missing axis, two element
// types, an update, a result the call reads.
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        symbol K: i64;
        host A: f64[N, K];
        host B: f64[N, K];
        host C: f64[N, N];
        host F: f32[N];
        host R: f64[N];
        state s {
            C = matmul(A, B);
            R = reduce max(A, axis 2);
            F = reduce sum(A, axis 1);
            C += matmul(A, A);
            C = matmul(C, C);
        }
    }
}

fn main() {}
