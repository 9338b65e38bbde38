sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        host Values: f64[N];
        state s {
            map m[i in 0..N] on cpu { Valeus[i] = 1.0; }
        }
    }
}

fn main() {}
