//! Every construct of the tasklet language, through the PTX backend and
//! `ptxas -arch=sm_90`. Without ptxas the tests print "skipped: no ptxas"
//! (unless SDFG_REQUIRE_PTXAS=1, then they fail). A rejected module fails
//! with ptxas's message; the module is saved under target/ptxas-rejected/.

use sdfg_compiler::codegen::ptx::ptxas::{assemble_check, resource_usage, ResourceUsage};
use sdfg_compiler::codegen::ptx::{generate, PtxModule};
use sdfg_compiler::ir::*;
use sdfg_testkit::builder::{e, local, map_param, s, SdfgBuilder};
use sdfg_testkit::examples::{axpy, dot, stencil};
use ScalarType::*;

fn ptxas_required() -> bool {
    std::env::var("SDFG_REQUIRE_PTXAS").is_ok_and(|v| v == "1")
}

/// Assembles the module; returns the per-function resource usage (empty when skipped).
fn assemble(name: &str, m: &PtxModule) -> Vec<ResourceUsage> {
    match assemble_check(&m.text) {
        Ok(Some(log)) => resource_usage(&log),
        Ok(None) => {
            assert!(
                !ptxas_required(),
                "SDFG_REQUIRE_PTXAS=1 but no ptxas (set SDFG_PTXAS or PATH)"
            );
            println!("skipped: no ptxas");
            Vec::new()
        }
        Err(msg) => {
            let dir =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ptxas-rejected");
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{name}.ptx"));
            let _ = std::fs::write(&path, &m.text);
            panic!(
                "ptxas rejected `{name}` (saved to {}):\n{msg}",
                path.display()
            );
        }
    }
}

#[test]
fn sdfg_embeds_a_cubin_per_requested_gpu() {
    let m = generate(&axpy());
    let cubins = sdfg_compiler::codegen::ptx::ptxas::embedded_cubins(&m.text, true);
    if cubins.is_empty() {
        assert!(
            !ptxas_required(),
            "SDFG_REQUIRE_PTXAS=1 but no cubin was assembled"
        );
        println!("skipped: no ptxas");
        return;
    }
    let archs = sdfg_compiler::codegen::ptx::ptxas::cubin_archs();
    assert_eq!(cubins.iter().map(|c| c.cc).collect::<Vec<_>>(), archs);
    for c in &cubins {
        assert!(
            c.image.starts_with(b"\x7fELF"),
            "sm_{}: not an ELF image",
            c.cc
        );
        assert_eq!(c.grid_waits, c.cc >= 90, "sm_{}: grid waits", c.cc);
    }
    assert!(sdfg_compiler::codegen::ptx::ptxas::embedded_cubins(&m.text, false).is_empty());
}

/// Every map kernel (flat, block, one-thread) carries the grid-dependency
/// mark once, at the start of its body; for sm_90 the mark becomes the
/// waits and ptxas takes the module; for sm_80 nothing changes.
#[test]
fn map_kernels_wait_for_their_grid_dependencies_from_sm_90() {
    use sdfg_compiler::codegen::ptx::{for_arch, GRID_DEPENDENCY_MARK};
    for (name, sdfg) in [("axpy", axpy()), ("stencil", stencil()), ("dot", dot())] {
        let m = generate(&sdfg);
        let entries = m.text.matches(".visible .entry").count();
        assert_eq!(
            m.text.matches(GRID_DEPENDENCY_MARK).count(),
            entries,
            "{name}"
        );
        assert!(!m.text.contains("griddepcontrol"), "{name}: sm_80 text");
        assert_eq!(for_arch(&m.text, 80), (m.text.clone(), false));
        let (hopper, waits) = for_arch(&m.text, 90);
        assert!(waits, "{name}");
        assert!(hopper.contains(".target sm_90\n"), "{name}");
        assert_eq!(
            hopper.matches("griddepcontrol.wait;").count(),
            entries,
            "{name}"
        );
        // The wait comes before the kernel's first memory access.
        for body in hopper.split(".visible .entry").skip(1) {
            let wait = body.find("griddepcontrol.wait;").expect("a wait");
            for access in ["ld.global", "st.global", "atom.global", "red.global"] {
                if let Some(at) = body.find(access) {
                    assert!(wait < at, "{name}: {access} before the wait");
                }
            }
        }
        let hopper = PtxModule {
            text: hopper,
            kernels: m.kernels.clone(),
            neighbour_sync: m.neighbour_sync.clone(),
        };
        assemble(&format!("{name}_sm90"), &hopper);
    }
}

