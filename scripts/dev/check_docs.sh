#!/usr/bin/env bash
# check_docs.sh — fails when the documentation and the comments stop telling the truth about the
# repository. Three rules, each finding printed as `file:line: what is wrong`:
#
# 1. Names. A doc (every tracked *.md) or a code comment (*.cpp, *.hpp, *.h, *.sh, CMakeLists.txt,
#    and the *.mjs/*.js of tests/ outside node_modules) names only what exists here:
#    - a path under one of the top-level folders (actors/, capsule/, docs/, examples/, http/,
#      launcher/, member/, messages/, os/, scripts/, tests/) names a tracked file or folder (a
#      name without its extension, `messages/vocabulary/trace_line`, and a glob, `tests/fuzz/*_fuzz.cpp`,
#      count when something matches);
#    - a markdown link `[text](path)` resolves from the doc's own folder, and its `#anchor`, if
#      any, is a heading of the target;
#    - a bare `<page>.md` resolves from the file's folder or the repository root;
#    - `<page>.md §Heading` cites a heading that the page has (the first words are enough);
#    - nothing points outside the repository (`../shared`, `/work/shared`, the seed files by
#      file name, a numbered `§1.3` of a page that is not here) or cites an issue number
#      (`issue 12`, `Issue 15, item 3`): state the rule, or cite docs/spec/;
#    - nothing quotes the seeds: the citation forms `Seed:` and `Seed "…"` are reported (the
#      seeds are not in the repository; docs/spec/ states their rules in our own words, and a
#      comment cites it, `Rule: … (docs/spec/<page>.md §<heading>)`). Other mentions of the
#      seeds ("the seed documents") are fine. No page of docs/spec/ bears the name of a page
#      outside (OUTSIDE_PAGES below): a citation of ours must not read as one of those.
# 2. Codes. The E-/W- codes the program can print (those in string literals of the product
#    sources, tests/ excluded) are exactly the codes that head a section (`### E-ROS-001 …`) of
#    docs/errors.md; and a code named anywhere else (docs, comments, tests) is one of them or is
#    listed under docs/errors.md's "Codes that do not exist" heading.
# 3. README commands. Every command line of a ```sh/```bash block of README.md that starts with
#    `mur ` or `scripts/` (each part of `a && b`) is run by a test, outside its comments:
#    - `mur …`: a test file that runs the binary (it names MUR_BINARY; benches are not tests)
#      holds on one call site — a line naming the first word, in a shell script one that runs
#      mur, and the three lines after it — the command's words (`trace`, `show`) and every flag it
#      passes (`--follow`), as string literals in C++/JavaScript, as words in a shell script;
#    - `scripts/<name>.sh`: a test, scripts/test.sh or .ci/run runs it as a command (CMake: on a
#      COMMAND line), never only in a message or a test's name.
#    A block preceded by `<!-- tested-by: FILE[, FILE…] -->` is looked up in those files only
#    (each must exist), and there its words and flags may stand anywhere in one file (for argv
#    lists built in pieces).
#    `--readme` also prints, for each command, the test that runs it.
#
# Run by ctest ("hygiene: …", CMakeLists.txt) and by hand from anywhere in the repository.
# Plain bash and python3 (3.9+), about a second. Exit 0 when nothing is found, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 - "$@" <<'PY'
import bisect, fnmatch, os, re, shlex, subprocess, sys

ROOT_DIRS = ("actors", "capsule", "docs", "examples", "http", "launcher", "member", "messages",
             "os", "scripts", "tests")
# Files of this project that live outside the repository: a comment must not send a reader there.
OUTSIDE_NAMES = ("formations.txt", "formation_credentials.txt")
# Pages of the project's documents outside the repository: docs/spec/ must not hold a page of the
# same name, or a citation of ours reads as a citation of theirs.
OUTSIDE_PAGES = ("README.md", "decisions.md", "models-and-mcp.md", "a2a-v1.md", "murmur-capsule.md",
                 "murmur-door.md", "murmur-formation.md", "ARCHITECTURE.md", "toolchain.md")

findings = []
def finding(path, line, text):
    findings.append(f"{path}:{line}: {text}")

