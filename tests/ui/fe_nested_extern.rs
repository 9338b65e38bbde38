// `extern sdfg`: a name declared twice, a malformed declaration, one inside
// a nested sdfg.
use sdfg::prelude::*;

sdfg! {
    sdfg Twice {
        extern sdfg Scale;
        sdfg Scale { gpu A: f64[8]; state s {} }
        gpu X: f64[8];
        state s { Scale(A = X); }
    }
}

sdfg! {
    sdfg Malformed {
        extern Scale;
        gpu X: f64[8];
        state s {}
    }
}

sdfg! {
    sdfg Inside {
        sdfg Wrapper {
            extern sdfg Scale;
            gpu A: f64[8];
            state s { Scale(A = A); }
        }
        gpu X: f64[8];
        state s { Wrapper(A = X); }
    }
}

sdfg! {
    pub sdfg Scale {
        symbol M: i64; gpu A: f64[M];
        state s { map m[i in 0..M] on gpu { A[i] = A[i] * 2.0; } }
    }
}

fn main() {}
