#!/usr/bin/env python3
"""The shape of the code, drawn from the sources: which module imports which, which folder of a
module uses which (a name declared in one folder and used in another), how long each type is
with its extensions (without the assets it carries as multi-line strings), and whether each
target of Package.swift declares exactly the modules its files import. Exits 1 when a module or
a folder depends on itself through others (a loop), a function of Sources/ is 60 lines or longer,
the core names a sink kind, a sink module reaches the core (it depends on PathwatchSinkKit
instead), the command-line companion reaches SwiftNIO through its dependencies, code of Sources/
reads a configuration object with `container(keyedBy:)` instead of `configObject(keyedBy:)`, or a target imports a module it does not declare or declares one it
never imports; prints the graph either way.

A type's size is a signal, not a rule: a type longer than 300 lines with its extensions is
reported as information (a line starting "information:"), never as a failure, so it never
changes the exit status.

    python3 tools/code-layout.py            # graph and findings
    python3 tools/code-layout.py --quiet    # findings (failures and information) only
    python3 tools/code-layout.py --root DIR # another tree than this one (the tool's own tests)

Folders are compared by the names declared at the top level of their files (types, functions,
constants) and the names the other folders' code mentions; comments and string literals are
left out. A name declared in two folders is ambiguous and counts for neither.

A type's length is its declaration and every `extension` of it in the same module (or, for an
extension of a type of another module of ours, in the module that declares it), counted together.
"""
import collections
import os
import re
import sys

import package_targets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "--root" in sys.argv:
    ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
# A type with its extensions longer than this is reported as information: a signal, not a rule.
TYPE_LINES_NOTED = 300
# A function, initialiser or subscript of Sources/ is shorter than this: past it, its steps want names.
MAX_FUNCTION_LINES = 60
# The agent's core, which must name no sink kind.
CORE = "Sources/PathwatchAgent"
# The command-line companion's target, and what it must not reach through its dependencies: the
# http sink's server lives in the agent's executable alone (docs/design.md).
COMPANION = "PathwatchCLI"
COMPANION_NEVER = {"NIOCore", "NIOPosix", "NIOHTTP1", "NIOSSL"}
# Modules of our own, by folder. Plug-ins' modules are their own world; the SDK is a package.
MODULE_FOLDERS = ["Sources"]

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
TYPE_START = re.compile(
    r"^(?:(?:public|package|private|fileprivate|internal|final|indirect)\s+)*(class|struct|enum|protocol|actor|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)")