def repository_files():
    """Tracked and new (not ignored) files; without git, the tree minus builds and node_modules."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout.decode()
        return out.split("\0")
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top, dirs, names in os.walk("."):
            dirs[:] = [d for d in dirs if d not in (".git", "node_modules", ".murmur") and not
                       (top == "." and d.startswith("build"))]
            found += [os.path.relpath(os.path.join(top, n)) for n in names]
        return found

files = sorted({f for f in repository_files() if f and os.path.exists(f) and "node_modules/" not in f})
file_set = set(files)
dir_set = set()
for f in files:
    parts = f.split("/")
    for i in range(1, len(parts)):
        dir_set.add("/".join(parts[:i]))

TEXTS = {}
def read(path):
    if path not in TEXTS:
        with open(path, encoding="utf-8", errors="replace") as fh:
            TEXTS[path] = fh.read()
    return TEXTS[path]

# ---------------------------------------------------------------------------------------------
# Comments, with the line each piece starts on.

C_TOKENS = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|\Z)|R"([^()\\ \n]{0,16})\(.*?\)\1"|"(?:[^"\\\n]|\\.)*"|(?<!\w)'(?:[^'\\\n]|\\.)*'""", re.S)
JS_TOKENS = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""", re.S)

def c_like_comments(text, js):
    """(line, text) of every // and /* */ comment of C++ or JavaScript source: one scan that skips
    string, character and raw-string literals (JavaScript: template literals too)."""
    out, starts = [], [0] + [m.end() for m in re.finditer("\n", text)]
    for m in (JS_TOKENS if js else C_TOKENS).finditer(text):
        tok = m.group(0)
        if not tok.startswith("/"):
            continue
        line = bisect.bisect_right(starts, m.start())
        body = tok[2:] if tok.startswith("//") else tok[2:].removesuffix("*/")
        for k, piece in enumerate(body.split("\n")):
            out.append((line + k, piece))
    return out

def hash_comments(text):
    """(line, text) of every # comment of a shell script or CMakeLists.txt."""
    out = []
    for no, raw in enumerate(text.split("\n"), 1):
        if no == 1 and raw.startswith("#!"):
            continue
        quote, k = None, 0
        while k < len(raw):
            ch = raw[k]
            if quote:
                if ch == "\\" and quote == '"': k += 1
                elif ch == quote: quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#" and (k == 0 or raw[k - 1] in " \t;(|&"):
                out.append((no, raw[k + 1:])); break
            k += 1
    return out

def comments_of(path):
    text = read(path)
    if path.endswith((".cpp", ".hpp", ".h")):
        return c_like_comments(text, js=False)
    if path.endswith((".mjs", ".js")):
        return c_like_comments(text, js=True)
    return hash_comments(text)

def is_code(path):
    base = os.path.basename(path)
    if path.endswith((".cpp", ".hpp", ".h", ".sh")) or base == "CMakeLists.txt" or path == ".ci/run":
        return True
    return path.startswith("tests/") and path.endswith((".mjs", ".js"))

# ---------------------------------------------------------------------------------------------
# Rule 1: what docs and comments name.

HEADINGS = {}
def headings(md):
    if md not in HEADINGS:
        hs, fenced = [], False
        for raw in read(md).split("\n"):
            if raw.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"#{1,6} ", raw):
                hs.append(raw.lstrip("#").strip())
        HEADINGS[md] = hs
    return HEADINGS[md]

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")

def exists(path):
    path = path.rstrip("/")
    if path in file_set or path in dir_set:
        return True
    if any(ch in path for ch in "*?["):
        return any(fnmatch.fnmatchcase(f, path) for f in files) or any(fnmatch.fnmatchcase(d, path) for d in dir_set)
    return any(f.startswith(path + ".") and "/" not in f[len(path):] for f in files)

def resolve(base_dir, target):
    """The repository path `target` names from `base_dir`, or None when it leaves the repository."""
    joined = os.path.normpath(os.path.join(base_dir, target)) if base_dir else os.path.normpath(target)
    return None if joined.startswith("..") or os.path.isabs(joined) else joined

# Words that look like paths under a top-level folder and are not: the OTLP protocol names
# (OTEL_EXPORTER_OTLP_PROTOCOL, docs/observability.md).
NOT_PATHS = {"http/protobuf", "http/json"}
PATH_RE = re.compile(r"(?<![\w./<>$~{}@:-])((?:%s)/[\w./*?\-]*)" % "|".join(ROOT_DIRS))
MDNAME_RE = re.compile(r"(?<![\w/.<>$~{}@-])([\w.-]+\.md)\b")
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
ISSUE_RE = re.compile(r"\bissues?\s*#?\s*\d+", re.I)
OUTSIDE_RE = re.compile(r"\.\./shared\b|/work/shared\b|\bshared/(?:spec|seeds|design)\b")
NUMBERED_RE = re.compile(r"§\s*\d")
SEED_QUOTE_RE = re.compile(r"\bSeed(?::|\s*[\"“])")  # `Seed: "…"`, `Seed "Formations": "…"`

