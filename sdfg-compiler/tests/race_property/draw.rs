//! Drawing random maps.

use super::model::*;
use sdfg_testkit::rng::Rng;

struct Draw<'r> {
    rng: &'r mut Rng,
    /// Variables in scope, usable in subscripts.
    scope: Vec<Var>,
    lets: usize,
    muts: usize,
    /// A thread map: `S` is there too.
    in_block: bool,
}

impl Draw<'_> {
    fn small(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.rng.below((hi - lo + 1) as usize) as i64
    }

    /// A linear form over `vars`.
    fn lin(&mut self, vars: &[Var], max_terms: usize) -> Lin {
        let mut terms: Vec<(Var, i64)> = Vec::new();
        for _ in 0..self.rng.below(max_terms + 1) {
            if vars.is_empty() {
                break;
            }
            let v = self.rng.pick(vars);
            if terms.iter().any(|(w, _)| *w == v) {
                continue;
            }
            let k = self.rng.pick(&[1, 1, 1, 2, 3, -1, -2, 4]);
            terms.push((v, k));
        }
        Lin {
            constant: self.small(0, 6),
            terms,
        }
    }

    /// A subscript over the variables in scope.
    fn index(&mut self) -> Index {
        let vars = self.scope.clone();
        let mut lin = self.lin(&vars, 3);
        // Keep most subscripts inside the containers: negative terms get
        // an offset.
        if lin.terms.iter().any(|(_, k)| *k < 0) {
            lin.constant += 24;
        }
        match self.rng.below(20) {
            0 if vars.len() >= 2 => {
                let a = self.rng.pick(&vars);
                let b = self.rng.pick(&vars);
                Index::Product(a, b, self.small(0, 3))
            }
            1 => Index::Div(lin, self.rng.pick(&[2, 3])),
            2 => Index::Rem(lin, self.rng.pick(&[2, 4, 5])),
            3 => Index::Loaded(lin),
            _ => Index::Lin(lin),
        }
    }

    fn access(&mut self, container: usize) -> Access {
        let dims = extents(container).len();
        Access {
            container,
            index: (0..dims).map(|_| self.index()).collect(),
        }
    }

    /// A store's target, often one that reads every parameter (the
    /// shapes that may well be race-free).
    fn target(&mut self, container: usize) -> Access {
        let params: Vec<Var> = self
            .scope
            .iter()
            .copied()
            .filter(|v| matches!(v, Var::Param(_) | Var::Block(_)))
            .collect();
        if params.is_empty() || self.rng.chance(40) {
            return self.access(container);
        }
        let dims = extents(container).len();
        let mut index: Vec<Lin> = (0..dims)
            .map(|_| Lin {
                constant: self.small(0, 3),
                terms: Vec::new(),
            })
            .collect();
        for p in params {
            let d = self.rng.below(dims);
            let k = self.rng.pick(&[1, 1, 2, 3, 8, -1]);
            index[d].terms.push((p, k));
        }
        // Sometimes a `for` variable or a `let` as well.
        let others: Vec<Var> = self
            .scope
            .iter()
            .copied()
            .filter(|v| matches!(v, Var::Loop(_) | Var::Let(_)))
            .collect();
        if !others.is_empty() && self.rng.chance(40) {
            let d = self.rng.below(dims);
            let v = self.rng.pick(&others);
            index[d].terms.push((v, self.rng.pick(&[1, 2, 4])));
        }
        for l in &mut index {
            if l.terms.iter().any(|(_, k)| *k < 0) {
                l.constant += 20;
            }
        }
        Access {
            container,
            index: index.into_iter().map(Index::Lin).collect(),
        }
    }

    fn container(&mut self) -> usize {
        if self.in_block {
            self.rng.pick(&[0, 1, X, SHARED, SHARED])
        } else {
            self.rng.pick(&[0, 0, 1, X])
        }
    }

    fn stmts(&mut self, depth: usize, loops: usize) -> Vec<Stmt> {
        let n = 1 + self.rng.below(if depth == 0 { 3 } else { 2 });
        let block_scope = self.scope.len();
        let mut out = Vec::new();
        for _ in 0..n {
            let scope_len = self.scope.len();
            let s = self.stmt(depth, loops);
            // A `let` stays in scope for the rest of the block; a loop's or
            // an `if`'s variables do not leave it.
            if !matches!(s, Stmt::Let { .. } | Stmt::Mut { .. }) {
                self.scope.truncate(scope_len);
            }
            out.push(s);
        }
        if depth > 0 {
            self.scope.truncate(block_scope);
        }
        out
    }

    fn stmt(&mut self, depth: usize, loops: usize) -> Stmt {
        let choice = if depth >= 2 { 0 } else { self.rng.below(10) };
        match choice {
            5 | 6 => {
                let bound_vars: Vec<Var> = self
                    .scope
                    .iter()
                    .copied()
                    .filter(|v| matches!(v, Var::Symbol(_) | Var::Param(_) | Var::Loop(_)))
                    .collect();
                let start = Lin {
                    constant: self.small(0, 2),
                    terms: Vec::new(),
                };
                let end = if self.rng.chance(50) {
                    Lin {
                        constant: self.small(1, 5),
                        terms: Vec::new(),
                    }
                } else {
                    let mut l = self.lin(&bound_vars, 1);
                    l.terms.iter_mut().for_each(|t| t.1 = 1);
                    l.constant = l.constant.clamp(0, 3);
                    l
                };
                self.scope.push(Var::Loop(loops));
                let body = self.stmts(depth + 1, loops + 1);
                Stmt::For {
                    depth: loops,
                    start,
                    end,
                    body,
                }
            }
            7 => {
                let params: Vec<Var> = self
                    .scope
                    .iter()
                    .copied()
                    .filter(|v| matches!(v, Var::Param(_) | Var::Loop(_)))
                    .collect();
                let var = if params.is_empty() {
                    Var::Symbol(0)
                } else {
                    self.rng.pick(&params)
                };
                let symbols = [Var::Symbol(0), Var::Symbol(1)];
                let mut value = self.lin(&symbols, 1);
                value.constant = value.constant.clamp(0, 4);
                let then = self.stmts(depth + 1, loops);
                let otherwise = if self.rng.chance(40) {
                    self.stmts(depth + 1, loops)
                } else {
                    Vec::new()
                };
                Stmt::If {
                    var,
                    // Equalities pin a variable, the others bound it.
                    op: match self.rng.below(10) {
                        0..=3 => BinOp::Eq,
                        4 | 5 => BinOp::Ne,
                        6 => BinOp::Lt,
                        7 => BinOp::Le,
                        8 => BinOp::Gt,
                        _ => BinOp::Ge,
                    },
                    value,
                    then,
                    otherwise,
                }
            }
            8 => {
                let vars = self.scope.clone();
                let value = self.lin(&vars, 2);
                let id = self.lets;
                self.lets += 1;
                self.scope.push(Var::Let(id));
                Stmt::Let { id, value }
            }
            9 if self.rng.chance(40) => {
                let vars = self.scope.clone();
                let value = self.lin(&vars, 1);
                let id = self.muts;
                self.muts += 1;
                self.scope.push(Var::Mut(id));
                Stmt::Mut {
                    id,
                    value,
                    step: self.small(1, 2),
                }
            }
            _ => {
                let c = self.container();
                let target = self.target(c);
                let kind = match self.rng.below(8) {
                    0 => Kind::Sum,
                    1 => Kind::Product,
                    _ => Kind::Write,
                };
                let reads = (0..self.rng.below(3))
                    .map(|_| {
                        let c = self.container();
                        self.access(c)
                    })
                    .collect();
                Stmt::Store {
                    target,
                    kind,
                    reads,
                }
            }
        }
    }
}

