//! The `Args` struct of a program: one field per free symbol and per
//! non-transient container, each documented with the container it fills,
//! and how a call takes it apart into the glue's bindings.
//!
//! How each argument passes (DESIGN section 4, docs/GUIDE.md section 12):
//!
//! | declared as | read only | written |
//! |---|---|---|
//! | `symbol N: T` | `T` | (symbols change only on edges) |
//! | `host x: T` (a scalar) | `T`, by value | `&'a mut T` |
//! | `host A: T[..]` | `&'a [T]` | `&'a mut [T]` |
//! | `pinned A: T[..]` (scalar or array) | `&'a HostBuffer<T>` | `&'a mut HostBuffer<T>` |
//! | `gpu A: T[..]` (scalar or array) | `&'a DeviceBuffer<T>` | `&'a mut DeviceBuffer<T>` |
//!
//! A host scalar by value is a copy the call owns: the glue binds it as a
//! one-element slice of a local, so every statement reads it as it reads a
//! host array; a written one is a `&mut T` seen as a one-element slice
//! (`core::slice::from_mut`), written back in place.

use super::Glue;
use crate::codegen::cpu::tokens::rust_type;
use crate::codegen::names;
use crate::codegen::runtime_paths as rt;
use crate::export::print::{expr_to_rust, BodyNames};
use crate::ir::{Container, ContainerId, Storage};
use proc_macro2::TokenStream;
use quote::quote;

/// How one non-transient container reaches the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgPassing {
    /// A read-only host scalar: `T`.
    ScalarByValue,
    /// A written host scalar: `&'a mut T`.
    ScalarByMut,
    /// `&'a [T]` / `&'a mut [T]`.
    HostSlice { written: bool },
    /// `&'a HostBuffer<T>` / `&'a mut HostBuffer<T>`.
    Pinned { written: bool },
    /// `&'a DeviceBuffer<T>` / `&'a mut DeviceBuffer<T>`.
    Device { written: bool },
}

impl ArgPassing {
    /// Whether the field borrows (so `Args` needs its lifetime).
    pub(super) fn borrows(self) -> bool {
        self != ArgPassing::ScalarByValue
    }
}

