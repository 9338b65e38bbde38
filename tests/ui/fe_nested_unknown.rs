// A call of a nested sdfg that is not declared, and one that is misspelled.
sdfg::sdfg! {
    sdfg Outer {
        symbol N: i64;
        gpu X: f64[N];
        sdfg Scale {
            symbol M: i64;
            gpu A: f64[M];
            state s { map m[i in 0..M] on gpu { A[i] = A[i] * 2.0; } }
        }
        state s {
            Scal(A = X);
            Normalize(A = X);
        }
    }
}

fn main() {}
