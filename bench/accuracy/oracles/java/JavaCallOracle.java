// The Java oracle of the accuracy harness: javac's own attribution (the JDK's
// compiler API, com.sun.source), written as SCIP-shaped documents in JSON.
//
//   java JavaCallOracle.java OUT.json ROOT CLASSPATH FILE...      (FILE relative to ROOT)
//
// Every class, interface, enum, record, method and constructor declared in the
// given files gets a definition occurrence at its name; every method call
// (`name(...)`, `x.name(...)`) and every `new X(...)` whose target javac binds
// gets a reference occurrence at the called name, and so does a method
// reference (`Foo::bar`, a method passed to be called). Symbols follow SCIP's
// descriptor shapes so the harness reads them as it reads scip-python's:
// `java pkg/Outer#Inner#` for a type, `java pkg/Outer#name(int,java.lang.String).`
// for a method (the erased parameter types are the disambiguator), and a
// `new X(...)` (an anonymous `new I() {...}` included) references the type X
// itself (tsa's callee of `new X` is the class). Lines and columns are 0-based, columns in UTF-16 units.
//
// Attribution goes on past errors (`-XDshould-stop.ifError=FLOW`): a call whose
// target javac cannot bind (a dependency missing from CLASSPATH) gets no
// occurrence, so the harness counts it as unjudged, never as a miss.

import com.sun.source.tree.*;
import com.sun.source.util.*;

