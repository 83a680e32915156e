//! Language conventions as data: what the analyses in `tsa-tools` need to know about
//! a language (complexity node kinds, entry points, test files and test functions,
//! the test runner, comment/import/quote syntax, default visibility, where a
//! signature states its return type, ...). Each language folder states them in its
//! spec; `conventions_are_stated` (a test) fails when a registered language leaves
//! one unstated. A convention that does not apply is stated as `NotApplicable`.

/// One convention of one language: stated, stated as not applying, or forgotten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention<T: 'static> {
    /// The language folder says nothing: the registry test fails on it.
    Unstated,
    /// The convention does not apply to this language (stated on purpose).
    NotApplicable,
    /// The language's value.
    Is(T),
}

impl<T> Convention<T> {
    /// The stated value; `None` when the convention does not apply (or is unstated).
    pub fn get(&self) -> Option<&T> {
        match self {
            Convention::Is(v) => Some(v),
            _ => None,
        }
    }

    fn is_stated(&self) -> bool {
        !matches!(self, Convention::Unstated)
    }
}

/// Function names that are entry points by convention (called by a runtime or a
/// framework, never by the project's own code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPoints {
    /// Whole names (`main`, `init`).
    pub names: &'static [&'static str],
    /// Name prefixes of functions dispatched by constructed name (`visit_`, `do_`).
    pub prefixes: &'static [&'static str],
}

/// Which functions of a test file a test runner calls (dead code keeps them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestNames {
    /// A name starting with one of these is a test.
    pub prefixes: &'static [&'static str],
    /// Whether `prefixes` match whatever the name's case.
    pub ignore_case: bool,
    /// Set-up and tear-down hooks, by exact name.
    pub hooks: &'static [&'static str],
}

impl TestNames {
    /// `test*` in any case, plus the xUnit/pytest/Jest set-up and tear-down hooks.
    pub const GENERIC: TestNames = TestNames {
        prefixes: &["test"],
        ignore_case: true,
        hooks: &[
            "setUp",
            "tearDown",
            "setUpClass",
            "tearDownClass",
            "setUpModule",
            "tearDownModule",
            "setup_method",
            "teardown_method",
            "setup_module",
            "teardown_module",
            "beforeEach",
            "afterEach",
            "beforeAll",
            "afterAll",
        ],
    };
}

/// Which definitions in test code are test entry points (what `nav test_map` lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestEntry {
    /// Every definition in test code.
    Any,
    /// A name starting with one of `prefixes` (followed by the end of the name, an
    /// upper-case letter or `_` when `boundary`: `TestOpen`, not `Testify`), or, when
    /// `spaced`, a name with a space (`it "opens"`, `test('opens')`).
    Names {
        prefixes: &'static [&'static str],
        boundary: bool,
        spaced: bool,
    },
    /// Any name not starting with `_` (an annotation makes it a test).
    NotPrivate,
    /// An attribute written above the definition (whitespace removed) equal to one of
    /// `exact`, ending with one of `suffixes`, containing one of `infixes` or
    /// starting with one of `prefixes`.
    Attribute {
        exact: &'static [&'static str],
        suffixes: &'static [&'static str],
        infixes: &'static [&'static str],
        prefixes: &'static [&'static str],
    },
}

/// The extension a source file's test file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestExt {
    Any,
    /// The source file's own extension.
    Same,
    Is(&'static str),
}

/// Where the tests of a source file are, by their file names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestFiles {
    /// Test file stems; `{stem}` stands for the source file's stem.
    pub names: &'static [&'static str],
    pub ext: TestExt,
    /// The test file sits in the source file's folder.
    pub same_dir: bool,
    /// The test file lies under a folder of this name (`tests`).
    pub under: Option<&'static str>,
    /// A file of the source's own stem in a folder of this name is also one (`__tests__`).
    pub stem_in: Option<&'static str>,
    /// Text in the source file itself that means it holds its own tests (`#[cfg(test)]`).
    pub inline_marker: Option<&'static str>,
}

impl TestFiles {
    /// `test_x`, `x_test` or `xTest` with any extension, anywhere.
    pub const GENERIC: TestFiles = TestFiles {
        names: &["test_{stem}", "{stem}_test", "{stem}Test"],
        ext: TestExt::Any,
        same_dir: false,
        under: None,
        stem_in: None,
        inline_marker: None,
    };
}

/// Test file names recognised whatever folder they are in (folders named `tests`,
/// `spec`, ... are test code for every language).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestPaths {
    /// Lower-case file name endings (`_test.go`, `.spec.ts`).
    pub suffixes: &'static [&'static str],
    /// (prefix, extension) of test modules named by prefix (`test_`, `.py`).
    pub prefixed: &'static [(&'static str, &'static str)],
}

/// The runner that runs a language's tests (the tools know how to call each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestRunner {
    /// `pytest` (`uv run pytest` with a `uv.lock`).
    Pytest,
    /// `cargo test`.
    Cargo,
    /// `go test`.
    GoTest,
    /// `npx vitest run` when `package.json` names vitest, else `npx jest`.
    Node,
    /// Maven with a `pom.xml`, else Gradle.
    MavenOrGradle,
}

