sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu X: f32[N];
        state s {
            map t[i in 0..N] on threads { X[i] = 1.0; }
        }
    }
}

fn main() {}