IMPORT = re.compile(r"^(?:@testable\s+|@_exported\s+)?import\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def code_only(text):
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r'#"(?:.|\n)*?"#', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//.*", "", text)


def swift_files(folder):
    for directory, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def paths_from(edges, start):
    """Every node `start` reaches through `edges`, with the shortest path to it (start first)."""
    path_to, queue = {start: [start]}, [start]
    while queue:
        current = queue.pop(0)
        for nxt in sorted(edges.get(current, ())):
            if nxt not in path_to:
                path_to[nxt] = path_to[current] + [nxt]
                queue.append(nxt)
    return path_to


def loops(edges):
    """Pairs of nodes that reach each other, each once."""
    reachable = {node: paths_from(edges, node) for node in edges}
    return sorted({tuple(sorted((a, b))) for a in edges for b in reachable[a] if a != b and a in reachable.get(b, ())})


def folder_graph(module_dir):
    files = {}
    for path in swift_files(module_dir):
        relative = os.path.relpath(path, module_dir)
        folder = relative.split(os.sep)[0] if os.sep in relative else "."
        files[path] = (folder, open(path, encoding="utf-8").read())
    owners = collections.defaultdict(set)
    for folder, text in files.values():
        for match in DECLARATION.finditer(text):
            owners[match.group(1)].add(folder)
    edges, reasons = collections.defaultdict(set), collections.defaultdict(set)
    for folder, text in files.values():
        for name in set(NAME.findall(code_only(text))):
            if len(owners.get(name, ())) == 1:
                owner = next(iter(owners[name]))
                if owner != folder:
                    edges[folder].add(owner)
                    reasons[(folder, owner)].add(name)
    return edges, reasons


def type_lengths(path):
    """(keyword, name, lines) of each top-level type declaration or extension in the file, counted
    without multi-line string literals: a page's markup, style and script are assets, not code."""
    lines = code_only(open(path, encoding="utf-8").read()).split("\n")
    found, i = [], 0
    while i < len(lines):
        match = TYPE_START.match(lines[i])
        if match and not lines[i].rstrip().endswith("}"):
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            found.append((match.group(1), match.group(2), end - i + 1))
            i = end
        i += 1
    return found


def module_of(path):
    """The module a source file belongs to, by folder: Sources/X, SDK/Sources/X, Plugins/X/Y."""
    parts = os.path.relpath(path, ROOT).split(os.sep)
    depth = 3 if parts[0] in ("SDK", "Plugins") else 2
    return "/".join(parts[:depth])


def types_with_extensions():
    """{(module, type): [(file, lines), …]}: each type's declaration and its extensions. An
    extension goes with the module that declares the type when that is another module of ours
    (one only: a name two modules declare stays with the extension's own module)."""
    parts, declared = collections.defaultdict(list), collections.defaultdict(set)
    found = []
    for base in ["Sources", "Plugins", "SDK/Sources"]:
        for path in swift_files(os.path.join(ROOT, base)):
            if os.sep + "Tests" + os.sep in path:
                continue
            module = module_of(path)
            for keyword, type_name, count in type_lengths(path):
                found.append((module, keyword, type_name, os.path.relpath(path, ROOT), count))
                if keyword != "extension":
                    declared[type_name].add(module)
    for module, keyword, type_name, path, count in found:
        owners = declared.get(type_name, set())
        if keyword == "extension" and module not in owners and len(owners) == 1:
            module = next(iter(owners))
        parts[(module, type_name)].append((path, count))
    return parts


FUNCTION_START = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|final|override|static|class|mutating|"
    r"nonisolated|convenience|required)(?:\(set\))?\s+)*(?:func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b")


def function_lengths(path):
    """(name, first line, lines) of each function, initialiser, deinitialiser and subscript in
    the file, from its declaration to its closing brace; multi-line strings count as one line."""
    text = code_only(re.sub(r'"""(?:.|\n)*?"""', lambda m: '""' + "\n" * m.group(0).count("\n"),
                            open(path, encoding="utf-8").read()))
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        match = FUNCTION_START.match(line)
        if not match:
            continue
        depth, opened, end = 0, False, i
        while end < len(lines):
            depth += lines[end].count("{") - lines[end].count("}")
            opened = opened or "{" in lines[end]
            if opened and depth <= 0:
                break
            # A protocol requirement: no body.
            if not opened and end > i and lines[end].strip() == "":
                break
            end += 1
        if opened:
            found.append((match.group(0).strip(), i + 1, end - i + 1))
    return found


def sink_kinds_in_core():
    """The core decodes, checks and makes sinks through the registry: no code of it names a kind,
    neither as the configuration's string nor as a sink module's type."""
    kinds = set()
    for path in swift_files(os.path.join(ROOT, "Sources")):
        kinds.update(re.findall(r'SinkKind\(type:\s*"([a-z_]+)"', open(path, encoding="utf-8").read()))
    found = []
    for path in swift_files(os.path.join(ROOT, CORE)):
        code = re.sub(r"//.*", "", open(path, encoding="utf-8").read())
        for kind in sorted(kinds):
            spelled = kind.upper() if len(kind) <= 4 else kind.capitalize()
            # A sink module's type, a switch over kinds, or a comparison with the `type` string.
            if re.search(rf'\b{spelled}Sink|\bcase \.{kind}\b|\btype\W*==\s*"{kind}"', code):
                found.append(f"{os.path.relpath(path, ROOT)}: names the sink kind {kind}")
    return found


def sinks_reaching_core(modules, module_edges):
    """A sink module (one that registers a kind) and every module of ours it imports, directly or
    through others, stay below the core: they depend on the sink interface, not on the agent."""
    found = []
    for name, folder in modules.items():
        if name == os.path.basename(CORE):
            continue
        files = swift_files(folder)
        if not any(re.search(r'SinkKind\(\s*type:', open(path, encoding="utf-8").read()) for path in files):
            continue
        path_to = paths_from(module_edges, name)
        core = os.path.basename(CORE)
        if core in path_to:
            found.append(f"sink module {name} reaches the core: {' -> '.join(path_to[core])} "
                         f"(a sink depends on PathwatchSinkKit, not on {core})")
    return found


