//! What an expression can see and what its names mean: the kinds of place
//! an expression appears in, the locals, parameters and guards in scope,
//! and name resolution with its "cannot find" diagnostics.

use super::*;
use std::collections::HashMap;

/// Where an expression appears; decides which names it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    /// A tasklet or map body: locals, map parameters, symbols, containers.
    Body,
    /// An interstate edge: symbols and host containers.
    Edge,
    /// A map range: symbols and literals.
    MapRange,
    /// A container shape: symbols and literals.
    Shape,
    /// A copy subset: symbols and literals.
    Subset,
    /// The value of a nested sdfg's symbol in a call: symbols and literals.
    CallArgument,
    /// A block map's `block(...)` size: symbols and literals.
    BlockSize,
}

impl ScopeKind {
    fn allows_containers(self) -> bool {
        matches!(self, ScopeKind::Body | ScopeKind::Edge)
    }

    pub(super) fn describe(self) -> &'static str {
        match self {
            ScopeKind::Body => "a tasklet",
            ScopeKind::Edge => "an interstate edge",
            ScopeKind::MapRange => "a map range",
            ScopeKind::Shape => "a container's shape",
            ScopeKind::Subset => "a copy subset",
            ScopeKind::CallArgument => "a nested sdfg's symbol value",
            ScopeKind::BlockSize => "a block size",
        }
    }
}

/// The names visible to an expression, and the statements that a value
/// block hoists in front of the current statement.
pub(crate) struct Scope {
    pub kind: ScopeKind,
    /// Map parameters (name, type); `VarRef::Param(n)` is `params[n]`.
    pub params: Vec<(String, ScalarType)>,
    /// Every local of the body (`TaskletBody::locals`).
    pub locals: Vec<Local>,
    /// Per local: a `for` loop variable.
    pub loop_vars: Vec<bool>,
    /// Per local: its initializer had an error (uses stay silent).
    pub poisoned: Vec<bool>,
    /// Locals in scope, innermost last.
    pub visible: Vec<(String, LocalId)>,
    /// Conditions under which the expression being lowered is evaluated
    /// (right side of `&&`/`||`, branches of a value `if`).
    pub guards: Vec<Expr>,
    /// Statements to emit before the current statement.
    pub prelude: Vec<Stmt>,
    /// Per local: its type is still open (a `let` without a type whose value
    /// has only unsuffixed literals, during the probe pass of `body`), with
    /// the key of its `let` in `hints`.
    pub open: Vec<Option<LetKey>>,
    /// The type the uses of each open `let` asked for in the probe pass.
    pub hints: HashMap<LetKey, ScalarType>,
    /// This is the probe pass: open locals take the type their uses expect.
    pub probing: bool,
    /// How many `for`/`while`/`loop` bodies enclose the statement being
    /// lowered (`break` and `continue` need one).
    pub loop_depth: usize,
    /// Inside the body of a block map.
    pub block: Option<BlockScope>,
}

/// What a block map's body sees besides a tasklet's names.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockScope {
    /// The `shared` and `register` containers of the block map.
    pub data: Vec<ContainerId>,
    /// Lowering the body of a thread map (else: block-level code).
    pub in_thread_map: bool,
    /// The name of that thread map.
    pub thread_map: Option<String>,
    /// The thread maps lowered so far (names are unique in a block map).
    pub thread_map_names: Vec<String>,
    /// A block-level use of `register` data was already reported for the
    /// expression being lowered (as a condition around a thread map).
    pub quiet_registers: bool,
}

impl Scope {
    pub fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            params: Vec::new(),
            locals: Vec::new(),
            loop_vars: Vec::new(),
            poisoned: Vec::new(),
            visible: Vec::new(),
            guards: Vec::new(),
            prelude: Vec::new(),
            open: Vec::new(),
            hints: HashMap::new(),
            probing: false,
            loop_depth: 0,
            block: None,
        }
    }

    pub fn declare_local(
        &mut self,
        local: Local,
        loop_var: bool,
        poisoned: bool,
        open: Option<LetKey>,
    ) -> LocalId {
        let id = self.locals.len();
        self.open.push(open);
        self.visible.push((local.name.clone(), id));
        self.locals.push(local);
        self.loop_vars.push(loop_var);
        self.poisoned.push(poisoned);
        id
    }
}

impl Scope {
    /// Records the type a use of the open local `id` asks for (first wins).
    pub fn hint(&mut self, id: LocalId, ty: ScalarType) {
        if let Some(Some(key)) = self.open.get(id) {
            self.hints.entry(*key).or_insert(ty);
        }
    }