/// What makes a definition exported (used from outside its package).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    /// `pub` in a library crate (Rust).
    PubInLibrary,
    /// An `export` statement, `module.exports` or `exports.` on its line (JS/TS).
    ExportStatement,
    /// An upper-case first letter outside a `main` package (Go).
    Capitalised,
}

/// How lines of code write comments, imports and strings (text scans).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSyntax {
    /// Starts of comment lines (`//`, `#`, `* `).
    pub comments: &'static [&'static str],
    /// Starts of import lines (`import `, `use `).
    pub imports: &'static [&'static str],
    pub quotes: &'static [char],
}

impl LineSyntax {
    pub const C_LIKE_COMMENTS: &'static [&'static str] = &["//", "/*", "* ", "*/"];
}

/// The visibility of a definition whose signature has no modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultVisibility {
    /// Always this one (`private`, `package`, `public`).
    Fixed(&'static str),
    /// A leading `_` makes it `private`, except `__dunder__` names (Python).
    Underscore,
    /// A leading `_` or `#` makes it `private`, else `public`.
    LeadingMark,
    /// An upper-case first letter is `public`, else `package` (Go).
    Capitalised,
}

/// How dead code finds a language's module-level variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleVariables {
    /// A line scan for `NAME = ...` at column 0 (Python).
    AssignmentLines,
    /// A line scan for `const`/`let`/`var NAME = ...` at column 0 (JavaScript, TypeScript).
    DeclarationLines,
    /// The index's module-level `variable` definitions.
    Indexed,
}

/// Where a signature states its return type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnForm {
    /// After `->` (Python, Rust, Swift).
    Arrow,
    /// After the parameter list (Go).
    AfterParams,
    /// After `:` following the parameter list (TypeScript, Kotlin, Scala, PHP).
    ColonAfterParams,
    /// Before the name (Java, C#, C, C++).
    BeforeName,
}

/// Everything an analysis needs to know about a language. Every field is stated
/// by the language's folder (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct Conventions {
    /// The complexity rules (`complexity.yml` in the folder, read at compile time):
    /// node kinds of `functions`, `decisions`, `short_circuit` (with `operators`),
    /// `nesting` and `classes`. Read by `tsa-tools`' `complexity`.
    pub complexity: Convention<&'static str>,
    /// Entry-point names and prefixes (dead code).
    pub entry_points: Convention<EntryPoints>,
    /// Whether the public methods of a class used from another file are its API
    /// (dead code keeps them).
    pub class_methods_are_api: Convention<bool>,
    /// Whether an annotation inside a signature (`@Bean public Foo foo()`) registers
    /// the function (dead code).
    pub signature_annotations: Convention<bool>,
    /// What exports a definition (dead code).
    pub export: Convention<Export>,
    /// How module-level variables are found (dead code's unused variables).
    pub module_variables: Convention<ModuleVariables>,
    /// Functions of test files a test runner calls (dead code).
    pub test_names: Convention<TestNames>,
    /// Test entry points in test code (`nav test_map`, `edit impact`).
    pub test_entry: Convention<TestEntry>,
    /// Where a source file's tests are (`edit safe`).
    pub test_files: Convention<TestFiles>,
    /// Test file names in any folder (`is_test_path`).
    pub test_paths: Convention<TestPaths>,
    /// The test runner (`edit safe`, `nav test_map`, `edit impact`).
    pub test_runner: Convention<TestRunner>,
    /// Comment, import and quote syntax of lines (`nav trace`, `edit guard`).
    pub line_syntax: Convention<LineSyntax>,
    /// Visibility without a modifier (`structure` actions).
    pub default_visibility: Convention<DefaultVisibility>,
    /// Where a signature states its return type (`return_type`).
    pub return_type: Convention<ReturnForm>,
    /// ripgrep's name of the file type (`search text` type filters).
    pub ripgrep_type: Convention<&'static str>,
    /// Extensions that make a Markdown code span a file path (`project doc_sync`).
    pub doc_path_extensions: Convention<&'static [&'static str]>,
    /// What makes a definition public API, whose callers outside the project cannot
    /// be counted (`trust`: never SAFE, never dead).
    pub public_api: Convention<PublicApi>,
    /// Which web frameworks' route declarations are read (`health routes`).
    pub routes: Convention<Routes>,
    /// The branch rules of call sites (`branches.txt` in the folder; TQL `:branch`).
    pub branches: Convention<&'static str>,
}

