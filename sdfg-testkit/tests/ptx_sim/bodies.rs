//! Bodies: guarded accesses and fault codes, loops, ifs, locals, lazy
//! logic, and random bodies.

use super::*;

#[test]
fn guarded_accesses_skip_and_fault() {
    let mut b = SdfgBuilder::new("guards");
    let n = b.symbol("N", I64);
    let a = b.gpu("A", I32, vec![e::sym(n, I64)]);
    let idx = b.gpu("IDX", I64, vec![e::sym(n, I64)]);
    let out = b.gpu("O", I32, vec![e::sym(n, I64)]);
    let st = b.state("s");
    let i = e::param(0, I64);
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![
            // O[i] = A[IDX[i]] (IDX may be out of range: skipped, reads 0, faults)
            s::store(
                out,
                vec![i.clone()],
                e::load(a, I32, vec![e::load(idx, I64, vec![i.clone()])]),
            ),
            // A guarded load that never faults: if i > 0 { A[i - 1] } else { 0 }
            s::reduce(
                out,
                vec![i.clone()],
                e::select(
                    e::bin(BinOp::Gt, i.clone(), e::i64(0)),
                    e::load(a, I32, vec![e::sub(i.clone(), e::i64(1))]),
                    e::i32(0),
                ),
                WcrOp::Sum,
            ),
        ],
    };
    b.gpu_map(
        st,
        "g",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        body,
    );
    let sdfg = b.build();
    let nn = 50usize;
    let mut d = fill(&sdfg, &[(a, vec![nn]), (out, vec![nn])], 3);
    // In range everywhere: no fault.
    d.insert(
        idx,
        (
            vec![nn],
            (0..nn).map(|k| Value::I64(((k * 7) % nn) as i64)).collect(),
        ),
    );
    assert_eq!(
        check(
            "guards-ok",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1]]
        ),
        0
    );
    // Some negative and too-large indices: code 2 = the second access in program order (A[..]).
    d.insert(
        idx,
        (
            vec![nn],
            (0..nn)
                .map(|k| {
                    Value::I64(if k % 5 == 0 {
                        -1
                    } else if k % 7 == 0 {
                        nn as i64
                    } else {
                        k as i64
                    })
                })
                .collect(),
        ),
    );
    assert_eq!(
        check(
            "guards-oob",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1]]
        ),
        2
    );
}

/// The fault slot's record: the kernel's number in its module, the access
/// code, and the row-major index of the first skipped access.
#[test]
fn the_fault_slot_records_kernel_access_and_index() {
    let mut b = SdfgBuilder::new("slots");
    let n = b.symbol("N", I64);
    let a = b.gpu("A", I32, vec![e::sym(n, I64)]);
    let idx = b.gpu("IDX", I64, vec![e::sym(n, I64)]);
    let out = b.gpu("O", I32, vec![e::sym(n, I64)]);
    let i = e::param(0, I64);
    let gather = || TaskletBody {
        locals: vec![],
        stmts: vec![s::store(
            out,
            vec![i.clone()],
            e::load(a, I32, vec![e::load(idx, I64, vec![i.clone()])]),
        )],
    };
    for state in ["first", "second"] {
        let st = b.state(state);
        let range = vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)];
        b.gpu_map(st, "g", range, gather());
    }
    let sdfg = b.build();
    let nn = 20usize;
    let mut d = fill(&sdfg, &[(a, vec![nn]), (out, vec![nn])], 5);
    let bad: Vec<Value> = (0..nn)
        .map(|k| Value::I64(if k == 7 { 23 } else { k as i64 }))
        .collect();
    d.insert(idx, (vec![nn], bad));
    let module = generate(&sdfg);
    let (_, want) = eval_map(&sdfg, 1, 0, &[Value::I64(nn as i64)], &d);
    let want = want.expect("the evaluator faults too");
    assert_eq!(
        (want.container, want.index.clone(), want.is_store),
        (a, vec![23], false)
    );
    for kernel in [0, 1] {
        let (_, fault) = simulate_map_fault(
            &sdfg,
            &module,
            kernel,
            &[Value::I64(nn as i64)],
            &d,
            [1, 1, 1],
        )
        .unwrap();
        let want = SimFault {
            kernel: kernel as u32,
            access: 2,
            index: 23,
        };
        assert_eq!(fault, Some(want), "kernel {kernel}");
    }
}

