//! Number and bool literals: the type from the suffix or the context, the
//! value range of that type, and a leading `-` folded in (so
//! `-2147483648` is an `i32`).

use super::*;

impl Lowerer<'_> {
    /// A literal; `negative` folds a leading `-` into it (so `-2147483648` is an `i32`).
    pub(crate) fn literal(
        &mut self,
        lit: &syn::Lit,
        negative: bool,
        expected: Option<ScalarType>,
        span: Span,
    ) -> Option<Expr> {
        let sign = if negative { "-" } else { "" };
        match lit {
            syn::Lit::Int(i) => {
                let digits = i.base10_digits();
                let suffix = i.suffix();
                let ty = if suffix.is_empty() {
                    match expected {
                        Some(t) if t.is_integer() => t,
                        Some(t) if t.is_complex() => {
                            self.error(
                                Diagnostic::error(
                                    span,
                                    format!("mismatched types: expected `{t}`, found integer literal `{sign}{digits}`"),
                                )
                                .help(format!("build a complex number: `{t}::new({sign}{digits}.0, 0.0)`")),
                            );
                            return None;
                        }
                        Some(t) if t.is_float() => {
                            self.error(
                                Diagnostic::error(
                                    span,
                                    format!("mismatched types: expected `{t}`, found integer literal `{sign}{digits}`"),
                                )
                                .help(format!("write a float literal: `{sign}{digits}.0`")),
                            );
                            return None;
                        }
                        Some(t) => {
                            self.error(Diagnostic::error(
                                span,
                                format!("mismatched types: expected `{t}`, found integer literal `{sign}{digits}`"),
                            ).help("write `true` or `false`"));
                            return None;
                        }
                        None => match i.base10_parse::<u128>() {
                            Ok(v) if v <= i32::MAX as u128 + u128::from(negative) => {
                                ScalarType::I32
                            }
                            _ => ScalarType::I64,
                        },
                    }
                } else {
                    match ScalarType::from_rust_name(suffix) {
                        Some(ScalarType::Bool) | None => {
                            self.error(
                                Diagnostic::error(
                                    span,
                                    format!("invalid suffix `{suffix}` for a number literal"),
                                )
                                .help(
                                    "the suffixes are `i8`, `i16`, `i32`, `i64`, `u8`, `u16`, `u32`, `u64`, `f32` and `f64`",
                                ),
                            );
                            return None;
                        }
                        Some(t) => t,
                    }
                };
                if ty.is_float() {
                    let value: f64 = digits.parse().ok()?;
                    let value = if negative { -value } else { value };
                    let v = crate::ir::semantics::cast(Value::F64(value), ty);
                    return Some(Expr::lit(v, span));
                }
                let Ok(magnitude) = i.base10_parse::<u128>() else {
                    self.error(
                        Diagnostic::error(span, "integer literal is too large")
                            .help("the largest integer type is `u64`"),
                    );
                    return None;
                };
                let value = if negative {
                    -i128::try_from(magnitude).unwrap_or(i128::MAX)
                } else {
                    i128::try_from(magnitude).unwrap_or(i128::MAX)
                };
                let (min, max) = ty.int_range()?;
                // Two's complement bits: `from_bits` keeps the type's width.
                let in_range =
                    (min..=max).contains(&value) && (!negative || ty.is_signed_integer());
                let v = in_range.then(|| Value::from_bits(ty, value as u128));
                match v {
                    Some(v) => Some(Expr::lit(v, span)),
                    None if negative && !ty.is_signed_integer() => {
                        self.error(
                            Diagnostic::error(span, format!("cannot negate a `{ty}` literal"))
                                .help(
                                    "unsigned integers have no negative values; use `i32` or `i64`",
                                ),
                        );
                        None
                    }
                    None => {
                        self.error(
                            Diagnostic::error(span, format!("literal out of range for `{ty}`"))
                                .note(format!("`{ty}` holds {min}..={max}"))
                                .help(
                                    "use a wider type, e.g. `i64` or a suffix like `5000000000i64`",
                                ),
                        );
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = f.suffix();
                let ty = match (suffix, expected) {
                    ("", Some(t)) if t.is_float() => t,
                    ("", Some(t)) if t.is_complex() => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("mismatched types: expected `{t}`, found float literal `{sign}{}`", f.base10_digits()),
                            )
                            .help(format!("build a complex number: `{t}::new({sign}{}, 0.0)`", f.base10_digits())),
                        );
                        return None;
                    }
                    ("", Some(t)) => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("mismatched types: expected `{t}`, found float literal `{sign}{}`", f.base10_digits()),
                            )
                            .help(if t.is_integer() {
                                format!("write an integer literal (without `.`), or convert: `{sign}{} as {t}`", f.base10_digits())
                            } else {
                                "write `true` or `false`".to_string()
                            }),
                        );
                        return None;
                    }
                    ("", None) => ScalarType::F64,
                    ("f32", _) => ScalarType::F32,
                    ("f64", _) => ScalarType::F64,
                    (other, _) => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("invalid suffix `{other}` for a float literal"),
                            )
                            .help("the float suffixes are `f32` and `f64`"),
                        );
                        return None;
                    }
                };
                let text = format!("{sign}{}", f.base10_digits());
                let v = if ty == ScalarType::F32 {
                    Value::F32(text.parse().ok()?)
                } else {
                    // f16/bf16 (Rust has no literal suffix for them) take the
                    // type from the context and round the f64 value once.
                    crate::ir::semantics::cast(Value::F64(text.parse().ok()?), ty)
                };
                Some(Expr::lit(v, span))
            }
            syn::Lit::Bool(b) => Some(Expr::lit(Value::Bool(b.value), span)),
            _ => {
                self.error(Diagnostic::error(span, "unsupported literal").help(
                    "the tasklet language has numbers (`1`, `2.5`, `3u64`) and `true`/`false`",
                ));
                None
            }
        }
    }
}
