"""Fetching corpora, installing the oracles and running both tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORACLE_PKG = HERE / "oracles"

# Directories neither tool should look into (copied trees may carry them).
NON_SOURCE = ["**/node_modules", "**/__pycache__", "**/.*"]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(cmd: list[str], cwd: Path | None = None, log_to: Path | None = None,
        env: dict | None = None, timeout: float | None = None) -> None:
    """Run a command; on failure show its tail and raise."""
    out = open(log_to, "w") if log_to else subprocess.PIPE
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                           env=env, timeout=timeout, text=True)
    finally:
        if log_to:
            out.close()
    if p.returncode != 0:
        tail = (Path(log_to).read_text() if log_to else p.stdout or "")[-3000:]
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{tail}")


# ---------------------------------------------------------------- oracles


def ensure_oracles(base: Path) -> dict[str, list[str]]:
    """Install the pinned oracles (package.json + package-lock.json beside this
    file) into BASE/oracles with `npm ci`; reinstall when the lock changed."""
    dest = base / "oracles"
    dest.mkdir(parents=True, exist_ok=True)
    lock = (ORACLE_PKG / "package-lock.json").read_text()
    stamp = dest / ".installed-lock"
    bins = {
        "python": dest / "node_modules" / ".bin" / "scip-python",
        "typescript": dest / "node_modules" / ".bin" / "scip-typescript",
    }
    if not (stamp.exists() and stamp.read_text() == lock and all(b.exists() for b in bins.values())):
        log(f"installing oracles into {dest} (npm ci)")
        shutil.copy(ORACLE_PKG / "package.json", dest / "package.json")
        shutil.copy(ORACLE_PKG / "package-lock.json", dest / "package-lock.json")
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=dest,
            log_to=dest / "npm-ci.log")
        stamp.write_text(lock)
    return {k: ["node", str(v)] for k, v in bins.items()}


def oracle_version(kind: str, base: Path) -> str:
    if kind == "java":
        return java_version()
    pkg = base / "oracles" / "node_modules" / "@sourcegraph" / f"scip-{kind}" / "package.json"
    try:
        return json.loads(pkg.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def oracle_name(kind: str, base: Path) -> str:
    if kind == "java":
        return f"javac@{java_version()}"
    return f"scip-{kind}@{oracle_version(kind, base)}"


def java_version() -> str:
    try:
        p = subprocess.run(["javac", "-version"], capture_output=True, text=True)
        return (p.stdout or p.stderr).split()[-1]
    except (OSError, IndexError):
        return "?"


# ---------------------------------------------------------------- corpora

DEBIAN_POOL = "https://deb.debian.org/debian/pool/main"


def _debian_pool_dir(source: str) -> str:
    return f"{source[:4]}/{source}" if source.startswith("lib") else f"{source[0]}/{source}"


def fetch(c: dict, base: Path) -> Path:
    """The corpus archive, downloaded once into BASE/downloads."""
    dl = base / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    name, ver = c["package"], c["version"]
    if c["registry"] == "pypi":
        norm = name.lower().replace("-", "_")
        for f in dl.iterdir():
            fl = f.name.lower().replace("-", "_")
            if fl.startswith(f"{norm}_{ver}.") and fl.endswith((".tar.gz", ".zip")):
                return f
        log(f"pip download {name}=={ver}")
        run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "-q", f"{name}=={ver}", "-d", str(dl)])
        return fetch(c, base)
    if c["registry"] == "npm":
        fname = name.lstrip("@").replace("/", "-") + f"-{ver}.tgz"
        if (dl / fname).exists():
            return dl / fname
        log(f"npm pack {name}@{ver}")
        run(["npm", "pack", "-q", f"{name}@{ver}"], cwd=dl)
        if not (dl / fname).exists():
            raise RuntimeError(f"npm pack did not produce {fname}")
        return dl / fname
    if c["registry"] == "debian":
        # A Debian source package's upstream tarball (`SOURCE_VERSION.orig.tar.*`).
        import urllib.request

        stem = f"{name}_{ver}.orig.tar."
        for f in dl.iterdir():
            if f.name.startswith(stem):
                return f
        for ext in ("xz", "gz", "bz2"):
            url = f"{DEBIAN_POOL}/{_debian_pool_dir(name)}/{stem}{ext}"
            try:
                with urllib.request.urlopen(url, timeout=120) as r:
                    data = r.read()
            except OSError:
                continue
            log(f"downloaded {url}")
            (dl / f"{stem}{ext}").write_bytes(data)
            return dl / f"{stem}{ext}"
        raise RuntimeError(f"no {stem}{{xz,gz,bz2}} under {DEBIAN_POOL}/{_debian_pool_dir(name)}")
    raise ValueError(f"unknown registry {c['registry']!r}")


def _unpack(archive: Path, dest: Path) -> None:
    """Unpack with the archive's single top folder stripped."""
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
    else:
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    tops = list(tmp.iterdir())
    src = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
    shutil.rmtree(dest, ignore_errors=True)
    shutil.move(str(src), str(dest))
    shutil.rmtree(tmp, ignore_errors=True)


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()