fn range(name: &str, ty: ScalarType, start: Expr, end: Expr) -> MapParam {
    map_param(name, ty, start, end, None)
}

#[test]
fn axpy_and_stencil_assemble_without_spills() {
    for (name, sdfg) in [("axpy", axpy()), ("stencil", stencil()), ("dot", dot())] {
        let m = generate(&sdfg);
        let usage = assemble(name, &m);
        for u in &usage {
            println!(
                "{name}: {} registers {} spill stores {} spill loads {} stack {}",
                u.function, u.registers, u.spill_stores, u.spill_loads, u.stack_frame
            );
            assert_eq!(u.spill_stores + u.spill_loads, 0, "{name} spills: {u:?}");
        }
    }
}

/// A 3-D stencil walks its planes (`kernel/walk.rs`): its kernel waits for
/// its grid dependencies and lets its dependents start only after the
/// walk (`GRID_WAIT_MARK`, `GRID_TRIGGER_MARK`), and is capped at the 32
/// registers that let every SM run its full 2048 threads (ptxas keeps to
/// it: the state of the grid-stride fallback is what it spills).
#[test]
fn heat3d_walk_fits_32_registers_and_lets_dependents_start_at_its_end() {
    use sdfg_compiler::codegen::ptx::{
        for_arch, GRID_DEPENDENCY_MARK, GRID_TRIGGER_MARK, GRID_WAIT_MARK,
    };
    let sdfg = sdfg_compiler::frontend_str(
        "sdfg H { symbol N: i64; gpu A: f64[N, N, N]; gpu B: f64[N, N, N];
          state s { map b[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {
            B[i, j, k] = 0.125 * (A[i+1, j, k] - 2.0 * A[i, j, k] + A[i-1, j, k])
                + 0.125 * (A[i, j+1, k] - 2.0 * A[i, j, k] + A[i, j-1, k])
                + 0.125 * (A[i, j, k+1] - 2.0 * A[i, j, k] + A[i, j, k-1])
                + A[i, j, k];
          } } }",
    )
    .unwrap();
    let m = generate(&sdfg);
    assert!(m.kernels[0].rows_in_z && m.kernels[0].rows_per_thread == 8);
    assert!(m.text.contains("walk: each row"), "{}", m.text);
    assert!(m.text.contains(".maxnreg 32\n"), "{}", m.text);
    assert_eq!(m.text.matches(GRID_WAIT_MARK).count(), 1);
    assert!(!m.text.contains(GRID_DEPENDENCY_MARK));
    // The trigger comes once, after the walk's last store, on the way out.
    assert_eq!(m.text.matches(GRID_TRIGGER_MARK).count(), 1);
    let walk = m.text.find("walk: each row").unwrap();
    let trigger = m.text.find(GRID_TRIGGER_MARK).unwrap();
    assert!(walk < trigger && m.text[walk..trigger].contains("st.global"));
    let after = &m.text[trigger + GRID_TRIGGER_MARK.len()..];
    assert!(after.trim_start().starts_with("bra.uni"), "{after}");
    let (hopper, waits) = for_arch(&m.text, 90);
    assert!(waits && hopper.contains("griddepcontrol.wait;"));
    assert_eq!(
        hopper.matches("griddepcontrol.launch_dependents;").count(),
        1
    );
    for u in assemble("heat3d_walk", &m) {
        assert!(u.registers <= 32, "{u:?}");
    }
}

