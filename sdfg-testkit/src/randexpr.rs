//! Random well-typed expression trees for differential tests of the
//! backends against the evaluator: every type, operator, cast, select and
//! math call, with division by zero, huge shift amounts and NaN / inf /
//! subnormal / MIN constants, over inputs `IN_<ty>[i]` of a map `i in 0..N`.
//!
//! ```ignore
//! let k = random_kernel(seed, ScalarType::F64, &GenConfig::default());
//! let ptx = codegen::ptx::generate(&k.sdfg);            // OUT[i] = k.expr
//! let inputs = random_inputs(seed, ScalarType::F64, n); // per type
//! // expected OUT[i]: eval::eval_expr(&k.expr, env with params[0] = i, ...)
//! ```
//! Expressions for which [`is_exact`] is true must agree bit for bit (NaNs:
//! any NaN); others use transcendental functions (see `ULP_BOUNDS`).

use crate::builder::{e, map_param, s, SdfgBuilder};
use crate::rng::Rng;
use proc_macro2::Span;
#[allow(unused_imports)]
use sdfg_compiler::ir::Local;
use sdfg_compiler::ir::*;
use ScalarType::*;

#[derive(Clone, Debug)]
pub struct GenConfig {
    pub max_depth: u32,
    /// Allow the transcendental functions (results within ULP bounds, not exact).
    pub approx_math: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 5,
            approx_math: true,
        }
    }
}

/// Interesting constants of each type.
pub fn special_values(ty: ScalarType) -> Vec<Value> {
    match ty {
        I8 => [0, 1, -1, 2, 7, 8, 9, -7, 100, i8::MIN, i8::MAX]
            .map(Value::I8)
            .to_vec(),
        I16 => [0, 1, -1, 3, 15, 16, 17, -300, 1000, i16::MIN, i16::MAX]
            .map(Value::I16)
            .to_vec(),
        U8 => [0, 1, 2, 7, 8, 9, 128, 200, u8::MAX]
            .map(Value::U8)
            .to_vec(),
        U16 => [0, 1, 2, 15, 16, 17, 1 << 15, 40000, u16::MAX]
            .map(Value::U16)
            .to_vec(),
        I32 => [0, 1, -1, 2, 7, -7, 31, 32, 33, i32::MIN, i32::MAX]
            .map(Value::I32)
            .to_vec(),
        I64 => [0, 1, -1, 3, 63, 64, 65, -100, i64::MIN, i64::MAX, 1 << 40]
            .map(Value::I64)
            .to_vec(),
        U32 => [0, 1, 2, 5, 31, 32, 33, u32::MAX, 1 << 31]
            .map(Value::U32)
            .to_vec(),
        U64 => [0, 1, 2, 9, 63, 64, u64::MAX, 1 << 63]
            .map(Value::U64)
            .to_vec(),
        F32 => [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.5,
            3.75,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-45,
            f32::MIN_POSITIVE,
            f32::MAX,
            2147483648.0,
            -2147483904.0,
            1e10,
        ]
        .map(Value::F32)
        .to_vec(),
        F64 => [
            0.0,
            -0.0,
            1.0,
            -2.5,
            0.1,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            9.3e18,
            -9.3e18,
            1e300,
            4294967296.0,
        ]
        .map(Value::F64)
        .to_vec(),
        // f32's specials rounded (overflowing to infinity, underflowing to
        // zero), and values at the edges of the 16-bit formats.
        F16 | BF16 => {
            let mut out: Vec<Value> = special_values(F32)
                .into_iter()
                .map(|v| sdfg_compiler::ir::semantics::cast(v, ty))
                .collect();
            out.extend(
                [65504.0, 6.1e-5, 6e-8, 3.3e38, 1.0e-38, 0.333]
                    .map(|x| sdfg_compiler::ir::semantics::cast(Value::F64(x), ty)),
            );
            out
        }
        Bool => vec![Value::Bool(false), Value::Bool(true)],
        C32 | C64 => {
            // Pairs of the part type's specials (and plain values).
            let parts = special_values(ty.real_part());
            let mut out = Vec::new();
            for (k, re) in parts.iter().enumerate() {
                let im = parts[(k * 7 + 3) % parts.len()];
                out.push(complex(*re, im));
                out.push(complex(*re, parts[(k + 2) % parts.len()]));
            }
            out
        }
    }
}

