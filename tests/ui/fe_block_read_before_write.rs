sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu X: f32[R, C];
        state s {
            map row[r in 0..R] on gpu block(256) {
                shared mx: f32;
                map reduce_max[c in 0..C] on threads { mx = mx.max(X[r, c]); }
            }
        }
    }
}

fn main() {}
