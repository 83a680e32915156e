//! Call resolution: binds each call site to a definition, or says why it cannot.
//!
//! Works on an in-memory model loaded from (or about to be written to) the index,
//! so it does no IO. Order per call: the caller's own scope, `self`/`Self`, imports
//! (following re-exports), then a unique same-language definition; else a
//! stdlib/builtin/external class from per-language data, else `unknown`.
//! A binding never crosses languages, and a production caller is never bound to a
//! test-only definition when a production one exists.

mod c_family;
mod generic;
mod python;
mod rust;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use tsa_lang::{DefKind, Language, ModuleStyle};

use crate::layout::Layout;

pub use c_family::is_file_local;

/// How a call site was resolved (stored as a small integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// Bound in the caller's own file.
    Local,
    /// Bound to a definition in another project file.
    Project,
    /// A standard-library function or type.
    Stdlib,
    /// A language builtin.
    Builtin,
    /// A third-party library.
    External,
    /// Nothing matched, or more than one candidate did.
    Unknown,
    /// One of several targets a call may reach at run time: an implementation of
    /// the interface method the receiver's type names (listed per implementation,
    /// with a lower confidence, never as one certain edge).
    Dispatch,
    /// Bound by a compiler-grade SCIP index (`index scip`), confidence 1.0.
    Compiler,
}

impl Resolution {
    pub const ALL: [Resolution; 8] = [
        Resolution::Local,
        Resolution::Project,
        Resolution::Stdlib,
        Resolution::Builtin,
        Resolution::External,
        Resolution::Unknown,
        Resolution::Dispatch,
        Resolution::Compiler,
    ];

    pub const fn code(self) -> i64 {
        match self {
            Resolution::Local => 0,
            Resolution::Project => 1,
            Resolution::Stdlib => 2,
            Resolution::Builtin => 3,
            Resolution::External => 4,
            Resolution::Unknown => 5,
            Resolution::Dispatch => 6,
            Resolution::Compiler => 7,
        }
    }

    pub fn from_code(code: i64) -> Resolution {
        Resolution::ALL
            .into_iter()
            .find(|r| r.code() == code)
            .unwrap_or(Resolution::Unknown)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Resolution::Local => "local",
            Resolution::Project => "project",
            Resolution::Stdlib => "stdlib",
            Resolution::Builtin => "builtin",
            Resolution::External => "external",
            Resolution::Unknown => "unknown",
            Resolution::Dispatch => "dispatch",
            Resolution::Compiler => "compiler",
        }
    }
}

/// A file of the model.
#[derive(Clone, Debug)]
pub struct MFile {
    pub id: i64,
    pub path: String,
    pub lang: Language,
    pub is_test: bool,
}

/// A definition of the model.
#[derive(Clone, Debug)]
pub struct MSym {
    pub id: i64,
    pub file: usize,
    pub name: Arc<str>,
    pub kind: DefKind,
    pub owner: Option<Arc<str>>,
    /// The declared return type of a function (`Self` included), as written.
    pub returns: Option<Arc<str>>,
    pub parent: Option<usize>,
    pub is_test: bool,
    /// The receiver variable of a method declared outside its type (Go).
    pub self_name: Option<Arc<str>>,
    /// Names of the base types this definition extends or implements.
    pub bases: Vec<Arc<str>>,
    /// A JS/TS module's default export (`export default class Cart`).
    pub default_export: bool,
    /// JS/TS callables that take a function: the signature, whose parameter types
    /// type the parameters of callbacks passed to them.
    pub callback_sig: Option<Arc<str>>,
    /// Seen by its own file only (a C or C++ `static` function).
    pub file_local: bool,
    /// The (least, most) arguments it takes, where a call's argument count picks
    /// among overloads ([`Language::fixed_arity`]).
    pub params: Option<(u8, u8)>,
}

/// An import binding of the model.
#[derive(Clone, Debug)]
pub struct MImport {
    pub module: String,
    pub name: Option<String>,
    pub alias: String,
    pub level: u32,
}

impl MImport {
    /// Whether it binds a name of its own in its file (an include, a wildcard or a
    /// side-effect import binds none).
    pub fn binds_a_name(&self) -> bool {
        !matches!(self.alias.as_str(), "" | "*") || self.name.is_some()
    }
}

/// A call site to resolve.
#[derive(Clone, Debug)]
pub struct MCall<'a> {
    pub file: usize,
    pub caller: Option<usize>,
    pub callee: &'a str,
    pub receiver: Option<&'a str>,
    /// The receiver is a path (`Type::f`), not a value (`x.f`).
    pub path: bool,
    /// The receiver variable's declared type, when the code states it.
    pub receiver_type: Option<&'a str>,
    /// The bare callee is a local variable or parameter of the caller: only a
    /// definition in the caller's own scopes can be meant, never an import or a
    /// same-named definition elsewhere.
    pub shadowed: bool,
    /// The number of arguments, where the language picks overloads by it.
    pub arity: Option<u8>,
}

/// What a stated type refers to.
pub(super) enum TypeRef {
    /// A project type definition.
    Sym(usize),
    /// A type outside the project, by class.
    Outside(Resolution),
}

/// The outcome for one call site.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub target: Option<usize>,
    pub resolution: Resolution,
    pub confidence: f64,
    /// Further targets the same call site may reach (build variants of one
    /// function, implementations behind an interface), each stored as a row of its
    /// own beside the site's first one.
    pub alts: Vec<Alt>,
}

/// A further target of one call site.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alt {
    pub target: usize,
    pub resolution: Resolution,
    pub confidence: f64,
}

impl Binding {
    pub const UNKNOWN: Binding = Binding {
        target: None,
        resolution: Resolution::Unknown,
        confidence: 0.0,
        alts: Vec::new(),
    };

    fn class(resolution: Resolution) -> Binding {
        Binding {
            target: None,
            resolution,
            confidence: 0.9,
            alts: Vec::new(),
        }
    }