/// The complex value with parts `re` and `im` (both f32 or both f64).
pub fn complex(re: Value, im: Value) -> Value {
    use sdfg_compiler::ir::semantics::cast;
    match re.ty() {
        F32 => match (re, cast(im, F32)) {
            (Value::F32(a), Value::F32(b)) => Value::C32(num_complex::Complex::new(a, b)),
            _ => Value::from_bits(C32, 0),
        },
        _ => match (cast(re, F64), cast(im, F64)) {
            (Value::F64(a), Value::F64(b)) => Value::C64(num_complex::Complex::new(a, b)),
            _ => Value::from_bits(C64, 0),
        },
    }
}

/// A random value of `ty` (specials a third of the time).
pub fn random_value(rng: &mut Rng, ty: ScalarType) -> Value {
    if rng.chance(33) {
        return rng.pick(&special_values(ty));
    }
    let bits = rng.next_u64();
    match ty {
        C32 | C64 => {
            let part = ty.real_part();
            let re = random_value(rng, part);
            let im = random_value(rng, part);
            complex(re, im)
        }
        F32 => {
            Value::F32(((bits >> 40) as f32 / 16777216.0 - 0.5) * [1.0, 10.0, 1000.0][rng.below(3)])
        }
        F64 => Value::F64(
            ((bits >> 11) as f64 / 9007199254740992.0 - 0.5) * [1.0, 10.0, 1e6][rng.below(3)],
        ),
        F16 | BF16 => sdfg_compiler::ir::semantics::cast(random_value(rng, F32), ty),
        t if t.is_signed_integer() && rng.chance(50) => {
            sdfg_compiler::ir::semantics::cast(Value::I64((bits % 2001) as i64 - 1000), ty)
        }
        t if t.is_unsigned_integer() && rng.chance(50) => {
            sdfg_compiler::ir::semantics::cast(Value::U64(bits % 1000), ty)
        }
        _ => Value::from_bits(ty, bits as u128),
    }
}

/// `n` random input values of `ty`.
pub fn random_inputs(seed: u64, ty: ScalarType, n: usize) -> Vec<Value> {
    let mut rng = Rng::new(seed ^ (ty as u64).wrapping_mul(0x5851_F42D_4C95_7F2D));
    (0..n).map(|_| random_value(&mut rng, ty)).collect()
}

/// Generates expressions over `IN_<ty>[i]` loads and the map parameter `i` (i64).
pub struct ExprGen {
    pub rng: Rng,
    pub config: GenConfig,
    /// Input container per type (indexed like `ScalarType::ALL`).
    pub inputs: Vec<(ScalarType, ContainerId)>,
    /// Locals in scope (leaves may read them).
    pub locals: Vec<(LocalId, ScalarType)>,
    /// Leaves may load `IN_<ty>[j]` at a data-dependent `j` (guarded, may be
    /// out of bounds: yields zero and faults).
    pub data_dependent_loads: bool,
    /// Picks the one WCR operator of a random body.
    pub wcr_seed: u64,
}

const ALL: [ScalarType; ScalarType::ALL.len()] = ScalarType::ALL;
const INTEGERS: [ScalarType; 8] = [I8, I16, I32, I64, U8, U16, U32, U64];

impl ExprGen {
    pub fn new(seed: u64, config: GenConfig, inputs: Vec<(ScalarType, ContainerId)>) -> ExprGen {
        ExprGen {
            rng: Rng::new(seed),
            config,
            inputs,
            locals: Vec::new(),
            data_dependent_loads: false,
            wcr_seed: seed,
        }
    }

    fn input(&mut self, ty: ScalarType) -> Expr {
        let c = self
            .inputs
            .iter()
            .find(|(t, _)| *t == ty)
            .map(|(_, c)| *c)
            .unwrap_or(0);
        e::load(c, ty, vec![e::param(0, I64)])
    }

