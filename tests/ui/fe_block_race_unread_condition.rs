// A tile of 30 elements computed by 32 threads, whose stores are kept
// inside the tile by `2 * t < 60`: the race test reads bounds of one
// variable with coefficient 1 (`t < 30` would do), and the error says
// which conditions it did not read.
sdfg::sdfg! {
    sdfg HaloStores {
        symbol N: i64;
        gpu X: f32[N];
        state s {
            map tiles[b in 0..N / 30] on gpu block(32) {
                map t[t in 0..32] on threads {
                    let k = 30 * b + t;
                    if k < N && 2 * t < 60 {
                        X[k] = 1.0;
                    }
                }
            }
        }
    }
}

fn main() {}