#[test]
fn loops_ifs_locals_and_lazy_logic() {
    let mut b = SdfgBuilder::new("control");
    let n = b.symbol("N", I64);
    let flag = b.symbol("FLAG", Bool);
    let a = b.gpu("A", F32, vec![e::sym(n, I64)]);
    let out = b.gpu("O", F32, vec![e::sym(n, I64)]);
    let cnt = b.gpu("C", U32, vec![e::i64(3)]);
    let hb = b.container("hb", Bool, vec![], Storage::Host);
    let st = b.state("s");
    let i = || e::param(0, I64);
    let locals = vec![
        local("acc", F32, true),
        local("k", I64, false),
        local("u", U32, false),
        local("j", I32, false),
    ];
    let stmts = vec![
        s::let_(0, e::f32(0.0)),
        s::for_(
            1,
            e::i64(0),
            e::sym(n, I64),
            Some(e::i64(3)),
            vec![s::assign(
                0,
                e::add(e::local(0, F32), e::load(a, F32, vec![e::local(1, I64)])),
            )],
        ),
        s::for_(
            2,
            e::u32(4),
            e::u32(0),
            None,
            vec![s::assign(0, e::f32(-1.0))],
        ),
        s::for_(
            3,
            e::i32(-5),
            e::i32(i32::MAX),
            Some(e::i32(1 << 30)),
            vec![s::assign(
                0,
                e::add(e::local(0, F32), e::cast(e::local(3, I32), F32)),
            )],
        ),
        s::if_(
            e::bin(
                BinOp::And,
                e::sym(flag, Bool),
                e::bin(BinOp::Gt, e::load(a, F32, vec![i()]), e::f32(0.0)),
            ),
            vec![s::store(out, vec![i()], e::local(0, F32))],
            vec![
                s::reduce(
                    cnt,
                    vec![e::bin(BinOp::Rem, i(), e::i64(3))],
                    e::u32(1),
                    WcrOp::Sum,
                ),
                s::store(
                    out,
                    vec![i()],
                    e::select(
                        e::bin(
                            BinOp::Or,
                            e::load(hb, Bool, vec![]),
                            e::bin(BinOp::Lt, i(), e::i64(4)),
                        ),
                        e::load(a, F32, vec![e::add(i(), e::i64(1))]),
                        e::f32(7.0),
                    ),
                ),
            ],
        ),
    ];
    b.gpu_map(
        st,
        "ctl",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        TaskletBody { locals, stmts },
    );
    let sdfg = b.build();
    let nn = 23usize;
    for (fl, hbv) in [(true, false), (false, false), (false, true)] {
        let mut d = fill(&sdfg, &[(a, vec![nn]), (out, vec![nn])], 9);
        d.insert(cnt, (vec![3], vec![Value::U32(0); 3]));
        d.insert(hb, (vec![], vec![Value::Bool(hbv)]));
        check(
            "control",
            &sdfg,
            &[Value::I64(nn as i64), Value::Bool(fl)],
            &d,
            &[[1, 1, 1], [3, 1, 1]],
        );
    }
}

