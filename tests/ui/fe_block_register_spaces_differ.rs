sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 64];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                register v: f32;
                map load[c in 0..64] on threads { v = X[r, c]; }
                map store[c in 0..32] on threads { X[r, c] = v; }
            }
        }
    }
}

fn main() {}
