//! The PTX emitter of the programs: one instruction per [`Ops`] call, and
//! the `.func` around a program.

use super::Ops;
use std::fmt::Write;

/// Emits a math program as PTX instructions into `body`, with virtual
/// registers `%fd<n>`, `%rd<n>`, `%p<n>` numbered from zero.
#[derive(Default)]
pub struct PtxOps {
    pub body: String,
    pub n_f: u32,
    pub n_i: u32,
    pub n_p: u32,
    /// 32-bit registers (shift amounts).
    pub n_r: u32,
    pub n_labels: u32,
}

impl PtxOps {
    fn f(&mut self) -> u32 {
        self.n_f += 1;
        self.n_f - 1
    }
    fn i(&mut self) -> u32 {
        self.n_i += 1;
        self.n_i - 1
    }
    fn p(&mut self) -> u32 {
        self.n_p += 1;
        self.n_p - 1
    }
    /// A 64-bit shift amount as the u32 register PTX shifts take.
    fn shift_amount(&mut self, n: u32) -> u32 {
        self.n_r += 1;
        let r = self.n_r - 1;
        self.line(format!("cvt.u32.u64 %r{r}, %rd{n}"));
        r
    }
    fn line(&mut self, s: String) {
        self.body.push('\t');
        self.body.push_str(&s);
        self.body.push_str(";\n");
    }
    fn fop2(&mut self, op: &str, a: u32, b: u32) -> u32 {
        let d = self.f();
        self.line(format!("{op} %fd{d}, %fd{a}, %fd{b}"));
        d
    }
    fn fop1(&mut self, op: &str, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("{op} %fd{d}, %fd{a}"));
        d
    }
    fn iop2(&mut self, op: &str, a: u32, b: u32) -> u32 {
        let d = self.i();
        self.line(format!("{op} %rd{d}, %rd{a}, %rd{b}"));
        d
    }
    fn setp(&mut self, op: &str, a: String, b: String) -> u32 {
        let d = self.p();
        self.line(format!("{op} %p{d}, {a}, {b}"));
        d
    }

    /// A complete `.func NAME(x[, y]) -> ret` for an f64 program (or its
    /// f32 wrapper: convert in, run in f64, round once on the way out).
    pub fn function(
        name: &str,
        f32_wrapper: bool,
        arity: usize,
        prog: impl FnOnce(&mut PtxOps, &[u32]) -> u32,
    ) -> String {
        let mut o = PtxOps::default();
        let args: Vec<u32> = (0..arity).map(|_| o.f()).collect();
        let result = prog(&mut o, &args);
        let t = if f32_wrapper { "f32" } else { "f64" };
        let mut s = String::new();
        let params: Vec<String> = (0..arity).map(|k| format!(".param .{t} a{k}")).collect();
        let _ = writeln!(
            s,
            ".func (.param .{t} ret) {name}({})\n{{",
            params.join(", ")
        );
        let _ = writeln!(s, "\t.reg .f64 %fd<{}>;", o.n_f.max(1));
        let _ = writeln!(s, "\t.reg .b64 %rd<{}>;", o.n_i.max(1));
        let _ = writeln!(s, "\t.reg .pred %p<{}>;", o.n_p.max(1));
        if o.n_r > 0 {
            let _ = writeln!(s, "\t.reg .b32 %r<{}>;", o.n_r);
        }
        if f32_wrapper {
            let _ = writeln!(s, "\t.reg .f32 %f<{}>;", arity + 1);
        }
        for (k, a) in args.iter().enumerate() {
            if f32_wrapper {
                let _ = writeln!(s, "\tld.param.f32 %f{k}, [a{k}];");
                let _ = writeln!(s, "\tcvt.f64.f32 %fd{a}, %f{k};");
            } else {
                let _ = writeln!(s, "\tld.param.f64 %fd{a}, [a{k}];");
            }
        }
        s.push_str(&o.body);
        if f32_wrapper {
            let _ = writeln!(s, "\tcvt.rn.f32.f64 %f{arity}, %fd{result};");
            let _ = writeln!(s, "\tst.param.f32 [ret], %f{arity};");
        } else {
            let _ = writeln!(s, "\tst.param.f64 [ret], %fd{result};");
        }
        s.push_str("\tret;\n}\n");
        s
    }
}

fn hex_f64(v: f64) -> String {
    format!("0d{:016X}", v.to_bits())
}

