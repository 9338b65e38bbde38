// NumPy computes the right side before it assigns; the elements of an
// array statement run in parallel, so the right side may not read its
// target at other elements (a slice, or one element every iteration reads).
sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host A: f64[N];
        state s {
            A[1..N] = 0.5 * A[0..N - 1];
            A = A / A[0];
        }
    }
}

fn main() {}