/// A random `gpu` map, or (`in_block`) a thread map inside a random block
/// map.
pub fn draw(rng: &mut Rng, in_block: bool) -> Case {
    let mut d = Draw {
        rng,
        scope: vec![Var::Symbol(0), Var::Symbol(1)],
        lets: 0,
        muts: 0,
        in_block,
    };
    let block = in_block.then(|| {
        let threads = d.rng.pick(&[32, 32, 64, 96]);
        let count = 1 + d.rng.below(2);
        let params = d.params(count, Var::Block);
        let let_value = d.rng.chance(40).then(|| {
            let vars = d.scope.clone();
            d.lin(&vars, 2)
        });
        if let_value.is_some() {
            d.scope.push(Var::BlockLet);
        }
        let group = d.rng.chance(30).then(|| d.small(1, 3));
        if group.is_some() {
            d.scope.push(Var::Group);
        }
        Block {
            threads,
            params,
            let_value,
            group,
            second: None,
            store: None,
        }
    });
    let block_scope = d.scope.clone();
    let count = 1 + d.rng.below(3);
    let params = d.params(count, Var::Param);
    let body = d.stmts(0, 0);
    let mut block = block;
    if let Some(b) = block.as_mut() {
        if d.rng.chance(35) {
            // One or two statements (`stmts` at depth 1), so that both
            // maps are often race-free.
            d.scope.clone_from(&block_scope);
            let count = 1 + d.rng.below(2);
            let params = d.params(count, Var::Param);
            b.second = Some((params, d.stmts(1, 0)));
        }
        if d.rng.chance(35) {
            // Outside the loop: no `g`.
            d.scope = block_scope
                .iter()
                .copied()
                .filter(|v| *v != Var::Group)
                .collect();
            let c = d.rng.pick(&[0, 1, X]);
            let target = d.target(c);
            let read = d.access(SHARED);
            b.store = Some((target, read));
        }
    }
    Case {
        params,
        body,
        block,
    }
}