/// `while`, `break` and `continue`: in a stepped `for` whose step would
/// overflow (`continue` must still stop there), in a `while` with a
/// data-dependent trip count, and a store after a `break` that is out of
/// bounds on the iteration that breaks (it must not run, nor fault).
#[test]
fn while_break_and_continue() {
    let mut b = SdfgBuilder::new("loops");
    let n = b.symbol("N", I64);
    let a = b.gpu("A", I32, vec![e::sym(n, I64)]);
    let out = b.gpu("O", I32, vec![e::sym(n, I64)]);
    let st = b.state("s");
    let i = || e::param(0, I64);
    let locals = vec![
        local("acc", I32, true),
        local("k", I32, false),
        local("m", I64, true),
        local("j", I64, false),
    ];
    let acc = || e::local(0, I32);
    let stmts = vec![
        s::let_(0, e::i32(0)),
        // for k in (-5..i32::MAX).step_by(1 << 29): skip odd multiples, stop past 1 << 30.
        s::for_(
            1,
            e::i32(-5),
            e::i32(i32::MAX),
            Some(e::i32(1 << 29)),
            vec![
                s::if_(
                    e::bin(BinOp::Gt, e::local(1, I32), e::i32(1 << 30)),
                    vec![s::break_()],
                    vec![],
                ),
                s::if_(
                    e::bin(
                        BinOp::Eq,
                        e::bin(BinOp::Rem, e::local(1, I32), e::i32(3)),
                        e::i32(0),
                    ),
                    vec![s::continue_()],
                    vec![],
                ),
                s::assign(0, e::add(acc(), e::i32(1))),
            ],
        ),
        // Collatz-like steps of A[i] (bounded): a data-dependent `while`.
        s::let_(2, e::cast(e::load(a, I32, vec![i()]), I64)),
        s::while_(
            e::bin(BinOp::Gt, e::local(2, I64), e::i64(1)),
            vec![
                s::if_(
                    e::bin(BinOp::Gt, acc(), e::i32(60)),
                    vec![s::break_()],
                    vec![],
                ),
                s::assign(0, e::add(acc(), e::i32(1))),
                s::if_(
                    e::bin(
                        BinOp::Eq,
                        e::bin(BinOp::Rem, e::local(2, I64), e::i64(2)),
                        e::i64(0),
                    ),
                    vec![
                        s::assign(2, e::bin(BinOp::Div, e::local(2, I64), e::i64(2))),
                        s::continue_(),
                    ],
                    vec![],
                ),
                s::assign(2, e::add(e::mul(e::local(2, I64), e::i64(3)), e::i64(1))),
            ],
        ),
        // for j in i..i + 3 { if j >= N { break; } O[j] += acc } (stores after the
        // break stay in bounds).
        s::for_(
            3,
            i(),
            e::add(i(), e::i64(3)),
            None,
            vec![
                s::if_(
                    e::bin(BinOp::Ge, e::local(3, I64), e::sym(n, I64)),
                    vec![s::break_()],
                    vec![],
                ),
                s::reduce(out, vec![e::local(3, I64)], acc(), WcrOp::Sum),
            ],
        ),
    ];
    b.gpu_map(
        st,
        "loops",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        TaskletBody { locals, stmts },
    );
    let sdfg = b.build();
    let nn = 19usize;
    let mut d = fill(&sdfg, &[(out, vec![nn])], 5);
    d.insert(
        a,
        (
            vec![nn],
            (0..nn).map(|k| Value::I32(k as i32 * 7 - 20)).collect(),
        ),
    );
    assert_eq!(
        check(
            "while-break-continue",
            &sdfg,
            &[Value::I64(nn as i64)],
            &d,
            &[[1, 1, 1], [4, 1, 1]],
        ),
        0,
        "no access faults: the store after the break never runs out of bounds"
    );
}

#[test]
fn random_bodies_match_evaluator() {
    use sdfg_testkit::randexpr::random_body;
    let n = 13usize;
    let seeds = if cfg!(debug_assertions) { 30 } else { 300 };
    let mut faulted = 0;
    for seed in 0..seeds {
        let ty = ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize];
        let k = random_body(seed, ty, seed % 2 == 1);
        let mut d = Data::new();
        for &(t, c) in &k.inputs {
            d.insert(c, (vec![n], random_inputs(seed, t, n)));
        }
        d.insert(k.out, (vec![n], vec![Value::from_bits(ty, 0); n]));
        let acc_ty = k.sdfg.containers[k.acc].elem;
        d.insert(k.acc, (vec![3], random_inputs(seed + 1, acc_ty, 3)));
        if check(
            &format!("body seed {seed}"),
            &k.sdfg,
            &[Value::I64(n as i64)],
            &d,
            &[[1, 1, 1], [2, 1, 1]],
        ) != 0
        {
            faulted += 1;
        }
    }
    println!("{seeds} random bodies matched ({faulted} with out-of-bounds accesses)");
}

#[test]
#[ignore]
fn debug_body() {
    use sdfg_testkit::randexpr::random_body;
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let k = random_body(
        seed,
        ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize],
        seed % 2 == 1,
    );
    if let StatementKind::Map(m) = &k.sdfg.states[0].stmts[0].kind {
        println!("{:#?}", m.body.stmts);
    }
    println!("{}", generate(&k.sdfg).text);
}
