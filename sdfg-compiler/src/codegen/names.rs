//! Every name the code generators invent, one function per kind, so that
//! following a container from the macro to a kernel parameter means reading
//! one page.
//!
//! Hygiene rests on two rules:
//! - A user's name appears only where the user sees it: the program type,
//!   its `Args` type and the fields of `Args` ([`user`], [`args_type`]). A
//!   field is spelled raw (`r#type`), so every identifier works, keywords of
//!   any edition included.
//! - A user's name is never bound as a pattern or read as a value: the glue
//!   takes `Args` apart as `Args { N: __sym_N, .. }`, since `let Args { N, .. }`
//!   would make `N` a constant pattern when the user has a `const N` (or a
//!   `static N`, or a unit struct `N`) in scope. Every binding is a
//!   generated name: a `__` prefix and the bare name (`r#type` -> `__sym_type`).
//!
//! The parser strips `r#` from every identifier, so IR names are bare;
//! [`bare`] strips it again for IRs built by hand.

use crate::ir::{LocalId, Name, Sdfg, StateId, StatementKind, StmtId};
use proc_macro2::{Ident, Span};
use quote::format_ident;

/// `text` without a leading `r#`.
pub fn bare(text: &str) -> &str {
    text.strip_prefix("r#").unwrap_or(text)
}

/// A user's name at the user's tokens, spelled raw where Rust allows it.
pub fn user(name: &Name) -> Ident {
    let text = bare(&name.text);
    match text {
        // Not allowed raw; the parser rejects them as names anyway.
        "self" | "Self" | "super" | "crate" | "_" => Ident::new(text, name.span),
        _ => Ident::new_raw(text, name.span),
    }
}

/// The program type: the SDFG's name.
pub fn program_type(sdfg: &Sdfg) -> Ident {
    user(&sdfg.name)
}

/// `<Name>Args`, the arguments of one call.
pub fn args_type(sdfg: &Sdfg) -> Ident {
    Ident::new(&format!("{}Args", bare(&sdfg.name.text)), sdfg.name.span)
}

/// The private module with the program's statics and kernel twins.
pub fn private_module(sdfg: &Sdfg) -> Ident {
    prefixed("__sdfg_", &sdfg.name.text)
}

fn prefixed(prefix: &str, text: &str) -> Ident {
    format_ident!("{}{}", prefix, bare(text))
}

/// The value of a symbol in the glue and in a kernel twin.
pub fn symbol(name: &str) -> Ident {
    prefixed("__sym_", name)
}

/// A host container between states (the argument or the transient).
pub fn host_slot(container: &str) -> Ident {
    prefixed("__h_", container)
}

/// A host container inside a state arm, spanned where the statement that
/// needs it reads it (so a missing wait is reported there).
pub fn host_var(container: &str, span: Span) -> Ident {
    Ident::new(&format!("__v_{}", bare(container)), span)
}

/// `&DeviceBuffer<T>` of a GPU container.
pub fn gpu_ref(container: &str) -> Ident {
    prefixed("__g_", container)
}

/// `[usize; rank]`: the extents of a container.
pub fn extents(container: &str) -> Ident {
    prefixed("__ext_", container)
}

/// `usize`: the element count of a container.
pub fn len(container: &str) -> Ident {
    prefixed("__len_", container)
}

/// Extent `dim` of a container as a kernel twin receives it.
pub fn twin_extent(container: &str, dim: usize) -> Ident {
    format_ident!("__ext_{}_{}", bare(container), dim)
}

/// The elements one statement touches: a slice, a plain view or atomic
/// cells (`codegen::cpu::access` decides for parallel maps).
pub fn data(container: &str) -> Ident {
    prefixed("__d_", container)
}

/// A host scalar argument as `Args` passed it (a value or a `&mut`),
/// before the glue views it as a one-element slice.
pub fn scalar_value(container: &str) -> Ident {
    prefixed("__val_", container)
}

/// A host scalar a kernel twin receives by value.
pub fn host_scalar(container: &str) -> Ident {
    prefixed("__hs_", container)
}

/// Where a map's range values live.
#[derive(Clone, Copy, Debug)]
pub enum RangeScope {
    /// The glue's precheck locals of statement `k` (i128; the count is u64).
    Statement(StmtId),
    /// A kernel twin's parameters.
    Kernel,
}

/// The start, end, step and iteration count of dimension `d` of a map.
pub struct RangeNames {
    pub start: Ident,
    pub end: Ident,
    pub step: Ident,
    pub count: Ident,
}