def keyed_containers():
    """Configuration types read their objects through `ConfigObject` (PathwatchSinkKit): each
    `KeyedDecodingContainer` of a key type of its own costs a search of every loaded image's
    conformances at start (see ConfigObject.swift)."""
    found = []
    for path in swift_files(os.path.join(ROOT, "Sources")):
        for number, text in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            line = code_only(text)
            if re.search(r"\.container\(keyedBy:", line) and not re.search(r"\bConfigKey\.self", line):
                found.append(f"{os.path.relpath(path, ROOT)}:{number}: reads an object with container(keyedBy:); "
                             f"a configuration type reads it with configObject(keyedBy:)")
    return found


def companion_reaching(root):
    """The path from the companion to a module it must not link, through declared dependencies."""
    manifest = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
    declared = {name: deps for _, name, _, _, deps in package_targets.targets(manifest)}
    if COMPANION not in declared:
        return []
    path_to = paths_from(declared, COMPANION)
    return [f"{COMPANION} reaches {module}: {' -> '.join(path_to[module])} (the companion links no SwiftNIO)"
            for module in sorted(COMPANION_NEVER) if module in path_to]


def main():
    quiet = "--quiet" in sys.argv
    problems, information = [], []
    modules = {}
    for base in MODULE_FOLDERS:
        for name in sorted(os.listdir(os.path.join(ROOT, base))):
            folder = os.path.join(ROOT, base, name)
            if os.path.isdir(folder) and any(swift_files(folder)):
                modules[name] = folder
    module_edges = collections.defaultdict(set)
    for name, folder in modules.items():
        for path in swift_files(folder):
            for imported in IMPORT.findall(open(path, encoding="utf-8").read()):
                if imported in modules and imported != name:
                    module_edges[name].add(imported)
    if not quiet:
        print("modules (from their imports):")
        for name in modules:
            print(f"  {name} -> {', '.join(sorted(module_edges.get(name, ()))) or '(none of ours)'}")
    for a, b in loops(module_edges):
        problems.append(f"module loop: {a} <-> {b}")
    for name, folder in modules.items():
        edges, reasons = folder_graph(folder)
        if not quiet and edges:
            print(f"folders of {name} (from the names they use):")
            for source in sorted(edges):
                print(f"  {source} -> {', '.join(sorted(edges[source]))}")
        for a, b in loops(edges):
            why = sorted(reasons.get((a, b), ()))[:4] + sorted(reasons.get((b, a), ()))[:4]
            problems.append(f"folder loop in {name}: {a} <-> {b} (through {', '.join(why) or 'longer paths'})")
    problems += sink_kinds_in_core()
    problems += sinks_reaching_core(modules, module_edges)
    lengths = types_with_extensions()
    for (module, type_name), parts in sorted(lengths.items()):
        count = sum(lines for _, lines in parts)
        if count > TYPE_LINES_NOTED:
            files = ", ".join(f"{path} ({lines})" for path, lines in parts)
            information.append(
                f"information: {module}: {type_name} is {count} lines with its extensions (over {TYPE_LINES_NOTED}): {files}")
    if not quiet:
        totals = {key: sum(lines for _, lines in parts) for key, parts in lengths.items()}
        longest = sorted(totals.items(), key=lambda item: -item[1])[:5]
        print("longest types with their extensions: " + ", ".join(f"{name} {count}" for (_, name), count in longest))
    functions = [(os.path.relpath(path, ROOT), *found)
                 for path in swift_files(os.path.join(ROOT, "Sources")) for found in function_lengths(path)]
    for path, name, line, count in functions:
        if count >= MAX_FUNCTION_LINES:
            problems.append(f"{path}:{line}: {name} is {count} lines (under {MAX_FUNCTION_LINES})")
    if not quiet:
        longest = sorted(functions, key=lambda item: -item[3])[:5]
        print("longest functions: " + ", ".join(f"{path}:{line} {count}" for path, _, line, count in longest))
    problems += package_targets.problems(ROOT)
    problems += companion_reaching(ROOT)
    problems += keyed_containers()
    for line in information + problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