MDTOKEN_RE = re.compile(r"((?:[\w.-]+/)*[\w.-]+\.md)\b")

def check_section_refs(path, line, text, base_dirs):
    """`page.md §Heading[, §Other]`: each heading cited after a page must be one of its headings."""
    tokens = list(MDTOKEN_RE.finditer(text))
    for i, m in enumerate(tokens):
        region = text[m.end():tokens[i + 1].start() if i + 1 < len(tokens) else len(text)]
        if not region.lstrip().startswith("§"):
            continue
        target = None
        for b in base_dirs:
            r = resolve(b, m.group(1))
            if r and r in file_set:
                target = r; break
        if target is None:
            continue  # the name itself is reported by the other checks
        for raw in region.split("§")[1:]:
            sec = re.split(r"[,;:()\[\]`'\"“”—–]|\.(?:\s|$)", raw)[0].strip()
            if not sec or sec[0].isdigit():
                continue  # numbered sections are reported by check_names
            hs = headings(target)
            if not any(h.startswith(sec) or sec.startswith(h + " ") or sec == h for h in hs):
                finding(path, line, f"'{m.group(1)} §{sec}': {target} has no such heading")

SELF = "scripts/dev/check_docs.sh"  # it names the patterns it refuses

def check_names(path, line, text, is_doc, in_fence=False):
    folder = os.path.dirname(path)
    for m in OUTSIDE_RE.finditer(text if path != SELF else ""):
        finding(path, line, f"'{m.group(0)}' points outside the repository: cite docs/spec/ or state the rule")
    for name in OUTSIDE_NAMES if path != SELF else ():
        if name in text:
            finding(path, line, f"'{name}' is a file outside the repository: state the rule in docs/spec/ and cite it")
    if path != SELF and SEED_QUOTE_RE.search(text):
        finding(path, line, "quotes the seeds: state the rule in docs/spec/ and cite it")
    for m in ISSUE_RE.finditer(text if path != SELF else ""):
        finding(path, line, f"'{m.group(0)}' cites an issue number: state the rule instead")
    for m in NUMBERED_RE.finditer(text if path != SELF else ""):
        before = text[max(0, m.start() - 24):m.start()]
        if not re.search(r"RFC\s*\d+\s*(?:§[\d.]+\s*[–-]\s*)?$", before):
            finding(path, line, "a numbered section '" + text[m.start():m.start() + 6].strip() +
                    "' of a page not in the repository: cite docs/spec/<page>.md §<heading>")
    for m in PATH_RE.finditer(text):
        token = m.group(1).rstrip(".,:;")
        if token in NOT_PATHS:
            continue
        if not exists(token):
            finding(path, line, f"'{token}' does not exist")
    bare = LINK_RE.sub(" ", text) if is_doc else text  # a link is checked by its target
    for m in MDNAME_RE.finditer(bare):
        name = m.group(1)
        if bare[max(0, m.start() - 1):m.start()] == "/":
            continue
        if not any(resolve(b, name) in file_set for b in (folder, "")):
            finding(path, line, f"'{name}' is not a page of the repository (name it by its path, e.g. docs/{name})")
    bases = (folder, "") if is_doc else ("", folder)
    check_section_refs(path, line, text, bases)
    if is_doc and not in_fence:
        for m in LINK_RE.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else resolve(folder, file_part)
            if resolved is None:
                finding(path, line, f"link '{target}' leaves the repository"); continue
            if not exists(resolved):
                finding(path, line, f"link '{target}' names {resolved}, which does not exist"); continue
            if anchor and resolved.endswith(".md") and resolved in file_set:
                if anchor not in {slug(h) for h in headings(resolved)}:
                    finding(path, line, f"link '{target}': {resolved} has no heading #{anchor}")

docs = [f for f in files if f.endswith(".md")]
code = [f for f in files if is_code(f)]
for d in docs:
    fenced = False
    for no, raw in enumerate(read(d).split("\n"), 1):
        if raw.lstrip().startswith("```"):
            fenced = not fenced; continue
        check_names(d, no, raw, is_doc=True, in_fence=fenced)
COMMENTS = {}
for f in code:
    COMMENTS[f] = comments_of(f)
    for no, text in COMMENTS[f]:
        check_names(f, no, text, is_doc=False)

