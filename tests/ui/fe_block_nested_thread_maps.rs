sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu X: f32[R, C];
        state s {
            map rows[r in 0..R] on gpu block(128) {
                map outer[i in 0..4] on threads {
                    map inner[c in 0..C] on threads { X[r, c] = 1.0; }
                }
            }
        }
    }
}

fn main() {}