    fn leaf(&mut self, ty: ScalarType) -> Expr {
        let in_scope: Vec<LocalId> = self
            .locals
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(l, _)| *l)
            .collect();
        match self.rng.below(12) {
            0..=3 => e::lit(random_value(&mut self.rng, ty)),
            4 if ty.is_integer() => e::cast(e::param(0, I64), ty),
            5 | 6 if !in_scope.is_empty() => e::local(self.rng.pick(&in_scope), ty),
            7 if self.data_dependent_loads => {
                // IN_ty[(IN_i64[i] % 16) + i - 3]: sometimes out of bounds.
                let c = self
                    .inputs
                    .iter()
                    .find(|(t, _)| *t == ty)
                    .map(|(_, c)| *c)
                    .unwrap_or(0);
                let j = e::bin(BinOp::Rem, self.input(I64), e::i64(16));
                let j = e::add(e::add(j, e::param(0, I64)), e::i64(-3));
                e::load(c, ty, vec![j])
            }
            _ => self.input(ty),
        }
    }

    /// A random expression of type `ty` with at most `depth` more levels.
    pub fn expr(&mut self, ty: ScalarType, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(15) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        match ty {
            Bool => match self.rng.below(8) {
                0 => e::un(UnOp::Not, self.expr(Bool, d)),
                1 => {
                    let op = self.rng.pick(&[
                        BinOp::And,
                        BinOp::Or,
                        BinOp::BitAnd,
                        BinOp::BitOr,
                        BinOp::BitXor,
                    ]);
                    e::bin(op, self.expr(Bool, d), self.expr(Bool, d))
                }
                2 => self.select(ty, d),
                _ => {
                    let t = self.rng.pick(&ALL);
                    let op = if t.is_complex() {
                        self.rng.pick(&[BinOp::Eq, BinOp::Ne])
                    } else {
                        self.rng.pick(&[
                            BinOp::Eq,
                            BinOp::Ne,
                            BinOp::Lt,
                            BinOp::Le,
                            BinOp::Gt,
                            BinOp::Ge,
                        ])
                    };
                    e::bin(op, self.expr(t, d), self.expr(t, d))
                }
            },
            t if t.is_integer() => match self.rng.below(10) {
                0 => {
                    let op = if t.is_signed_integer() && self.rng.chance(50) {
                        UnOp::Neg
                    } else {
                        UnOp::Not
                    };
                    e::un(op, self.expr(t, d))
                }
                1..=3 => {
                    let op = self.rng.pick(&[
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::Div,
                        BinOp::Rem,
                        BinOp::BitAnd,
                        BinOp::BitOr,
                        BinOp::BitXor,
                    ]);
                    e::bin(op, self.expr(t, d), self.expr(t, d))
                }
                4 => {
                    let op = self.rng.pick(&[BinOp::Shl, BinOp::Shr]);
                    let amount_ty = self.rng.pick(&INTEGERS);
                    e::bin(op, self.expr(t, d), self.expr(amount_ty, d))
                }
                5 | 6 => self.cast(t, d),
                7 => self.select(t, d),
                _ => {
                    let f = if t.is_signed_integer() {
                        self.rng.pick(&[MathFn::Abs, MathFn::Min, MathFn::Max])
                    } else {
                        self.rng.pick(&[MathFn::Min, MathFn::Max])
                    };
                    let args = (0..f.arity()).map(|_| self.expr(t, d)).collect();
                    e::call(f, args)
                }
            },
            t if t.is_complex() => self.complex_expr(t, d),
            t => match self.rng.below(11) {
                0 => e::un(UnOp::Neg, self.expr(t, d)),
                1..=3 => {
                    let op = self.rng.pick(&[
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::Div,
                        BinOp::Rem,
                    ]);
                    e::bin(op, self.expr(t, d), self.expr(t, d))
                }
                4 | 5 => self.cast(t, d),
                6 => self.select(t, d),
                7 if t.complex_of().is_some() => self.part_of_complex(t, d),
                _ => self.float_call(t, d),
            },
        }
    }

    fn cast(&mut self, to: ScalarType, d: u32) -> Expr {
        // Nothing casts to bool; bool casts only to integers; complex
        // values take no part in casts.
        let from = if to.is_integer() {
            let castable: Vec<ScalarType> = ALL.into_iter().filter(|t| !t.is_complex()).collect();
            self.rng.pick(&castable)
        } else {
            let numbers: Vec<ScalarType> = ALL.into_iter().filter(|t| t.is_numeric()).collect();
            self.rng.pick(&numbers)
        };
        e::cast(self.expr(from, d), to)
    }

    /// A complex expression: arithmetic, negation, `conj`, `exp` (when
    /// approximate math is on), a select, or `new` from real parts.
    fn complex_expr(&mut self, t: ScalarType, d: u32) -> Expr {
        let part = t.real_part();
        match self.rng.below(10) {
            0 => e::un(UnOp::Neg, self.expr(t, d)),
            1..=4 => {
                let op = self
                    .rng
                    .pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]);
                e::bin(op, self.expr(t, d), self.expr(t, d))
            }
            5 => self.select(t, d),
            6 => e::call(MathFn::Conj, vec![self.expr(t, d)]),
            7 if self.config.approx_math => e::call(MathFn::Exp, vec![self.expr(t, d)]),
            _ => {
                let (re, im) = (self.expr(part, d), self.expr(part, d));
                Expr::new(
                    ExprKind::Call {
                        func: MathFn::Complex,
                        args: vec![re, im],
                    },
                    t,
                    Span::call_site(),
                )
            }
        }
    }

    /// A real expression of a complex value: a part, `norm_sqr`, or (when
    /// approximate math is on) `abs` or `arg`.
    fn part_of_complex(&mut self, part: ScalarType, d: u32) -> Expr {
        let z_ty = part.complex_of().unwrap_or(C64);
        let mut funcs = vec![MathFn::Re, MathFn::Im, MathFn::NormSqr];
        if self.config.approx_math {
            funcs.extend([MathFn::Abs, MathFn::Arg]);
        }
        let func = self.rng.pick(&funcs);
        let z = self.expr(z_ty, d);
        Expr::new(
            ExprKind::Call {
                func,
                args: vec![z],
            },
            part,
            Span::call_site(),
        )
    }

    fn select(&mut self, ty: ScalarType, d: u32) -> Expr {
        let c = self.expr(Bool, d);
        e::select(c, self.expr(ty, d), self.expr(ty, d))
    }

    fn float_call(&mut self, t: ScalarType, d: u32) -> Expr {
        let exact = [
            MathFn::Sqrt,
            MathFn::Abs,
            MathFn::Min,
            MathFn::Max,
            MathFn::Floor,
            MathFn::Ceil,
            MathFn::Powi,
            MathFn::MulAdd,
        ];
        let f = if self.config.approx_math && self.rng.chance(50) {
            let approx: Vec<MathFn> = MathFn::ALL
                .into_iter()
                .filter(|f| f.is_transcendental() && f.takes_reals())
                .collect();
            self.rng.pick(&approx)
        } else {
            self.rng.pick(&exact)
        };
        let x = self.expr(t, d);
        let args = match f {
            MathFn::Powi => vec![x, self.expr(I32, d.min(1))],
            _ if f.arity() == 3 => vec![x, self.expr(t, d), self.expr(t, d)],
            _ if f.arity() == 2 => vec![x, self.expr(t, d)],
            _ => vec![x],
        };
        e::call(f, args)
    }
}