    /// Every target: the first one, then the alternatives.
    pub fn targets(&self) -> impl Iterator<Item = usize> + '_ {
        self.target
            .into_iter()
            .chain(self.alts.iter().map(|a| a.target))
    }
}

/// What an import statement binds to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImportBinding {
    /// The project file the module is (for module imports) or holds the symbol.
    pub file: Option<usize>,
    /// The imported definition, when the import names one that could be found.
    pub target: Option<usize>,
    pub resolution: Resolution,
}

impl ImportBinding {
    pub const UNKNOWN: ImportBinding = ImportBinding {
        file: None,
        target: None,
        resolution: Resolution::Unknown,
    };

    fn outside(resolution: Resolution) -> ImportBinding {
        ImportBinding {
            file: None,
            target: None,
            resolution,
        }
    }

    fn module(m: &Model, from: usize, file: usize) -> ImportBinding {
        let resolution = if file == from {
            Resolution::Local
        } else {
            Resolution::Project
        };
        let _ = m;
        ImportBinding {
            file: Some(file),
            target: None,
            resolution,
        }
    }

    fn symbol(m: &Model, from: usize, sym: usize) -> ImportBinding {
        let file = m.syms[sym].file;
        let resolution = if file == from {
            Resolution::Local
        } else {
            Resolution::Project
        };
        ImportBinding {
            file: Some(file),
            target: Some(sym),
            resolution,
        }
    }
}

/// What a model knows of the project apart from its definitions: the files, their
/// imports, the module maps and the include graph. A sync that neither adds nor
/// removes a file, nor changes a C or C++ file's includes or the layout, leaves all
/// of it as it was but the changed files' imports, so a serving process keeps it
/// from one sync to the next (see `build.rs`); the `Arc`s make it cheap to hand to
/// a model and to take back.
#[derive(Clone)]
pub struct Skeleton {
    pub files: Arc<Vec<MFile>>,
    pub imports: Arc<Vec<Vec<MImport>>>,
    /// The files (indexes, ascending) with an import that binds a name of its own
    /// (see [`MImport::binds_a_name`]).
    pub naming: Arc<Vec<usize>>,
    python: Arc<python::Modules>,
    rust: Arc<rust::Modules>,
    generic: Arc<generic::Modules>,
    includes: Arc<c_family::Includes>,
}

impl Skeleton {
    pub fn new(files: Vec<MFile>, imports: Vec<Vec<MImport>>, layout: &Layout) -> Skeleton {
        Skeleton {
            python: Arc::new(python::Modules::new(&files, &layout.python_roots)),
            rust: Arc::new(rust::Modules::new(&files, &layout.rust_crates)),
            generic: Arc::new(generic::Modules::new(&files, layout)),
            includes: Arc::new(c_family::Includes::new(&files, &layout.c_include_dirs)),
            naming: Arc::new(
                (0..imports.len())
                    .filter(|&k| imports[k].iter().any(MImport::binds_a_name))
                    .collect(),
            ),
            files: Arc::new(files),
            imports: Arc::new(imports),
        }
    }

    /// Puts a file's imports in place of the ones it had (its file, its includes
    /// and every other file stay as they were). Copies the import lists only when
    /// a model still shares them.
    pub fn set_imports(&mut self, file: usize, imports: Vec<MImport>) {
        let naming = imports.iter().any(MImport::binds_a_name);
        Arc::make_mut(&mut self.imports)[file] = imports;
        match (self.naming.binary_search(&file), naming) {
            (Err(at), true) => Arc::make_mut(&mut self.naming).insert(at, file),
            (Ok(at), false) => {
                Arc::make_mut(&mut self.naming).remove(at);
            }
            _ => {}
        }
    }
}

/// The whole project as the resolver sees it.
pub struct Model {
    pub files: Arc<Vec<MFile>>,
    pub syms: Vec<MSym>,
    pub imports: Arc<Vec<Vec<MImport>>>,
    /// See [`Skeleton::naming`].
    pub naming: Arc<Vec<usize>>,
    /// Per file: definitions by name.
    by_file_name: Vec<HashMap<Arc<str>, Vec<usize>>>,
    /// Name -> definitions, every language (lookups filter by language).
    by_name: HashMap<Arc<str>, Vec<usize>>,
    /// Owner type -> method name -> methods, every language.
    by_owner: HashMap<Arc<str>, HashMap<Arc<str>, Vec<usize>>>,
    python: Arc<python::Modules>,
    rust: Arc<rust::Modules>,
    generic: Arc<generic::Modules>,
    /// The include graph of C and C++ files.
    includes: Arc<c_family::Includes>,
    /// Tells models apart (per-thread caches key on it).
    uid: u64,
    /// (owner type name, field name) -> (file, the field's type as written).
    fields: HashMap<FieldKey, Vec<(usize, Arc<str>)>>,
}

/// (owner type name, field name); the owner is `""` for a module-level variable.
type FieldKey = (Arc<str>, Arc<str>);

/// A field of the model: its file, owning type's name, name and written type.
#[derive(Clone, Debug)]
pub struct MField {
    pub file: usize,
    pub owner: Arc<str>,
    pub name: Arc<str>,
    pub ty: Arc<str>,
}

/// Per file of `n`: its definitions by name, in definition order (each file's map
/// built on its own, on all cores, from the definitions grouped by file).
fn by_file_names(n: usize, syms: &[MSym]) -> Vec<HashMap<Arc<str>, Vec<usize>>> {
    use rayon::prelude::*;
    // Definitions grouped by file, in order: a counting sort into one list.
    let mut start = vec![0usize; n + 1];
    for s in syms {
        start[s.file + 1] += 1;
    }
    for f in 0..n {
        start[f + 1] += start[f];
    }
    let mut next = start.clone();
    let mut grouped = vec![0usize; syms.len()];
    for (i, s) in syms.iter().enumerate() {
        grouped[next[s.file]] = i;
        next[s.file] += 1;
    }
    (0..n)
        .into_par_iter()
        .map(|f| {
            let mut m: HashMap<Arc<str>, Vec<usize>> = HashMap::default();
            for &i in &grouped[start[f]..start[f + 1]] {
                m.entry(syms[i].name.clone()).or_default().push(i);
            }
            m
        })
        .collect()
}