    /// Whether `id` is a local whose type is still open.
    pub fn is_open(&self, id: LocalId) -> bool {
        matches!(self.open.get(id), Some(Some(_)))
    }
}

/// Identifies a `let` statement across the two passes of `Lowerer::body`,
/// which walk the same syn tree: its address.
pub(crate) type LetKey = usize;

/// What a name refers to.
pub(crate) enum Resolved {
    Local(LocalId),
    Param(usize),
    Symbol(SymbolId),
    Container(ContainerId),
    Unknown,
}

impl Lowerer<'_> {
    /// What `name` refers to: a local (innermost first), a map parameter, a
    /// symbol or a container.
    pub(crate) fn resolve(&self, sc: &Scope, name: &str) -> Resolved {
        if let Some((_, id)) = sc.visible.iter().rev().find(|(n, _)| n == name) {
            return Resolved::Local(*id);
        }
        if let Some(n) = sc.params.iter().position(|(p, _)| p == name) {
            return Resolved::Param(n);
        }
        if let Some(s) = self.symbols.iter().position(|s| s.name.text == name) {
            return Resolved::Symbol(s);
        }
        if let Some(b) = &sc.block {
            if let Some(&c) = b
                .data
                .iter()
                .find(|&&c| self.containers[c].name.text == name)
            {
                return Resolved::Container(c);
            }
        }
        if let Some(c) = self
            .containers
            .iter()
            .position(|c| c.name.text == name && !c.storage.is_block_local())
        {
            return Resolved::Container(c);
        }
        Resolved::Unknown
    }

    /// Every name `sc` can see, for suggestions.
    fn visible_names(&self, sc: &Scope) -> Vec<String> {
        let mut names: Vec<String> = sc.visible.iter().map(|(n, _)| n.clone()).collect();
        names.extend(sc.params.iter().map(|(n, _)| n.clone()));
        names.extend(self.symbols.iter().map(|s| s.name.text.clone()));
        if sc.kind.allows_containers() {
            names.extend(
                self.containers
                    .iter()
                    .filter(|c| !c.storage.is_block_local())
                    .map(|c| c.name.text.clone()),
            );
            if let Some(b) = &sc.block {
                names.extend(b.data.iter().map(|&c| self.containers[c].name.text.clone()));
            }
        }
        names
    }

    pub(crate) fn unknown_name(&mut self, sc: &Scope, ident: &proc_macro2::Ident) {
        let text = ident.to_string();
        let names = self.visible_names(sc);
        let mut d = Diagnostic::error(ident.span(), format!("cannot find `{text}` in this sdfg"));
        if let Some(note) = self.block_data_elsewhere(&text) {
            self.error(d.note(note).help(format!(
                "`{text}` exists only inside its block map; use it there, or declare a `gpu` container to share data between maps"
            )));
            return;
        }
        d = match closest_name(&text, names.iter().map(String::as_str)) {
            Some(c) => d.help(format!("did you mean `{c}`?")),
            None => match sc.kind {
                ScopeKind::Body => d.help(format!(
                    "declare it: `let {text} = ...;` in the body, or `symbol {text}: i64;` / a container in the sdfg"
                )),
                _ => d.help(format!("declare it: `symbol {text}: i64;`")),
            },
        };
        self.error(d);
    }

    /// "`tile` is declared `shared` in block map `rows`" when a block map
    /// declares a container of that name.
    pub(crate) fn block_data_elsewhere(&self, name: &str) -> Option<String> {
        self.containers
            .iter()
            .enumerate()
            .find(|(_, c)| c.name.text == name && c.storage.is_block_local())
            .map(|(id, c)| {
                let owner = self
                    .block_owner
                    .get(&id)
                    .map_or_else(|| "a block map".to_string(), |m| format!("block map `{m}`"));
                format!("`{name}` is declared `{}` in {owner}", c.storage.keyword())
            })
    }

    pub(super) fn container_allowed(&mut self, sc: &Scope, ident: &proc_macro2::Ident) -> bool {
        if sc.kind.allows_containers() {
            return self.block_data_allowed(sc, ident);
        }
        self.error(
            Diagnostic::error(
                ident.span(),
                format!(
                    "`{ident}` is a container; {} may only use symbols{} and literals",
                    sc.kind.describe(),
                    if sc.kind == ScopeKind::MapRange {
                        ", the map's earlier parameters"
                    } else {
                        ""
                    }
                ),
            )
            .help("copy the value into a symbol on an interstate edge: `a -> b { n = A[0]; }`"),
        );
        false
    }
}
