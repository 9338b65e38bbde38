sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 512];
        state s {
            map rows[r in 0..R] on gpu block(256) {
                register v: f32;
                map load[c in 0..512] on threads { v = X[r, c]; }
                map store[c in 0..512] on threads { X[r, c] = v * 2.0; }
            }
        }
    }
}

fn main() {}
