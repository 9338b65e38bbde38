//! Complex numbers as Rust writes them with num-complex: `c64::new(re, im)`,
//! `c32::new(re, im)` and `Complex::new(re, im)` (the type from the parts),
//! and the fields `z.re`, `z.im`.

use super::*;
use syn::spanned::Spanned;

/// The spellings of the complex types' constructors (`Complex` takes its
/// part type from the arguments, or `Complex::<f64>`).
const CONSTRUCTOR_TYPES: [&str; 3] = ["c32", "c64", "Complex"];

/// `c64::new`, `c32::new`, `Complex::new`, `Complex::<f32>::new`.
pub(super) fn is_constructor(func: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = func else {
        return false;
    };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    p.qself.is_none()
        && segs.len() == 2
        && segs[1].ident == "new"
        && CONSTRUCTOR_TYPES.iter().any(|t| segs[0].ident == t)
}

impl Lowerer<'_> {
    /// The complex type a constructor names, if it names one (`Complex`
    /// without `::<T>`: None, the parts decide).
    fn constructor_type(&mut self, func: &syn::Expr) -> Result<Option<ScalarType>, ()> {
        let syn::Expr::Path(p) = func else {
            return Err(());
        };
        let head = &p.path.segments[0];
        match head.ident.to_string().as_str() {
            "c32" => Ok(Some(ScalarType::C32)),
            "c64" => Ok(Some(ScalarType::C64)),
            _ => match &head.arguments {
                syn::PathArguments::None => Ok(None),
                syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => {
                    let part = match &a.args[0] {
                        syn::GenericArgument::Type(syn::Type::Path(t)) => t
                            .path
                            .get_ident()
                            .and_then(|i| ScalarType::from_rust_name(&i.to_string())),
                        _ => None,
                    };
                    match part.and_then(ScalarType::complex_of) {
                        Some(t) => Ok(Some(t)),
                        None => {
                            self.error(
                                Diagnostic::error(
                                    a.span(),
                                    "complex numbers have `f32` or `f64` parts",
                                )
                                .help("write `Complex::<f64>::new(re, im)` or `c64::new(re, im)`"),
                            );
                            Err(())
                        }
                    }
                }
                other => {
                    self.error(
                        Diagnostic::error(
                            other.span(),
                            "complex numbers have `f32` or `f64` parts",
                        )
                        .help("write `Complex::<f64>::new(re, im)` or `c64::new(re, im)`"),
                    );
                    Err(())
                }
            },
        }
    }

    /// `c64::new(re, im)` and its spellings.
    pub(super) fn complex_new(
        &mut self,
        sc: &mut Scope,
        c: &syn::ExprCall,
        expected: Option<ScalarType>,
    ) -> Option<Expr> {
        let span = c.span();
        let named = self.constructor_type(&c.func).ok()?;
        let ctor = source_text(&c.func);
        if c.args.len() != 2 {
            self.error(
                Diagnostic::error(
                    span,
                    format!(
                        "`{ctor}` takes 2 arguments but {} given",
                        if c.args.len() == 1 {
                            "1 was".to_string()
                        } else {
                            format!("{} were", c.args.len())
                        }
                    ),
                )
                .help(format!("write `{ctor}(re, im)`")),
            );
            return None;
        }
        // The part type: from the name, else from what the context expects,
        // else from the parts themselves.
        let part = named
            .or(expected.filter(|t| t.is_complex()))
            .map(ScalarType::real_part);
        let (re, im) = match part {
            Some(t) => (
                self.expr(sc, &c.args[0], Some(t)),
                self.expr(sc, &c.args[1], Some(t)),
            ),
            None => self.unify(sc, &c.args[0], &c.args[1]),
        };
        let (re, im) = (re?, im?);
        let Some(ty) = re.ty.complex_of() else {
            self.error(
                Diagnostic::error(
                    c.args[0].span(),
                    format!(
                        "the parts of a complex number are `f32` or `f64`, found `{}`",
                        re.ty
                    ),
                )
                .help(format!(
                    "convert them: `{ctor}({} as f64, {} as f64)`",
                    source_text(&c.args[0]),
                    source_text(&c.args[1])
                )),
            );
            return None;
        };
        Some(Expr::new(
            ExprKind::Call {
                func: MathFn::Complex,
                args: vec![re, im],
            },
            ty,
            span,
        ))
    }

    /// `z.re`, `z.im` of a complex value.
    pub(super) fn complex_part(&mut self, sc: &mut Scope, f: &syn::ExprField) -> Option<Expr> {
        let span = f.span();
        let name = match &f.member {
            syn::Member::Named(i) => i.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let func = match name.as_str() {
            "re" => Some(MathFn::Re),
            "im" => Some(MathFn::Im),
            _ => None,
        };
        let base = self.expr(sc, &f.base, None)?;
        let Some(func) = func.filter(|_| base.ty.is_complex()) else {
            let text = source_text(&f.base);
            let d = if base.ty.is_complex() {
                Diagnostic::error(
                    f.member.span(),
                    format!("`{}` has no field `{name}`", base.ty),
                )
                .help(format!(
                    "a complex number has the fields `{text}.re` and `{text}.im`"
                ))
            } else {
                Diagnostic::error(f.member.span(), format!("`{}` has no fields", base.ty)).help(
                    "only complex numbers have fields (`z.re`, `z.im`); containers are indexed: `A[i]`",
                )
            };
            self.error(d);
            return None;
        };
        let ty = base.ty.real_part();
        Some(Expr::new(
            ExprKind::Call {
                func,
                args: vec![base],
            },
            ty,
            span,
        ))
    }
}
