//! What extraction produces for one file.

/// The kind of a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    Function,
    Method,
    Class,
    Struct,
    Enum,
    Trait,
    Impl,
    Module,
    Interface,
    /// Other named types: type aliases, protocols, records, typedefs.
    Type,
    /// Module-level constants and variables (symbol and structure tiers).
    Variable,
    /// Outline entries of the structure tier (headings, selectors, keys, tables).
    Section,
}

impl DefKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Class => "class",
            DefKind::Struct => "struct",
            DefKind::Enum => "enum",
            DefKind::Trait => "trait",
            DefKind::Impl => "impl",
            DefKind::Module => "module",
            DefKind::Interface => "interface",
            DefKind::Type => "type",
            DefKind::Variable => "variable",
            DefKind::Section => "section",
        }
    }

    pub fn parse(s: &str) -> Option<DefKind> {
        [
            DefKind::Function,
            DefKind::Method,
            DefKind::Class,
            DefKind::Struct,
            DefKind::Enum,
            DefKind::Trait,
            DefKind::Impl,
            DefKind::Module,
            DefKind::Interface,
            DefKind::Type,
            DefKind::Variable,
            DefKind::Section,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// Functions and methods: the things that have callers and callees.
    pub const fn is_callable(self) -> bool {
        matches!(self, DefKind::Function | DefKind::Method)
    }

    /// Types that own methods.
    pub const fn is_type(self) -> bool {
        matches!(
            self,
            DefKind::Class
                | DefKind::Struct
                | DefKind::Enum
                | DefKind::Trait
                | DefKind::Impl
                | DefKind::Interface
        )
    }
}

/// How a type relates to a base it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseKind {
    Extends,
    Implements,
}

impl BaseKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            BaseKind::Extends => "extends",
            BaseKind::Implements => "implements",
        }
    }
}

/// A base type named by a definition (`class A(B)`, `impl T for X`, `implements I`).
#[derive(Clone, Debug, PartialEq)]
pub struct Base {
    pub name: String,
    pub kind: BaseKind,
}

/// A definition: function, method, class, struct, enum, trait, impl or module.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// Qualified name in the language's own notation (`Class.method`, `Type::method`).
    pub qualname: String,
    /// Index of the enclosing definition in [`FileExtract::defs`].
    pub parent: Option<usize>,
    /// The owning type of a method (class, or the type of an impl/trait).
    pub owner: Option<String>,
    /// 1-based, inclusive.
    pub line: u32,
    pub end_line: u32,
    pub start_byte: usize,
    pub end_byte: usize,
    /// The header up to the body, whitespace collapsed.
    pub signature: String,
    /// Test-only by language rules (`#[test]`, `#[cfg(test)] mod`); path rules are the caller's.
    pub is_test: bool,
    /// Base types this definition extends or implements.
    pub bases: Vec<Base>,
    /// The receiver variable of a method declared outside its type (Go's `s` in
    /// `func (s *Store) Get()`): calls on it are calls on the owner type.
    pub self_name: Option<String>,
    /// Its docstring or the comment block above it ([`crate::docs`]).
    pub doc: Option<String>,
}

/// The branch a call site sits in, between its innermost enclosing definition and
/// the call (innermost construct wins); read by TQL's `:branch(kind)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchKind {
    /// No branch construct between the definition and the call.
    Unconditional,
    /// The body of an `if` (or `elif` / `else if`) taken when its condition holds.
    IfTrue,
    /// The `else` / `else if` arm of an `if` chain.
    IfFalse,
    /// The `else` clause of a loop or a `try`.
    Else,
    Loop,
    Try,
    /// An `except` / `catch` / `rescue` handler.
    Except,
    Finally,
    /// The body of a `with` / `using` / `lock` statement.
    With,
    /// An arm of a `match` / `switch` / `when` / `select`.
    Match,
}