impl Ops for PtxOps {
    type F = u32;
    type I = u32;
    type P = u32;
    fn fconst(&mut self, v: f64) -> u32 {
        let d = self.f();
        self.line(format!("mov.f64 %fd{d}, {}", hex_f64(v)));
        d
    }
    fn iconst(&mut self, v: i64) -> u32 {
        let d = self.i();
        self.line(format!("mov.b64 %rd{d}, {v}"));
        d
    }
    fn add(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("add.rn.f64", a, b)
    }
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("sub.rn.f64", a, b)
    }
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("mul.rn.f64", a, b)
    }
    fn div(&mut self, a: u32, b: u32) -> u32 {
        self.fop2("div.rn.f64", a, b)
    }
    fn fma(&mut self, a: u32, b: u32, c: u32) -> u32 {
        let d = self.f();
        self.line(format!("fma.rn.f64 %fd{d}, %fd{a}, %fd{b}, %fd{c}"));
        d
    }
    fn neg(&mut self, a: u32) -> u32 {
        self.fop1("neg.f64", a)
    }
    fn abs(&mut self, a: u32) -> u32 {
        self.fop1("abs.f64", a)
    }
    fn sqrt(&mut self, a: u32) -> u32 {
        self.fop1("sqrt.rn.f64", a)
    }
    fn rint(&mut self, a: u32) -> u32 {
        self.fop1("cvt.rni.f64.f64", a)
    }
    fn f2i(&mut self, a: u32) -> u32 {
        let d = self.i();
        self.line(format!("cvt.rzi.s64.f64 %rd{d}, %fd{a}"));
        d
    }
    fn i2f(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("cvt.rn.f64.s64 %fd{d}, %rd{a}"));
        d
    }
    fn bits(&mut self, a: u32) -> u32 {
        let d = self.i();
        self.line(format!("mov.b64 %rd{d}, %fd{a}"));
        d
    }
    fn float(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("mov.b64 %fd{d}, %rd{a}"));
        d
    }
    fn iadd(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("add.s64", a, b)
    }
    fn isub(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("sub.s64", a, b)
    }
    fn iand(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("and.b64", a, b)
    }
    fn ior(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("or.b64", a, b)
    }
    fn ishl(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shl.b64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn isar(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shr.s64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn flt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn fgt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.gt.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn feq(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.eq.f64", format!("%fd{a}"), format!("%fd{b}"))
    }
    fn isnan(&mut self, a: u32) -> u32 {
        self.setp("setp.nan.f64", format!("%fd{a}"), format!("%fd{a}"))
    }
    fn ilt(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.s64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn ieq(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.eq.s64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn pand(&mut self, a: u32, b: u32) -> u32 {
        let d = self.p();
        self.line(format!("and.pred %p{d}, %p{a}, %p{b}"));
        d
    }
    fn por(&mut self, a: u32, b: u32) -> u32 {
        let d = self.p();
        self.line(format!("or.pred %p{d}, %p{a}, %p{b}"));
        d
    }
    fn pnot(&mut self, a: u32) -> u32 {
        let d = self.p();
        self.line(format!("not.pred %p{d}, %p{a}"));
        d
    }
    fn sel(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let d = self.f();
        self.line(format!("selp.f64 %fd{d}, %fd{a}, %fd{b}, %p{p}"));
        d
    }
    fn seli(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let d = self.i();
        self.line(format!("selp.b64 %rd{d}, %rd{a}, %rd{b}, %p{p}"));
        d
    }
    fn imul_lo(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("mul.lo.u64", a, b)
    }
    fn imul_hi(&mut self, a: u32, b: u32) -> u32 {
        self.iop2("mul.hi.u64", a, b)
    }
    fn ishr(&mut self, a: u32, n: u32) -> u32 {
        let d = self.i();
        self.line(format!("shr.u64 %rd{d}, %rd{a}, {n}"));
        d
    }
    fn ishl_var(&mut self, a: u32, n: u32) -> u32 {
        let amount = self.shift_amount(n);
        let d = self.i();
        self.line(format!("shl.b64 %rd{d}, %rd{a}, %r{amount}"));
        d
    }
    fn ishr_var(&mut self, a: u32, n: u32) -> u32 {
        let amount = self.shift_amount(n);
        let d = self.i();
        self.line(format!("shr.u64 %rd{d}, %rd{a}, %r{amount}"));
        d
    }
    fn iult(&mut self, a: u32, b: u32) -> u32 {
        self.setp("setp.lt.u64", format!("%rd{a}"), format!("%rd{b}"))
    }
    fn u2f(&mut self, a: u32) -> u32 {
        let d = self.f();
        self.line(format!("cvt.rn.f64.u64 %fd{d}, %rd{a}"));
        d
    }
    fn skip_unless(&mut self, p: u32) -> u32 {
        self.n_labels += 1;
        let l = self.n_labels;
        self.line(format!("@!%p{p} bra $Lskip{l}"));
        l
    }
    fn end_skip(&mut self, label: u32) {
        self.body.push_str(&format!("$Lskip{label}:\n"));
    }
}