impl Model {
    /// Binds the includes of every file now, on all cores (a cold build asks about
    /// every file; a sync binds the few it asks about on first use).
    pub fn bind_includes(&self) {
        self.includes.bind_all(self);
    }

    /// Adds the fields whose types the code states, for receivers like
    /// `self.store.get()` whose field is declared in another file.
    pub fn with_fields(mut self, fields: Vec<MField>) -> Model {
        for f in fields {
            self.fields
                .entry((f.owner, f.name))
                .or_default()
                .push((f.file, f.ty));
        }
        self
    }

    pub fn new(
        files: Vec<MFile>,
        syms: Vec<MSym>,
        imports: Vec<Vec<MImport>>,
        layout: &Layout,
    ) -> Model {
        Model::on(Skeleton::new(files, imports, layout), syms)
    }

    /// A model of `syms` over a skeleton built before.
    pub fn on(skeleton: Skeleton, syms: Vec<MSym>) -> Model {
        let Skeleton {
            files,
            imports,
            naming,
            python,
            rust,
            generic,
            includes,
        } = skeleton;
        // The per-file lookups on all cores beside the project-wide ones (a cold
        // build of the kernel waited most of a second on them, one core idle).
        let (by_file_name, (by_name, by_owner)) = rayon::join(
            || by_file_names(files.len(), &syms),
            || {
                let mut by_name: HashMap<Arc<str>, Vec<usize>> = HashMap::default();
                let mut by_owner: HashMap<Arc<str>, HashMap<Arc<str>, Vec<usize>>> =
                    HashMap::default();
                for (i, s) in syms.iter().enumerate() {
                    by_name.entry(s.name.clone()).or_default().push(i);
                    if let Some(owner) = &s.owner {
                        by_owner
                            .entry(owner.clone())
                            .or_default()
                            .entry(s.name.clone())
                            .or_default()
                            .push(i);
                    }
                }
                (by_name, by_owner)
            },
        );
        static NEXT_UID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Model {
            includes,
            uid: NEXT_UID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            fields: HashMap::default(),
            generic,
            files,
            syms,
            imports,
            naming,
            by_file_name,
            by_name,
            by_owner,
            python,
            rust,
        }
    }

    /// The skeleton under this model (shared: a model dropped on another thread
    /// gives its share back when it is gone).
    pub fn skeleton(&self) -> Skeleton {
        Skeleton {
            files: Arc::clone(&self.files),
            imports: Arc::clone(&self.imports),
            naming: Arc::clone(&self.naming),
            python: Arc::clone(&self.python),
            rust: Arc::clone(&self.rust),
            generic: Arc::clone(&self.generic),
            includes: Arc::clone(&self.includes),
        }
    }

    /// Resolves one call site.
    pub fn resolve(&self, call: &MCall<'_>) -> Binding {
        let lang = self.files[call.file].lang;
        let typed = call
            .receiver_type
            .filter(|_| call.receiver.is_some())
            .and_then(|t| self.typed_receiver(call, t));
        let b = match typed {
            Some(b) => b,
            None => self.by_style(call),
        };
        // Never bind across language families, whatever a rule said.
        match b.target {
            Some(t) if !lang.can_call(self.files[self.syms[t].file].lang) => Binding::UNKNOWN,
            Some(t) if self.syms[t].file == call.file => Binding {
                resolution: Resolution::Local,
                ..b
            },
            Some(_) => Binding {
                resolution: Resolution::Project,
                ..b
            },
            None => b,
        }
    }

    /// The language's own resolver for `call` (no typed-receiver rule, no gating).
    fn by_style(&self, call: &MCall<'_>) -> Binding {
        match self.files[call.file].lang.module_style() {
            ModuleStyle::Python => python::resolve(self, call),
            ModuleStyle::Rust => rust::resolve(self, call),
            _ => generic::resolve(self, call),
        }
    }

    /// A call on a variable whose type the code states: the type is resolved like a
    /// name written at the call (imports, scopes, stdlib modules), then the method
    /// is looked up on that type and its bases, and nowhere else. `None` when the
    /// stated "type" turns out not to be one (`x = make()` names a function), so
    /// the ordinary rules apply.
    fn typed_receiver(&self, call: &MCall<'_>, ty: &str) -> Option<Binding> {
        let lang = self.files[call.file].lang;
        let found = if ty.contains('!') {
            self.callback_param(call, ty)?
        } else if ty.contains('@') {
            self.chain_type(call, ty)?
        } else if ty.contains('#') {
            self.field_path(call, ty)?
        } else {
            self.type_named(call.file, call.caller, ty, 0)?
        };
        let t = match found {
            TypeRef::Outside(r) => return Some(Binding::class(r)),
            TypeRef::Sym(t) => t,
        };
        // The object a JS factory returns: the functions the factory defines
        // are its members (`const app = fastify(); app.inject()` is the `inject`
        // defined inside `fastify`).
        if self.syms[t].kind == DefKind::Function {
            let members: Vec<usize> = self
                .in_file(self.syms[t].file, call.callee)
                .iter()
                .copied()
                .filter(|&s| self.syms[s].parent == Some(t) && self.syms[s].kind.is_callable())
                .collect();
            return Some(match self.unique(members, true) {
                Some(s) => bound(s, 0.6),
                None => Binding::UNKNOWN,
            });
        }
        let type_lang = self.files[self.syms[t].file].lang;
        if !lang.can_call(type_lang) {
            return Some(Binding::UNKNOWN);
        }
        let test = self.caller_is_test(call);
        let owner = &self.syms[t].name;
        // Rust: what a caller holds as `Result<T>`/`Option<T>` before unwrapping is
        // called with those types' own methods, whatever `T` defines.
        if lang.module_style() == ModuleStyle::Rust && rust::is_wrapper_method(call.callee) {
            return Some(Binding::UNKNOWN);
        }
        let own: Vec<usize> = self
            .owned(owner, call.callee)
            .iter()
            .copied()
            .filter(|&s| {
                let sym = &self.syms[s];
                sym.kind.is_callable()
                    && self.files[sym.file].lang.family() == type_lang.family()
                    && self.methods_may_live(t, sym.file)
                    && self.fits(call, s)
            })
            .collect();
        let here: Vec<usize> = own
            .iter()
            .copied()
            .filter(|&s| self.syms[s].file == self.syms[t].file)
            .collect();
        if let Some(s) = self
            .unique(here, test)
            .or_else(|| self.unique(own.clone(), test))
        {
            let mut b = bound(s, 0.95);
            // Through an interface: each implementation in the project may be the one.
            b.alts = self
                .implementations(t, call.callee)
                .into_iter()
                .filter(|&m| m != s)
                .map(|m| Alt {
                    target: m,
                    resolution: Resolution::Dispatch,
                    confidence: 0.5,
                })
                .collect();
            return Some(b);
        }
        if !own.is_empty() {
            return Some(self.build_variants(&own, test).unwrap_or(Binding::UNKNOWN));
        }
        Some(
            self.inherited(call, self.with_impls(t), call.callee)
                .unwrap_or(Binding::UNKNOWN),
        )
    }

