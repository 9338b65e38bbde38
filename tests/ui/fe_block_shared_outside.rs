sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu X: f32[N];
        host H: f32[N];
        state s {
            map flat[i in 0..N] on gpu {
                shared tile: f32[32];
                X[i] = 1.0;
            }
            tasklet t {
                register r: f32;
                H[0] = 2.0;
            }
        }
    }
}

fn main() {}