pub fn range(scope: RangeScope, d: usize) -> RangeNames {
    let name = |what: &str| match scope {
        RangeScope::Statement(k) => format_ident!("__{}_{}_{}", what, k, d),
        RangeScope::Kernel => format_ident!("__{}_{}", what, d),
    };
    RangeNames {
        start: name("start"),
        end: name("end"),
        step: name("step"),
        count: name("cnt"),
    }
}

/// Map parameter `d` (outermost first).
pub fn map_param(d: usize) -> Ident {
    format_ident!("__p{}", d)
}

/// The position of dimension `d` in a flattened iteration.
pub fn flat_position(d: usize) -> Ident {
    format_ident!("__t{}", d)
}

/// A CPU twin of a block map: the linear number of the running
/// thread-map iteration (which copy of register data it sees).
pub fn thread_iteration() -> Ident {
    format_ident!("__q")
}

/// A CPU twin of a block map: the threads the program sees per block (`B`).
pub fn block_threads() -> Ident {
    format_ident!("__threads")
}

/// A CPU twin of a block map: the threads the kernel launches per block
/// (`B` in whole warps).
pub fn launched_threads() -> Ident {
    format_ident!("__launched")
}

/// The per-thread partials of block reduction `k` of a thread map (not
/// `__part`: a chunk's partials, [`partial`], may be in scope).
pub fn block_partials(k: usize) -> Ident {
    format_ident!("__bpart{}", k)
}

/// Block reduction `k`'s partial while one thread-map iteration runs (a
/// local the compiler keeps in a register; the thread's partial before
/// and after).
pub fn block_partial_acc(k: usize) -> Ident {
    format_ident!("__bacc{}", k)
}

/// Whether block reduction `k` of a thread map had an update (kept where
/// its target's index is checked where it runs: no update, no check).
pub fn block_partial_hit(k: usize) -> Ident {
    format_ident!("__bhit{}", k)
}

/// A CPU twin of a block map: the thread of the block that runs the
/// current thread-map iteration (`q mod B`).
pub fn block_thread() -> Ident {
    format_ident!("__bt")
}

/// Dimension `d` of the thread map a CPU twin runs: start, step, count,
/// and (`end`) the position in that dimension.
pub fn thread_range(d: usize) -> RangeNames {
    RangeNames {
        start: format_ident!("__ts{}", d),
        end: format_ident!("__tt{}", d),
        step: format_ident!("__tst{}", d),
        count: format_ident!("__tc{}", d),
    }
}

/// The length of a block map's register data (per thread-map iteration).
pub fn register_len(container: &str) -> Ident {
    format_ident!("__rl_{}", container)
}

/// The running thread-map iteration's register data of constant length,
/// in a local array (indices into it need no checks where the compiler
/// sees they are below its length).
pub fn register_view(container: &str) -> Ident {
    format_ident!("__rv_{}", container)
}

/// Where `register_view`'s array comes from and goes back to: the
/// iteration's chunk of the thread's register vector.
pub fn register_copy(container: &str) -> Ident {
    format_ident!("__rc_{}", container)
}

/// A block team's copies of block data, one per block iteration.
pub fn team_copies(container: &str) -> Ident {
    format_ident!("__tc_{}", container)
}

/// The views of [`team_copies`] the team's members index.
pub fn team_views(container: &str) -> Ident {
    format_ident!("__tv_{}", container)
}

/// A local variable (or `for` variable) of a tasklet body.
pub fn local(l: LocalId) -> Ident {
    format_ident!("__l{}", l)
}

/// A chunk's partial of the reduction site with fault code `code`.
pub fn partial(code: u32) -> Ident {
    format_ident!("__part{}", code)
}

/// Whether the (guarded) reduction site `code` ran in a chunk.
pub fn partial_hit(code: u32) -> Ident {
    format_ident!("__hit{}", code)
}

/// The range of a boxed `for` variable in a precheck.
pub fn loop_interval(l: LocalId) -> Ident {
    format_ident!("__loop_{}", l)
}

/// Index `d` of one access, checked against its extent.
pub fn index(d: usize) -> Ident {
    format_ident!("__i{}", d)
}

/// The value of index `d` of an access, before its bounds check.
pub fn index_value(d: usize) -> Ident {
    format_ident!("__x{}", d)
}

/// The row-major index of an access that was out of bounds (`i64`).
pub fn fault_index() -> Ident {
    format_ident!("__flat")
}

/// The checked source and destination regions of copy statement `k`.
pub fn copy_regions(k: StmtId) -> (Ident, Ident) {
    (format_ident!("__rs_{}", k), format_ident!("__rd_{}", k))
}