    /// `callee!i!j` (extraction's mark for parameter `j` of a function passed as
    /// argument `i` of a call): the type the callee's signature declares for it.
    fn callback_param(&self, call: &MCall<'_>, marker: &str) -> Option<TypeRef> {
        let mut it = marker.rsplitn(3, '!');
        let j: usize = it.next()?.parse().ok()?;
        let i: usize = it.next()?.parse().ok()?;
        let callee = it.next()?;
        let (receiver, last) = match callee.rfind('.') {
            Some(k) => (Some(&callee[..k]), &callee[k + 1..]),
            None => (None, callee),
        };
        let as_call = MCall {
            file: call.file,
            caller: call.caller,
            callee: last,
            receiver,
            path: false,
            receiver_type: None,
            shadowed: false,
            arity: None,
        };
        let mut f = self.resolve(&as_call).target?;
        // `new Observable(cb)`: the class's constructor.
        if self.syms[f].kind == DefKind::Class {
            f = self
                .in_file(self.syms[f].file, "constructor")
                .iter()
                .copied()
                .find(|&c| self.syms[c].parent == Some(f))?;
        }
        let sym = &self.syms[f];
        let written = tsa_lang::callback_param_type(sym.callback_sig.as_deref()?, i, j)?;
        let ty = tsa_lang::type_name(&written)?;
        self.type_named(sym.file, sym.parent, &ty, 0)
    }

    /// The stated type of module-level variable `name` of file `f`.
    fn module_variable_type(&self, f: usize, name: &str) -> Option<TypeRef> {
        let decl = self
            .fields
            .get(&(Arc::from(""), Arc::from(name)))?
            .iter()
            .find(|(file, _)| *file == f)?;
        self.type_named(f, None, &decl.1, 0)
    }

    /// `Owner#a#b` (extraction's mark for `self.a.b` where the file does not state
    /// the fields' types): the owner type, then each field's type in turn.
    fn field_path(&self, call: &MCall<'_>, path: &str) -> Option<TypeRef> {
        let mut parts = path.split('#');
        let mut cur = self.type_named(call.file, call.caller, parts.next()?, 0)?;
        for field in parts {
            let TypeRef::Sym(t) = cur else {
                return Some(cur);
            };
            cur = self.field_of(t, field, 0)?;
        }
        Some(cur)
    }

    /// `Base@m#f@n` (extraction's mark for a chain such as `new Base().m().f.n()`):
    /// the base type (a class, or what a function returns), then each step in
    /// turn: `@m` the declared return type of method `m`, `#f` field `f`'s type.
    /// A step past a type outside the project is not known (a library's method
    /// may return a project type: `list.get(0)`), so the chain is `None`.
    fn chain_type(&self, call: &MCall<'_>, chain: &str) -> Option<TypeRef> {
        let first = chain.find(['@', '#']).unwrap_or(chain.len());
        let mut cur = self.type_named(call.file, call.caller, &chain[..first], 0)?;
        let mut rest = &chain[first..];
        while let Some(mark) = rest.chars().next() {
            let body = &rest[1..];
            let end = body.find(['@', '#']).unwrap_or(body.len());
            let name = &body[..end];
            rest = &body[end..];
            let TypeRef::Sym(t) = cur else {
                return None;
            };
            cur = if mark == '#' {
                self.field_of(t, name, 0)?
            } else {
                self.returned_by(call, t, name)?
            };
        }
        Some(cur)
    }

    /// The type that method `name` of type `t` (or inherited by it) is declared to
    /// return, when every overload of it declares the same one.
    fn returned_by(&self, call: &MCall<'_>, t: usize, name: &str) -> Option<TypeRef> {
        let t = self.through_aliases(t)?;
        let family = self.files[self.syms[t].file].lang.family();
        let mut ms: Vec<usize> = self
            .owned(&self.syms[t].name, name)
            .iter()
            .copied()
            .filter(|&s| {
                let sym = &self.syms[s];
                sym.kind.is_callable()
                    && self.files[sym.file].lang.family() == family
                    && self.methods_may_live(t, sym.file)
            })
            .collect();
        if ms.is_empty() {
            ms = self
                .inherited(call, self.with_impls(t), name)?
                .targets()
                .collect();
        }
        let (&m0, others) = ms.split_first()?;
        let returns = self.syms[m0].returns.as_deref()?;
        if others
            .iter()
            .any(|&m| self.syms[m].returns.as_deref() != Some(returns))
        {
            return None;
        }
        let sym = &self.syms[m0];
        if returns == "Self" {
            return self.enclosing_type_sym(sym.parent).map(TypeRef::Sym);
        }
        self.type_named(sym.file, sym.parent, returns, 1)
    }