# ---------------------------------------------------------------------------------------------
# Rule 2: the codes the program prints and the codes docs/errors.md explains.

CODE_RE = re.compile(r"\b[EW]-[A-Z]{3}-[0-9]{3}\b")
STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
printed = {}
for f in files:
    if f.endswith((".cpp", ".hpp", ".h")) and not f.startswith("tests/"):
        for no, raw in enumerate(read(f).split("\n"), 1):
            for lit in STRING_RE.findall(raw):
                for c in CODE_RE.findall(lit):
                    printed.setdefault(c, f"{f}:{no}")
documented, retired, section = {}, set(), None
for no, raw in enumerate(read("docs/errors.md").split("\n"), 1):
    if raw.startswith("#"):
        section = raw
        m = re.match(r"###\s+([EW]-[A-Z]{3}-[0-9]{3})\b", raw)
        if m:
            if m.group(1) in documented:
                finding("docs/errors.md", no, f"{m.group(1)} has a second section (first at line {documented[m.group(1)]})")
            documented.setdefault(m.group(1), no)
    elif section and "do not exist" in section:
        retired.update(CODE_RE.findall(raw))
for c in sorted(set(printed) - set(documented)):
    finding(printed[c].split(":")[0], printed[c].split(":")[1], f"{c} is printed but has no section in docs/errors.md")
for c in sorted(set(documented) - set(printed)):
    finding("docs/errors.md", documented[c], f"{c} has a section but no source prints it")
for c in sorted(retired & set(printed)):
    finding(printed[c].split(":")[0], printed[c].split(":")[1], f"{c} is printed but docs/errors.md says it does not exist")
known = set(printed) | retired
for f in files:
    if f == "docs/errors.md" or "corpus/" in f or f.endswith((".png", ".json", ".sse")):
        continue
    if not (f.endswith(".md") or is_code(f)):
        continue
    for no, raw in enumerate(read(f).split("\n"), 1):
        for c in CODE_RE.findall(raw):
            if c not in known:
                finding(f, no, f"{c} is neither printed by the program nor listed in docs/errors.md")

# ---------------------------------------------------------------------------------------------
# Rule 3: every README command is run by a test.

# Where a command may be run: the tests (benches are not tests), the suite's runner, CI, ctest.
test_files = [f for f in files if (f.startswith("tests/") and not f.startswith("tests/bench/")
                                   and f.endswith((".cpp", ".hpp", ".mjs", ".js", ".sh")))
              or f in ("scripts/test.sh", "CMakeLists.txt", ".ci/run")]
SUBCOMMANDS_WITH_VERBS = {"trace", "formations", "help"}

def is_shell(path):
    return path.endswith(".sh") or path in ("CMakeLists.txt", ".ci/run")

CODE = {}
def code_lines(path):
    """The file's lines with every comment blanked out (line numbers kept)."""
    if path not in CODE:
        text = read(path)
        if is_shell(path):
            cut = {no: len(c) + 1 for no, c in hash_comments(text)}
            lines = [l[:len(l) - cut[no]] if no in cut else l for no, l in enumerate(text.split("\n"), 1)]
        else:
            js = path.endswith((".mjs", ".js"))
            blank = lambda m: "\n" * m.group(0).count("\n") if m.group(0).startswith("/") else m.group(0)
            lines = (JS_TOKENS if js else C_TOKENS).sub(blank, text).split("\n")
        CODE[path] = lines
    return CODE[path]