/// Which 3-D maps walk: bodies of `let`s and stores of loads every
/// iteration issues first, with arithmetic but no division, walk capped
/// at 32 or 40 registers; a math subroutine, a division, a branch or a
/// load through another load keep the tiles of rows (under the cap they
/// spilled 200 to 1,900 bytes per thread), and assemble without spills.
#[test]
fn only_plain_3d_bodies_walk() {
    let cases = [
        ("let t = A[i, j, k] * 2.0; B[i, j, k] = t * A[i + 1, j, k] + A[i - 1, j, k];", true),
        ("B[i, j, k] = A[i, j, k].abs().max(A[i + 1, j, k]) + A[i, j, k - 1].mul_add(2.0, A[i, j - 1, k]);", true),
        ("B[i, j, k] = A[i, j, k] * ((i * j + k) as f64) + A[i + 1, j, k];", true),
        ("B[i, j, k] = A[i, j, k].exp() + A[i + 1, j, k];", false),
        ("B[i, j, k] = A[i, j, k].powf(1.5) + A[i + 1, j, k];", false),
        ("B[i, j, k] = A[i, j, k] / A[i + 1, j, k];", false),
        ("B[i, j, k] = A[i, j, k] % 3.0;", false),
        ("B[i, j, k] = A[I[k], j, k] + A[i + 1, j, k];", false),
        ("if A[i, j, k] > 0.5 { B[i, j, k] = A[i + 1, j, k]; } else { B[i, j, k] = A[i - 1, j, k]; }", false),
    ];
    for (body, walks) in cases {
        let sdfg = sdfg_compiler::frontend_str(&format!(
            "sdfg H {{ symbol N: i64; gpu A: f64[N, N, N]; gpu B: f64[N, N, N]; gpu I: i64[N];
              state s {{ map b[i in 1..N-1, j in 1..N-1, k in 1..N-1] on gpu {{ {body} }} }} }}"
        ))
        .unwrap();
        let m = generate(&sdfg);
        assert_eq!(m.text.contains("walk: each row"), walks, "{body}");
        assert_eq!(m.kernels[0].rows_in_z, walks, "{body}");
        let cap = m
            .text
            .lines()
            .find_map(|l| l.strip_prefix(".maxnreg "))
            .map(|n| n.parse::<u32>().unwrap());
        assert_eq!(cap.is_some(), walks, "{body}");
        for u in assemble("walk_or_tiles", &m) {
            if let Some(cap) = cap {
                assert!(u.registers <= cap, "{body}: {u:?}");
            } else {
                assert_eq!(u.spill_stores + u.spill_loads, 0, "{body}: {u:?}");
            }
        }
    }
}

const NUMERIC: [ScalarType; 10] = [I8, I16, I32, I64, U8, U16, U32, U64, F32, F64];

/// A 1-D gpu map over `i in 0..N` (i64) with the given body; returns the builder's SDFG.
struct Kit {
    b: SdfgBuilder,
    n: SymbolId,
    st: StateId,
}

impl Kit {
    fn new(name: &str) -> Kit {
        let mut b = SdfgBuilder::new(name);
        let n = b.symbol("N", I64);
        let st = b.state("s");
        Kit { b, n, st }
    }
    fn vec(&mut self, name: &str, ty: ScalarType) -> ContainerId {
        let n = self.n;
        self.b.gpu(name, ty, vec![e::sym(n, I64)])
    }
    fn map1(&mut self, name: &str, locals: Vec<Local>, stmts: Vec<Stmt>) {
        let n = self.n;
        let p = vec![range("i", I64, e::i64(0), e::sym(n, I64))];
        self.b
            .gpu_map(self.st, name, p, TaskletBody { locals, stmts });
    }
}

fn i() -> Expr {
    e::param(0, I64)
}