/// True when `e` uses no approximate (transcendental) function: backends
/// must then agree with the evaluator bit for bit (NaN payloads aside).
pub fn is_exact(e: &Expr) -> bool {
    let mut exact = true;
    e.walk(&mut |x| {
        if let ExprKind::Call { func, args } = &x.kind {
            let receiver = args.first().map_or(x.ty, |a| a.ty);
            if func.is_transcendental_for(receiver) {
                exact = false;
            }
        }
    });
    exact
}

/// An SDFG with one gpu map `OUT[i] = expr` for `i in 0..N`.
pub struct RandomKernel {
    pub sdfg: Sdfg,
    /// The symbol `N` (i64).
    pub n: SymbolId,
    /// `IN_<ty>` per type (every type of `ScalarType::ALL`, each of length N).
    pub inputs: Vec<(ScalarType, ContainerId)>,
    /// `OUT` of the result type, length N.
    pub out: ContainerId,
    pub expr: Expr,
}

pub fn random_kernel(seed: u64, result: ScalarType, config: &GenConfig) -> RandomKernel {
    let mut b = SdfgBuilder::new(&format!("rand_{seed}"));
    let n = b.symbol("N", I64);
    let inputs: Vec<(ScalarType, ContainerId)> = ALL
        .iter()
        .map(|&t| (t, b.gpu(&format!("IN_{t}"), t, vec![e::sym(n, I64)])))
        .collect();
    let out = b.gpu("OUT", result, vec![e::sym(n, I64)]);
    let mut gen = ExprGen::new(seed, config.clone(), inputs.clone());
    let depth = config.max_depth;
    let expr = gen.expr(result, depth);
    let st = b.state("s");
    let body = TaskletBody {
        locals: vec![],
        stmts: vec![s::store(out, vec![e::param(0, I64)], expr.clone())],
    };
    b.gpu_map(
        st,
        "f",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        body,
    );
    RandomKernel {
        sdfg: b.build(),
        n,
        inputs,
        out,
        expr,
    }
}