def prepare(c: dict, base: Path) -> Path:
    """The prepared corpus copy BASE/corpora/NAME-VERSION (unpacked, trimmed,
    oracle config written). Prepared once; a stamp records the recipe."""
    root = base / "corpora" / f"{c['name']}-{c['version']}"
    recipe = json.dumps(c, sort_keys=True) + "\nv3"
    stamp = base / "corpora" / f".{c['name']}-{c['version']}.prepared"
    if root.is_dir() and stamp.exists() and stamp.read_text() == recipe:
        return root
    archive = fetch(c, base)
    log(f"preparing {root}")
    _unpack(archive, root)
    if c.get("keep"):
        keep = set(c["keep"])
        for p in root.iterdir():
            if p.name not in keep:
                _remove(p)
    for d in c.get("drop", []):
        _remove(root / d)
    if c["oracle"] == "python":
        _write_pyright_config(c, root, base)
    elif c["oracle"] == "typescript":
        _write_tsconfig(c, root)
    stamp.write_text(recipe)
    return root


def _empty_venv(base: Path) -> Path:
    """A Python environment with nothing installed: pyright then resolves imports
    of the corpus to the corpus itself, never to a copy installed on the machine
    (flask is installed here, and would shadow the corpus's own src/flask)."""
    venv = base / "pyenv-empty"
    if not (venv / "pyvenv.cfg").exists():
        run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    return venv


def _write_pyright_config(c: dict, root: Path, base: Path) -> None:
    venv = _empty_venv(base)
    cfg = {
        "exclude": NON_SOURCE + ["docs", ".tsa"] + c.get("exclude", []),
        "venvPath": str(venv.parent),
        "venv": venv.name,
        "extraPaths": c.get("python_paths", ["."]),
        "pythonVersion": "3.11",
    }
    (root / "pyrightconfig.json").write_text(json.dumps(cfg, indent=2) + "\n")


def _write_tsconfig(c: dict, root: Path) -> None:
    """One explicit tsconfig for every TS/JS corpus (the package's own config
    usually extends files that the tarball does not ship). `allowJs` is what
    scip-typescript's --infer-tsconfig writes for a JS-only tree; it is set for
    all corpora so that mixed trees index their JS too."""
    for old in root.glob("tsconfig*.json"):
        old.rename(old.with_name(old.name + ".orig"))
    cfg = {
        "compilerOptions": {
            "allowJs": True,
            "checkJs": False,
            "noEmit": True,
            "target": "ES2022",
            "module": "ESNext",
            "moduleResolution": "Bundler",
            "jsx": "preserve",
            "skipLibCheck": True,
            "types": [],
        },
        "include": [p for p in c.get("keep", ["."]) if p != "package.json"] or ["."],
        "exclude": NON_SOURCE + [".tsa"] + c.get("exclude", []),
    }
    (root / "tsconfig.json").write_text(json.dumps(cfg, indent=2) + "\n")