#[test]
fn every_operator_of_every_type() {
    let mut count = 0;
    for ty in NUMERIC.into_iter().chain([Bool, C32, C64]) {
        let mut k = Kit::new(&format!("ops_{ty}"));
        let a = k.vec("A", ty);
        let b = k.vec("B", ty);
        let sh = k.vec("S", U64);
        let sh32 = k.vec("S32", I32);
        let out = k.vec("OUT", ty);
        let flags = k.vec("F", Bool);
        let x = || e::load(a, ty, vec![i()]);
        let y = || e::load(b, ty, vec![i()]);
        let mut stmts = Vec::new();
        let mut ops = vec![BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor];
        if ty != Bool {
            ops = vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Rem];
            if ty.is_integer() {
                ops.extend([BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor]);
            }
        }
        for op in ops {
            stmts.push(s::store(out, vec![i()], e::bin(op, x(), y())));
        }
        if ty.is_integer() {
            for op in [BinOp::Shl, BinOp::Shr] {
                stmts.push(s::store(
                    out,
                    vec![i()],
                    e::bin(op, x(), e::load(sh, U64, vec![i()])),
                ));
                stmts.push(s::store(
                    out,
                    vec![i()],
                    e::bin(op, x(), e::load(sh32, I32, vec![i()])),
                ));
            }
            stmts.push(s::store(out, vec![i()], e::un(UnOp::Not, x())));
            for f in [MathFn::Min, MathFn::Max] {
                stmts.push(s::store(out, vec![i()], e::call(f, vec![x(), y()])));
            }
            if ty.is_signed_integer() {
                stmts.push(s::store(out, vec![i()], e::call(MathFn::Abs, vec![x()])));
            }
        }
        if ty.is_signed_integer() || ty.is_float() {
            stmts.push(s::store(out, vec![i()], e::un(UnOp::Neg, x())));
        }
        if ty.is_float() {
            for f in MathFn::ALL.into_iter().filter(|f| f.takes_reals()) {
                let args = match f.arity() {
                    1 => vec![x()],
                    _ if f == MathFn::Powi => vec![x(), e::load(sh32, I32, vec![i()])],
                    _ => vec![x(), y()],
                };
                stmts.push(s::store(out, vec![i()], e::call(f, args)));
            }
        }
        if ty == Bool {
            stmts.push(s::store(out, vec![i()], e::un(UnOp::Not, x())));
            stmts.push(s::store(out, vec![i()], e::bin(BinOp::And, x(), y())));
            stmts.push(s::store(out, vec![i()], e::bin(BinOp::Or, x(), y())));
        }
        if ty.is_complex() {
            let part = ty.real_part();
            let p = k.vec("P", part);
            stmts.push(s::store(out, vec![i()], e::un(UnOp::Neg, x())));
            for f in [MathFn::Conj, MathFn::Exp] {
                stmts.push(s::store(out, vec![i()], e::call(f, vec![x()])));
            }
            for f in [
                MathFn::Abs,
                MathFn::NormSqr,
                MathFn::Arg,
                MathFn::Re,
                MathFn::Im,
            ] {
                let call = Expr::new(
                    ExprKind::Call {
                        func: f,
                        args: vec![x()],
                    },
                    part,
                    proc_macro2::Span::call_site(),
                );
                stmts.push(s::store(p, vec![i()], call));
            }
            let parts = vec![e::load(p, part, vec![i()]), e::load(p, part, vec![i()])];
            let new = Expr::new(
                ExprKind::Call {
                    func: MathFn::Complex,
                    args: parts,
                },
                ty,
                proc_macro2::Span::call_site(),
            );
            stmts.push(s::store(out, vec![i()], new));
            stmts.push(s::reduce(out, vec![e::i64(0)], x(), WcrOp::Sum));
        }
        let comparisons = if ty.is_complex() {
            vec![BinOp::Eq, BinOp::Ne]
        } else {
            vec![
                BinOp::Eq,
                BinOp::Ne,
                BinOp::Lt,
                BinOp::Le,
                BinOp::Gt,
                BinOp::Ge,
            ]
        };
        for op in comparisons {
            stmts.push(s::store(flags, vec![i()], e::bin(op, x(), y())));
        }
        // Casts to every type but bool (complex values have none), and select.
        for to in NUMERIC.into_iter().filter(|_| !ty.is_complex()) {
            let c = k.vec(&format!("C_{to}"), to);
            stmts.push(s::store(c, vec![i()], e::cast(x(), to)));
        }
        stmts.push(s::store(
            out,
            vec![i()],
            e::select(e::load(flags, Bool, vec![i()]), x(), y()),
        ));
        stmts.push(s::store(
            out,
            vec![i()],
            e::select(e::bin(BinOp::Lt, i(), e::i64(5)), x(), y()),
        ));
        k.map1("ops", vec![], stmts);
        let sdfg = k.b.build();
        assemble(&format!("ops_{ty}"), &generate(&sdfg));
        count += 1;
    }
    println!("assembled {count} modules");
}

