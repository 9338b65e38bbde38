sdfg::sdfg! {
    sdfg S {
        host H: f16[4];
        host F: f32[4];
        host B: bf16[4];
        state s {
            tasklet t {
                H[0] = H[1] * F[0];
                B[0] = B[1] + H[2];
            }
        }
    }
}

fn main() {}