/// Several random maps in one SDFG (one module, one `ptxas` run): map `k`
/// is statement `k` of state 0 and computes `OUT[i] = exprs[k]`.
pub struct RandomModule {
    pub sdfg: Sdfg,
    pub n: SymbolId,
    pub inputs: Vec<(ScalarType, ContainerId)>,
    pub out: ContainerId,
    pub exprs: Vec<Expr>,
}

pub fn random_module(
    seed: u64,
    result: ScalarType,
    maps: usize,
    config: &GenConfig,
) -> RandomModule {
    let first = random_kernel(seed, result, config);
    let mut sdfg = first.sdfg;
    let mut exprs = vec![first.expr];
    for k in 1..maps {
        let other = random_kernel(
            seed.wrapping_mul(1_000_003).wrapping_add(k as u64),
            result,
            config,
        );
        // Same containers and symbols by construction: move the map over, renamed.
        let mut stmt = other.sdfg.states[0].stmts[0].clone();
        if let StatementKind::Map(m) = &mut stmt.kind {
            m.name.text = format!("f{k}");
        }
        sdfg.states[0].stmts.push(stmt);
        exprs.push(other.expr);
    }
    RandomModule {
        sdfg,
        n: first.n,
        inputs: first.inputs,
        out: first.out,
        exprs,
    }
}

/// A random map body over the `random_kernel` containers plus integer
/// accumulators: `let`s, assignments, `if`s, `for` loops (literal and
/// data-dependent bounds, steps), stores to `OUT[i]` (also under `if`s),
/// WCR updates of `ACC[i % 3]` (order-independent operators only) and,
/// optionally, data-dependent loads that may fault.
pub struct RandomBody {
    pub sdfg: Sdfg,
    pub n: SymbolId,
    pub inputs: Vec<(ScalarType, ContainerId)>,
    pub out: ContainerId,
    pub acc: ContainerId,
}

pub fn random_body(seed: u64, result: ScalarType, data_dependent_loads: bool) -> RandomBody {
    let mut b = SdfgBuilder::new(&format!("body_{seed}"));
    let n = b.symbol("N", I64);
    let inputs: Vec<(ScalarType, ContainerId)> = ALL
        .iter()
        .map(|&t| (t, b.gpu(&format!("IN_{t}"), t, vec![e::sym(n, I64)])))
        .collect();
    let out = b.gpu("OUT", result, vec![e::sym(n, I64)]);
    let acc_ty = INTEGERS[(seed % 8) as usize];
    let acc = b.gpu("ACC", acc_ty, vec![e::i64(3)]);
    let config = GenConfig {
        max_depth: 3,
        approx_math: false,
    };
    let mut gen = ExprGen::new(seed, config, inputs.clone());
    gen.data_dependent_loads = data_dependent_loads;
    let mut locals: Vec<Local> = Vec::new();
    let stmts = gen_stmts(&mut gen, &mut locals, out, result, acc, acc_ty, 2, 6);
    let st = b.state("s");
    b.gpu_map(
        st,
        "f",
        vec![map_param("i", I64, e::i64(0), e::sym(n, I64), None)],
        TaskletBody { stmts, locals },
    );
    RandomBody {
        sdfg: b.build(),
        n,
        inputs,
        out,
        acc,
    }
}