#[test]
fn literals_of_every_type_including_specials() {
    let mut k = Kit::new("literals");
    let mut stmts = Vec::new();
    let values = [
        Value::I32(i32::MIN),
        Value::I64(i64::MIN),
        Value::U32(u32::MAX),
        Value::U64(u64::MAX),
        Value::F32(f32::NAN),
        Value::F32(f32::NEG_INFINITY),
        Value::F32(1e-45),
        Value::F64(-0.0),
        Value::F64(f64::INFINITY),
        Value::F64(5e-324),
        Value::Bool(true),
        Value::Bool(false),
    ];
    for (n, v) in values.into_iter().enumerate() {
        let c = k.vec(&format!("L{n}"), v.ty());
        stmts.push(s::store(c, vec![i()], e::lit(v)));
    }
    k.map1("lits", vec![], stmts);
    assemble("literals", &generate(&k.b.build()));
}

#[test]
fn wcr_of_every_op_and_type() {
    let mut n = 0;
    for ty in NUMERIC.into_iter().chain([C32, C64]) {
        // `+=` is the only reduction of complex values.
        let ops: &[WcrOp] = if ty.is_complex() {
            &[WcrOp::Sum]
        } else {
            &[WcrOp::Sum, WcrOp::Product, WcrOp::Min, WcrOp::Max]
        };
        for &op in ops {
            let mut k = Kit::new(&format!("wcr_{}_{ty}", op.name()));
            let a = k.vec("A", ty);
            let r = k.vec("R", ty);
            let total = k.b.gpu("T", ty, vec![]);
            // R[i % 7] (guarded: not affine) and a scalar.
            let idx = e::bin(BinOp::Rem, i(), e::i64(7));
            let stmts = vec![
                s::reduce(r, vec![idx], e::load(a, ty, vec![i()]), op),
                s::reduce(total, vec![], e::load(a, ty, vec![i()]), op),
                s::reduce(r, vec![i()], e::load(a, ty, vec![i()]), op),
            ];
            k.map1("red", vec![], stmts);
            assemble(&format!("wcr_{}_{ty}", op.name()), &generate(&k.b.build()));
            n += 1;
        }
    }
    println!("assembled {n} modules");
}

#[test]
fn n_dimensional_maps_with_steps_and_param_types() {
    for dims in 1..=4usize {
        for pty in [I32, I64, U32, U64] {
            let mut b = SdfgBuilder::new(&format!("nd{dims}_{pty}"));
            let n = b.symbol("N", pty);
            let shape: Vec<Expr> = (0..dims).map(|_| e::cast(e::sym(n, pty), U64)).collect();
            let a = b.gpu("A", F64, shape.clone());
            let out = b.gpu("O", F64, shape);
            let st = b.state("s");
            let lit = |v: i64| e::lit(eval_cast(v, pty));
            let params: Vec<MapParam> = (0..dims)
                .map(|d| {
                    map_param(
                        &format!("p{d}"),
                        pty,
                        lit(d as i64),
                        e::sym(n, pty),
                        if d % 2 == 1 { Some(lit(3)) } else { None },
                    )
                })
                .collect();
            let idx: Vec<Expr> = (0..dims).map(|d| e::param(d, pty)).collect();
            let body = TaskletBody {
                locals: vec![],
                stmts: vec![s::store(
                    out,
                    idx.clone(),
                    e::mul(e::load(a, F64, idx), e::f64(2.0)),
                )],
            };
            b.gpu_map(st, "m", params, body);
            assemble(&format!("nd{dims}_{pty}"), &generate(&b.build()));
        }
    }
}

