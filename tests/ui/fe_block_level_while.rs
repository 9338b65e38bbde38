// A block-level loop must be a counted `for`: every thread of the block
// reaches the same barriers. `while` (and `loop`, `break`, `continue`)
// belong inside a thread map.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R];
        state s {
            map rows[r in 0..R] on gpu block(64) {
                while X[r] > 1.0 {
                    X[r] = X[r] / 2.0;
                }
            }
        }
    }
}

fn main() {}
