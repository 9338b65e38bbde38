// Arguments a nested sdfg does not take or that do not fit it.
sdfg::sdfg! {
    sdfg Outer {
        symbol N: i64;
        host X: f64[N];
        host F: f32[N];
        gpu G: f64[N];
        sdfg Copy {
            symbol M: i64;
            host Src: f64[M];
            host Dst: f64[M];
            transient host Tmp: f64[M];
            state s {
                map a[i in 0..M] on cpu { Tmp[i] = Src[i]; }
                map b[i in 0..M] on cpu { Dst[i] = Tmp[i]; }
            }
        }
        state s {
            Copy(Src = X);
            Copy(Src = X, Dst = X, Dest = X);
            Copy(Src = X, Src = X, Dst = X);
            Copy(Src = X, Dst = X, Tmp = X);
            Copy(Src = F, Dst = X);
            Copy(Src = G, Dst = X);
            Copy(Src = X + 1.0, Dst = X);
        }
    }
}

fn main() {}
