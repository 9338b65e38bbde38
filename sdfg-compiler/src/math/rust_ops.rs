//! The Rust emitter of the programs: one `let` per [`Ops`] call, each the
//! Rust expression [`super::Interp`] evaluates for that instruction, so the
//! emitted function computes what the mirror computes, bit for bit. The CPU
//! backend emits it for the functions std does not have (`erf`): the CPU
//! device then runs the same program as the evaluator and the GPU.

use super::Ops;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

/// Emits a math program as straight-line Rust over `f64`, `i64` and `bool`
/// locals `v<n>`.
#[derive(Default)]
pub struct RustOps {
    lines: Vec<TokenStream>,
    n: u32,
}

fn v(n: u32) -> Ident {
    format_ident!("v{}", n)
}

impl RustOps {
    fn bind(&mut self, ty: TokenStream, value: TokenStream) -> u32 {
        let d = self.n;
        self.n += 1;
        let name = v(d);
        self.lines.push(quote!(let #name: #ty = #value;));
        d
    }
    fn f(&mut self, value: TokenStream) -> u32 {
        self.bind(quote!(f64), value)
    }
    fn i(&mut self, value: TokenStream) -> u32 {
        self.bind(quote!(i64), value)
    }
    fn p(&mut self, value: TokenStream) -> u32 {
        self.bind(quote!(bool), value)
    }

    /// An item `fn NAME(a0: f64, ...) -> f64` computing the f64 program
    /// `prog` (f32 callers widen the arguments and round the result once,
    /// as the PTX wrappers do).
    pub fn function(
        name: &str,
        arity: usize,
        prog: impl FnOnce(&mut RustOps, &[u32]) -> u32,
    ) -> TokenStream {
        let mut o = RustOps::default();
        let args: Vec<u32> = (0..arity).map(|_| o.alloc()).collect();
        let result = v(prog(&mut o, &args));
        let params = args.iter().map(|&a| {
            let a = v(a);
            quote!(#a: f64)
        });
        let name = Ident::new(name, Span::call_site());
        let lines = &o.lines;
        quote! {
            #[allow(unused_variables, clippy::all)]
            #[inline]
            fn #name(#(#params),*) -> f64 {
                #(#lines)*
                #result
            }
        }
    }

    fn alloc(&mut self) -> u32 {
        self.n += 1;
        self.n - 1
    }
}

fn u64_lit(v: u64) -> Literal {
    Literal::u64_suffixed(v)
}

impl Ops for RustOps {
    type F = u32;
    type I = u32;
    type P = u32;
    fn fconst(&mut self, c: f64) -> u32 {
        let bits = u64_lit(c.to_bits());
        self.f(quote!(f64::from_bits(#bits)))
    }
    fn iconst(&mut self, c: i64) -> u32 {
        let bits = u64_lit(c as u64);
        self.i(quote!(#bits as i64))
    }
    fn add(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.f(quote!(#a + #b))
    }
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.f(quote!(#a - #b))
    }
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.f(quote!(#a * #b))
    }
    fn div(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.f(quote!(#a / #b))
    }
    fn fma(&mut self, a: u32, b: u32, c: u32) -> u32 {
        let (a, b, c) = (v(a), v(b), v(c));
        self.f(quote!(#a.mul_add(#b, #c)))
    }
    fn neg(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(-#a))
    }
    fn abs(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(#a.abs()))
    }
    fn sqrt(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(#a.sqrt()))
    }
    fn rint(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(#a.round_ties_even()))
    }
    fn f2i(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.i(quote!(#a as i64))
    }
    fn i2f(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(#a as f64))
    }
    fn bits(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.i(quote!(#a.to_bits() as i64))
    }
    fn float(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(f64::from_bits(#a as u64)))
    }
    fn iadd(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(#a.wrapping_add(#b)))
    }
    fn isub(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(#a.wrapping_sub(#b)))
    }
    fn iand(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(#a & #b))
    }
    fn ior(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(#a | #b))
    }
    fn ishl(&mut self, a: u32, n: u32) -> u32 {
        let a = v(a);
        let n = Literal::u32_suffixed(n);
        self.i(quote!(#a.wrapping_shl(#n)))
    }
    fn isar(&mut self, a: u32, n: u32) -> u32 {
        let a = v(a);
        let n = Literal::u32_suffixed(n);
        self.i(quote!(#a >> #n))
    }
    fn flt(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a < #b))
    }
    fn fgt(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a > #b))
    }
    fn feq(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a == #b))
    }
    fn isnan(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.p(quote!(#a.is_nan()))
    }
    fn ilt(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a < #b))
    }
    fn ieq(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a == #b))
    }
    fn pand(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a && #b))
    }
    fn por(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!(#a || #b))
    }
    fn pnot(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.p(quote!(!#a))
    }
    fn sel(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let (p, a, b) = (v(p), v(a), v(b));
        self.f(quote!(if #p { #a } else { #b }))
    }
    fn seli(&mut self, p: u32, a: u32, b: u32) -> u32 {
        let (p, a, b) = (v(p), v(a), v(b));
        self.i(quote!(if #p { #a } else { #b }))
    }
    fn imul_lo(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(#a.wrapping_mul(#b)))
    }
    fn imul_hi(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.i(quote!(((#a as u64 as u128 * #b as u64 as u128) >> 64u32) as u64 as i64))
    }
    fn ishr(&mut self, a: u32, n: u32) -> u32 {
        let a = v(a);
        let n = Literal::u32_suffixed(n);
        self.i(quote!(((#a as u64) >> #n) as i64))
    }
    fn ishl_var(&mut self, a: u32, n: u32) -> u32 {
        // PTX takes the amount as u32 (low bits) and clamps it to 64.
        let (a, n) = (v(a), v(n));
        self.i(quote!(match #n as u64 as u32 {
            s @ 0..=63 => ((#a as u64) << s) as i64,
            _ => 0i64,
        }))
    }
    fn ishr_var(&mut self, a: u32, n: u32) -> u32 {
        let (a, n) = (v(a), v(n));
        self.i(quote!(match #n as u64 as u32 {
            s @ 0..=63 => ((#a as u64) >> s) as i64,
            _ => 0i64,
        }))
    }
    fn iult(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (v(a), v(b));
        self.p(quote!((#a as u64) < (#b as u64)))
    }
    fn u2f(&mut self, a: u32) -> u32 {
        let a = v(a);
        self.f(quote!(#a as u64 as f64))
    }
    fn skip_unless(&mut self, _p: u32) -> u32 {
        0
    }
    fn end_skip(&mut self, _label: u32) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_one_let_per_instruction() {
        let f = RustOps::function("f", 1, |o, a| {
            let c = o.fconst(2.0);
            o.fma(a[0], c, c)
        });
        let text = f.to_string().replace(' ', "");
        assert!(text.contains("fnf(v0:f64)->f64"), "{text}");
        assert!(text.contains("letv1:f64=f64::from_bits(4611686018427387904u64);"));
        assert!(text.contains("letv2:f64=v0.mul_add(v1,v1);v2}"), "{text}");
    }
}