impl Glue<'_> {
    pub(super) fn arg_passing(&self, c: ContainerId) -> ArgPassing {
        let cont = &self.sdfg.containers[c];
        let written = self.writes(c);
        match cont.storage {
            Storage::Host if cont.is_scalar() && written => ArgPassing::ScalarByMut,
            Storage::Host if cont.is_scalar() => ArgPassing::ScalarByValue,
            Storage::Host => ArgPassing::HostSlice { written },
            Storage::Pinned => ArgPassing::Pinned { written },
            Storage::Gpu => ArgPassing::Device { written },
            // Never asked: block data is transient (`container_args`).
            Storage::Shared | Storage::Register => ArgPassing::Device { written },
        }
    }

    /// The non-transient containers: the container arguments (block data,
    /// `shared` and `register`, is transient: never an argument).
    fn container_args(&self) -> impl Iterator<Item = (ContainerId, &Container)> + '_ {
        self.sdfg.containers.iter().enumerate().filter(|(_, c)| {
            !c.transient && !matches!(c.storage, Storage::Shared | Storage::Register)
        })
    }

    /// Whether `Args` borrows anything (and so has a lifetime).
    pub(super) fn args_have_refs(&self) -> bool {
        self.container_args()
            .any(|(c, _)| self.arg_passing(c).borrows())
    }

    /// The fields of `Args`, each with its rustdoc: one per free symbol (by
    /// value) and per non-transient container.
    pub(super) fn arg_fields(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for s in self.sdfg.symbols.iter().filter(|s| s.declared) {
            let n = names::user(&s.name);
            let t = rust_type(s.ty);
            let doc = format!(
                "Symbol `{}: {}`, by value: fixed for the whole call, as the shapes and ranges that use it.",
                s.name.text, s.ty
            );
            out.extend(quote!(#[doc = #doc] pub #n: #t,));
        }
        let (device_buffer, host_buffer) = (rt::device_buffer(), rt::host_buffer());
        for (c, cont) in self.container_args() {
            let n = names::user(&cont.name);
            let t = self.elem(c);
            let ty = match self.arg_passing(c) {
                ArgPassing::ScalarByValue => quote!(#t),
                ArgPassing::ScalarByMut => quote!(&'a mut #t),
                ArgPassing::HostSlice { written: true } => quote!(&'a mut [#t]),
                ArgPassing::HostSlice { written: false } => quote!(&'a [#t]),
                ArgPassing::Pinned { written: true } => quote!(&'a mut #host_buffer<#t>),
                ArgPassing::Pinned { written: false } => quote!(&'a #host_buffer<#t>),
                ArgPassing::Device { written: true } => quote!(&'a mut #device_buffer<#t>),
                ArgPassing::Device { written: false } => quote!(&'a #device_buffer<#t>),
            };
            let docs = self.container_doc(c);
            out.extend(quote!(#(#[doc = #docs])* pub #n: #ty,));
        }
        out
    }

    /// The rustdoc lines of a container's field: its declaration, storage,
    /// element type, shape and length, and what the program does with it.
    fn container_doc(&self, c: ContainerId) -> Vec<String> {
        let cont = &self.sdfg.containers[c];
        let sdfg = self.sdfg;
        let none = BodyNames::none();
        let dims: Vec<String> = cont
            .shape
            .iter()
            .map(|d| expr_to_rust(d, sdfg, &none))
            .collect();
        let declared = if dims.is_empty() {
            format!(
                "{} {}: {}",
                cont.storage.keyword(),
                cont.name.text,
                cont.elem
            )
        } else {
            format!(
                "{} {}: {}[{}]",
                cont.storage.keyword(),
                cont.name.text,
                cont.elem,
                dims.join(", ")
            )
        };
        let reads = self.reads(c);
        let use_ = match (reads, self.writes(c)) {
            (true, true) => "read and written",
            (false, true) => "written",
            (true, false) => "read",
            (false, false) => "not used",
        };
        let storage = match cont.storage {
            Storage::Host => "host memory (CPU heap)",
            Storage::Pinned => "page-locked host memory of the program's device",
            Storage::Gpu => "GPU memory of the program's device",
            Storage::Shared => "shared memory of a thread block",
            Storage::Register => "registers of a thread block's threads",
        };
        let what = if dims.is_empty() {
            format!("Scalar, element type `{}`, in {storage}", cont.elem)
        } else {
            let len = dims
                .iter()
                .map(|d| {
                    if d.chars().all(|ch| ch.is_alphanumeric() || ch == '_') {
                        d.clone()
                    } else {
                        format!("({d})")
                    }
                })
                .collect::<Vec<_>>()
                .join(" * ");
            format!(
                "Row-major array of shape `[{}]` (`{len}` elements), element type `{}`, in {storage}",
                dims.join(", "),
                cont.elem
            )
        };
        let passing = match self.arg_passing(c) {
            ArgPassing::ScalarByValue => {
                "Passed by value: the program only reads it (a host scalar it writes is a `&mut`)."
            }
            ArgPassing::ScalarByMut => {
                "Passed as `&mut`: the program writes it; the value is there when the call returns."
            }
            ArgPassing::HostSlice { written: true }
            | ArgPassing::Pinned { written: true }
            | ArgPassing::Device { written: true } => {
                "Borrowed mutably until the call returns (or its `Running` is waited for)."
            }
            _ => "Borrowed until the call returns (or its `Running` is waited for).",
        };
        vec![
            format!("`{declared}`: {use_} by the program."),
            String::new(),
            format!("{what}. {passing}"),
        ]
    }

    fn reads(&self, c: ContainerId) -> bool {
        self.sdfg
            .states
            .iter()
            .flat_map(|s| &s.stmts)
            .flat_map(|st| &st.memlets)
            .any(|m| m.container == c && !m.access.is_write())
    }

    /// `Args { N: mut __sym_N, X: mut __h_X, G: __g_G, a: __val_a }`: each
    /// field straight into a generated binding, so no user name is ever a
    /// pattern (a `const N` in scope would make `N` a constant pattern);
    /// plus the statements that turn a scalar field into the host slot the
    /// states use.
    pub(super) fn take_args_apart(&self) -> (Vec<TokenStream>, TokenStream) {
        let sdfg = self.sdfg;
        let mut fields = Vec::new();
        let mut slots = TokenStream::new();
        for s in sdfg.symbols.iter().filter(|s| s.declared) {
            let (field, v) = (names::user(&s.name), names::symbol(&s.name.text));
            fields.push(quote!(#field: mut #v));
        }
        for (c, cont) in self.container_args() {
            let field = names::user(&cont.name);
            let h = names::host_slot(&cont.name.text);
            let t = self.elem(c);
            fields.push(match self.arg_passing(c) {
                ArgPassing::Device { .. } => {
                    let g = names::gpu_ref(&cont.name.text);
                    quote!(#field: #g)
                }
                ArgPassing::ScalarByValue => {
                    let v = names::scalar_value(&cont.name.text);
                    slots.extend(quote! {
                        let mut #h: &[#t] = ::core::slice::from_ref(&#v);
                    });
                    quote!(#field: #v)
                }
                ArgPassing::ScalarByMut => {
                    let v = names::scalar_value(&cont.name.text);
                    slots.extend(quote! {
                        let mut #h: &mut [#t] = ::core::slice::from_mut(#v);
                    });
                    quote!(#field: #v)
                }
                ArgPassing::HostSlice { .. } | ArgPassing::Pinned { .. } => {
                    quote!(#field: mut #h)
                }
            });
        }
        (fields, slots)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::glue_of;

    #[test]
    fn host_scalars_pass_by_value_when_read_and_by_mut_when_written() {
        glue_of(
            "sdfg S { symbol N: i64; host a: f32; host t: f64; host X: f32[N]; gpu G: f32[N]; \
             state s { map m[i in 0..N] on cpu { X[i] = a * X[i]; } \
                       tasklet w { t = 1.0; } } }",
            |g| {
                let fields = g.arg_fields().to_string();
                assert!(fields.contains("r#a : f32"), "{fields}");
                assert!(fields.contains("r#t : & 'a mut f64"), "{fields}");
                assert!(fields.contains("r#X : & 'a mut [f32]"), "{fields}");
                assert!(
                    fields.contains("r#G : & 'a :: sdfg :: runtime :: DeviceBuffer < f32 >"),
                    "{fields}"
                );
                assert!(
                    fields.contains("`host X: f32[N]`: read and written by the program."),
                    "{fields}"
                );
                assert!(fields.contains("shape `[N]`"), "{fields}");
                assert!(fields.contains("`gpu G: f32[N]`: not used"), "{fields}");
            },
        );
    }

    #[test]
    fn args_without_borrows_have_no_lifetime() {
        glue_of(
            "sdfg S { host a: f32; gpu G: f32; state s { copy a -> G; } }",
            |g| assert!(g.args_have_refs(), "G is borrowed"),
        );
        glue_of(
            "sdfg S { symbol N: i64; host a: f32; state s { tasklet t { let x = a + 1.0; } } }",
            |g| assert!(!g.args_have_refs(), "a symbol and a scalar by value"),
        );
    }
}