fn eval_cast(v: i64, ty: ScalarType) -> Value {
    sdfg_compiler::ir::semantics::cast(Value::I64(v), ty)
}

#[test]
fn guards_loops_ifs_locals_and_lazy_logic() {
    let mut k = Kit::new("control");
    let n = k.n;
    let a = k.vec("A", F32);
    let idx = k.vec("IDX", I32);
    let out = k.vec("OUT", F32);
    let cnt = k.vec("CNT", U32);
    let flag_sym = k.b.symbol("FLAG", Bool);
    let host_b = k.b.container("hb", Bool, vec![], Storage::Host);
    let host_d = k.b.container("hd", F64, vec![], Storage::Host);
    let locals = vec![
        local("acc", F32, true),
        local("k", I64, false),
        local("u", U32, false),
        local("j", I32, true),
    ];
    let data_idx = e::load(idx, I32, vec![i()]);
    let stmts = vec![
        s::let_(0, e::f32(0.0)),
        // for k in (0..N).step_by(3): acc += A[k]  (prechecked: boxed loop var)
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
        // for u in 10u32..0 (empty), nested loop with data-dependent bound
        s::for_(
            2,
            e::u32(10),
            e::u32(0),
            None,
            vec![s::for_(
                1,
                e::i64(0),
                e::cast(e::local(2, U32), I64),
                None,
                vec![],
            )],
        ),
        // data-dependent index: guarded
        s::assign(
            0,
            e::add(e::local(0, F32), e::load(a, F32, vec![data_idx.clone()])),
        ),
        // if with a guarded load in a branch
        s::if_(
            e::bin(
                BinOp::And,
                e::sym(flag_sym, Bool),
                e::bin(
                    BinOp::Gt,
                    e::load(a, F32, vec![e::cast(data_idx.clone(), I64)]),
                    e::f32(0.5),
                ),
            ),
            vec![s::store(
                out,
                vec![e::sub(i(), e::i64(1))],
                e::local(0, F32),
            )],
            vec![s::reduce(
                cnt,
                vec![e::bin(BinOp::Rem, i(), e::i64(3))],
                e::u32(1),
                WcrOp::Sum,
            )],
        ),
        // select with loads on both sides (branches), || with a load
        s::store(
            out,
            vec![i()],
            e::select(
                e::bin(
                    BinOp::Or,
                    e::load(host_b, Bool, vec![]),
                    e::bin(BinOp::Eq, e::load(a, F32, vec![i()]), e::f32(1.0)),
                ),
                e::load(a, F32, vec![e::add(i(), e::i64(1))]),
                e::cast(e::load(host_d, F64, vec![]), F32),
            ),
        ),
        s::let_(3, e::i32(0)),
        s::for_(
            3,
            e::i32(-5),
            e::i32(i32::MAX),
            Some(e::i32(1 << 30)),
            vec![s::store(
                out,
                vec![e::cast(e::local(3, I32), I64)],
                e::f32(1.0),
            )],
        ),
    ];
    k.map1("ctl", locals, stmts);
    assemble("control", &generate(&k.b.build()));
}

#[test]
fn big_index_math() {
    let mut b = SdfgBuilder::new("big");
    let m = b.symbol("M", U64);
    let rows = b.symbol("R", U64);
    let a = b.gpu("A", F32, vec![e::mul(e::sym(rows, U64), e::sym(m, U64))]);
    let o = b.gpu("O", F32, vec![e::sym(rows, U64), e::sym(m, U64)]);
    let st = b.state("s");
    let (r, c) = (e::param(0, U64), e::param(1, U64));
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::store(
            o,
            vec![r.clone(), c.clone()],
            e::load(a, F32, vec![e::add(e::mul(r, e::sym(m, U64)), c)]),
        )],
    };
    b.gpu_map(
        st,
        "flat",
        vec![
            range("r", U64, e::u64(0), e::sym(rows, U64)),
            range("c", U64, e::u64(0), e::sym(m, U64)),
        ],
        body,
    );
    assemble("big", &generate(&b.build()));
}

