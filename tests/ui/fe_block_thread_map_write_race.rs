sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        symbol C: i64;
        gpu X: f32[R, C];
        gpu Y: f32[R, C];
        state s {
            map rows[r in 0..R] on gpu block(128) {
                shared last: f32;
                map keep[c in 0..C] on threads { last = X[r, c]; }
                map use_it[c in 0..C] on threads { Y[r, c] = last; }
            }
        }
    }
}

fn main() {}
