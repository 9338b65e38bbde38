// A thread map scattering through loaded indices: the test cannot prove
// that its iterations write different elements.
sdfg::sdfg! {
    sdfg S {
        symbol R: i64;
        gpu X: f32[R, 128];
        gpu Perm: i64[128];
        gpu Y: f32[R, 128];
        state s {
            map rows[r in 0..R] on gpu block(128) {
                shared tile: f32[128];
                map scatter[c in 0..128] on threads { tile[Perm[c]] = X[r, c]; }
                map back[c in 0..128] on threads { Y[r, c] = tile[c]; }
            }
        }
    }
}

fn main() {}
