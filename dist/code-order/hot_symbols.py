#!/usr/bin/env python3
"""The functions a recorded run executed in the agent and its bundled plug-ins, one symbol per line.

Reads callgrind output files (valgrind's format: `ob=` names the object, `fn=` a function that ran
in it, both with "(id) name" on first use and "(id)" after) and prints the names of the functions
that ran in objects whose file name is `pathwatch` or `libpathwatch_*.so`, sorted, once each. The
linker places these first (--symbol-ordering-file), so the code an agent runs shares pages instead
of being spread over the whole executable.

Usage: hot_symbols.py callgrind.out... > hot.order
"""
import os
import re
import sys

ENTRY = re.compile(r'^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$')


def ours(path):
    name = os.path.basename(path)
    return name == 'pathwatch' or (name.startswith('libpathwatch_') and name.endswith('.so'))


def executed(lines):
    objects, functions = {}, {}
    current = None
    for line in lines:
        match = ENTRY.match(line.rstrip('\n'))
        if not match:
            continue
        kind, ident, name = match.groups()
        table = objects if kind in ('ob', 'cob') else functions
        if name:
            table[ident] = name
        if kind == 'ob':
            current = objects.get(ident)
        elif kind == 'fn' and current is not None and ours(current):
            # Recursion levels are written as name'2, name'3…: the same function.
            yield functions[ident].split("'")[0]


def main(paths):
    if not paths:
        sys.exit('usage: hot_symbols.py callgrind.out... > hot.order')
    names = set()
    for path in paths:
        with open(path, encoding='utf-8', errors='replace') as handle:
            names.update(executed(handle))
    if not names:
        sys.exit('hot_symbols.py: no function of pathwatch or its plug-ins ran in ' + ' '.join(paths))
    sys.stdout.write(''.join(name + '\n' for name in sorted(names)))


if __name__ == '__main__':
    main(sys.argv[1:])
