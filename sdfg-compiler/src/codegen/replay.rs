//! How one `sdfg!` calls a program defined by another: `extern sdfg NAME;`
//! (docs/GUIDE.md section 5.7, `parse::external` for the protocol).
//!
//! Every program defines a `macro_rules!` that replays its items into an
//! invocation, under the program's own name: macros and types live in
//! different namespaces, so `use a::Inner;` brings both, and `Inner! { .. }`
//! resolves wherever the type does (a `pub` program's macro is at most
//! `pub(crate)`: a macro reaches other crates only through
//! `#[macro_export]`, which would put every program at the crate root).

use super::names;
use super::runtime_paths as rt;
use crate::ir::Sdfg;
use crate::parse::external::SOURCE_ATTRIBUTE;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// The program's replay macro and its import under the program's name;
/// `items` is `sdfg NAME { ITEMS }` (`parse::external::replayed_items`).
pub fn replay_macro(sdfg: &Sdfg, items: TokenStream) -> TokenStream {
    let program = names::program_type(sdfg);
    let helper = format_ident!("__sdfg_replay_{}", names::bare(&sdfg.name.text));
    let macro_path = rt::sdfg_macro();
    let attribute = Ident::new(SOURCE_ATTRIBUTE, Span::call_site());
    let vis = macro_visibility(&sdfg.vis);
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #helper {
            ($($caller:tt)*) => {
                #macro_path! { #[#attribute { #items }] $($caller)* }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #helper as #program;
    }
}

/// `PATH! { TOKENS }`: the invocation again, through the replay macro of
/// the program at `path`, which puts that program's items in front.
pub fn fetch(path: &syn::Path, tokens: TokenStream) -> TokenStream {
    quote!(#path! { #tokens })
}

/// A macro re-exported by `use` is visible at most crate-wide.
fn macro_visibility(vis: &TokenStream) -> TokenStream {
    let text = vis.to_string().replace(' ', "");
    if text == "pub" {
        quote!(pub(crate))
    } else {
        vis.clone()
    }
}
