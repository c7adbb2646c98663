"""Package.swift's targets against what their files import: every module a target's Swift files
import is among its declared dependencies, and every dependency it declares is imported by one of
its files. Read by tools/code-layout.py.

Package.swift is read as text, not through `swift package dump-package`, which would wait for a
build running in the same folder: targets are the `.target(`, `.executableTarget(` and
`.testTarget(` calls, their dependencies the strings, `.product(name:)` and `.target(name:)` calls
and the `let` constants (`let json = Target.Dependency.product(name: "PathwatchJSON", …)`) in
their `dependencies:` list. A product is taken to hold the module of its name.

Targets without Swift files (C targets, system libraries) are left out: their dependencies are
their headers' #include lines, which this does not read.
"""
import os
import re

# Modules of the toolchain and the system, which no target declares.
SYSTEM_MODULES = {
    "Glibc", "Musl", "Darwin", "Foundation", "FoundationEssentials", "Dispatch", "Synchronization",
    "_Concurrency", "Swift", "Testing", "XCTest", "Observation", "Distributed", "RegexBuilder",
    "_StringProcessing", "os",
}
TARGET_CALL = re.compile(r"\.(target|executableTarget|testTarget)\(")
IMPORT = re.compile(
    r"^[ \t]*(?:@[\w]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)", re.M)


def balanced(text, start, open_char, close_char):
    """The text from `start` (an opening bracket) to its closing bracket, exclusive of both."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_char:
            depth += 1
        elif text[i] == close_char:
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    raise ValueError(f"unbalanced {open_char} at {start}")


def without_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def code_only(text):
    """Swift source without comments and multi-line strings (a test's script that says
    `import socket` is not an import)."""
    text = re.sub(r'#?"""(?:.|\n)*?"""#?', '""', text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    return without_comments(text)


def constants(manifest):
    """`let name = Target.Dependency.product(name: "X", …)` and the like: name -> module X."""
    found = {}
    for match in re.finditer(r"^let\s+(\w+)\s*=\s*Target\.Dependency\.(?:product|target)\(\s*name:\s*\"([^\"]+)\"", manifest, re.M):
        found[match.group(1)] = match.group(2)
    return found


def dependency_names(text, named):
    """The modules a `dependencies:` list names."""
    names = []
    calls = re.compile(r"\.(?:product|target|byName)\(\s*name:\s*\"([^\"]+)\"[^)]*\)")
    names += calls.findall(text)
    rest = calls.sub("", text)
    names += re.findall(r"\"([^\"]+)\"", rest)
    names += [named[word] for word in re.findall(r"\b([a-z]\w*)\b", re.sub(r"\"[^\"]*\"", "", rest)) if word in named]
    return names


def targets(manifest):
    """[(kind, name, path, excluded paths, declared modules)] of the Swift targets' calls."""
    manifest = without_comments(manifest)
    named = constants(manifest)
    found = []
    for match in TARGET_CALL.finditer(manifest):
        body = balanced(manifest, match.end() - 1, "(", ")")
        name = re.search(r"\bname:\s*\"([^\"]+)\"", body).group(1)
        path = re.search(r"\bpath:\s*\"([^\"]+)\"", body)
        folder = path.group(1) if path else ("Tests/" if match.group(1) == "testTarget" else "Sources/") + name
        declared = []
        deps = re.search(r"\bdependencies:\s*\[", body)
        if deps:
            declared = dependency_names(balanced(body, deps.end() - 1, "[", "]"), named)
        excluded = []
        exclude = re.search(r"\bexclude:\s*\[", body)
        if exclude:
            excluded = re.findall(r"\"([^\"]+)\"", balanced(body, exclude.end() - 1, "[", "]"))
        found.append((match.group(1), name, folder, excluded, declared))
    return found


def imports(root, folder, excluded):
    """{module: first file importing it} over the Swift files of a target's folder."""
    found = {}
    top = os.path.join(root, folder)
    skipped = [os.path.join(top, item) for item in excluded]
    for directory, _, names in os.walk(top):
        if any(directory == s or directory.startswith(s + os.sep) for s in skipped):
            continue
        for name in sorted(names):
            path = os.path.join(directory, name)
            if not name.endswith(".swift") or path in skipped:
                continue
            for module in IMPORT.findall(code_only(open(path, encoding="utf-8").read())):
                found.setdefault(module, os.path.relpath(path, root))
    return found


def problems(root):
    manifest = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
    found = []
    for kind, name, folder, excluded, declared in targets(manifest):
        imported = imports(root, folder, excluded)
        if not imported and not os.path.isdir(os.path.join(root, folder)):
            found.append(f"Package.swift: {kind} {name}: no folder {folder}")
            continue
        if not any(f.endswith(".swift") for _, _, fs in os.walk(os.path.join(root, folder)) for f in fs):
            continue
        for module, path in sorted(imported.items()):
            if module not in SYSTEM_MODULES and module != name and module not in declared:
                found.append(f"Package.swift: {kind} {name} imports {module} ({path}) but does not declare it")
        for module in sorted(set(declared)):
            if module not in imported:
                found.append(f"Package.swift: {kind} {name} declares {module}, which none of its files imports")
    return found
