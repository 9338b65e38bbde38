//! The CPU device (and the GPU, when there is one): whole programs, whose
//! index shapes cover every operator class, over random symbol values. The
//! host containers lie inside larger vectors whose cells around them are
//! canaries; the evaluator, run on each program's IR, says what must happen.

use crate::common;
use crate::env_number;
use crate::reference::run_map_logged;
use sdfg::compiler::eval::MemEnv;
use sdfg::compiler::ir::*;
use sdfg::prelude::*;
use sdfg_testkit::rng::Rng;
use std::collections::BTreeSet;

macro_rules! index_program {
    ($name:ident, $args:ident, [$($index:tt)*]) => {
        sdfg! {
            pub sdfg $name {
                symbol S: i64;
                symbol T: i64;
                symbol N: i64;
                gpu A: i64[N];
                gpu O: i64[8];
                host H: i64[N];
                host Q: i64[8];
                host W: i64[N];
                state s {
                    map g[i in 0..8] on gpu { O[i] = A[$($index)*]; }
                    map c[i in 0..8] on cpu { Q[i] = H[$($index)*]; }
                    map q[i in 0..8] on seq { W[$($index)*] = i as i64 + 1; }
                }
            }
        }

        impl IndexProgram for $name {
            fn load_on(device: &Device) -> Call {
                let program = $name::load(device).unwrap();
                Box::new(move |b: &mut Buffers, [s, t, n]: [i64; 3]| {
                    let len = n as usize;
                    program.run($args {
                        S: s,
                        T: t,
                        N: n,
                        A: &b.a,
                        O: &mut b.o,
                        H: &b.h[4..4 + len],
                        Q: &mut b.q[4..12],
                        W: &mut b.w[4..4 + len],
                    })
                })
            }
            fn ir() -> Sdfg {
                $name::ir().unwrap()
            }
        }
    };
}

/// A loaded program, called with the buffers and `[S, T, N]`.
type Call = Box<dyn Fn(&mut Buffers, [i64; 3]) -> Result<(), Error>>;

trait IndexProgram {
    fn load_on(device: &Device) -> Call;
    fn ir() -> Sdfg;
}

index_program!(Shl, ShlArgs, [(S << T) * (i as i64)]);
index_program!(NotPlus, NotPlusArgs, [(!S) * (i as i64) + T]);
index_program!(DivBySym, DivBySymArgs, [(S / T) * (i as i64)]);
index_program!(ShlBySym, ShlBySymArgs, [(i as i64) << S]);
index_program!(ShrBySym, ShrBySymArgs, [((i as i64) >> S) + T]);
index_program!(MinClamp, MinClampArgs, [((i as i64) * S + T).min(N - 1)]);
index_program!(MaxClamp, MaxClampArgs, [((i as i64) - S).max(0)]);
index_program!(Neg, NegArgs, [-((i as i64) - S) + T]);
index_program!(
    Narrowing,
    NarrowingArgs,
    [((i as i64) * S) as i32 as i64 + T]
);
index_program!(HalfSum, HalfSumArgs, [((i as i64) + S) / 2 - T]);
index_program!(Rem, RemArgs, [(i as i64) % S + T]);
index_program!(BitOps, BitOpsArgs, [((i as i64) & S) | T]);
index_program!(Abs, AbsArgs, [(S * (i as i64) - T).abs()]);
index_program!(Select, SelectArgs, [if S > 0 { i as i64 } else { T }]);

const CANARY: i64 = 0x5EED_5EED;

/// The arguments: host containers with four canaries on each side.
struct Buffers {
    a: DeviceBuffer<i64>,
    o: DeviceBuffer<i64>,
    h: Vec<i64>,
    q: Vec<i64>,
    w: Vec<i64>,
}

impl Buffers {
    fn new(device: &Device, n: usize) -> Buffers {
        let data: Vec<i64> = (0..n as i64).map(|v| 100 + v).collect();
        let around = |inner: &[i64]| {
            let mut v = vec![CANARY; 4];
            v.extend_from_slice(inner);
            v.extend([CANARY; 4]);
            v
        };
        Buffers {
            a: DeviceBuffer::from_slice(device, &data).unwrap(),
            o: DeviceBuffer::from_slice(device, &[-1; 8]).unwrap(),
            h: around(&data),
            q: around(&[-1; 8]),
            w: around(&vec![-1; n]),
        }
    }

    fn canaries_intact(&self) -> bool {
        [&self.h, &self.q, &self.w]
            .iter()
            .all(|v| v[..4] == [CANARY; 4] && v[v.len() - 4..] == [CANARY; 4])
    }
}