/// The new value of an edge's assignment `i` (all are computed first).
pub fn edge_value(i: usize) -> Ident {
    format_ident!("__a{}", i)
}

/// Stream `k` of a call.
pub fn stream(k: usize) -> Ident {
    format_ident!("__s{}", k)
}

/// The fault recorder host code and kernel twins report out-of-bounds
/// accesses to (`&check::Fault`).
pub fn fault() -> Ident {
    format_ident!("__fault")
}

/// The bindings of a call's graph segments (`glue/segments.rs`).
pub struct SegmentNames {
    /// Every device buffer of the call, for the segment keys.
    pub buffers: Ident,
    /// Graphs are on for this call.
    pub on: Ident,
    /// A segment is being recorded.
    pub recording: Ident,
    /// A segment runs on streams.
    pub streaming: Ident,
    /// The state the recorded segment started at.
    pub entry: Ident,
    /// The symbols' bits at that entry (to restart it on streams).
    pub saved: Ident,
    /// Ends a recording left by an error.
    pub guard: Ident,
    /// A segment's exit.
    pub exit: Ident,
}

/// See [`SegmentNames`].
pub fn segments() -> SegmentNames {
    SegmentNames {
        buffers: format_ident!("__graph_buffers"),
        on: format_ident!("__graph_on"),
        recording: format_ident!("__graph_recording"),
        streaming: format_ident!("__graph_streaming"),
        entry: format_ident!("__graph_entry"),
        saved: format_ident!("__graph_saved"),
        guard: format_ident!("__graph_guard"),
        exit: format_ident!("__graph_exit"),
    }
}

/// The arguments a kernel twin receives (`&KernelArgs`).
pub fn twin_args() -> Ident {
    format_ident!("__args")
}

/// The Rust twin of a kernel, for the CPU device.
pub fn kernel_twin(entry: &str) -> Ident {
    format_ident!("cpu_{}", entry)
}

/// The PTX entry name of every `gpu` map in `maps`, in order:
/// `k_<state>_<map>`. Characters PTX does not allow in a name (Rust allows
/// any Unicode letter) become `_uXXXX`, and a name equal to an earlier one
/// (`a_b` + `c` and `a` + `b_c`) gets a `_<n>` suffix, so every entry name
/// is valid and unique. Entry names are also Rust identifiers (the twins).
pub fn kernel_entries(sdfg: &Sdfg, maps: &[(StateId, StmtId)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(state, stmt) in maps {
        let map = match &sdfg.states[state].stmts[stmt].kind {
            StatementKind::Map(m) => bare(&m.name.text),
            _ => "",
        };
        let base = format!(
            "k_{}_{}",
            ptx_safe(bare(&sdfg.states[state].name.text)),
            ptx_safe(map)
        );
        let mut name = base.clone();
        let mut n = 2;
        while out.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        out.push(name);
    }
    out
}

/// The PTX entry name of the persistent kernel of state `state`:
/// `p_<state>`, with a `_<n>` suffix when `taken` (the maps' entries and
/// earlier persistent ones) holds it already.
pub fn persistent_entry(sdfg: &Sdfg, state: StateId, taken: &[String]) -> String {
    let base = format!("p_{}", ptx_safe(bare(&sdfg.states[state].name.text)));
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

fn ptx_safe(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push_str(&format!("_u{:04x}", c as u32));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_names_are_raw_and_generated_names_bare() {
        let name = Name::new("r#type", Span::call_site());
        assert_eq!(user(&name).to_string(), "r#type");
        assert_eq!(symbol("r#type").to_string(), "__sym_type");
        assert_eq!(symbol("N").to_string(), "__sym_N");
        assert_eq!(user(&Name::new("N", Span::call_site())).to_string(), "r#N");
    }

    #[test]
    fn kernel_entries_are_ascii_and_unique() {
        assert_eq!(ptx_safe("état"), "_u00e9tat");
        assert_eq!(ptx_safe("a_b1"), "a_b1");
        let sdfg = crate::frontend_str(
            "sdfg S { gpu X: f64[4]; \
             state a_b { map c[i in 0..4] on gpu { X[i] = 1.0; } } \
             state a { map b_c[i in 0..4] on gpu { X[i] = 2.0; } } \
             state état { map m[i in 0..4] on gpu { X[i] = 3.0; } } \
             a_b -> a; a -> état; }",
        )
        .expect("valid");
        let maps = crate::codegen::abi::gpu_maps(&sdfg);
        assert_eq!(
            kernel_entries(&sdfg, &maps),
            ["k_a_b_c", "k_a_b_c_2", "k__u00e9tat_m"]
        );
    }
}