import javax.lang.model.element.*;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class JavaCallOracle {
    static final int DEFINITION = 1;

    record Occ(int line, int col, int endCol, String symbol, int roles) {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: JavaCallOracle OUT.json ROOT CLASSPATH FILE...");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        Path root = Paths.get(args[1]).toAbsolutePath().normalize();
        String classpath = args[2];
        List<File> files = new ArrayList<>();
        for (int i = 3; i < args.length; i++) files.add(root.resolve(args[i]).toFile());

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(List.of(
                "-proc:none", "-implicit:none", "-Xmaxerrs", "1000000", "-encoding", "UTF-8",
                "-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW", "-nowarn"));
        if (!classpath.isEmpty()) {
            options.add("-classpath");
            options.add(classpath);
        }
        JavacTask task = (JavacTask) javac.getTask(null, fm, diags, options, null,
                fm.getJavaFileObjectsFromFiles(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        int errors = 0;
        // The errors, by message (a missing dependency shows as many `cannot find symbol`).
        Map<String, Integer> byMessage = new TreeMap<>();
        for (Diagnostic<?> d : diags.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) continue;
            errors++;
            String msg = d.getMessage(Locale.ROOT).split("\n")[0];
            if (msg.startsWith("package ") && msg.endsWith(" does not exist")) msg = msg.replaceAll("^package (\\S+?)(\\.[^.]+)? does not exist$", "package $1 does not exist");
            byMessage.merge(msg, 1, Integer::sum);
        }
        byMessage.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(15)
                .forEach(e -> System.err.printf("  %5d  %s%n", e.getValue(), e.getKey()));

        Trees trees = Trees.instance(task);
        Elements elements = task.getElements();
        Types types = task.getTypes();
        Map<String, List<Occ>> docs = new TreeMap<>();
        int refs = 0, defs = 0;
        for (CompilationUnitTree unit : units) {
            String rel = root.relativize(Paths.get(unit.getSourceFile().toUri()).normalize()).toString()
                    .replace(File.separatorChar, '/');
            Scanner sc = new Scanner(unit, trees, elements, types);
            sc.scan(unit, null);
            docs.put(rel, sc.occs);
            refs += sc.refs;
            defs += sc.defs;
        }
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            w.write("{\"tool\":\"javac " + System.getProperty("java.version") + "\",\"errors\":" + errors
                    + ",\"documents\":[\n");
            boolean firstDoc = true;
            for (Map.Entry<String, List<Occ>> e : docs.entrySet()) {
                if (!firstDoc) w.write(",\n");
                firstDoc = false;
                w.write("{\"path\":" + json(e.getKey()) + ",\"occurrences\":[");
                boolean first = true;
                for (Occ o : e.getValue()) {
                    if (!first) w.write(",");
                    first = false;
                    w.write("[" + o.line + "," + o.col + "," + o.endCol + "," + json(o.symbol) + "," + o.roles + "]");
                }
                w.write("]}");
            }
            w.write("\n]}\n");
        }
        System.err.printf("javac oracle: %d files, %d definitions, %d call references, %d compile errors%n",
                docs.size(), defs, refs, errors);
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree unit;
        final Trees trees;
        final Elements elements;
        final Types types;
        final SourcePositions pos;
        final LineMap lines;
        final CharSequence text;
        final List<Occ> occs = new ArrayList<>();
        int refs, defs;

        Scanner(CompilationUnitTree unit, Trees trees, Elements elements, Types types) throws IOException {
            this.unit = unit;
            this.trees = trees;
            this.elements = elements;
            this.types = types;
            this.pos = trees.getSourcePositions();
            this.lines = unit.getLineMap();
            this.text = unit.getSourceFile().getCharContent(true);
        }

        String typeSymbol(TypeElement t) {
            String bin = elements.getBinaryName(t).toString();
            int dot = bin.lastIndexOf('.');
            String pkg = dot < 0 ? "" : bin.substring(0, dot).replace('.', '/') + "/";
            String cls = (dot < 0 ? bin : bin.substring(dot + 1)).replace('$', '#');
            return "java " + pkg + cls + "#";
        }

        String methodSymbol(ExecutableElement m) {
            Element owner = m.getEnclosingElement();
            if (!(owner instanceof TypeElement t)) return null;
            StringBuilder sig = new StringBuilder();
            for (VariableElement p : m.getParameters()) {
                if (sig.length() > 0) sig.append(',');
                TypeMirror erased = types.erasure(p.asType());
                sig.append(erased.toString().replace(' ', '_'));
            }
            String name = m.getKind() == ElementKind.CONSTRUCTOR ? "`<init>`" : m.getSimpleName().toString();
            return typeSymbol(t) + name + "(" + sig + ").";
        }

        void add(long start, int length, String symbol, int roles) {
            if (start < 0 || symbol == null) return;
            long line = lines.getLineNumber(start);
            long lineStart = lines.getStartPosition(line);
            int col = (int) (start - lineStart);
            occs.add(new Occ((int) line - 1, col, col + length, symbol, roles));
            if (roles == DEFINITION) defs++;
            else refs++;
        }

        /** The offset of NAME in the source from FROM on, as a whole word (followed, when
         * FOLLOW is set, by blanks and that character), or -1. */
        long find(long from, long to, String name, char follow) {
            if (from < 0) return -1;
            int end = (int) Math.min(to < 0 ? text.length() : to, text.length());
            String s = text.subSequence((int) from, end).toString();
            int i = 0;
            while ((i = s.indexOf(name, i)) >= 0) {
                boolean startOk = i == 0 || !Character.isJavaIdentifierPart(s.charAt(i - 1));
                int j = i + name.length();
                boolean endOk = j >= s.length() || !Character.isJavaIdentifierPart(s.charAt(j));
                if (startOk && endOk) {
                    if (follow == 0) return from + i;
                    int k = j;
                    while (k < s.length() && Character.isWhitespace(s.charAt(k))) k++;
                    if (k < s.length() && s.charAt(k) == follow) return from + i;
                }
                i = j;
            }
            return -1;
        }

        @Override
        public Void visitClass(ClassTree node, Void v) {
            Element e = trees.getElement(getCurrentPath());
            String name = node.getSimpleName().toString();
            if (e instanceof TypeElement t && !name.isEmpty()) {
                long from = pos.getEndPosition(unit, node.getModifiers());
                if (from < 0) from = pos.getStartPosition(unit, node);
                add(find(from, pos.getEndPosition(unit, node), name, (char) 0), name.length(), typeSymbol(t), DEFINITION);
            }
            return super.visitClass(node, v);
        }

        @Override
        public Void visitMethod(MethodTree node, Void v) {
            Element e = trees.getElement(getCurrentPath());
            if (e instanceof ExecutableElement m) {
                // A compact record constructor or a default constructor has no text of its own.
                long start = pos.getStartPosition(unit, node);
                long end = pos.getEndPosition(unit, node);
                if (start >= 0 && end > start) {
                    String name = m.getKind() == ElementKind.CONSTRUCTOR
                            ? m.getEnclosingElement().getSimpleName().toString()
                            : m.getSimpleName().toString();
                    long from = pos.getEndPosition(unit, node.getModifiers());
                    if (from < 0 || from < start) from = start;
                    if (node.getReturnType() != null) {
                        long r = pos.getEndPosition(unit, node.getReturnType());
                        if (r > from) from = r;
                    }
                    add(find(from, end, name, '('), name.length(), methodSymbol(m), DEFINITION);
                }
            }
            return super.visitMethod(node, v);
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void v) {
            ExpressionTree sel = node.getMethodSelect();
            Element e = trees.getElement(new TreePath(getCurrentPath(), sel));
            if (e instanceof ExecutableElement m) {
                String name;
                long at;
                if (sel instanceof IdentifierTree id) {
                    name = id.getName().toString();
                    at = pos.getStartPosition(unit, sel);
                } else if (sel instanceof MemberSelectTree ms) {
                    name = ms.getIdentifier().toString();
                    long end = pos.getEndPosition(unit, sel);
                    at = end < 0 ? -1 : end - name.length();
                } else {
                    name = "";
                    at = -1;
                }
                // `this(...)` / `super(...)` constructor calls are not named calls.
                if (!name.equals("this") && !name.equals("super") && at >= 0
                        && text.subSequence((int) at, (int) at + name.length()).toString().equals(name)) {
                    add(at, name.length(), methodSymbol(m), 0);
                }
            }
            return super.visitMethodInvocation(node, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void v) {
            // `Foo::bar` passes `bar` to be called: a reference at `bar`.
            Element e = trees.getElement(getCurrentPath());
            String name = node.getName().toString();
            if (e instanceof ExecutableElement m && node.getMode() == MemberReferenceTree.ReferenceMode.INVOKE) {
                long end = pos.getEndPosition(unit, node);
                long at = end < 0 ? -1 : end - name.length();
                if (at >= 0 && text.subSequence((int) at, (int) end).toString().equals(name)) {
                    add(at, name.length(), methodSymbol(m), 0);
                }
            }
            return super.visitMemberReference(node, v);
        }

        @Override
        public Void visitNewClass(NewClassTree node, Void v) {
            Tree ident = node.getIdentifier();
            while (ident instanceof ParameterizedTypeTree pt) ident = pt.getType();
            while (ident instanceof AnnotatedTypeTree at) ident = at.getUnderlyingType();
            Element t = trees.getElement(new TreePath(getCurrentPath(), ident));
            if (t instanceof TypeElement te) {
                // `new Iface() { ... }` counts too: it makes an instance of the
                // interface's anonymous implementation (tsa's callee is the interface).
                String name = te.getSimpleName().toString();
                long end = pos.getEndPosition(unit, ident);
                long at = end < 0 ? -1 : end - name.length();
                if (at >= 0
                        && text.subSequence((int) at, (int) end).toString().equals(name)) {
                    add(at, name.length(), typeSymbol(te), 0);
                }
            }
            return super.visitNewClass(node, v);
        }
    }
}
