sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(128) {
                shared row: f32[129];
                map load[c in 0..129] on threads { row[c] = X[r]; }
                map shift[c in 0..128] on threads { row[c] = row[c + 1]; }
                X[r] = row[0];
            }
        }
    }
}

fn main() {}