impl Draw<'_> {
    /// `count` parameters, each `var(k)`, pushed into the scope.
    fn params(&mut self, count: usize, var: fn(usize) -> Var) -> Vec<Param> {
        let mut params = Vec::new();
        for k in 0..count {
            let earlier: Vec<Var> = (0..k).map(var).collect();
            let symbolic = self.rng.chance(60);
            let step = self.rng.chance(25).then(|| self.small(2, 3));
            // A thread map's ranges are block-level values: no triangles,
            // but the block map's parameters and `let`.
            let thread_map = self.in_block && var(0) == Var::Param(0);
            let triangle = k > 0 && !thread_map && self.rng.chance(25);
            let constant = |c: i64| Lin {
                constant: c,
                terms: Vec::new(),
            };
            let (start, end) = if triangle && self.rng.chance(50) {
                // j in 0..i + c
                let i = self.rng.pick(&earlier);
                let c = self.small(0, 2);
                (
                    constant(0),
                    Lin {
                        constant: c,
                        terms: vec![(i, 1)],
                    },
                )
            } else if triangle {
                // j in i..N + c
                let i = self.rng.pick(&earlier);
                let end = Lin {
                    constant: self.small(0, 2),
                    terms: vec![(Var::Symbol(self.rng.below(2)), 1)],
                };
                (
                    Lin {
                        constant: 0,
                        terms: vec![(i, 1)],
                    },
                    end,
                )
            } else if symbolic {
                let start = constant(self.small(0, 2));
                let mut bounds = vec![Var::Symbol(0), Var::Symbol(1)];
                if thread_map {
                    bounds.extend(
                        self.scope
                            .iter()
                            .filter(|v| matches!(v, Var::Block(_) | Var::BlockLet)),
                    );
                }
                let end = Lin {
                    constant: self.small(-1, 2),
                    terms: vec![(self.rng.pick(&bounds), 1)],
                };
                (start, end)
            } else {
                let a = self.small(0, 3);
                let end = constant(a + self.small(0, 6));
                (constant(a), end)
            };
            params.push(Param {
                start,
                end,
                inclusive: self.rng.chance(20),
                // A step may not read parameters.
                step: step.filter(|_| !triangle),
            });
            self.scope.push(var(k));
        }
        params
    }
}