/// What makes a definition public API of the project (read by `trust::public_api`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublicApi {
    /// A public name of a package: re-exported by or defined in an `__init__.py`,
    /// named in `__all__`, a public method of such a class.
    PythonPackage,
    /// `pub` items of a library crate reachable from its root.
    RustLibraryCrate,
    /// Capitalised names of a non-`main` package.
    GoExported,
    /// Exports of a package's entry module (`package.json` `main`/`exports`).
    EcmaPackageExport,
    /// Visible members (Java `public`/`protected`, an interface's members; Kotlin
    /// and Scala unless `private`/`internal`) of visible types in a JVM library
    /// module: a Maven, Gradle, Ant or Bazel build that is not an application.
    JvmLibrary,
    /// `public`/`open` members (members of a public protocol, of a `public
    /// extension` unless marked narrower) of visible types in a SwiftPM package
    /// that declares a library product, outside its executable targets.
    SwiftLibrary,
    /// `public`/`protected` members (an interface's members) of public types in a
    /// `.csproj` project that builds a library: not an `Exe`/`WinExe`, a web app
    /// or a test project.
    DotnetLibrary,
    /// Members not `private` (PHP's default is public) in a Composer package whose
    /// `composer.json` is not `"type": "project"`.
    ComposerLibrary,
    /// No rule yet: public API of this language is not detected (answers rest on
    /// the project's own callers and unresolved call sites only).
    Undetected,
}

/// Which route declarations `health routes` reads in a language's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routes {
    /// Flask/Quart decorators, FastAPI routers, Django `urls.py` paths.
    PythonWeb,
    /// Express-style `app.get('/x', handler)` calls.
    Express,
    /// Spring `@RequestMapping`/`@GetMapping` ... with a class prefix.
    Spring,
    /// Gin/Echo-style `r.GET("/x", handler)` calls.
    Gin,
    /// Actix attributes (`#[get("/x")]`) and Axum `.route("/x", get(h))`.
    RustWeb,
    /// No route syntax is read for this language.
    None,
}

impl Conventions {
    /// Nothing stated: what `LanguageSpec::new` starts from. A language left with
    /// any of these fails `conventions_are_stated`.
    pub const UNSTATED: Conventions = Conventions {
        complexity: Convention::Unstated,
        entry_points: Convention::Unstated,
        class_methods_are_api: Convention::Unstated,
        signature_annotations: Convention::Unstated,
        export: Convention::Unstated,
        module_variables: Convention::Unstated,
        test_names: Convention::Unstated,
        test_entry: Convention::Unstated,
        test_files: Convention::Unstated,
        test_paths: Convention::Unstated,
        test_runner: Convention::Unstated,
        line_syntax: Convention::Unstated,
        default_visibility: Convention::Unstated,
        return_type: Convention::Unstated,
        ripgrep_type: Convention::Unstated,
        doc_path_extensions: Convention::Unstated,
        public_api: Convention::Unstated,
        routes: Convention::Unstated,
        branches: Convention::Unstated,
    };

    /// Markup and data languages (structure tier): no code conventions apply. A
    /// folder states its ripgrep type on top.
    pub const DATA: Conventions = Conventions {
        complexity: Convention::NotApplicable,
        entry_points: Convention::NotApplicable,
        class_methods_are_api: Convention::NotApplicable,
        signature_annotations: Convention::NotApplicable,
        export: Convention::NotApplicable,
        module_variables: Convention::NotApplicable,
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Any),
        test_files: Convention::Is(TestFiles::GENERIC),
        test_paths: Convention::NotApplicable,
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::NotApplicable,
        default_visibility: Convention::NotApplicable,
        return_type: Convention::NotApplicable,
        ripgrep_type: Convention::Unstated,
        doc_path_extensions: Convention::NotApplicable,
        public_api: Convention::NotApplicable,
        routes: Convention::NotApplicable,
        branches: Convention::NotApplicable,
    };

    /// The names of the conventions left unstated.
    pub fn unstated(&self) -> Vec<&'static str> {
        let c = self;
        [
            ("complexity", c.complexity.is_stated()),
            ("entry_points", c.entry_points.is_stated()),
            ("class_methods_are_api", c.class_methods_are_api.is_stated()),
            ("signature_annotations", c.signature_annotations.is_stated()),
            ("export", c.export.is_stated()),
            ("module_variables", c.module_variables.is_stated()),
            ("test_names", c.test_names.is_stated()),
            ("test_entry", c.test_entry.is_stated()),
            ("test_files", c.test_files.is_stated()),
            ("test_paths", c.test_paths.is_stated()),
            ("test_runner", c.test_runner.is_stated()),
            ("line_syntax", c.line_syntax.is_stated()),
            ("default_visibility", c.default_visibility.is_stated()),
            ("return_type", c.return_type.is_stated()),
            ("ripgrep_type", c.ripgrep_type.is_stated()),
            ("doc_path_extensions", c.doc_path_extensions.is_stated()),
            ("public_api", c.public_api.is_stated()),
            ("routes", c.routes.is_stated()),
            ("branches", c.branches.is_stated()),
        ]
        .into_iter()
        .filter(|(_, stated)| !stated)
        .map(|(name, _)| name)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::Language;

    /// Every registered language states every convention (or states that it does
    /// not apply): an analysis never falls back to a silent default.
    #[test]
    fn conventions_are_stated() {
        let missing: Vec<String> = Language::ALL
            .iter()
            .flat_map(|l| {
                l.conventions()
                    .unstated()
                    .into_iter()
                    .map(move |f| format!("{}.{f}", l.name()))
            })
            .collect();
        assert!(missing.is_empty(), "conventions left unstated: {missing:?}");
    }
}