/// The evaluator on the program's IR: each map in turn, row-major. The
/// final contents of O, Q, W and every container an access left.
fn expected(ir: &Sdfg, [s, t, n]: [i64; 3]) -> (Vec<Vec<i64>>, BTreeSet<String>) {
    let len = n as usize;
    let symbols = vec![Value::I64(s), Value::I64(t), Value::I64(n)];
    let mut mem = MemEnv {
        symbols: symbols.clone(),
        ..Default::default()
    };
    let data: Vec<i64> = (0..n).map(|v| 100 + v).collect();
    for (name, values) in [
        ("A", data.clone()),
        ("H", data),
        ("O", vec![-1; 8]),
        ("Q", vec![-1; 8]),
        ("W", vec![-1; len]),
    ] {
        let c = ir.container_by_name(name).unwrap();
        let shape = vec![values.len()];
        mem.set_container(c, shape, values.into_iter().map(Value::I64).collect());
    }
    let (mut faults, mut at) = (BTreeSet::new(), BTreeSet::new());
    for st in &ir.states[0].stmts {
        let StatementKind::Map(map) = &st.kind else {
            continue;
        };
        run_map_logged(map, &symbols, &mut mem, &mut faults, &mut at);
    }
    let contents = ["O", "Q", "W"]
        .iter()
        .map(|name| {
            let c = ir.container_by_name(name).unwrap();
            let vals = &mem.containers[c].as_ref().unwrap().1;
            vals.iter().map(|v| v.as_i128().unwrap() as i64).collect()
        })
        .collect();
    let names = faults
        .iter()
        .map(|&c| ir.containers[c].name.text.clone())
        .collect();
    (contents, names)
}

fn random_symbols(rng: &mut Rng) -> [i64; 3] {
    let mut value = || {
        if rng.chance(15) {
            rng.pick(&[
                63,
                64,
                65,
                31,
                i64::MAX,
                i64::MIN,
                i64::MAX - 3,
                1 << 40,
                -1,
            ])
        } else {
            rng.below(14) as i64 - 4
        }
    };
    let (s, t) = (value(), value());
    [s, t, 1 + rng.below(12) as i64]
}

fn check_program<P: IndexProgram>(
    name: &str,
    device: &Device,
    rng: &mut Rng,
    runs: u64,
) -> [u32; 3] {
    let ir = P::ir();
    let run = P::load_on(device);
    let mut outcomes = [0u32; 3]; // ok, refused or faulted, wrapped
    for _ in 0..runs {
        let symbols = random_symbols(rng);
        let what = format!("{name} with [S, T, N] = {symbols:?} on {}", device.name());
        let (want, faults) = expected(&ir, symbols);
        let mut b = Buffers::new(device, symbols[2] as usize);
        let result = run(&mut b, symbols);
        assert!(
            b.canaries_intact(),
            "{what}: a write outside a host container"
        );
        match result {
            Ok(()) => {
                assert!(
                    faults.is_empty(),
                    "{what}: accesses left {faults:?}, the call returned Ok"
                );
                let got = [
                    b.o.to_vec().unwrap(),
                    b.q[4..12].to_vec(),
                    b.w[4..b.w.len() - 4].to_vec(),
                ];
                assert_eq!(got.to_vec(), want, "{what}");
                outcomes[0] += 1;
            }
            Err(Error::OutOfBounds { what: text }) if text.contains("wraps around") => {
                outcomes[2] += 1;
            }
            Err(e) => {
                assert!(
                    !faults.is_empty(),
                    "{what}: no access leaves a container, the call failed: {e}"
                );
                // A precheck, a host map's check or a kernel's fault: each
                // names the container (and the kernel's the index).
                let text = e.to_string();
                assert!(
                    faults.iter().any(|c| text.contains(&format!("`{c}`"))),
                    "{what}: accesses left {faults:?}, the error says: {text}"
                );
                outcomes[1] += 1;
            }
        }
    }
    outcomes
}

#[test]
fn every_operator_class_on_the_devices() {
    let runs = env_number("SDFG_BOUNDS_CASES", 250) / 8;
    for device in common::devices("every_operator_class_on_the_devices") {
        let mut rng = Rng::new(env_number("SDFG_BOUNDS_SEED", 13));
        let mut total = [0u32; 3];
        for outcome in [
            check_program::<Shl>("Shl", &device, &mut rng, runs),
            check_program::<NotPlus>("NotPlus", &device, &mut rng, runs),
            check_program::<DivBySym>("DivBySym", &device, &mut rng, runs),
            check_program::<ShlBySym>("ShlBySym", &device, &mut rng, runs),
            check_program::<ShrBySym>("ShrBySym", &device, &mut rng, runs),
            check_program::<MinClamp>("MinClamp", &device, &mut rng, runs),
            check_program::<MaxClamp>("MaxClamp", &device, &mut rng, runs),
            check_program::<Neg>("Neg", &device, &mut rng, runs),
            check_program::<Narrowing>("Narrowing", &device, &mut rng, runs),
            check_program::<HalfSum>("HalfSum", &device, &mut rng, runs),
            check_program::<Rem>("Rem", &device, &mut rng, runs),
            check_program::<BitOps>("BitOps", &device, &mut rng, runs),
            check_program::<Abs>("Abs", &device, &mut rng, runs),
            check_program::<Select>("Select", &device, &mut rng, runs),
        ] {
            for k in 0..3 {
                total[k] += outcome[k];
            }
        }
        println!(
            "{}: ok {}, refused or faulted {}, wrapped {}",
            device.name(),
            total[0],
            total[1],
            total[2]
        );
        assert!(total[0] > 0 && total[1] > 0, "{total:?}");
    }
}
