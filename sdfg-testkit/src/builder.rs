//! Builds `ir::Sdfg` values directly (no parser): symbols, containers,
//! states with `gpu` maps whose memlets are derived from the body.

use proc_macro2::Span;
use sdfg_compiler::ir::bounds::{for_each_access, is_prechecked};
use sdfg_compiler::ir::*;

fn sp() -> Span {
    Span::call_site()
}

/// Expression constructors (types follow the tasklet language's rules).
pub mod e {
    use super::*;
    pub fn lit(v: Value) -> Expr {
        Expr::lit(v, sp())
    }
    pub fn i32(v: i32) -> Expr {
        lit(Value::I32(v))
    }
    pub fn i64(v: i64) -> Expr {
        lit(Value::I64(v))
    }
    pub fn u32(v: u32) -> Expr {
        lit(Value::U32(v))
    }
    pub fn u64(v: u64) -> Expr {
        lit(Value::U64(v))
    }
    pub fn f32(v: f32) -> Expr {
        lit(Value::F32(v))
    }
    pub fn f64(v: f64) -> Expr {
        lit(Value::F64(v))
    }
    pub fn bool(v: bool) -> Expr {
        lit(Value::Bool(v))
    }
    /// Map parameter `n` of type `ty`.
    pub fn param(n: usize, ty: ScalarType) -> Expr {
        Expr::new(ExprKind::Var(VarRef::Param(n)), ty, sp())
    }
    pub fn sym(s: SymbolId, ty: ScalarType) -> Expr {
        Expr::new(ExprKind::Var(VarRef::Symbol(s)), ty, sp())
    }
    pub fn local(l: LocalId, ty: ScalarType) -> Expr {
        Expr::new(ExprKind::Var(VarRef::Local(l)), ty, sp())
    }
    pub fn load(c: ContainerId, ty: ScalarType, index: Vec<Expr>) -> Expr {
        Expr::new(
            ExprKind::Load {
                container: c,
                index,
            },
            ty,
            sp(),
        )
    }
    pub fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            ScalarType::Bool
        } else {
            lhs.ty
        };
        Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
            sp(),
        )
    }
    pub fn add(a: Expr, b: Expr) -> Expr {
        bin(BinOp::Add, a, b)
    }
    pub fn sub(a: Expr, b: Expr) -> Expr {
        bin(BinOp::Sub, a, b)
    }
    pub fn mul(a: Expr, b: Expr) -> Expr {
        bin(BinOp::Mul, a, b)
    }
    pub fn un(op: UnOp, a: Expr) -> Expr {
        let ty = a.ty;
        Expr::new(
            ExprKind::Unary {
                op,
                arg: Box::new(a),
            },
            ty,
            sp(),
        )
    }
    pub fn cast(a: Expr, ty: ScalarType) -> Expr {
        Expr::new(ExprKind::Cast { arg: Box::new(a) }, ty, sp())
    }
    pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
        let ty = a.ty;
        Expr::new(
            ExprKind::Select {
                cond: Box::new(c),
                then: Box::new(a),
                else_: Box::new(b),
            },
            ty,
            sp(),
        )
    }
    pub fn call(f: MathFn, args: Vec<Expr>) -> Expr {
        let ty = args[0].ty;
        Expr::new(ExprKind::Call { func: f, args }, ty, sp())
    }
}

/// Statement constructors.
pub mod s {
    use super::*;
    pub fn store(c: ContainerId, index: Vec<Expr>, value: Expr) -> Stmt {
        Stmt::Store {
            container: c,
            index,
            value,
            wcr: None,
            span: sp(),
        }
    }
    pub fn reduce(c: ContainerId, index: Vec<Expr>, value: Expr, op: WcrOp) -> Stmt {
        Stmt::Store {
            container: c,
            index,
            value,
            wcr: Some(op),
            span: sp(),
        }
    }
    pub fn let_(local: LocalId, init: Expr) -> Stmt {
        Stmt::Let {
            local,
            init,
            span: sp(),
        }
    }
    pub fn assign(local: LocalId, value: Expr) -> Stmt {
        Stmt::AssignLocal {
            local,
            value,
            span: sp(),
        }
    }
    pub fn if_(cond: Expr, then: Vec<Stmt>, else_: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            else_,
            span: sp(),
        }
    }
    pub fn for_(var: LocalId, start: Expr, end: Expr, step: Option<Expr>, body: Vec<Stmt>) -> Stmt {
        Stmt::For {
            var,
            start,
            end,
            inclusive: false,
            step,
            body,
            span: sp(),
        }
    }
    /// `for var in (start..=last).step_by(step)`.
    pub fn for_inclusive(
        var: LocalId,
        start: Expr,
        last: Expr,
        step: Option<Expr>,
        body: Vec<Stmt>,
    ) -> Stmt {
        Stmt::For {
            var,
            start,
            end: inclusive_end(last),
            inclusive: true,
            step,
            body,
            span: sp(),
        }
    }
    pub fn while_(cond: Expr, body: Vec<Stmt>) -> Stmt {
        Stmt::While {
            cond,
            body,
            span: sp(),
        }
    }
    pub fn break_() -> Stmt {
        Stmt::Break { span: sp() }
    }
    pub fn continue_() -> Stmt {
        Stmt::Continue { span: sp() }
    }
}