/// `while`, `loop`, `break` and `continue` (also in a stepped `for`, where
/// `continue` goes through the overflow guard), written in the language.
#[test]
fn while_break_and_continue() {
    let sdfg = sdfg_compiler::frontend_str(
        "sdfg Loops { symbol N: i64; gpu X: i64[N]; gpu Y: i64[N]; state s {
            map m[i in 0..N] on gpu {
                let mut v = X[i];
                let mut n = 0i64;
                while v > 1 { if v % 2 == 0 { v = v / 2; continue; } v = 3 * v + 1; n += 1; }
                for k in (0..N).step_by(3) { if k > i { break; } if k % 2 == 0 { continue; } n += k; }
                loop { n -= 1; if n < 5 { break; } }
                Y[i] = n;
            } } }",
    )
    .expect("valid");
    assemble("loops", &generate(&sdfg));
}

/// Ranges that read earlier parameters (`ir::ranges`), in 2 and 3
/// dimensions, with 32- and 64-bit and unsigned parameters.
#[test]
fn dependent_ranges() {
    let sdfg = sdfg_compiler::frontend_str(
        "sdfg Tri { symbol N: i64; symbol M: u32; gpu A: f64[N, N]; gpu B: f64[8, 8];
            gpu U: f64[N, N]; gpu C: f64[N, N, N]; state s {
            map lower[i in 0..N, j in 0..i] on gpu { A[i, j] = 1.0; }
            map small[i in 0..8, j in i..8] on gpu { B[i, j] = 2.0; }
            map unsigned[i in 0..M, j in (i..M).step_by(2)] on gpu { U[i as i64, j as i64] = 3.0; }
            map tetra[i in 0..N, j in 0..i + 1, k in j..i + 1] on gpu { C[i, j, k] = 4.0; }
        } }",
    )
    .expect("valid");
    assemble("dependent", &generate(&sdfg));
}

#[test]
fn multi_state_module() {
    let mut sdfg = stencil();
    let second = axpy();
    // Two states, two kernels in one module: reuse axpy's map in a second state.
    let mut st = second.states[0].clone();
    st.name = Name::new("again", proc_macro2::Span::call_site());
    let off = sdfg.containers.len();
    sdfg.containers.extend(second.containers.iter().cloned());
    let sym_off = sdfg.symbols.len();
    sdfg.symbols
        .extend(second.symbols.iter().cloned().map(|mut s| {
            s.name.text += "_2";
            s
        }));
    let _ = (off, sym_off);
    // The axpy statement references container ids 0..3 of its own SDFG; keep it
    // consistent by only checking that two gpu maps in two states work.
    let mut st2 = sdfg.states[0].clone();
    st2.name = Name::new("step2", proc_macro2::Span::call_site());
    sdfg.states.push(st2);
    let m = generate(&sdfg);
    assert_eq!(m.kernels.len(), 2);
    assert_ne!(m.kernels[0].abi.name, m.kernels[1].abi.name);
    assemble("multi", &m);
}

#[test]
#[ignore]
fn print_axpy() {
    println!("{}", generate(&axpy()).text);
    println!("{}", generate(&stencil()).text);
}

#[test]
fn invalid_ptx_is_rejected() {
    let bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { add.f32 %nope, 1, 2; ret; }\n";
    match assemble_check(bad) {
        Ok(None) => println!("skipped: no ptxas"),
        Ok(Some(_)) => panic!("ptxas accepted invalid PTX"),
        Err(msg) => assert!(!msg.is_empty()),
    }
}
