//! What fault codes mean, for the messages of a call's errors: each access
//! of a body (host tasklets and maps report through `check::Fault`), and
//! per kernel its map, state and accesses (the `KernelSites` table of the
//! program's spec, which a call's `Running::wait` decodes its fault slot
//! with). Access codes count from 1 in `ir::bounds::for_each_access` order,
//! as every backend numbers them.

use super::Glue;
use crate::codegen::runtime_paths as rt;
use crate::ir::bounds::for_each_access;
use crate::ir::{StatementKind, TaskletBody};
use proc_macro2::TokenStream;
use quote::quote;

impl Glue<'_> {
    /// `AccessSite { container, write, rank }` of each access of `body`,
    /// by access code.
    pub(super) fn access_sites(&self, body: &TaskletBody) -> Vec<TokenStream> {
        let access_site = rt::access_site();
        let mut out = Vec::new();
        for_each_access(&body.stmts, &mut |site| {
            let container = self.cname(site.container);
            let write = site.is_store;
            let rank = self.sdfg.containers[site.container].shape.len();
            out.push(quote!(#access_site { container: #container, write: #write, rank: #rank }));
        });
        out
    }

    /// `KernelSites { map, state, accesses }` of each kernel, in launch
    /// order (the `SITES` table of the spec).
    pub(super) fn kernel_sites(&self) -> Vec<TokenStream> {
        let kernel_sites = rt::kernel_sites();
        self.abis
            .iter()
            .map(|abi| {
                let state = &self.sdfg.states[abi.state];
                let (map, accesses) = match &state.stmts[abi.stmt].kind {
                    StatementKind::Map(m) => (m.name.text.as_str(), self.access_sites(&m.body)),
                    _ => ("", Vec::new()),
                };
                let state = state.name.text.as_str();
                quote!(#kernel_sites { map: #map, state: #state, accesses: &[#(#accesses),*] })
            })
            // A persistent kernel's phases fault under their maps' kernels.
            .chain(self.persistent.iter().map(|p| {
                let state = self.sdfg.states[p.state].name.text.as_str();
                quote!(#kernel_sites { map: "", state: #state, accesses: &[] })
            }))
            .collect()
    }
}