/// A local declaration.
pub fn local(name: &str, ty: ScalarType, mutable: bool) -> Local {
    Local {
        name: name.to_string(),
        ty,
        mutable,
        span: sp(),
    }
}

/// `name in start..end` (step None: 1).
pub fn map_param(
    name: &str,
    ty: ScalarType,
    start: Expr,
    end: Expr,
    step: Option<Expr>,
) -> MapParam {
    MapParam {
        name: Name::new(name, sp()),
        ty,
        start,
        end,
        inclusive: false,
        step,
    }
}

/// `name in start..=last` (step None: 1).
pub fn map_param_inclusive(
    name: &str,
    ty: ScalarType,
    start: Expr,
    last: Expr,
    step: Option<Expr>,
) -> MapParam {
    MapParam {
        end: inclusive_end(last),
        inclusive: true,
        ..map_param(
            name,
            ty,
            start,
            Expr::lit(Value::from_bits(ty, 0), sp()),
            step,
        )
    }
}

pub struct SdfgBuilder {
    sdfg: Sdfg,
}

impl SdfgBuilder {
    pub fn new(name: &str) -> SdfgBuilder {
        SdfgBuilder {
            sdfg: Sdfg {
                name: Name::new(name, sp()),
                vis: proc_macro2::TokenStream::new(),
                docs: Vec::new(),
                streams: StreamPolicy::Default,
                sync: SyncMode::Auto,
                graph: GraphPolicy::Auto,
                symbols: Vec::new(),
                containers: Vec::new(),
                states: Vec::new(),
                start: 0,
                edges: Vec::new(),
                nested_form: None,
            },
        }
    }

    pub fn symbol(&mut self, name: &str, ty: ScalarType) -> SymbolId {
        self.sdfg.symbols.push(Symbol {
            name: Name::new(name, sp()),
            ty,
            declared: true,
        });
        self.sdfg.symbols.len() - 1
    }

    pub fn container(
        &mut self,
        name: &str,
        elem: ScalarType,
        shape: Vec<Expr>,
        storage: Storage,
    ) -> ContainerId {
        self.sdfg.containers.push(Container {
            name: Name::new(name, sp()),
            elem,
            shape,
            storage,
            transient: false,
        });
        self.sdfg.containers.len() - 1
    }

    /// A `gpu` container of shape `shape`.
    pub fn gpu(&mut self, name: &str, elem: ScalarType, shape: Vec<Expr>) -> ContainerId {
        self.container(name, elem, shape, Storage::Gpu)
    }

    pub fn state(&mut self, name: &str) -> StateId {
        self.sdfg.states.push(State {
            name: Name::new(name, sp()),
            stmts: Vec::new(),
            graph: Dataflow::default(),
            persistent: None,
            extent_checks: Vec::new(),
        });
        self.sdfg.states.len() - 1
    }

    /// Adds a map (`schedule`) with memlets derived from its body.
    pub fn map(
        &mut self,
        state: StateId,
        name: &str,
        schedule: MapSchedule,
        params: Vec<MapParam>,
        body: TaskletBody,
    ) -> StmtId {
        let memlets = memlets_of(&body.stmts);
        let map = Map {
            name: Name::new(name, sp()),
            params,
            schedule,
            body,
            block: None,
            gpu_tasklet: false,
            independent: Vec::new(),
            library: None,
        };
        let stmts = &mut self.sdfg.states[state].stmts;
        stmts.push(Statement {
            kind: StatementKind::Map(map),
            memlets,
            span: sp(),
        });
        stmts.len() - 1
    }

    pub fn gpu_map(
        &mut self,
        state: StateId,
        name: &str,
        params: Vec<MapParam>,
        body: TaskletBody,
    ) -> StmtId {
        self.map(state, name, MapSchedule::Gpu, params, body)
    }

    pub fn build(self) -> Sdfg {
        self.sdfg
    }
}

/// One memlet per access, in program order (reads, writes, reductions).
pub fn memlets_of(stmts: &[Stmt]) -> Vec<Memlet> {
    let mut wcr_of_store = Vec::new();
    for s in stmts {
        s.walk(&mut |x| {
            if let Stmt::Store { index, wcr, .. } = x {
                wcr_of_store.push((index.as_ptr() as usize, index.len(), *wcr));
            }
        });
    }
    let mut out = Vec::new();
    let mut n = 0;
    for_each_access(stmts, &mut |site| {
        let access = if site.is_store {
            let wcr = wcr_of_store
                .iter()
                .find(|(p, l, _)| *p == site.index.as_ptr() as usize && *l == site.index.len())
                .and_then(|w| w.2);
            match wcr {
                Some(op) => Access::Reduce(op),
                None => Access::Write,
            }
        } else {
            Access::Read
        };
        n += 1;
        out.push(Memlet {
            container: site.container,
            subset: site
                .index
                .iter()
                .map(|e| SubsetDim::Index(e.clone()))
                .collect(),
            access,
            dynamic: !is_prechecked(site.index, site.conditional, &site.loops),
            connector: format!("__c{n}"),
            span: sp(),
        });
    });
    out
}