# ---------------------------------------------------------------- tools


def run_tsa(tsa_bin: str, root: Path, logdir: Path) -> float:
    """A clean full tsa index of ROOT; returns the wall time."""
    shutil.rmtree(root / ".tsa", ignore_errors=True)
    t0 = time.monotonic()
    run([tsa_bin, "--project-root", str(root), "index", "full", "--max-files", "200000",
         "--no-ignore", "true"], log_to=logdir / "tsa-index.log")
    return time.monotonic() - t0


def run_oracle(c: dict, root: Path, base: Path, oracles: dict, fresh: bool) -> tuple[Path, float, bool]:
    """The oracle's index.scip for the corpus (cached in BASE/work/NAME-VERSION
    unless FRESH); returns (path, seconds the oracle took, cached?)."""
    work = base / "work" / f"{c['name']}-{c['version']}"
    work.mkdir(parents=True, exist_ok=True)
    out = work / ("index.json" if c["oracle"] == "java" else "index.scip")
    meta = work / "oracle.json"
    key = {"oracle": c["oracle"], "version": oracle_version(c["oracle"], base),
           "corpus": c}
    if c["oracle"] == "java":
        import hashlib

        key["source"] = hashlib.sha256(JAVA_ORACLE.read_bytes()).hexdigest()[:16]
    if not fresh and out.exists() and meta.exists():
        m = json.loads(meta.read_text())
        if m.get("key") == key:
            return out, m["seconds"], True
    out.unlink(missing_ok=True)
    t0 = time.monotonic()
    if c["oracle"] == "python":
        envfile = base / "python-environment-empty.json"
        envfile.write_text("[]\n")
        cmd = oracles["python"] + [
            "index", "--cwd", str(root), "--project-name", c["name"],
            "--project-version", c["version"], "--environment", str(envfile),
            "--output", str(out), "--show-progress-rate-limit", "30"]
    elif c["oracle"] == "java":
        out = work / "index.json"
        out.unlink(missing_ok=True)
        cmd = _java_oracle_cmd(c, root, out)
    else:
        cmd = oracles["typescript"] + [
            "index", "--cwd", str(root), "--output", str(out), "--no-progress-bar"]
    env = dict(os.environ)
    env.setdefault("NODE_OPTIONS", "--max-old-space-size=8192")
    log(f"oracle {oracle_name(c['oracle'], base)} on {c['name']} ...")
    run(cmd, cwd=root, log_to=work / "oracle.log", env=env, timeout=3 * 3600)
    secs = time.monotonic() - t0
    if not out.exists() or out.stat().st_size < 200:
        raise RuntimeError(f"oracle wrote no usable index ({out}); see {work / 'oracle.log'}")
    meta.write_text(json.dumps({"key": key, "seconds": secs}, indent=2))
    return out, secs, False


JAVA_ORACLE = ORACLE_PKG / "java" / "JavaCallOracle.java"
DEBIAN_JARS = Path("/usr/share/java")


def _java_oracle_cmd(c: dict, root: Path, out: Path) -> list[str]:
    """javac over every `.java` file of the corpus (`module-info.java` aside: the
    tree is compiled as one unnamed module), with the Debian jars the corpus
    names (`java_classpath`, e.g. junit4, from /usr/share/java) on the class path."""
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.java")
                   if p.name != "module-info.java" and not any(part.startswith(".") for part in p.relative_to(root).parts))
    jars = []
    for j in c.get("java_classpath", []):
        jar = DEBIAN_JARS / f"{j}.jar"
        if jar.exists():
            jars.append(str(jar))
        else:
            log(f"  {jar} is missing (apt-get install the package that ships it); calls into it stay unjudged")
    return ["java", "-Xss16m", str(JAVA_ORACLE), str(out), str(root), ":".join(jars)] + files