#[allow(clippy::too_many_arguments)]
fn gen_stmts(
    g: &mut ExprGen,
    locals: &mut Vec<Local>,
    out: ContainerId,
    out_ty: ScalarType,
    acc: ContainerId,
    acc_ty: ScalarType,
    nesting: u32,
    count: usize,
) -> Vec<Stmt> {
    let scope_len = g.locals.len();
    let mut stmts = Vec::new();
    for _ in 0..count {
        let i = e::param(0, I64);
        match g.rng.below(9) {
            0 | 1 => {
                let ty = g.rng.pick(&ALL);
                let init = g.expr(ty, 3);
                locals.push(crate::builder::local(
                    &format!("l{}", locals.len()),
                    ty,
                    true,
                ));
                let id = locals.len() - 1;
                stmts.push(s::let_(id, init));
                g.locals.push((id, ty));
            }
            2 if g.locals.iter().any(|(l, _)| locals[*l].mutable) => {
                let mutable: Vec<(LocalId, ScalarType)> = g
                    .locals
                    .iter()
                    .copied()
                    .filter(|(l, _)| locals[*l].mutable)
                    .collect();
                let (id, ty) = g.rng.pick(&mutable);
                let v = g.expr(ty, 3);
                stmts.push(s::assign(id, v));
            }
            3 | 4 => {
                let v = g.expr(out_ty, 3);
                stmts.push(s::store(out, vec![i], v));
            }
            5 => {
                // One operator per body: different operators on one element
                // do not commute (the result would depend on the order).
                let op = [WcrOp::Sum, WcrOp::Min, WcrOp::Max, WcrOp::Product]
                    [(acc as u64 + g.config.max_depth as u64 + (g.wcr_seed % 4)) as usize % 4];
                let v = g.expr(acc_ty, 2);
                stmts.push(s::reduce(
                    acc,
                    vec![e::bin(BinOp::Rem, i, e::i64(3))],
                    v,
                    op,
                ));
            }
            6 if nesting > 0 => {
                let c = g.expr(Bool, 2);
                let then = gen_stmts(g, locals, out, out_ty, acc, acc_ty, nesting - 1, 3);
                let else_ = gen_stmts(g, locals, out, out_ty, acc, acc_ty, nesting - 1, 2);
                stmts.push(s::if_(c, then, else_));
            }
            7 if nesting > 0 => {
                let ty = g.rng.pick(&INTEGERS);
                locals.push(crate::builder::local(
                    &format!("k{}", locals.len()),
                    ty,
                    false,
                ));
                let var = locals.len() - 1;
                let lit = |v: i64| e::lit(sdfg_compiler::ir::semantics::cast(Value::I64(v), ty));
                // A few loops end at the type's maximum: `MAX - 3..=MAX - x`.
                let at_max = g.rng.chance(20);
                let max = e::lit(Value::from_bits(
                    ty,
                    ty.int_range().map_or(0, |(_, max)| max as u128),
                ));
                let start = if at_max {
                    e::bin(BinOp::Sub, max.clone(), lit(3))
                } else {
                    lit(g.rng.below(3) as i64)
                };
                let end = if g.rng.chance(50) {
                    lit(g.rng.below(6) as i64)
                } else {
                    // Data-dependent bound: IN_ty[i] % 5.
                    e::bin(BinOp::Rem, g.input(ty), lit(5))
                };
                let end = if at_max {
                    e::bin(BinOp::Sub, max, e::bin(BinOp::Rem, end, lit(2)))
                } else {
                    end
                };
                let step = if g.rng.chance(40) {
                    Some(lit(g.rng.below(3) as i64 + 1))
                } else {
                    None
                };
                g.locals.push((var, ty));
                let body = gen_stmts(g, locals, out, out_ty, acc, acc_ty, nesting - 1, 2);
                g.locals.retain(|(l, _)| *l != var);
                stmts.push(if at_max || g.rng.chance(30) {
                    s::for_inclusive(var, start, end, step, body)
                } else {
                    s::for_(var, start, end, step, body)
                });
            }
            _ => {
                let v = g.expr(out_ty, 2);
                stmts.push(s::store(out, vec![i], v));
            }
        }
    }
    g.locals.truncate(scope_len);
    stmts
}

