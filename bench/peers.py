#!/usr/bin/env python3
"""Side-by-side benchmark of tsa against its peers, in one run, on one corpus.

    python3 bench/peers.py [--corpus mini|cpython|django|all] [--runs N] [--quick]

Installs the peers into a scratch folder ($BENCH_DIR, default /tmp/tsa-bench) from the
package registries -- tree-sitter-analyzer[mcp,all] from PyPI into its own venv,
@colbymchenry/codegraph from npm -- builds tsa in release mode if its binary is
missing, copies the corpus once per tool (identical sources, indexes never mix) and
measures, per tool:

* cold index: wall, CPU (user+sys from the rusage of the waited process tree), peak
  RSS of the whole process tree (sampled from /proc), index size (every byte the tool
  wrote: new files in its copy of the corpus plus its private $HOME);
* re-index with no change, and after appending a line to one file;
* warm `callers` latency over the CLI (one process per call) and over MCP (one
  stdio server per tool, JSON-RPC driven from here), p50/p99;
* response size in characters and in tokens (tiktoken o200k_base);
* the caller count each tool reports for the same names (printed, not judged).

Runs are interleaved tool by tool, each figure is the median of the runs, and the
1-minute load average is recorded before and after every measurement. Results go to
bench/results/<date>-<corpus>.{json,md}. Only the standard library is needed to start;
the script re-executes itself in a venv of its own that has tiktoken.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import hashlib
import json
import os
import platform
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(os.environ.get("BENCH_DIR", "/tmp/tsa-bench"))
HARNESS_VENV = BENCH_DIR / "venv-harness"
TSA_PY_VENV = BENCH_DIR / "venv-tree-sitter-analyzer"
NPM_DIR = BENCH_DIR / "npm"
RESULTS = REPO / "bench" / "results"
PAGE = os.sysconf("SC_PAGE_SIZE")
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
MINI_PACKAGES = ["json", "email", "asyncio", "http", "logging", "concurrent"]


def log(msg: str) -> None:
    print(msg, flush=True)


def sh(cmd, **kw) -> subprocess.CompletedProcess:
    """Runs an install-time command, failing loudly."""
    log("  $ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


# ---------------------------------------------------------------- bootstrap


def bootstrap(script: str = __file__) -> None:
    """Re-executes `script` (this one by default) inside the harness venv (tiktoken)."""
    if os.environ.get("TSA_BENCH_IN_VENV") == "1":
        return
    py = HARNESS_VENV / "bin" / "python"
    if not py.exists():
        log(f"creating harness venv {HARNESS_VENV}")
        sh([sys.executable, "-m", "venv", HARNESS_VENV])
        sh([py, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    try:
        subprocess.run([py, "-c", "import tiktoken"], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        sh([py, "-m", "pip", "install", "-q", "tiktoken"])
    env = dict(os.environ, TSA_BENCH_IN_VENV="1")
    os.execve(str(py), [str(py), script, *sys.argv[1:]], env)


def install_peers(reinstall: bool) -> None:
    tsa_cli = TSA_PY_VENV / "bin" / "tree-sitter-analyzer"
    if reinstall or not tsa_cli.exists():
        log("installing tree-sitter-analyzer[mcp,all] from PyPI")
        if TSA_PY_VENV.exists():
            shutil.rmtree(TSA_PY_VENV)
        sh([sys.executable, "-m", "venv", TSA_PY_VENV])
        sh([TSA_PY_VENV / "bin" / "python", "-m", "pip", "install", "-q", "tree-sitter-analyzer[mcp,all]"])
    cg = NPM_DIR / "node_modules" / ".bin" / "codegraph"
    if reinstall or not cg.exists():
        log("installing @colbymchenry/codegraph from npm")
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        sh(["npm", "install", "--prefix", NPM_DIR, "--no-fund", "--no-audit", "@colbymchenry/codegraph"],
           env=dict(os.environ, DO_NOT_TRACK="1"))


def tsa_binary(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "release" / "tsa"
    if not binary.exists():
        log(f"building tsa (release) into {target}")
        sh(["cargo", "build", "--release", "--bin", "tsa"], cwd=REPO)
    return binary


# ---------------------------------------------------------------- tokenizer


class Tokens:
    """o200k_base from tiktoken. Its BPE file is fetched once; where the blob host is
    out of reach, the same file is taken from the `tiktoken-rs` crate (crates.io),
    which ships it, and put where tiktoken looks for its cache."""

    def __init__(self) -> None:
        import tiktoken

        cache = BENCH_DIR / "tiktoken-cache"
        cache.mkdir(parents=True, exist_ok=True)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
        self.source = "tiktoken o200k_base"
        try:
            self.enc = tiktoken.get_encoding("o200k_base")
            return
        except Exception as e:  # offline: no route to the blob host
            log(f"tiktoken download failed ({type(e).__name__}); taking the BPE file from the tiktoken-rs crate")
        asset = self._from_crate()
        key = hashlib.sha1(TIKTOKEN_URL.encode()).hexdigest()
        shutil.copyfile(asset, cache / key)
        self.enc = tiktoken.get_encoding("o200k_base")
        self.source = "tiktoken o200k_base (BPE file from the tiktoken-rs crate)"

    @staticmethod
    def _from_crate() -> Path:
        home = BENCH_DIR / "cargo-home"
        proj = BENCH_DIR / "tokfetch"
        (proj / "src").mkdir(parents=True, exist_ok=True)
        (proj / "Cargo.toml").write_text(
            '[package]\nname = "tokfetch"\nversion = "0.0.0"\nedition = "2021"\n'
            '[dependencies]\ntiktoken-rs = "0.12"\n'
        )
        (proj / "src" / "main.rs").write_text("fn main() {}\n")
        found = list(home.glob("registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))
        if not found:
            sh(["cargo", "fetch", "--manifest-path", proj / "Cargo.toml"],
               env=dict(os.environ, CARGO_HOME=str(home)), capture_output=True)
            found = list(home.glob("registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))
        if not found:
            raise SystemExit("no o200k_base.tiktoken could be had")
        return sorted(found)[-1]

    def count(self, text: str) -> int:
        return len(self.enc.encode(text, disallowed_special=()))


# ---------------------------------------------------------------- corpora


def copy_tree(src: Path, dst: Path) -> None:
    def ignore(_d, names):
        return [n for n in names if n in ("site-packages", "__pycache__")]

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=ignore, symlinks=True)


def corpus_source(name: str) -> tuple[Path, str]:
    """The pristine source folder of a corpus and a label for it."""
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    version = platform.python_version()
    if name == "cpython":
        dst = BENCH_DIR / "src" / f"cpython-{version}"
        if not dst.exists():
            copy_tree(stdlib, dst)  # a clean copy: no site-packages, no __pycache__
        return dst, f"CPython {version} standard library (site-packages and __pycache__ left out)"
    if name == "mini":
        dst = BENCH_DIR / "src" / f"mini-{version}"
        if not dst.exists():
            dst.mkdir(parents=True)
            for pkg in MINI_PACKAGES:
                copy_tree(stdlib / pkg, dst / pkg)
        return dst, f"CPython {version} stdlib subset ({', '.join(MINI_PACKAGES)})"
    if name == "django":
        dl = BENCH_DIR / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        if not list(dl.glob("[Dd]jango-*.tar.gz")):
            sh([TSA_PY_VENV / "bin" / "python", "-m", "pip", "download", "-q", "--no-deps",
                "--no-binary", ":all:", "django", "-d", dl])
        sdist = sorted(dl.glob("[Dd]jango-*.tar.gz"))[-1]
        base = sdist.name[: -len(".tar.gz")]
        dst = BENCH_DIR / "src" / base
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            with tarfile.open(sdist) as tf:
                tf.extractall(dst.parent, filter="data")
        return dst, f"Django {base.split('-', 1)[1]} sdist (pip download --no-binary :all:)"
    raise SystemExit(f"unknown corpus {name}")


def manifest(root: Path) -> dict[str, int]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath, f)
            try:
                out[str(p.relative_to(root))] = p.lstat().st_size
            except OSError:
                pass
    return out


def pick_names(src: Path, k: int) -> list[dict]:
    """Names with exactly one definition in the corpus and 3-40 call sites of that
    name (from Python's own `ast`, so no tool chooses them), spread evenly over the
    fan-in range."""
    defs: dict[str, int] = {}
    calls: dict[str, int] = {}
    for path in sorted(src.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = defs.get(node.name, 0) + 1
            elif isinstance(node, ast.Call):
                f = node.func
                n = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if n:
                    calls[n] = calls.get(n, 0) + 1
    cands = sorted(
        ((n, c) for n, c in calls.items()
         if defs.get(n) == 1 and 3 <= c <= 40 and len(n) >= 6 and not n.startswith("__")),
        key=lambda x: (-x[1], x[0]),
    )
    if not cands:
        return []
    step = max(1, len(cands) // k)
    return [{"name": n, "ast_call_sites": c} for n, c in cands[::step][:k]]


# ---------------------------------------------------------------- measuring


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, rss bytes) for every process."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                s = f.read()
        except OSError:
            continue
        rest = s[s.rfind(b")") + 2:].split()
        out[int(p)] = (int(rest[1]), int(rest[21]) * PAGE)
    return out


def rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, IndexError):
        return 0


class TreeSampler(threading.Thread):
    """Peak of the summed RSS of a process and all its descendants. Every 20 ms it
    re-reads the RSS of the known tree; every 100 ms it rescans /proc for new
    descendants (a full scan costs ~10 ms here, too much for every tick)."""

    def __init__(self, root: int, timeout: float | None = None) -> None:
        super().__init__(daemon=True)
        self.root, self.timeout = root, timeout
        self.peak, self.tree = 0, {root}
        self.stop_flag, self.timed_out = threading.Event(), False

    def rescan(self) -> None:
        table = proc_table()
        kids: dict[int, list[int]] = {}
        for pid, (ppid, _r) in table.items():
            kids.setdefault(ppid, []).append(pid)
        seen, todo = set(), [self.root]
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            todo.extend(kids.get(p, []))
        self.tree = seen | {p for p in self.tree if p in table}

    def run(self) -> None:
        start, tick = time.monotonic(), 0
        while not self.stop_flag.is_set():
            if tick % 5 == 0:
                self.rescan()
            total = sum(rss(p) for p in list(self.tree))
            self.peak = max(self.peak, total)
            tick += 1
            if self.timeout and time.monotonic() - start > self.timeout:
                self.timed_out = True
                try:
                    os.killpg(self.root, signal.SIGKILL)
                except OSError:
                    pass
                return
            self.stop_flag.wait(0.02)


def measured(cmd: list, cwd: Path, env: dict, out: Path, timeout: float = 3600) -> dict:
    """One command, with wall, CPU of the waited tree, peak tree RSS and load."""
    load0 = loadavg()
    with open(out, "wb") as so, open(out.with_suffix(".err"), "wb") as se:
        t0 = time.perf_counter()
        p = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=so, stderr=se,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        sampler = TreeSampler(p.pid, timeout)
        sampler.start()
        _pid, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        sampler.stop_flag.set()
        sampler.join()
        p.returncode = os.waitstatus_to_exitcode(status)
    leftovers = []
    time.sleep(0.3)  # let orphaned children be reaped before asking who is still there
    for pid in sampler.tree - {p.pid}:
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2:][:1] != b"Z":
            leftovers.append(f"{pid} {cmdline[:120]}")
    for pid in (int(x.split()[0]) for x in leftovers):  # a daemon the tool left behind would skew the next figure
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    return {
        "wall_s": wall,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "peak_rss_mib": sampler.peak / 2**20,
        "max_single_rss_mib": ru.ru_maxrss / 1024,
        "rc": p.returncode,
        "timed_out": sampler.timed_out,
        "leftover_processes": leftovers,
        "load_before": load0,
        "load_after": loadavg(),
    }


def quick_run(cmd: list, cwd: Path, env: dict, timeout: float = 600) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    try:
        r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, -9, ""
    return time.perf_counter() - t0, r.returncode, r.stdout.decode("utf-8", "replace")


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round((len(s) - 1) * p))]


class Mcp:
    """Minimal MCP client over stdio: newline-delimited JSON-RPC."""

    def __init__(self, cmd: list, cwd: Path, env: dict, err: Path) -> None:
        self.errf = open(err, "wb")
        self.p = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.errf, start_new_session=True)
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.sampler = TreeSampler(self.p.pid)
        self.sampler.start()
        self.next_id = 0

    def _read(self) -> None:
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def send(self, obj: dict) -> None:
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method: str, params: dict, timeout: float = 600) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            line = self.q.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError("server closed stdout")
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                return msg
            if "method" in msg and "id" in msg:  # a request from the server: decline it
                self.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})

    def initialize(self) -> dict:
        r = self.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                        "clientInfo": {"name": "tsa-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def close(self) -> float:
        try:
            self.p.stdin.close()
            self.p.wait(timeout=15)
        except Exception:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except OSError:
                pass
            self.p.wait()
        self.sampler.stop_flag.set()
        self.sampler.join()
        self.errf.close()
        return self.sampler.peak / 2**20


def mcp_text(msg: dict) -> str:
    if "error" in msg:
        return json.dumps(msg["error"])
    return "".join(c.get("text", "") for c in msg.get("result", {}).get("content", []))


# ---------------------------------------------------------------- tools


class Tool:
    key = label = ""
    index_dirs: list[str] = []

    def __init__(self, work: Path) -> None:
        self.work = work  # this tool's scratch folder for this corpus
        self.root = work / "corpus"
        self.home = work / "home"

    def env(self) -> dict:
        e = dict(os.environ)
        e.pop("TSA_BENCH_IN_VENV", None)
        e.pop("TIKTOKEN_CACHE_DIR", None)
        e.update(HOME=str(self.home), XDG_CACHE_HOME=str(self.home / ".cache"),
                 XDG_CONFIG_HOME=str(self.home / ".config"), XDG_DATA_HOME=str(self.home / ".local/share"))
        return e

    def wipe_index(self) -> None:
        for d in self.index_dirs:
            p = self.root / d
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
        if self.home.exists():
            shutil.rmtree(self.home)
        self.home.mkdir(parents=True)

    def version(self) -> str: ...
    def cold(self) -> list: ...
    def incremental(self) -> list: ...
    def callers(self, name: str) -> list: ...
    def count(self, name: str) -> list: ...
    def parse_count(self, out: str): ...
    def mcp_cmd(self) -> list: ...
    def mcp_call(self, name: str) -> tuple[str, dict]: ...


class Tsa(Tool):
    key, label = "tsa", "tsa"
    index_dirs = [".tsa"]

    def __init__(self, work: Path, binary: Path) -> None:
        super().__init__(work)
        self.bin = binary

    def version(self) -> str:
        r = subprocess.run([self.bin, "--version"], capture_output=True, text=True)
        text = (r.stdout.strip() or r.stderr.strip()).removeprefix("tsa").strip()
        return f"{text} (release build)"

    def cold(self):
        return [self.bin, "--project-root", self.root, "index", "full", "--mode", "full"]

    def incremental(self):
        return [self.bin, "--project-root", self.root, "index", "full"]

    def callers(self, name):
        return [self.bin, "--project-root", self.root, "nav", "callers", "--function-name", name]

    count = callers

    def parse_count(self, out):
        return json.loads(out).get("caller_count")

    def mcp_cmd(self):
        return [self.bin, "mcp", "--project-root", self.root]

    def mcp_call(self, name):
        return "nav", {"action": "callers", "function_name": name}


class TreeSitterAnalyzer(Tool):
    key, label = "tree-sitter-analyzer", "tree-sitter-analyzer"
    index_dirs = [".ast-cache", ".tree-sitter-cache", ".tsa"]
    bin = TSA_PY_VENV / "bin" / "tree-sitter-analyzer"

    def version(self):
        r = subprocess.run([self.bin, "--version"], capture_output=True, text=True, env=self.env())
        text = (r.stdout.strip() or r.stderr.strip() or "?").splitlines()[-1]
        return text.removeprefix("tree-sitter-analyzer").strip()

    def cold(self):
        return [self.bin, "--full-index", "--full-index-mode", "full", "--project-root", self.root]

    def incremental(self):
        return [self.bin, "--full-index", "--full-index-mode", "incremental", "--project-root", self.root]

    def callers(self, name):
        return [self.bin, "--callers", name, "--project-root", self.root]

    count = callers

    def parse_count(self, out):
        return json.loads(out).get("caller_count")

    def mcp_cmd(self):
        return [TSA_PY_VENV / "bin" / "tree-sitter-analyzer-mcp", "--project-root", self.root]

    def mcp_call(self, name):
        return "nav", {"action": "callers", "function_name": name}


class CodeGraph(Tool):
    key, label = "codegraph", "CodeGraph"
    index_dirs = [".codegraph"]
    bin = NPM_DIR / "node_modules" / ".bin" / "codegraph"
    # Every MCP tool CodeGraph 1.6.1 defines (dist/mcp/tools.js). By default it serves
    # only codegraph_explore; CODEGRAPH_MCP_TOOLS (short names) replaces that default,
    # and on a project of 500 files or more every allowed tool is also listed.
    ALL_MCP_TOOLS = "search,callers,callees,impact,node,explore,status,files"

    def __init__(self, work: Path, mcp_tools: str | None = "explore,callers") -> None:
        super().__init__(work)
        self.mcp_tools = mcp_tools  # None: CodeGraph's own default surface

    def env(self):
        e = super().env()
        # No telemetry, no update check; no shared background daemon, so the measured
        # process tree is the whole of the work.
        e.update(DO_NOT_TRACK="1", CODEGRAPH_TELEMETRY="0", CODEGRAPH_NO_DAEMON="1",
                 CODEGRAPH_NO_UPDATE_CHECK="1", NO_COLOR="1")
        if self.mcp_tools:
            e["CODEGRAPH_MCP_TOOLS"] = self.mcp_tools
        else:
            e.pop("CODEGRAPH_MCP_TOOLS", None)
        return e

    def version(self):
        r = subprocess.run([self.bin, "--version"], capture_output=True, text=True, env=self.env())
        return r.stdout.strip()

    def cold(self):
        return [self.bin, "init", "-y", self.root]

    def incremental(self):
        return [self.bin, "sync", self.root]

    def callers(self, name):
        return [self.bin, "callers", "--json", "-p", self.root, name]

    def count(self, name):
        return [self.bin, "callers", "--json", "-l", "100000", "-p", self.root, name]

    def parse_count(self, out):
        d = json.loads(out)
        return d.get("total", len(d.get("callers", [])))

    def mcp_cmd(self):
        return [self.bin, "serve", "--mcp", "--no-watch", "--path", self.root]

    def mcp_call(self, name):
        return "codegraph_callers", {"symbol": name}


# ---------------------------------------------------------------- the run


def index_bytes(tool: Tool, src_manifest: dict[str, int]) -> tuple[int, list[str]]:
    """Every byte the tool wrote: files in its corpus copy that the source lacks,
    plus its private HOME."""
    total, where = 0, set()
    for rel, size in manifest(tool.root).items():
        if rel not in src_manifest:
            total += size
            where.add(rel.split(os.sep)[0])
    for rel, size in manifest(tool.home).items():
        total += size
        where.add("$HOME/" + rel.split(os.sep)[0])
    return total, sorted(where)


def pick_touch_file(src: Path) -> str:
    """A mid-sized Python file in the middle of the tree, the same for every tool."""
    files = sorted(p for p in src.rglob("*.py") if 4_000 < p.stat().st_size < 40_000
                   and "test" not in p.parts[-1])
    return str(files[len(files) // 2].relative_to(src))


def bench_corpus(corpus: str, args, tools_factory, tok: Tokens) -> dict:
    src, label = corpus_source(corpus)
    src_manifest = manifest(src)
    log(f"\n=== corpus {corpus}: {label}\n    {src} ({len(src_manifest)} files, "
        f"{sum(src_manifest.values()) / 2**20:.1f} MiB)")
    cache = BENCH_DIR / "names" / f"{corpus}-{args.names}.json"
    if cache.exists():
        names = json.loads(cache.read_text())
    else:
        names = pick_names(src, args.names)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(names))
    touch = pick_touch_file(src)
    log(f"    names: {', '.join(n['name'] for n in names)}\n    one-file change: {touch}")

    tools = tools_factory(BENCH_DIR / "work" / corpus)
    res: dict = {"corpus": corpus, "corpus_label": label, "corpus_files": len(src_manifest),
                 "corpus_mib": sum(src_manifest.values()) / 2**20, "names": names,
                 "touched_file": touch, "tools": {}}
    for t in tools:
        log(f"  copying corpus for {t.key}")
        t.work.mkdir(parents=True, exist_ok=True)
        copy_tree(src, t.root)
        res["tools"][t.key] = {"label": t.label, "version": t.version(), "runs": [], "errors": []}

    # Index runs, interleaved tool by tool.
    for i in range(max(args.runs, args.peer_runs)):
        for t in tools:
            runs = args.runs if t.key == "tsa" else args.peer_runs
            if i >= runs:
                continue
            r = res["tools"][t.key]
            outdir = t.work / "out"
            outdir.mkdir(exist_ok=True)
            t.wipe_index()
            copy_tree(src, t.root)  # fresh, identical sources for every cold run
            cold = measured(t.cold(), t.root, t.env(), outdir / f"cold{i}.out", args.timeout)
            size, where = index_bytes(t, src_manifest)
            cold.update(index_mib=size / 2**20, index_paths=where)
            log(f"  [{t.key} run {i + 1}/{runs}] cold {cold['wall_s']:.1f}s cpu {cold['cpu_s']:.1f}s "
                f"rss {cold['peak_rss_mib']:.0f}MiB index {cold['index_mib']:.1f}MiB rc {cold['rc']} "
                f"load {cold['load_before']:.1f}->{cold['load_after']:.1f}")
            if cold["rc"] != 0 or cold["timed_out"]:
                r["errors"].append(f"cold run {i + 1}: rc {cold['rc']} timed_out {cold['timed_out']}; "
                                   + tail(outdir / f"cold{i}.err"))
            nochange = measured(t.incremental(), t.root, t.env(), outdir / f"nochange{i}.out", args.timeout)
            f = t.root / touch
            original = f.read_bytes()
            f.write_bytes(original + b"\ndef _tsa_bench_added():\n    return 1\n")
            onefile = measured(t.incremental(), t.root, t.env(), outdir / f"onefile{i}.out", args.timeout)
            for what, m in (("no-change", nochange), ("one-file", onefile)):
                if m["rc"] != 0:
                    r["errors"].append(f"{what} re-index run {i + 1}: rc {m['rc']}; "
                                       + tail(outdir / f"{'nochange' if what == 'no-change' else 'onefile'}{i}.err"))
            log(f"  [{t.key} run {i + 1}/{runs}] no-change {nochange['wall_s']:.2f}s one-file {onefile['wall_s']:.2f}s")
            for what, m in (("cold", cold), ("no-change", nochange), ("one-file", onefile)):
                if m["leftover_processes"]:
                    r["errors"].append(f"{what} run {i + 1}: left running: {m['leftover_processes']}")
            r["runs"].append({"cold": cold, "nochange": nochange, "onefile": onefile})

    # Queries on the last index of each tool (warm: the index exists and is current).
    for t in tools:
        r = res["tools"][t.key]
        r["counts"] = {}
        for n in names:
            try:
                _w, rc, out = quick_run(t.count(n["name"]), t.root, t.env())
                r["counts"][n["name"]] = t.parse_count(out) if rc == 0 else f"rc {rc}"
            except Exception as e:  # a peer's odd answer is a result, not a crash
                r["counts"][n["name"]] = f"error: {type(e).__name__}"
        log(f"  [{t.key}] caller counts: {r['counts']}")

        lat, chars, toks, fails, load0 = [], [], [], 0, loadavg()
        quick_run(t.callers(names[0]["name"]), t.root, t.env())  # warm the page cache
        for j in range(args.cli_calls):
            name = names[j % len(names)]["name"]
            w, rc, out = quick_run(t.callers(name), t.root, t.env())
            lat.append(w * 1000)
            chars.append(len(out))
            toks.append(tok.count(out))
            fails += rc != 0
        r["cli"] = {"p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "calls": len(lat), "failures": fails,
                    "chars_median": statistics.median(chars), "tokens_median": statistics.median(toks),
                    "load_before": load0, "load_after": loadavg()}
        log(f"  [{t.key}] CLI callers p50 {r['cli']['p50_ms']:.0f}ms p99 {r['cli']['p99_ms']:.0f}ms "
            f"size {r['cli']['chars_median']:.0f} chars / {r['cli']['tokens_median']:.0f} tokens")

        r["mcp"] = run_mcp(t, names, args.mcp_calls, tok)
        m = r["mcp"]
        if "error" in m:
            r["errors"].append("mcp: " + m["error"])
            log(f"  [{t.key}] MCP failed: {m['error']}")
        else:
            log(f"  [{t.key}] MCP start {m['initialize_ms']:.0f}ms first call {m['first_call_ms']:.0f}ms "
                f"callers p50 {m['p50_ms']:.1f}ms p99 {m['p99_ms']:.1f}ms size {m['chars_median']:.0f} chars / "
                f"{m['tokens_median']:.0f} tokens, server rss {m['server_peak_rss_mib']:.0f}MiB")
    return res


def run_mcp(t: Tool, names: list[dict], calls: int, tok: Tokens) -> dict:
    load0 = loadavg()
    try:
        s = Mcp(t.mcp_cmd(), t.root, t.env(), t.work / "out" / "mcp.err")
    except OSError as e:
        return {"error": str(e)}
    out: dict = {}
    try:
        t0 = time.perf_counter()
        s.initialize()
        out["initialize_ms"] = (time.perf_counter() - t0) * 1000
        tool, a = t.mcp_call(names[0]["name"])
        t0 = time.perf_counter()
        first = s.request("tools/call", {"name": tool, "arguments": a})
        out["first_call_ms"] = (time.perf_counter() - t0) * 1000
        if "error" in first or first.get("result", {}).get("isError"):
            out["error"] = "first call failed: " + mcp_text(first)[:300]
            return out
        lat, chars, toks, fails = [], [], [], 0
        for j in range(calls):
            tool, a = t.mcp_call(names[j % len(names)]["name"])
            t0 = time.perf_counter()
            msg = s.request("tools/call", {"name": tool, "arguments": a})
            lat.append((time.perf_counter() - t0) * 1000)
            text = mcp_text(msg)
            chars.append(len(text))
            toks.append(tok.count(text))
            fails += "error" in msg or bool(msg.get("result", {}).get("isError"))
        out.update(p50_ms=pct(lat, 0.5), p99_ms=pct(lat, 0.99), calls=calls, failures=fails,
                   chars_median=statistics.median(chars), tokens_median=statistics.median(toks))
        return out
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"[:300] + " " + tail(t.work / "out" / "mcp.err")
        return out
    finally:
        out["server_peak_rss_mib"] = s.close()
        out.update(load_before=load0, load_after=loadavg())


def tail(p: Path, n: int = 300) -> str:
    try:
        return p.read_text(errors="replace")[-n:].replace("\n", " | ")
    except OSError:
        return ""


# ---------------------------------------------------------------- report


def machine() -> dict:
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gib": round(mem, 1), "kernel": platform.release(),
            "python": platform.python_version(),
            "node": subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()}


def med(runs: list[dict], phase: str, field: str) -> float | None:
    if field == "peak_mib":  # the sampled tree sum, or the largest process's own high-water mark if above
        xs = [max(r[phase]["peak_rss_mib"], r[phase]["max_single_rss_mib"]) for r in runs if r[phase].get("rc") == 0]
        return statistics.median(xs) if xs else None
    xs = [r[phase][field] for r in runs if r[phase].get("rc") == 0]
    return statistics.median(xs) if xs else None


def fmt(x, digits=1) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    return f"{x:,.{digits}f}"


def ratio(a, b) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2g}"


def markdown(res: dict, meta: dict) -> str:
    keys = list(res["tools"])
    peers = [k for k in keys if k != "tsa"]
    T = res["tools"]

    def row(label, getter, digits=1):
        vals = {k: getter(T[k]) for k in keys}
        cells = [fmt(vals[k], digits) for k in keys]
        cells += [ratio(vals.get("tsa"), vals[p]) for p in peers]
        return f"| {label} | " + " | ".join(cells) + " |"

    def mcp(field):
        return lambda t: t["mcp"].get(field) if "mcp" in t and "error" not in t["mcp"] else None

    def cli(field):
        return lambda t: t.get("cli", {}).get(field)

    def loads(t):
        xs = [r[ph][w] for r in t["runs"] for ph in ("cold", "nochange", "onefile")
              for w in ("load_before", "load_after")]
        return f"{min(xs):.1f}–{max(xs):.1f}" if xs else "n/a"

    head = "| figure | " + " | ".join(T[k]["label"] for k in keys) + " | " + " | ".join(
        f"tsa / {T[p]['label']}" for p in peers) + " |"
    sep = "|" + "---|" * (1 + len(keys) + len(peers))
    lines = [
        f"### {res['corpus_label']}",
        "",
        f"{res['corpus_files']:,} files, {res['corpus_mib']:.1f} MiB. Date {meta['date']}; machine: "
        f"{meta['machine']['cpu']}, {meta['machine']['cores']} cores, {meta['machine']['ram_gib']} GiB RAM, "
        f"Linux {meta['machine']['kernel']}. Runs: "
        + ", ".join(f"{T[k]['label']} {len(T[k]['runs'])}" for k in keys)
        + " (medians). Versions: " + "; ".join(f"{T[k]['label']} {T[k]['version']}" for k in keys) + ".",
        "",
        head,
        sep,
        row("cold index, wall (s)", lambda t: med(t["runs"], "cold", "wall_s")),
        row("cold index, CPU user+sys (s)", lambda t: med(t["runs"], "cold", "cpu_s")),
        row("cold index, peak RSS of process tree (MiB)", lambda t: med(t["runs"], "cold", "peak_mib"), 0),
        row("index size on disk (MiB)", lambda t: med(t["runs"], "cold", "index_mib")),
        row("re-index, no change, wall (s)", lambda t: med(t["runs"], "nochange", "wall_s"), 2),
        row("re-index, one file changed, wall (s)", lambda t: med(t["runs"], "onefile", "wall_s"), 2),
        row("callers over CLI, p50 (ms)", cli("p50_ms"), 0),
        row("callers over CLI, p99 (ms)", cli("p99_ms"), 0),
        row("callers over MCP, p50 (ms)", mcp("p50_ms"), 1),
        row("callers over MCP, p99 (ms)", mcp("p99_ms"), 1),
        row("MCP server start (initialize round trip, ms)", mcp("initialize_ms"), 1),
        row("MCP server peak RSS (MiB)", mcp("server_peak_rss_mib"), 0),
        row("CLI answer, median chars", cli("chars_median"), 0),
        row("CLI answer, median tokens", cli("tokens_median"), 0),
        row("MCP answer, median chars", mcp("chars_median"), 0),
        row("MCP answer, median tokens", mcp("tokens_median"), 0),
        "| load average (1 min) during index runs | " + " | ".join(loads(T[k]) for k in keys)
        + " |" + " |" * len(peers),
        "",
        "Each tool at its defaults, in its own copy of the corpus with its own `$HOME`. tsa: "
        "`index full --mode full` (cold), `index full` (re-index), `nav callers --function-name N` (JSON), "
        "`tsa mcp` tool `nav` action `callers` (TOON). tree-sitter-analyzer: `--full-index --full-index-mode "
        "full|incremental`, `--callers N` (JSON with caller bodies), `tree-sitter-analyzer-mcp` tool `nav` "
        "action `callers`. CodeGraph (`DO_NOT_TRACK=1 CODEGRAPH_NO_DAEMON=1`): `init -y` after deleting "
        "`.codegraph/`, `sync`, `callers --json`, `serve --mcp --no-watch` tool `codegraph_callers` "
        "(enabled with `CODEGRAPH_MCP_TOOLS=explore,callers`, which lists it too on a project of 500 files "
        "or more, while below that only explore, search and node are listed, the others still callable; "
        "answers a short Markdown list). "
        "Index size counts every byte a tool wrote into its corpus copy and its `$HOME`. "
        "Ratios are tsa / peer from the same run: below 1 favours tsa.",
        "",
        "Caller counts each tool reports for the same names (chosen by Python's `ast`: one "
        "definition, 3–40 call sites of the name; no judgement made here):",
        "",
        "| name | call sites of the name (ast) | " + " | ".join(T[k]["label"] for k in keys) + " |",
        "|---|---|" + "---|" * len(keys),
    ]
    for n in res["names"]:
        lines.append(f"| `{n['name']}` | {n['ast_call_sites']} | "
                     + " | ".join(str(T[k].get("counts", {}).get(n["name"], "n/a")) for k in keys) + " |")
    errs = [(T[k]["label"], e) for k in keys for e in T[k]["errors"]]
    if errs:
        lines += ["", "Failures:", ""] + [f"- {lab}: {e}" for lab, e in errs]
    return "\n".join(lines) + "\n"


def report(res: dict, meta: dict) -> str:
    return markdown(res, meta) + (
        f"\nCommand: `{meta['command']}`; tokens: {meta['tokenizer']}; started {meta['started']}, "
        f"finished {meta['finished']}.\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=["mini", "cpython", "django", "all"], default=None)
    ap.add_argument("--runs", type=int, default=None, help="cold/re-index runs of tsa (default 3)")
    ap.add_argument("--peer-runs", type=int, default=None, help="runs of each peer (default: --runs)")
    ap.add_argument("--cli-calls", type=int, default=None, help="CLI callers invocations per tool (default 20)")
    ap.add_argument("--mcp-calls", type=int, default=None, help="MCP callers calls per tool (default 100)")
    ap.add_argument("--names", type=int, default=10, help="how many function names to query")
    ap.add_argument("--tools", default="tsa,tree-sitter-analyzer,codegraph")
    ap.add_argument("--tsa-bin", default=None, help="tsa binary (default: release build, built if missing)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds before one index command is killed")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: mini corpus unless --corpus is given, 1 run, 5 CLI and 20 MCP calls")
    ap.add_argument("--reinstall", action="store_true")
    ap.add_argument("--report", metavar="JSON", default=None,
                    help="only rewrite the Markdown of an earlier run from its JSON")
    args = ap.parse_args()
    if args.report:
        data = json.loads(Path(args.report).read_text())
        meta = data.pop("meta")
        Path(args.report).with_suffix(".md").write_text(report(data, meta))
        return
    q = args.quick
    args.corpus = args.corpus or ("mini" if q else "all")
    args.runs = args.runs or (1 if q else 3)
    args.peer_runs = args.peer_runs or args.runs
    args.cli_calls = args.cli_calls or (5 if q else 20)
    args.mcp_calls = args.mcp_calls or (20 if q else 100)

    bootstrap()
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    install_peers(args.reinstall)
    wanted = args.tools.split(",")
    binary = tsa_binary(args.tsa_bin) if "tsa" in wanted else Path("tsa")
    tok = Tokens()

    def factory(work: Path) -> list[Tool]:
        all_tools = [Tsa(work / "tsa", binary), TreeSitterAnalyzer(work / "tree-sitter-analyzer"),
                     CodeGraph(work / "codegraph")]
        return [t for t in all_tools if t.key in wanted]

    meta = {"date": dt.date.today().isoformat(), "started": dt.datetime.now().isoformat(timespec="seconds"),
            "machine": machine(), "tokenizer": tok.source,
            "command": "python3 bench/peers.py " + " ".join(sys.argv[1:])}
    log(f"machine: {meta['machine']}\ntokenizer: {tok.source}\nload: {Path('/proc/loadavg').read_text().strip()}")
    corpora = ["cpython", "django"] if args.corpus == "all" else [args.corpus]
    RESULTS.mkdir(parents=True, exist_ok=True)
    for c in corpora:
        res = bench_corpus(c, args, factory, tok)
        meta["finished"] = dt.datetime.now().isoformat(timespec="seconds")
        stem = RESULTS / f"{meta['date']}-{c}"
        stem.with_suffix(".json").write_text(json.dumps({"meta": meta, **res}, indent=1, default=str))
        md = report(res, meta)
        stem.with_suffix(".md").write_text(md)
        log("\n" + md)
        log(f"written {stem}.md and .json")


if __name__ == "__main__":
    main()