impl BranchKind {
    /// Every kind, in code order.
    pub const ALL: [BranchKind; 10] = [
        BranchKind::Unconditional,
        BranchKind::IfTrue,
        BranchKind::IfFalse,
        BranchKind::Else,
        BranchKind::Loop,
        BranchKind::Try,
        BranchKind::Except,
        BranchKind::Finally,
        BranchKind::With,
        BranchKind::Match,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BranchKind::Unconditional => "unconditional",
            BranchKind::IfTrue => "if_true",
            BranchKind::IfFalse => "if_false",
            BranchKind::Else => "else",
            BranchKind::Loop => "loop",
            BranchKind::Try => "try",
            BranchKind::Except => "except",
            BranchKind::Finally => "finally",
            BranchKind::With => "with",
            BranchKind::Match => "match",
        }
    }

    /// A kind by name; `catch` and `rescue` are `except`.
    pub fn parse(name: &str) -> Option<BranchKind> {
        match name {
            "catch" | "rescue" => Some(BranchKind::Except),
            _ => BranchKind::ALL.into_iter().find(|k| k.name() == name),
        }
    }

    /// The code stored in the index.
    pub fn code(self) -> i64 {
        BranchKind::ALL.iter().position(|k| *k == self).unwrap_or(0) as i64
    }

    pub fn from_code(code: i64) -> Option<BranchKind> {
        usize::try_from(code)
            .ok()
            .and_then(|i| BranchKind::ALL.get(i).copied())
    }
}

/// A call site.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The called name without receiver (`helper` in `self.helper()`).
    pub callee: Box<str>,
    /// The receiver or path text (`self`, `os.path`, `Vec`), when there is one.
    pub receiver: Option<Box<str>>,
    /// True when the receiver is a path (`Type::f()`, `module::f()`), not a value.
    pub path: bool,
    /// The declared type of a plain-variable receiver, when the code states it
    /// (`pb *testing.PB`, `pet: Dog`, `cat = Cat()`), qualified as written.
    pub receiver_type: Option<Box<str>>,
    /// A bare callee that names a local variable or parameter of the caller's scope
    /// (`cb()` where `cb` is a parameter): it never means an outer definition.
    pub shadowed: bool,
    /// Index of the innermost enclosing definition; `None` at module level.
    pub enclosing: Option<usize>,
    /// 1-based.
    pub line: u32,
    /// The branch the call sits in; `None` where the language states no branch rules.
    pub branch: Option<BranchKind>,
    /// The number of arguments, where the language picks an overload by it (Java).
    pub arity: Option<u8>,
}

/// One name bound by an import statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// The module path as written (`os.path`, `crate::index::store`); empty for `from . import x`.
    pub module: String,
    /// The imported item, if the statement names one (`from m import name`, `use m::name`).
    pub name: Option<String>,
    /// The local name the statement binds (`*` for a star import).
    pub alias: String,
    /// Python relative-import level (number of leading dots); 0 otherwise.
    pub level: u32,
    /// 1-based.
    pub line: u32,
}

/// Everything extracted from one file, from one parse.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileExtract {
    pub defs: Vec<Def>,
    pub calls: Vec<CallSite>,
    pub imports: Vec<Import>,
    /// ERROR and MISSING nodes in the parse tree. A file with errors is still indexed.
    pub parse_errors: u32,
    /// Measurements a caller's [`crate::FactsHook`] took from the same parse tree
    /// (opaque text, stored with the file; health reads them instead of reparsing).
    pub facts: Option<String>,
    /// Fields whose type the code states, per owning type (`self.repo = Repo()`,
    /// `store: Store` in a struct, `private repo: Repo`), sorted.
    pub fields: Vec<Field>,
}

/// A field of a type, with the type written for it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Field {
    /// The owning type's name.
    pub owner: String,
    pub name: String,
    /// The field's type as written (a plain, possibly qualified, name).
    pub ty: String,
}

impl FileExtract {
    /// What a file no tree came out of holds: one parse error.
    pub(crate) fn unparsed() -> FileExtract {
        FileExtract {
            parse_errors: 1,
            ..FileExtract::default()
        }
    }
}

#[cfg(test)]
impl FileExtract {
    /// (qualified name, kind, is_test) of every definition, for assertions.
    pub(crate) fn def_rows(&self) -> Vec<(&str, &str, bool)> {
        self.defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.is_test))
            .collect()
    }

    /// (module, name, alias) of every import, for assertions.
    pub(crate) fn import_rows(&self) -> Vec<(&str, Option<&str>, &str)> {
        self.imports
            .iter()
            .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_str()))
            .collect()
    }
}