/// Random integer index expressions for the bounds tests: over variables
/// (map parameters and loop variables), symbols and small literals, with
/// every integer operator (`/ % & | ^ << >>`, negation, bitwise not,
/// `min`/`max`/`abs`, casts that widen, narrow and change sign, selects).
/// Leaves are small, so many indices land near a container; some constants
/// are extreme, so some intermediates wrap around their type.
pub struct IndexGen {
    pub rng: Rng,
    /// The variables leaves may read (a `Var` of a parameter or a local).
    pub vars: Vec<Expr>,
    /// The symbols leaves may read.
    pub symbols: Vec<Expr>,
}

impl IndexGen {
    /// An index of type `ty` with at most `depth` more levels.
    pub fn expr(&mut self, ty: ScalarType, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0..=5 => {
                let op = self
                    .rng
                    .pick(&[BinOp::Add, BinOp::Add, BinOp::Sub, BinOp::Mul]);
                e::bin(op, self.expr(ty, d), self.expr(ty, d))
            }
            6 | 7 => {
                let op = self.rng.pick(&[BinOp::Div, BinOp::Rem]);
                e::bin(op, self.expr(ty, d), self.expr(ty, d.min(1)))
            }
            8 | 9 => {
                let op = self.rng.pick(&[BinOp::Shl, BinOp::Shr]);
                let amount_ty = self.rng.pick(&[I32, I64, U32, U64]);
                e::bin(op, self.expr(ty, d), self.expr(amount_ty, d.min(1)))
            }
            10 => {
                let op = self.rng.pick(&[BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor]);
                e::bin(op, self.expr(ty, d), self.expr(ty, d))
            }
            11 => {
                let op = if ty.is_signed_integer() && self.rng.chance(60) {
                    UnOp::Neg
                } else {
                    UnOp::Not
                };
                e::un(op, self.expr(ty, d))
            }
            12 | 13 => {
                let f = self.rng.pick(&[MathFn::Min, MathFn::Max, MathFn::Abs]);
                match f {
                    MathFn::Abs if ty.is_signed_integer() => e::call(f, vec![self.expr(ty, d)]),
                    MathFn::Abs => self.expr(ty, d),
                    _ => e::call(f, vec![self.expr(ty, d), self.expr(ty, d)]),
                }
            }
            14..=16 => {
                let from = self.rng.pick(&[I32, I64, U32, U64]);
                e::cast(self.expr(from, d), ty)
            }
            17 => {
                let t = self.rng.pick(&[I32, I64]);
                let c = e::bin(BinOp::Lt, self.expr(t, d.min(1)), self.expr(t, d.min(1)));
                e::select(c, self.expr(ty, d), self.expr(ty, d))
            }
            _ => self.leaf(ty),
        }
    }

    fn leaf(&mut self, ty: ScalarType) -> Expr {
        match self.rng.below(10) {
            0..=3 if !self.vars.is_empty() => {
                let v = self.vars[self.rng.below(self.vars.len())].clone();
                cast_to(v, ty)
            }
            4..=6 if !self.symbols.is_empty() => {
                let s = self.symbols[self.rng.below(self.symbols.len())].clone();
                cast_to(s, ty)
            }
            7 if self.rng.chance(30) => e::lit(self.rng.pick(&special_values(ty))),
            _ => e::lit(sdfg_compiler::ir::semantics::cast(
                Value::I64(self.rng.below(5) as i64),
                ty,
            )),
        }
    }
}

/// `x` as `ty` (itself when it has that type).
fn cast_to(x: Expr, ty: ScalarType) -> Expr {
    if x.ty == ty {
        x
    } else {
        e::cast(x, ty)
    }
}
