//! The SDFG intermediate representation (DESIGN section 2).
//!
//! Produced by `crate::lower` from the parsed AST, checked by
//! `crate::validate`, consumed by `crate::schedule`, the code generators and
//! the exporters. No syn types appear here: spans travel as
//! `proc_macro2::Span` values so every later stage can point at the user's
//! tokens.
//!
//! Ids are indices into the owning vectors (`SymbolId` into `Sdfg::symbols`,
//! `StmtId` into `State::stmts`, ...).

pub mod barriers;
pub mod block;
pub mod bounds;
pub mod expr;
pub mod library;
pub mod linear;
pub mod nested;
pub mod ranges;
pub mod reach;
pub mod semantics;
pub mod transients;
pub mod types;

pub use block::*;
pub use expr::*;
pub use nested::{Binding, ExtentCheck, NestedSdfg};
pub use types::*;

use proc_macro2::Span;

pub type SymbolId = usize;
pub type ContainerId = usize;
pub type StateId = usize;
pub type EdgeId = usize;
/// Index of a statement in [`State::stmts`].
pub type StmtId = usize;
/// Index of a memlet in the `memlets` of its statement.
pub type MemletId = usize;

/// A name as the user wrote it (without a raw identifier's `r#`), with its span.
#[derive(Clone, Debug)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

