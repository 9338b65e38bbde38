sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        gpu Flags: bool[N];
        state s {
            map m[i in 0..N] on gpu { Flags[0] += true; }
        }
    }
}

fn main() {}
