sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu X: f32[N];
        state s {
            map flat[i in 0..N] on gpu {
                map t[j in 0..4] on threads { X[i] = 1.0; }
            }
        }
    }
}

fn main() {}