def words_of(cmd):
    """The subcommand words and the flags of one `mur …` command."""
    try:
        argv = shlex.split(cmd)
    except ValueError:
        argv = cmd.split()
    argv = argv[1:]
    words = []
    if argv and re.fullmatch(r"[a-z]+", argv[0]):
        words.append(argv[0])
        if argv[0] in SUBCOMMANDS_WITH_VERBS and len(argv) > 1 and re.fullmatch(r"[a-z]+", argv[1]):
            words.append(argv[1])
    flags = [a.split("=")[0] for a in argv if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", a)]
    return words, flags

def needle(word, shell):
    """A word as an argv element: a string literal in C++/JavaScript, a shell word in a script."""
    if shell:
        return re.compile(r"""(?:^|[\s"'(])%s(?=$|[\s"');|&])""" % re.escape(word))
    return re.compile(r"""["'`]%s["'`]""" % re.escape(word))

MUR_CALL = re.compile(r"\bmur\b|\$\{?MUR|MUR_BINARY", re.I)

def run_by(cmd, candidates, whole_file):
    """Where one of `candidates` passes the command's words and flags, outside comments: on one
    call site (a line naming the first of them, in a shell script one that runs mur, and the
    three lines after it), or anywhere in a file a tested-by note names. None when nowhere."""
    words, flags = words_of(cmd)
    if not words + flags:
        return None
    for t in candidates:
        shell = is_shell(t)
        needles = [needle(w, shell) for w in words + flags]
        lines = code_lines(t)
        text = "\n".join(lines)
        if not all(n.search(text) for n in needles):
            continue
        if whole_file:
            return t
        for i, line in enumerate(lines):
            if needles[0].search(line) and (not shell or MUR_CALL.search(line)) and \
               all(n.search("\n".join(lines[i:i + 4])) for n in needles[1:]):
                return f"{t}:{i + 1}"
    return None

def script_run_by(script, candidates):
    """The test file and line that runs `script`, or None: in a shell script a command (after
    `;`, `&&`, `then`, `exec`, environment assignments…), in CMakeLists.txt a COMMAND, in C++ or
    JavaScript a string literal of code — never a comment, a message or a test's name."""
    esc = re.escape(script)
    as_command = re.compile(r"""(?:^|[;&|(]|\b(?:then|do|else|exec)\b)\s*(?:\w+=(?:"[^"]*"|'[^']*'|\S*)\s+)*"""
                            r"""(?:\$\{?\w+\}?/)?%s(?=\s|$|[;)"])""" % esc)
    in_literal = re.compile(r"""["'`][^"'`\n]*/%s["'`]""" % esc)
    for t in candidates:
        for no, line in enumerate(code_lines(t), 1):
            if script not in line:
                continue
            if t == "CMakeLists.txt":
                hit = "COMMAND" in line and re.search(r"(?:\s|/)%s(?=\s|\)|$)" % esc, line)
            elif is_shell(t):
                hit = as_command.search(line)
            else:
                hit = in_literal.search(line)
            if hit:
                return f"{t}:{no}"
    return None

readme = read("README.md").split("\n")
fence, tested_by, pending = None, None, None
for no, raw in enumerate(readme, 1):
    m = re.match(r"\s*<!--\s*tested-by:\s*(.*?)\s*-->", raw)
    if m and fence is None:
        pending = [p.strip() for p in m.group(1).split(",") if p.strip()]
        for p in pending:
            if p not in file_set:
                finding("README.md", no, f"tested-by names {p}, which does not exist")
        continue
    if raw.startswith("```"):
        if fence is None:
            fence = raw[3:].strip()
            tested_by, pending = pending, None
        else:
            fence, tested_by = None, None
        continue
    if fence is None:
        if raw.strip():
            pending = None
        continue
    if fence not in ("sh", "bash"):
        continue
    for part in re.split(r"\s*(?:&&|\|\||;)\s*", re.sub(r"\s+#.*$", "", raw)):
        part = re.sub(r"\s*&\s*$", "", part.strip())
        if not part.startswith(("mur ", "scripts/")):
            continue
        candidates = [p for p in tested_by if p in file_set] if tested_by else test_files
        if part.startswith("mur "):  # only a file that runs the binary can run a mur command
            candidates = [c for c in candidates if c.startswith("tests/") and "MUR_BINARY" in "\n".join(code_lines(c))]
        if part.startswith("scripts/"):
            script = part.split()[0]
            if script not in file_set:
                finding("README.md", no, f"'{script}' does not exist"); continue
            where = script_run_by(script, candidates)
            if not where:
                finding("README.md", no, f"'{part}': no test runs {script}"); continue
        else:
            where = run_by(part, candidates, whole_file=bool(tested_by))
            if not where:
                words, flags = words_of(part)
                finding("README.md", no, f"'{part}': no call in " + (", ".join(tested_by) if tested_by else "tests/") +
                        " passes " + " ".join(f"'{w}'" for w in words + flags)); continue
        if "--readme" in sys.argv[1:]:
            print(f"README.md:{no}: {part}  <-  {where}")

for page in OUTSIDE_PAGES:
    if os.path.exists("docs/spec/" + page):
        finding("docs/spec/" + page, 1, "has the name of a page outside the repository: rename it")

for f in findings:
    print("check_docs.sh: " + f, file=sys.stderr)
if findings:
    print(f"check_docs.sh: {len(findings)} finding(s); see scripts/dev/check_docs.sh for the rules", file=sys.stderr)
    sys.exit(1)
PY