impl Name {
    pub fn new(text: impl Into<String>, span: Span) -> Name {
        Name {
            text: text.into(),
            span,
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// A whole SDFG: `[attrs] [vis] sdfg Name { ... }`.
#[derive(Clone, Debug)]
pub struct Sdfg {
    pub name: Name,
    /// The visibility tokens as written (`pub`, `pub(crate)`, or empty).
    pub vis: proc_macro2::TokenStream,
    /// Doc comments (`///` lines) on the SDFG, without the leading `///`.
    pub docs: Vec<String>,
    pub streams: StreamPolicy,
    pub sync: SyncMode,
    /// `#[graph(...)]`: may calls run parts of the SDFG as graphs?
    pub graph: GraphPolicy,
    pub symbols: Vec<Symbol>,
    pub containers: Vec<Container>,
    pub states: Vec<State>,
    pub start: StateId,
    /// Interstate edges in declaration order (edges out of one state are tried in this order).
    pub edges: Vec<InterstateEdge>,
    /// When the SDFG calls nested SDFGs: the SDFG as written, each call a
    /// [`StatementKind::Nested`] statement. `self` is then its inlined form
    /// (the calls replaced by the callees' states, see `crate::lower`), which
    /// every later stage reads; the DaCe export writes this form. None when
    /// nothing is called.
    pub nested_form: Option<Box<Sdfg>>,
}

/// DaCe's `compiler.cuda.max_concurrent_streams`: default (-1), single (1), max(N) (N), auto (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamPolicy {
    /// Everything on the legacy default stream.
    Default,
    /// One created stream.
    Single,
    /// At most N created streams (N >= 1).
    Max(u32),
    /// As many created streams as there are independent GPU components in a state.
    Auto,
}

/// `#[graph(auto)]` (the default) or `#[graph(off)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GraphPolicy {
    /// Capture what the schedule allows (states of kernels and device copies
    /// whose edges read only symbols; loops decided on the device) and
    /// replay it as one graph launch where that helps.
    Auto,
    /// Every call runs on streams, operation by operation.
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncMode {
    /// The compiler inserts every wait.
    Auto,
    /// The user writes `wait NAME;`; a host read of in-flight data fails to compile.
    Manual,
}

#[derive(Clone, Debug)]
pub struct Symbol {
    pub name: Name,
    pub ty: ScalarType,
    /// Declared with `symbol NAME: TYPE;` (an argument of the SDFG). Otherwise
    /// the symbol is first assigned on an interstate edge and its type was inferred.
    pub declared: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// CPU heap (DaCe `CPU_Heap`); an argument is a `&[T]` / `&mut [T]`.
    Host,
    /// Page-locked host memory (DaCe `CPU_Pinned`); an argument is a `HostBuffer<T>`.
    Pinned,
    /// GPU global memory (DaCe `GPU_Global`); an argument is a `DeviceBuffer<T>`.
    Gpu,
    /// Shared memory of one thread block (DaCe `GPU_Shared`): declared with
    /// `shared NAME: T[...];` inside a block map, one copy per block,
    /// visible only inside that map (see [`block`]).
    Shared,
    /// Thread-private data (DaCe `Register`): declared with `register NAME:
    /// T[...];` inside a block map, one copy per thread-map iteration.
    Register,
}

impl Storage {
    pub fn keyword(self) -> &'static str {
        match self {
            Storage::Host => "host",
            Storage::Pinned => "pinned",
            Storage::Gpu => "gpu",
            Storage::Shared => "shared",
            Storage::Register => "register",
        }
    }
    /// Host and pinned storage are readable by the host.
    pub fn is_host(self) -> bool {
        matches!(self, Storage::Host | Storage::Pinned)
    }
    /// `shared` and `register` data: declared inside a block map and
    /// existing only while one of its iterations runs (never an argument,
    /// never allocated by the glue, not part of any memlet of a state).
    pub fn is_block_local(self) -> bool {
        matches!(self, Storage::Shared | Storage::Register)
    }
}

#[derive(Clone, Debug)]
pub struct Container {
    pub name: Name,
    pub elem: ScalarType,
    /// Row-major dimensions, integer expressions over symbols and literals.
    /// Empty for a scalar.
    pub shape: Vec<Expr>,
    pub storage: Storage,
    /// Owned by the SDFG (not an argument).
    pub transient: bool,
}

impl Container {
    pub fn is_scalar(&self) -> bool {
        self.shape.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct State {
    pub name: Name,
    /// Statements in textual order.
    pub stmts: Vec<Statement>,
    /// The state's dataflow graph, built from the statements' memlets.
    pub graph: Dataflow,
    /// `#[persistent]` (where it was written): the state's loop over
    /// itself runs as one kernel with grid-wide barriers
    /// (`validate::persistent`, `schedule::graphs::PersistentLoop`).
    pub persistent: Option<Span>,
    /// The extents of the nested calls this state makes that are checked
    /// when it runs, before any of its work ([`ExtentCheck`]; the calls
    /// themselves are inlined after it).
    pub extent_checks: Vec<ExtentCheck>,
}

#[derive(Clone, Debug)]
pub struct Statement {
    pub kind: StatementKind,
    /// Every distinct container access of the statement, one memlet each.
    pub memlets: Vec<Memlet>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StatementKind {
    Map(Map),
    /// A stand-alone host tasklet: `tasklet NAME { BODY }`.
    Tasklet(Tasklet),
    /// `copy SRC[subset] -> DST[subset];` (`memlets[0]` reads SRC, `memlets[1]` writes DST).
    Copy(Copy),
    /// `wait NAME;` (only in `#[sync(manual)]` SDFGs).
    Wait(Wait),
    /// A call of a nested SDFG, `Inner(N = M, A = X[0..M]);`: one memlet per
    /// bound container and direction (connector: the callee's name of it).
    /// Only in [`Sdfg::nested_form`]; inlining replaces it.
    Nested(NestedSdfg),
}

impl Statement {
    /// The statement's name for messages: the map/tasklet name, `copy`, `wait`.
    pub fn label(&self) -> String {
        match &self.kind {
            StatementKind::Map(m) => m.name.text.clone(),
            StatementKind::Tasklet(t) => t.name.text.clone(),
            StatementKind::Copy(_) => "copy".to_string(),
            StatementKind::Wait(_) => "wait".to_string(),
            StatementKind::Nested(n) => n.callee.name.text.clone(),
        }
    }

    /// Every symbol the statement mentions: a map's ranges and body, and
    /// the subsets of its memlets.
    pub fn symbols_used(&self) -> std::collections::BTreeSet<SymbolId> {
        let mut out = std::collections::BTreeSet::new();
        let mut visit = |e: &Expr| {
            e.walk(&mut |x| {
                if let ExprKind::Var(VarRef::Symbol(sym)) = x.kind {
                    out.insert(sym);
                }
            })
        };
        if let StatementKind::Map(m) = &self.kind {
            for p in &m.params {
                visit(&p.start);
                visit(&p.end);
                if let Some(step) = &p.step {
                    visit(step);
                }
            }
            for b in &m.body.stmts {
                b.walk_exprs(&mut |x| visit(x));
            }
        }
        for m in &self.memlets {
            for d in &m.subset {
                match d {
                    SubsetDim::Index(i) => visit(i),
                    SubsetDim::Range { start, end } => {
                        visit(start);
                        visit(end);
                    }
                }
            }
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapSchedule {
    /// One GPU kernel (DaCe `GPU_Device`).
    Gpu,
    /// Parallel on the host with rayon (DaCe `CPU_Multicore`).
    Cpu,
    /// A sequential host loop (DaCe `Sequential`).
    Seq,
}

impl MapSchedule {
    pub fn keyword(self) -> &'static str {
        match self {
            MapSchedule::Gpu => "gpu",
            MapSchedule::Cpu => "cpu",
            MapSchedule::Seq => "seq",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Map {
    pub name: Name,
    pub params: Vec<MapParam>,
    pub schedule: MapSchedule,
    /// `VarRef::Param(n)` in the body refers to `params[n]`.
    pub body: TaskletBody,
    /// `#[independent(A, ...)]`: containers the user vouches that no two
    /// iterations share an element of, with the span of each name; the race
    /// test (`crate::validate`) trusts them.
    pub independent: Vec<(ContainerId, Span)>,
    /// The library statement this map expands (`library`), if any.
    pub library: Option<library::LibraryCall>,
    /// `on gpu block(...)`: each iteration runs on one thread block, and the
    /// body is a block program with thread maps ([`block`]). None: a flat map.
    pub block: Option<Block>,
    /// `tasklet NAME on gpu { ... }`: a `gpu` map without parameters whose
    /// body runs once, on one GPU thread.
    pub gpu_tasklet: bool,
}

impl Map {
    /// The DSL's word for the statement: `map` or `tasklet` (a GPU tasklet).
    pub fn keyword(&self) -> &'static str {
        if self.gpu_tasklet {
            "tasklet"
        } else {
            "map"
        }
    }
}

/// `p in start..end` (or `start..=last`; or `(start..end).step_by(step)`).
/// Bounds are integer expressions over symbols and literals, and may read
/// the parameters before this one (`j in 0..i`, see [`ranges`]); the
/// parameter has the bounds' type.
#[derive(Clone, Debug)]
pub struct MapParam {
    pub name: Name,
    pub ty: ScalarType,
    pub start: Expr,
    /// Exclusive, as a mathematical integer: for `start..=last` it is
    /// `last + 1` ([`inclusive_end`]), which may not fit the type (`last`
    /// may be its maximum); code that evaluates it at run time reads
    /// [`MapParam::run_end`] instead.
    pub end: Expr,
    /// Written `start..=last` with a `last` that is not a literal.
    pub inclusive: bool,
    /// A positive step (None: 1).
    pub step: Option<Expr>,
}

impl MapParam {
    /// The end as run-time code must evaluate it.
    pub fn run_end(&self) -> RangeEnd<'_> {
        range_end(&self.end, self.inclusive)
    }
}

/// The end of a range (a map parameter's, a `for` loop's) as run-time code
/// must evaluate it: an inclusive end `last` must not be turned into
/// `last + 1` in the bounds' type, where it would wrap for the type's
/// maximum (`(N - 2)..=N` with `N == i32::MAX` runs three iterations).
#[derive(Clone, Copy, Debug)]
pub enum RangeEnd<'a> {
    /// `start..end`.
    Exclusive(&'a Expr),
    /// `start..=last`.
    Inclusive(&'a Expr),
}

/// The exclusive end `last + 1` of `start..=last`, as [`MapParam::end`] and
/// `Stmt::For::end` hold it (with `inclusive` set); [`range_end`] takes it
/// apart again.
pub fn inclusive_end(last: Expr) -> Expr {
    let (ty, span) = (last.ty, last.span);
    let one = Expr::lit(Value::from_bits(ty, 1), span);
    Expr::new(
        ExprKind::Binary {
            op: BinOp::Add,
            lhs: Box::new(last),
            rhs: Box::new(one),
        },
        ty,
        span,
    )
}

/// How run-time code evaluates a range's `end` (see [`RangeEnd`]).
pub fn range_end(end: &Expr, inclusive: bool) -> RangeEnd<'_> {
    match &end.kind {
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            ..
        } if inclusive => RangeEnd::Inclusive(lhs),
        _ => RangeEnd::Exclusive(end),
    }
}

#[derive(Clone, Debug)]
pub struct Tasklet {
    pub name: Name,
    pub body: TaskletBody,
}

#[derive(Clone, Debug)]
pub struct Copy {
    pub src: ContainerId,
    pub dst: ContainerId,
}

#[derive(Clone, Debug)]
pub struct Wait {
    pub container: ContainerId,
}

/// One container access of a statement.
#[derive(Clone, Debug)]
pub struct Memlet {
    pub container: ContainerId,
    pub subset: Subset,
    pub access: Access,
    /// The subset depends on values known only while the statement runs
    /// (locals, loaded data), or the access is conditional: the subset is the
    /// whole container for analysis purposes and every access is bounds-checked.
    pub dynamic: bool,
    /// Connector name on the tasklet (`__in_A_0`, `__out_B`, ...), unique per statement.
    pub connector: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    /// A write with write-conflict resolution.
    Reduce(WcrOp),
}

impl Access {
    pub fn is_write(self) -> bool {
        !matches!(self, Access::Read)
    }
}

/// Per dimension of the container; empty for a scalar.
pub type Subset = Vec<SubsetDim>;

#[derive(Clone, Debug)]
pub enum SubsetDim {
    /// One index (may depend on map parameters: `A[i, j - 1]`).
    Index(Expr),
    /// `start..end`, end exclusive.
    Range { start: Expr, end: Expr },
}

/// An interstate edge `from -> to [if cond] [{ x = e; ... }]`.
#[derive(Clone, Debug)]
pub struct InterstateEdge {
    pub from: StateId,
    pub to: StateId,
    /// A bool expression over symbols and host data; None: always taken.
    pub condition: Option<Expr>,
    /// Simultaneous assignments: every right-hand side is evaluated before any symbol changes.
    pub assignments: Vec<(SymbolId, Expr)>,
    pub span: Span,
}

/// The dataflow graph of one state (DaCe's `SDFGState`), in the form DaCe
/// uses: each write makes a new access node of its container, reads come from
/// the latest access node, and write-after-read order is an empty edge.
#[derive(Clone, Debug, Default)]
pub struct Dataflow {
    pub nodes: Vec<DataNode>,
    pub edges: Vec<DataEdge>,
}

pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataNode {
    Access(ContainerId),
    Stmt(StmtId),
}

#[derive(Clone, Debug)]
pub struct DataEdge {
    pub src: NodeId,
    pub dst: NodeId,
    /// The memlet (of the statement at one end) carried by this edge; None for
    /// an ordering-only edge (write after read).
    pub memlet: Option<(StmtId, MemletId)>,
}

impl Sdfg {
    pub fn symbol_by_name(&self, name: &str) -> Option<SymbolId> {
        self.symbols.iter().position(|s| s.name.text == name)
    }
    pub fn container_by_name(&self, name: &str) -> Option<ContainerId> {
        self.containers.iter().position(|c| c.name.text == name)
    }
    pub fn state_by_name(&self, name: &str) -> Option<StateId> {
        self.states.iter().position(|s| s.name.text == name)
    }
    /// Edges leaving `state`, in the order they are tried.
    pub fn out_edges(&self, state: StateId) -> impl Iterator<Item = (EdgeId, &InterstateEdge)> {
        self.edges
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.from == state)
    }
}

impl Dataflow {
    /// Statements that must run before `stmt` because of a read/write conflict
    /// (direct predecessors through one access node or an ordering edge).
    pub fn predecessors(&self, stmt: StmtId) -> Vec<StmtId> {
        let Some(me) = self.nodes.iter().position(|n| *n == DataNode::Stmt(stmt)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in self.edges.iter().filter(|e| e.dst == me) {
            match &self.nodes[e.src] {
                DataNode::Stmt(s) => out.push(*s),
                DataNode::Access(_) => {
                    for e2 in self.edges.iter().filter(|e2| e2.dst == e.src) {
                        if let DataNode::Stmt(s) = self.nodes[e2.src] {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
