sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host H: f32[N];
        state s {
            map rows[i in 0..N] on cpu block(64) { H[i] = 0.0; }
        }
    }
}

fn main() {}