    /// The type of field `field` of type `t`: declared on the type (in a file its
    /// methods may live in), else on one of its bases, nearest first.
    pub(super) fn field_of(&self, t: usize, field: &str, depth: u32) -> Option<TypeRef> {
        if depth > 4 {
            return None;
        }
        let t = self.through_aliases(t)?;
        let sym = &self.syms[t];
        let family = self.files[sym.file].lang.family();
        let key = (Arc::clone(&sym.name), Arc::from(field));
        let decls: Vec<&(usize, Arc<str>)> = self
            .fields
            .get(&key)
            .into_iter()
            .flatten()
            .filter(|(f, _)| self.files[*f].lang.family() == family && self.methods_may_live(t, *f))
            .collect();
        let here: Vec<&&(usize, Arc<str>)> = decls.iter().filter(|(f, _)| *f == sym.file).collect();
        let pick = match (here.as_slice(), decls.as_slice()) {
            ([one], _) => Some(**one),
            ([], [one]) => Some(*one),
            // Several declarations that agree on the type text.
            ([], [first, rest @ ..]) if rest.iter().all(|(_, ty)| ty == &first.1) => Some(*first),
            _ => None,
        };
        if let Some((f, ty)) = pick {
            return self.type_named(*f, Some(t).filter(|&t| self.syms[t].file == *f), ty, 0);
        }
        if !decls.is_empty() {
            return None;
        }
        // Inherited: a field a base type declares.
        for start in self.with_impls(t) {
            for base in &self.syms[start].bases {
                if let Some(b) = self.resolve_base(start, base).target
                    && let Some(found) = self.field_of(b, field, depth + 1)
                {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Whether methods (and fields) of type `t` may be defined in `file`: Go
    /// methods live in the type's package (folder), Rust inherent impls in the
    /// type's crate, Python, JS/TS and Java members in the type's own body (a
    /// same-named class of another module is another type); languages with
    /// out-of-line members or extensions (C++, C#, Swift, Kotlin, Ruby) are not
    /// narrowed here.
    fn methods_may_live(&self, t: usize, file: usize) -> bool {
        let tf = self.syms[t].file;
        let lang = self.files[tf].lang;
        if lang.module_style() == ModuleStyle::Python
            || lang.family() == tsa_lang::Family::Js
            || lang.name() == "java"
        {
            return tf == file;
        }
        match lang.module_style() {
            ModuleStyle::GoPackage => {
                let dir = |f: usize| {
                    let p = &self.files[f].path;
                    p.rsplit_once('/').map_or("", |(d, _)| d)
                };
                dir(tf) == dir(file)
            }
            ModuleStyle::Rust => rust::same_crate(self, tf, file),
            _ => true,
        }
    }

    /// The type a type alias stands for (aliases of aliases followed); other types
    /// are themselves; `None` for an alias of something outside the project.
    fn through_aliases(&self, t: usize) -> Option<usize> {
        let sym = &self.syms[t];
        if sym.kind != DefKind::Type {
            return Some(t);
        }
        let Some(target) = sym.returns.as_deref() else {
            // A defined type (`type Chain []Handler`): a type of its own.
            return Some(t);
        };
        match self.type_named(sym.file, sym.parent, target, 0)? {
            TypeRef::Sym(s) => Some(s),
            TypeRef::Outside(_) => None,
        }
    }

    /// A type and, for Rust, its `impl` blocks of the same crate (which carry the
    /// traits it implements and its `Deref` target as bases).
    fn with_impls(&self, t: usize) -> Vec<usize> {
        let mut out = vec![t];
        if self.files[self.syms[t].file].lang.module_style() == ModuleStyle::Rust {
            out.extend(
                self.named_all(&self.syms[t].name)
                    .iter()
                    .copied()
                    .filter(|&s| {
                        self.syms[s].kind == DefKind::Impl
                            && rust::same_crate(self, t_file(self, t), self.syms[s].file)
                    }),
            );
        }
        out
    }

    /// What the type name `ty`, written in `file` within `scope`, denotes: a project
    /// type, or a class outside the project. A function's name stands for its
    /// declared return type (`make_cat()`, `Store::open()`, `NewEngine()`).
    fn type_named(
        &self,
        file: usize,
        scope: Option<usize>,
        ty: &str,
        depth: u32,
    ) -> Option<TypeRef> {
        let (qualifier, last) = match ty.rfind(['.', ':']) {
            Some(i) => (Some(ty[..i].trim_end_matches(':')), &ty[i + 1..]),
            None => (None, ty),
        };
        if last.is_empty() || depth > 3 {
            return None;
        }
        let as_name = MCall {
            file,
            caller: scope,
            callee: last,
            receiver: qualifier.filter(|q| !q.is_empty()),
            path: ty.contains("::"),
            receiver_type: None,
            shadowed: false,
            arity: None,
        };
        let mut found = self.by_style(&as_name);
        // Where a name must be imported or declared to be used (Python, JS/TS,
        // Rust), the project-wide "unique name" guess never types a value: a type
        // of the same name elsewhere is not the one this file means.
        let lang = self.files[file].lang;
        let guessed = found.confidence <= 0.5
            && (matches!(lang.module_style(), ModuleStyle::Python | ModuleStyle::Rust)
                || lang.family() == tsa_lang::Family::Js);
        if guessed && found.target.is_some() {
            found = Binding::UNKNOWN;
        }
        match found.target {
            Some(t) if self.syms[t].kind.is_type() => Some(TypeRef::Sym(t)),
            // A type alias: what it stands for; a defined type (Go's
            // `type Chain []Handler`) is a type of its own.
            Some(a) if self.syms[a].kind == DefKind::Type => {
                let sym = &self.syms[a];
                match sym.returns.as_deref() {
                    Some(target) => self.type_named(sym.file, sym.parent, target, depth + 1),
                    None => Some(TypeRef::Sym(a)),
                }
            }
            Some(f) if self.syms[f].kind.is_callable() => {
                let sym = &self.syms[f];
                // JS: a factory (`function fastify() { ... return instance }`) with no
                // declared type stands for the object it builds.
                if sym.returns.is_none()
                    && sym.kind == DefKind::Function
                    && self.files[sym.file].lang.family() == tsa_lang::Family::Js
                {
                    return Some(TypeRef::Sym(f));
                }
                let returns = sym.returns.as_deref()?;
                if returns == "Self" {
                    return self
                        .enclosing_type_sym(sym.parent)
                        .map(TypeRef::Sym)
                        .or_else(|| {
                            let owner = sym.owner.as_deref()?;
                            let types: Vec<usize> = self
                                .in_file(sym.file, owner)
                                .iter()
                                .copied()
                                .filter(|&s| {
                                    self.syms[s].kind.is_type()
                                        && self.syms[s].kind != DefKind::Impl
                                })
                                .collect();
                            self.unique(types, true).map(TypeRef::Sym)
                        });
                }
                self.type_named(sym.file, sym.parent, returns, depth + 1)
            }
            Some(_) => None,
            None => match found.resolution {
                Resolution::Stdlib | Resolution::Builtin | Resolution::External => {
                    Some(TypeRef::Outside(found.resolution))
                }
                // Interfaces and traits are never called, so the call rules do not
                // find them: a unique type of that name in the file, else (Go) in
                // its package.
                Resolution::Unknown if qualifier.is_none() => {
                    let types: Vec<usize> = self
                        .types_named(&as_name, last)
                        .into_iter()
                        .filter(|&s| self.syms[s].kind != DefKind::Impl)
                        .collect();
                    let here: Vec<usize> = types
                        .iter()
                        .copied()
                        .filter(|&s| self.syms[s].file == file || self.same_package(s, file))
                        .collect();
                    self.unique(here, true).map(TypeRef::Sym)
                }
                _ => None,
            },
        }
    }

    /// Whether definition `s` is in the Go package (folder) of `file`.
    fn same_package(&self, s: usize, file: usize) -> bool {
        let f = self.syms[s].file;
        self.files[f].lang.module_style() == ModuleStyle::GoPackage
            && self.files[file].lang.module_style() == ModuleStyle::GoPackage
            && self.files[f].path.rsplit_once('/').map_or("", |(d, _)| d)
                == self.files[file]
                    .path
                    .rsplit_once('/')
                    .map_or("", |(d, _)| d)
    }

    /// Resolves the base type `base` named by definition `sym` (`class A(Base)`,
    /// `impl Trait for X`): like a call of that name from the definition, keeping
    /// only bindings to types.
    pub fn resolve_base(&self, sym: usize, base: &str) -> Binding {
        let file = self.syms[sym].file;
        // A type of the same file (a Rust trait, say, which calls never name).
        let local: Vec<usize> = self
            .in_file(file, base)
            .iter()
            .copied()
            .filter(|&s| {
                s != sym && self.syms[s].kind.is_type() && self.syms[s].kind != DefKind::Impl
            })
            .collect();
        if let Some(s) = self.unique(local, false) {
            return local_target(s);
        }
        let call = MCall {
            file,
            caller: self.syms[sym].parent,
            callee: base,
            receiver: None,
            path: false,
            receiver_type: None,
            shadowed: false,
            arity: None,
        };
        let b = self.resolve(&call);
        match b.target {
            Some(t) if !self.syms[t].kind.is_type() => Binding::UNKNOWN,
            Some(_) => b,
            // Interfaces and traits are never "called", so the call cascade does not
            // see them: a unique type of that name in the family, preferring the
            // definition's own folder (Java/Go packages, C# namespaces by layout).
            None if b.resolution == Resolution::Unknown => {
                let types: Vec<usize> = self
                    .types_named(&call, base)
                    .into_iter()
                    .filter(|&s| s != sym && self.syms[s].kind != DefKind::Impl)
                    .collect();
                let dir = |f: usize| {
                    let p = &self.files[f].path;
                    p.rsplit_once('/').map_or("", |(d, _)| d).to_owned()
                };
                let here = dir(file);
                let same_dir: Vec<usize> = types
                    .iter()
                    .copied()
                    .filter(|&s| dir(self.syms[s].file) == here)
                    .collect();
                let test = self.files[file].is_test || self.syms[sym].is_test;
                // Where a base must be imported to be named (Python, JS/TS, Rust), a
                // same-named type of another module is not it.
                let lang = self.files[file].lang;
                let imported_only =
                    matches!(lang.module_style(), ModuleStyle::Python | ModuleStyle::Rust)
                        || lang.family() == tsa_lang::Family::Js;
                let same_dir = if imported_only {
                    same_dir
                        .into_iter()
                        .filter(|&s| self.syms[s].file == file)
                        .collect()
                } else {
                    same_dir
                };
                let fallback = if imported_only { Vec::new() } else { types };
                match self
                    .unique(same_dir, test)
                    .or_else(|| self.unique_fallback(fallback, &call))
                {
                    Some(t) => bound(t, 0.7),
                    None => b,
                }
            }
            None => b,
        }
    }

    /// Resolves one import statement of `file`.
    pub fn resolve_import(&self, file: usize, imp: &MImport) -> ImportBinding {
        let lang = self.files[file].lang;
        let b = match lang.module_style() {
            ModuleStyle::Python => python::import(self, file, imp),
            ModuleStyle::Rust => rust::import(self, file, imp),
            _ => generic::import(self, file, imp),
        };
        match b.file {
            Some(f) if !lang.can_call(self.files[f].lang) => ImportBinding::UNKNOWN,
            _ => b,
        }
    }

    /// Go build variants: one function or method defined in several files of one
    /// package folder (behind build constraints). Each is the call's target in some
    /// build, so all are: the first as the target, the rest as alternatives.
    fn build_variants(&self, cands: &[usize], caller_is_test: bool) -> Option<Binding> {
        let mut c = cands.to_vec();
        if !caller_is_test && c.iter().any(|&x| !self.syms[x].is_test) {
            c.retain(|&x| !self.syms[x].is_test);
        }
        c.sort_unstable();
        c.dedup();
        let (&first, _) = c.split_first()?;
        let dir = |s: usize| {
            let p = &self.files[self.syms[s].file].path;
            p.rsplit_once('/').map_or("", |(d, _)| d)
        };
        let f = &self.syms[first];
        let files: std::collections::HashSet<usize> =
            c.iter().map(|&x| self.syms[x].file).collect();
        let same = c.len() > 1
            && files.len() == c.len()
            && c.iter().all(|&x| {
                let s = &self.syms[x];
                self.files[s.file].lang.module_style() == ModuleStyle::GoPackage
                    && dir(x) == dir(first)
                    && s.owner == f.owner
                    && s.kind == f.kind
                    && s.parent.is_none()
            });
        if same || self.overloads(&c) {
            variants(c, 0.9)
        } else {
            None
        }
    }

    /// Whether method `s` takes the call's argument count (true where either is
    /// not known): an overload that cannot take it is not the one called, and a
    /// type whose own overloads all refuse it calls an inherited one.
    fn fits(&self, call: &MCall<'_>, s: usize) -> bool {
        match (call.arity, self.syms[s].params) {
            (Some(n), Some((least, most))) => least <= n && n <= most,
            _ => true,
        }
    }

    /// Whether `cands` (two or more) are overloads of one method: one type's
    /// methods of one name, in a language where parameters tell them apart. A
    /// call of the name may reach each (the call site's argument types pick one,
    /// which the index does not judge), so each is a target.
    fn overloads(&self, cands: &[usize]) -> bool {
        let Some((&first, rest)) = cands.split_first() else {
            return false;
        };
        let f = &self.syms[first];
        !rest.is_empty()
            && f.parent.is_some()
            && self.files[f.file].lang.overloads()
            && cands.iter().all(|&x| {
                let s = &self.syms[x];
                s.parent == f.parent && s.name == f.name && s.kind.is_callable()
            })
    }

    /// The methods `name` of the project types that implement interface `iface`
    /// (Go: structurally, every method of the interface, embedded interfaces
    /// included, is defined on the type); empty for anything but a Go interface.
    fn implementations(&self, iface: usize, name: &str) -> Vec<usize> {
        let i = &self.syms[iface];
        let lang = self.files[i.file].lang;
        if i.kind != DefKind::Interface || lang.module_style() != ModuleStyle::GoPackage {
            return Vec::new();
        }
        // The interface's method set, through embedded interfaces.
        let mut wanted: Vec<Arc<str>> = Vec::new();
        let mut todo = vec![iface];
        let mut seen = std::collections::HashSet::new();
        while let Some(t) = todo.pop() {
            if !seen.insert(t) || seen.len() > 16 {
                continue;
            }
            let t_name = Arc::clone(&self.syms[t].name);
            for (_, ms) in self.by_owner.get(&t_name).into_iter().flatten() {
                for &ms in ms {
                    if self.syms[ms].parent == Some(t) {
                        wanted.push(Arc::clone(&self.syms[ms].name));
                    }
                }
            }
            for base in &self.syms[t].bases {
                let b = self.resolve_base(t, base);
                if let Some(bt) = b.target
                    && self.syms[bt].kind == DefKind::Interface
                {
                    todo.push(bt);
                }
            }
        }
        if !wanted.iter().any(|w| &**w == name) {
            return Vec::new();
        }
        let mut out: Vec<usize> = self
            .named(lang, name)
            .into_iter()
            .filter(|&m| {
                let sym = &self.syms[m];
                let Some(owner) = &sym.owner else {
                    return false;
                };
                sym.kind.is_callable()
                    && sym.parent.is_none()
                    && wanted.iter().all(|w| {
                        self.owned(owner, w)
                            .iter()
                            .any(|&x| self.syms[x].parent.is_none())
                    })
            })
            .collect();
        out.sort_unstable();
        out
    }

    fn caller_is_test(&self, call: &MCall<'_>) -> bool {
        self.files[call.file].is_test || call.caller.is_some_and(|c| self.syms[c].is_test)
    }

    /// The name of the innermost type (class, impl, trait, struct) enclosing a definition.
    fn enclosing_type(&self, sym: Option<usize>) -> Option<&str> {
        self.enclosing_type_sym(sym).map(|t| &*self.syms[t].name)
    }

    fn in_file(&self, file: usize, name: &str) -> &[usize] {
        self.by_file_name[file]
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Every definition of a file.
    fn in_file_all(&self, file: usize) -> impl Iterator<Item = usize> + '_ {
        self.by_file_name[file].values().flatten().copied()
    }

    fn named(&self, lang: Language, name: &str) -> Vec<usize> {
        self.named_all(name)
            .iter()
            .copied()
            .filter(|&s| self.files[self.syms[s].file].lang == lang)
            .collect()
    }

    fn named_all(&self, name: &str) -> &[usize] {
        self.by_name.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Definitions named `name` in any language (callers filter by family).
    fn named_any(&self, name: &str) -> Vec<usize> {
        self.named_all(name).to_vec()
    }

    fn owned(&self, owner: &str, name: &str) -> &[usize] {
        self.by_owner
            .get(owner)
            .and_then(|m| m.get(name))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Methods `name` of `owner` in any language (callers filter by family).
    fn by_owner_any(&self, owner: &str, name: &str) -> Vec<usize> {
        self.owned(owner, name).to_vec()
    }

    fn methods(&self, lang: Language, owner: &str, name: &str) -> Vec<usize> {
        self.owned(owner, name)
            .iter()
            .copied()
            .filter(|&s| self.files[self.syms[s].file].lang == lang)
            .collect()
    }

    /// The innermost type definition enclosing `sym` (itself included).
    fn enclosing_type_sym(&self, sym: Option<usize>) -> Option<usize> {
        let mut cur = sym;
        while let Some(i) = cur {
            if self.syms[i].kind.is_type() {
                return Some(i);
            }
            cur = self.syms[i].parent;
        }
        None
    }

    /// A method `name` inherited by the types `starts` through their bases (each base
    /// resolved where the type is defined), nearest level first; `None` when no level
    /// has exactly one candidate.
    fn inherited(&self, call: &MCall<'_>, starts: Vec<usize>, name: &str) -> Option<Binding> {
        let lang = self.files[call.file].lang;
        let test = self.caller_is_test(call);
        let mut frontier = starts;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..6 {
            let mut next = Vec::new();
            let mut found = Vec::new();
            for t in frontier {
                if !seen.insert(t) {
                    continue;
                }
                for base in &self.syms[t].bases {
                    let Some(b) = self.resolve_base(t, base).target else {
                        continue;
                    };
                    if !lang.can_call(self.files[self.syms[b].file].lang) {
                        continue;
                    }
                    let base_name = &self.syms[b].name;
                    found.extend(
                        self.in_file(self.syms[b].file, name)
                            .iter()
                            .copied()
                            .filter(|&s| {
                                let sym = &self.syms[s];
                                sym.kind.is_callable()
                                    && (sym.parent == Some(b)
                                        || sym.owner.as_deref() == Some(&**base_name))
                                    && self.fits(call, s)
                            }),
                    );
                    // Rust: a trait's provided methods; Go: methods of an embedded type.
                    found.extend(self.owned(base_name, name).iter().copied().filter(|&s| {
                        self.files[self.syms[s].file].lang == self.files[self.syms[b].file].lang
                            && self.methods_may_live(b, self.syms[s].file)
                            && self.fits(call, s)
                    }));
                    next.push(b);
                }
            }
            found.sort_unstable();
            found.dedup();
            // A class's method wins over an interface's or trait's declaration at the
            // same level (Java: the superclass chain before default methods).
            let in_interface = |m: usize| {
                self.syms[m].parent.is_some_and(|p| {
                    matches!(self.syms[p].kind, DefKind::Interface | DefKind::Trait)
                })
            };
            if found.iter().any(|&m| !in_interface(m)) {
                found.retain(|&m| !in_interface(m));
            }
            if !found.is_empty() {
                return match self.unique(found.clone(), test) {
                    Some(s) => Some(bound(s, 0.8)),
                    None => self.build_variants(&found, test),
                };
            }
            if next.is_empty() {
                return None;
            }
            frontier = next;
        }
        None
    }

    /// Type definitions named `owner` in the caller's language family, preferring its file.
    fn types_named(&self, call: &MCall<'_>, owner: &str) -> Vec<usize> {
        let lang = self.files[call.file].lang;
        let all: Vec<usize> = self
            .named_all(owner)
            .iter()
            .copied()
            .filter(|&s| {
                self.syms[s].kind.is_type() && lang.can_call(self.files[self.syms[s].file].lang)
            })
            .collect();
        let here: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&s| self.syms[s].file == call.file)
            .collect();
        if here.is_empty() { all } else { here }
    }

    /// The single candidate left after dropping test-only definitions for a
    /// production caller (when a production candidate exists); `None` if zero or many.
    fn unique(&self, mut cands: Vec<usize>, caller_is_test: bool) -> Option<usize> {
        if !caller_is_test && cands.iter().any(|&c| !self.syms[c].is_test) {
            cands.retain(|&c| !self.syms[c].is_test);
        }
        cands.sort_unstable();
        cands.dedup();
        (cands.len() == 1).then(|| cands[0])
    }

    /// A unique project-wide definition of a plain (non-method) name.
    fn unique_global(&self, call: &MCall<'_>, kinds: &[DefKind]) -> Option<usize> {
        let lang = self.files[call.file].lang;
        let cands: Vec<usize> = self
            .named(lang, call.callee)
            .iter()
            .copied()
            .filter(|&s| kinds.contains(&self.syms[s].kind))
            // Rust: only crates the caller's package can name.
            .filter(|&s| {
                lang.module_style() != ModuleStyle::Rust
                    || rust::visible_crate(self, call.file, self.syms[s].file)
            })
            .collect();
        self.unique_fallback(cands, call)
    }

    /// The name-only fallback (nothing in scope or imported names the callee):
    /// a production caller never binds to a test-only definition here, even when it
    /// is the only one; production code cannot reach test helpers without an import.
    fn unique_fallback(&self, mut cands: Vec<usize>, call: &MCall<'_>) -> Option<usize> {
        let test = self.caller_is_test(call);
        if !test {
            cands.retain(|&c| !self.syms[c].is_test && !self.files[self.syms[c].file].is_test);
        }
        self.unique(cands, test)
    }
}

fn t_file(m: &Model, t: usize) -> usize {
    m.syms[t].file
}

/// A target in the caller's own file, certain.
fn local(target: usize) -> Binding {
    local_target(target)
}

fn local_target(target: usize) -> Binding {
    Binding {
        target: Some(target),
        resolution: Resolution::Local,
        confidence: 1.0,
        alts: Vec::new(),
    }
}

fn bound(target: usize, confidence: f64) -> Binding {
    Binding {
        target: Some(target),
        resolution: Resolution::Project,
        confidence,
        alts: Vec::new(),
    }
}

/// Several definitions that are one function in different builds (Go files behind
/// build constraints): the first is the target, the others alternatives of the same
/// class and confidence.
fn variants(mut cands: Vec<usize>, confidence: f64) -> Option<Binding> {
    cands.sort_unstable();
    cands.dedup();
    let (&first, rest) = cands.split_first()?;
    let mut b = bound(first, confidence);
    b.alts = rest
        .iter()
        .map(|&t| Alt {
            target: t,
            resolution: Resolution::Project,
            confidence,
        })
        .collect();
    Some(b)
}
