//! Integer `/` and `%` by a literal divisor in the PTX backend: a positive
//! power of two by shifts, any other safe divisor by one instruction with
//! an immediate. The kernels run on the `ptxsim` interpreter over edge
//! values and must give Rust's results (truncating division, the
//! remainder with the dividend's sign).

use sdfg::compiler::codegen::ptx::generate;
use sdfg::compiler::ir::Value;
use sdfg_testkit::harness::{simulate_map, Data};

/// The divisors each type is tested with (`-1` and `0` keep their guard).
fn divisors(signed: bool) -> Vec<i64> {
    let mut d = vec![1, 2, 16, 1024, 3, 10, 1 << 30];
    if signed {
        d.extend([-2, -16, -3]);
    }
    d
}

/// Runs `Q[i, 2 k] = X[i] / d_k; Q[i, 2 k + 1] = X[i] % d_k` for type
/// `ty` on the interpreter; returns the PTX and Q's values.
fn run(ty: &str, signed: bool, xs: &[Value]) -> (String, Vec<Value>) {
    let ds = divisors(signed);
    let mut body = String::new();
    for (k, d) in ds.iter().enumerate() {
        let lit = if *d < 0 {
            format!("({d}{ty})")
        } else {
            format!("{d}{ty}")
        };
        body.push_str(&format!(
            "Q[i, {}] = X[i] / {lit}; Q[i, {}] = X[i] % {lit};\n",
            2 * k,
            2 * k + 1
        ));
    }
    let cols = 2 * ds.len();
    let src = format!(
        "sdfg Div {{ symbol N: i64; gpu X: {ty}[N]; gpu Q: {ty}[N, {cols}];
           state s {{ map m[i in 0..N] on gpu {{ {body} }} }} }}"
    );
    let ir = sdfg::compiler::frontend_str(&src).unwrap_or_else(|d| panic!("{d}\n{src}"));
    let ptx = generate(&ir);
    let (x, q) = (
        ir.container_by_name("X").unwrap(),
        ir.container_by_name("Q").unwrap(),
    );
    let n = xs.len();
    let mut data = Data::new();
    data.insert(x, (vec![n], xs.to_vec()));
    data.insert(q, (vec![n, cols], vec![xs[0]; n * cols]));
    let (got, fault) =
        simulate_map(&ir, &ptx, 0, &[Value::I64(n as i64)], &data, [2, 1, 1]).unwrap();
    assert_eq!(fault, 0);
    (ptx.text, got[&q].1.clone())
}

macro_rules! check_type {
    ($t:ty, $name:literal, $variant:ident, $signed:expr) => {{
        let xs: Vec<$t> = {
            let mut v: Vec<$t> = vec![
                <$t>::MIN,
                <$t>::MAX,
                0,
                1,
                2,
                3,
                15,
                16,
                17,
                1023,
                1024,
                1025,
            ];
            if $signed {
                v.extend([
                    -1i64 as $t,
                    -2i64 as $t,
                    -15i64 as $t,
                    -16i64 as $t,
                    -17i64 as $t,
                ]);
                v.extend([-1025i64 as $t, <$t>::MIN + 1]);
            }
            v
        };
        let values: Vec<Value> = xs.iter().map(|&x| Value::$variant(x)).collect();
        let (ptx, got) = run($name, $signed, &values);
        let ds = divisors($signed);
        for (i, &x) in xs.iter().enumerate() {
            for (k, &d) in ds.iter().enumerate() {
                let d = d as $t;
                let row = &got[i * 2 * ds.len()..];
                assert_eq!(
                    row[2 * k],
                    Value::$variant(x.wrapping_div(d)),
                    "{x} / {d} ({})",
                    $name
                );
                assert_eq!(
                    row[2 * k + 1],
                    Value::$variant(x.wrapping_rem(d)),
                    "{x} % {d} ({})",
                    $name
                );
            }
        }
        ptx
    }};
}

#[test]
fn division_by_literals_matches_rust_on_edge_values() {
    let i32_ptx = check_type!(i32, "i32", I32, true);
    let i64_ptx = check_type!(i64, "i64", I64, true);
    let u32_ptx = check_type!(u32, "u32", U32, false);
    let u64_ptx = check_type!(u64, "u64", U64, false);
    // Powers of two by shifts, the others by an immediate: no division
    // by a register (the guarded form) is left.
    for (ptx, bits) in [
        (&i32_ptx, 32),
        (&i64_ptx, 64),
        (&u32_ptx, 32),
        (&u64_ptx, 64),
    ] {
        assert!(ptx.contains(&format!("shr.u{bits}")), "{ptx}");
        for line in ptx
            .lines()
            .filter(|l| l.contains("div.") || l.contains("rem."))
        {
            let divisor = line
                .trim()
                .trim_end_matches(';')
                .rsplit(", ")
                .next()
                .unwrap();
            assert!(
                divisor.parse::<i64>().is_ok(),
                "a division by a register: {line}"
            );
        }
    }
    assert!(i64_ptx.contains("shr.s64"));
}
