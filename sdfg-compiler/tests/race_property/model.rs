//! The random maps: variables, subscripts, statements.

pub use sdfg_compiler::ir::BinOp;

/// The containers by number: `A`, `B` (`gpu f64[LEN]`), `X` (`gpu f64[SIDE,
/// SIDE]`) and, in block maps, `S` (`shared f64[LEN]`). The index data
/// `I` (`gpu i32[LEN]`) is only read.
pub const NAMES: [&str; 4] = ["A", "B", "X", "S"];
pub const X: usize = 2;
pub const SHARED: usize = 3;
pub const LEN: i64 = 256;
pub const SIDE: i64 = 24;
pub const SYMBOLS: [&str; 2] = ["N", "M"];

/// The extent of each dimension of container `c`.
pub fn extents(c: usize) -> &'static [i64] {
    if c == X {
        &[SIDE, SIDE]
    } else {
        &[LEN]
    }
}

/// An integer variable of the body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Var {
    Symbol(usize),
    Param(usize),
    /// A `for` variable, by nesting depth.
    Loop(usize),
    /// An immutable `let`, by number.
    Let(usize),
    /// A mutable local, by number.
    Mut(usize),
    /// A parameter of the block map around a thread map.
    Block(usize),
    /// The block-level `let s0`.
    BlockLet,
    /// The block-level `for g` around the thread map.
    Group,
}

/// `constant + Σ coefficient * var`.
#[derive(Clone, Debug)]
pub struct Lin {
    pub constant: i64,
    pub terms: Vec<(Var, i64)>,
}

/// A subscript.
#[derive(Clone, Debug)]
pub enum Index {
    Lin(Lin),
    Product(Var, Var, i64),
    Div(Lin, i64),
    Rem(Lin, i64),
    /// `I[lin]`: an index loaded from data.
    Loaded(Lin),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Read,
    Write,
    Sum,
    Product,
}

/// `NAMES[container][index]`.
#[derive(Clone, Debug)]
pub struct Access {
    pub container: usize,
    pub index: Vec<Index>,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Store {
        target: Access,
        kind: Kind,
        reads: Vec<Access>,
    },
    For {
        depth: usize,
        start: Lin,
        end: Lin,
        body: Vec<Stmt>,
    },
    If {
        var: Var,
        op: BinOp,
        value: Lin,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    Let {
        id: usize,
        value: Lin,
    },
    /// `let mut u = value; u = u + step;`
    Mut {
        id: usize,
        value: Lin,
        step: i64,
    },
}

#[derive(Clone, Debug)]
pub struct Param {
    pub start: Lin,
    pub end: Lin,
    pub inclusive: bool,
    pub step: Option<i64>,
}

/// One map `m`: a `gpu` map, or a thread map inside a block map.
#[derive(Clone, Debug)]
pub struct Case {
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub block: Option<Block>,
}

/// `map b[..] on gpu block(threads) { shared S; let s0 = ..; for g in
/// 0..n { map m[..] on threads { .. } map m2[..] on threads { .. } }
/// target = read + 1.5; }`.
#[derive(Clone, Debug)]
pub struct Block {
    pub threads: usize,
    pub params: Vec<Param>,
    pub let_value: Option<Lin>,
    /// The block-level loop's number of iterations.
    pub group: Option<i64>,
    /// A second thread map after `m`.
    pub second: Option<(Vec<Param>, Vec<Stmt>)>,
    /// A block-level store (thread 0's) after the loop: target and read,
    /// indexed by block-level values.
    pub store: Option<(Access, Access)>,
}

/// Whether the comparison `op` (`==`, `!=`, `<`, `<=`, `>`, `>=`: an
/// `if`'s between a variable and a form over symbols) holds for `a op b`.
pub fn holds(op: BinOp, a: i64, b: i64) -> bool {
    match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        _ => unreachable!("`if`s compare"),
    }
}
