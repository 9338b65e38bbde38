sdfg::sdfg! {
    sdfg S {
        host X: i64[8];
        state first {}
        state second {
            map m[i in 0..R] on cpu { X[i] = 1; }
        }
        state third {}
        first -> second if X[0] > 0;
        first -> third { R = 8 }
        third -> second;
    }
}

fn main() {}
