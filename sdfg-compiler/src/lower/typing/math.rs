//! The math methods (`x.sqrt()`, `x.powi(n)`, `x.min(y)`, ...): their names,
//! arities and the operand types each is defined for.

use super::*;
use syn::spanned::Spanned;

impl Lowerer<'_> {
    pub(super) fn math_call(
        &mut self,
        sc: &mut Scope,
        m: &syn::ExprMethodCall,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if name == "step_by" {
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    "`step_by` is only allowed on the range of a `for` loop or a map",
                )
                .help("write `for k in (a..b).step_by(s) { ... }`"),
            );
            return None;
        }
        // num-complex's `norm` is the language's `abs` of a complex value.
        let func = if name == "norm" {
            Some(MathFn::Abs)
        } else {
            MathFn::from_method_name(&name)
        };
        let Some(func) = func else {
            let names: Vec<&str> = MathFn::ALL
                .iter()
                .filter(|f| f.is_method())
                .map(|f| f.method_name())
                .collect();
            let mut d = Diagnostic::error(m.method.span(), format!("unknown method `{name}`"));
            d = match closest_name(&name, names.iter().copied()) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help(format!(
                    "the math methods are {}",
                    crate::diag::suggest::backticked(&names)
                )),
            };
            self.error(d);
            return None;
        };
        if m.turbofish.is_some() {
            self.error(
                Diagnostic::error(m.method.span(), format!("`{name}` takes no type arguments"))
                    .help("remove the `::<...>`"),
            );
            return None;
        }
        if m.args.len() + 1 != func.arity() {
            let example = match func.arity() {
                1 => format!("x.{name}()"),
                _ if func == MathFn::Powi => "x.powi(2)".to_string(),
                3 => format!("x.{name}(y, z)"),
                _ => format!("x.{name}(y)"),
            };
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    format!(
                        "`{name}` takes {} but {} given",
                        count(func.arity() - 1, "argument"),
                        if m.args.len() == 1 {
                            "1 was".to_string()
                        } else {
                            format!("{} were", m.args.len())
                        }
                    ),
                )
                .help(format!("write `{example}`")),
            );
            return None;
        }
        let mut args = Vec::new();
        match func {
            MathFn::Powi => {
                let recv_expected = self.only_if_flexible(sc, &[&m.receiver], expected);
                let recv = self.expr(sc, &m.receiver, recv_expected);
                let n = self.expr(sc, &m.args[0], Some(ScalarType::I32));
                args.push(recv?);
                args.push(n?);
            }
            MathFn::Min | MathFn::Max | MathFn::Powf | MathFn::Atan2 | MathFn::Hypot => {
                let (recv, arg) =
                    match self.only_if_flexible(sc, &[&m.receiver, &m.args[0]], expected) {
                        Some(t) => (
                            self.expr(sc, &m.receiver, Some(t)),
                            self.expr(sc, &m.args[0], Some(t)),
                        ),
                        None => self.unify(sc, &m.receiver, &m.args[0]),
                    };
                args.push(recv?);
                args.push(arg?);
            }
            MathFn::MulAdd => {
                // All three operands have one type: the first with a type
                // of its own sets it.
                let parts: [&syn::Expr; 3] = [&m.receiver, &m.args[0], &m.args[1]];
                let mut lowered: [Option<Expr>; 3] = [None, None, None];
                let fixed = parts.iter().position(|p| !is_flexible(self, sc, p));
                let ty = match (self.only_if_flexible(sc, &parts, expected), fixed) {
                    (Some(t), _) => Some(t),
                    (None, Some(k)) => {
                        lowered[k] = self.expr(sc, parts[k], None);
                        lowered[k].as_ref().map(|e| e.ty)
                    }
                    (None, None) => self.default_for(sc, &parts),
                };
                // Only when an operand had a type of its own is `fixed` lowered already.
                for (k, part) in parts.iter().enumerate() {
                    if Some(k) != fixed {
                        lowered[k] = self.expr(sc, part, ty);
                    }
                }
                for l in lowered {
                    args.push(l?);
                }
            }
            _ => {
                let recv_expected = self.only_if_flexible(sc, &[&m.receiver], expected);
                args.push(self.expr(sc, &m.receiver, recv_expected)?)
            }
        }
        let ty = args[0].ty;
        if ty.is_complex() || matches!(func, MathFn::Conj | MathFn::NormSqr | MathFn::Arg) {
            return self.complex_method(m, func, args);
        }
        if name == "norm" {
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    format!("`norm` needs a complex number, found `{ty}`"),
                )
                .help("the magnitude of a real number is `x.abs()`"),
            );
            return None;
        }
        let ok = match func {
            MathFn::Abs => ty.is_float() || ty.is_signed_integer(),
            MathFn::Min | MathFn::Max => ty.is_numeric(),
            _ => ty.is_float(),
        };
        if !ok {
            let needs = match func {
                MathFn::Abs => "a float or a signed integer",
                MathFn::Min | MathFn::Max => "numbers",
                _ => "a float",
            };
            let text = source_text(&m.receiver);
            let help =
                if ty.is_integer() && !matches!(func, MathFn::Abs | MathFn::Min | MathFn::Max) {
                    format!("convert it first: `({text} as f64).{name}(...)`")
                } else {
                    format!("`{name}` is defined for {needs}")
                };
            self.error(
                Diagnostic::error(
                    m.method.span(),
                    format!("`{name}` needs {needs}, found `{ty}`"),
                )
                .help(help),
            );
            return None;
        }
        Some(Expr::new(ExprKind::Call { func, args }, ty, span))
    }

    /// A method of a complex value (`abs`/`norm`, `norm_sqr`, `arg`: its
    /// part type; `conj`, `exp`: complex), or a complex-only method called
    /// on something else.
    fn complex_method(
        &mut self,
        m: &syn::ExprMethodCall,
        func: MathFn,
        args: Vec<Expr>,
    ) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        let ty = args[0].ty;
        let result = match func {
            _ if !ty.is_complex() => {
                self.error(
                    Diagnostic::error(
                        m.method.span(),
                        format!("`{name}` needs a complex number, found `{ty}`"),
                    )
                    .help("`conj`, `norm_sqr` and `arg` are methods of `c32` and `c64`"),
                );
                return None;
            }
            MathFn::Abs | MathFn::NormSqr | MathFn::Arg => ty.real_part(),
            MathFn::Conj | MathFn::Exp => ty,
            _ => {
                self.error(
                    Diagnostic::error(m.method.span(), format!("`{name}` is not defined for `{ty}`"))
                        .help("the methods of complex numbers are `norm` (also `abs`), `norm_sqr`, `arg`, `conj` and `exp`; the parts are `z.re` and `z.im`"),
                );
                return None;
            }
        };
        Some(Expr::new(ExprKind::Call { func, args }, result, span))
    }
}
