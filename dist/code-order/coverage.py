#!/usr/bin/env python3
"""How much of the recorded code order a build still matches.

A release link places the functions named in hot.order first; names it does not find are skipped
without a word. Private functions' names carry counters from the link's merge order, so a change
to the code shifts them until the order is recorded again (`make code-order`). This prints how
many recorded names the release products define, so a benchmark says whether it measured a build
laid out by use.

Usage: coverage.py [PRODUCTS] [ORDER]   (defaults: .build/release, dist/code-order/hot.order)
"""
import glob
import os
import subprocess
import sys


def defined_functions(path):
    listing = subprocess.run(['nm', '--defined-only', path], check=True, capture_output=True, text=True).stdout
    return {fields[2] for fields in (line.split(None, 2) for line in listing.splitlines())
            if len(fields) == 3 and fields[1] in 'tTwW'}


def main():
    products = sys.argv[1] if len(sys.argv) > 1 else '.build/release'
    order = sys.argv[2] if len(sys.argv) > 2 else 'dist/code-order/hot.order'
    binaries = [os.path.join(products, 'pathwatch')] + sorted(glob.glob(os.path.join(products, 'libpathwatch_*.so')))
    missing = [path for path in binaries if not os.path.exists(path)]
    if missing:
        sys.exit('coverage.py: no release build: ' + ', '.join(missing))
    with open(order, encoding='utf-8') as handle:
        recorded = [line.strip() for line in handle if line.strip()]
    defined = set()
    for path in binaries:
        defined |= defined_functions(path)
    found = sum(1 for name in recorded if name in defined)
    private = [name for name in recorded if name.startswith('.L')]
    private_found = sum(1 for name in private if name in defined)
    print(f'code order: {found} of {len(recorded)} recorded functions in the build '
          f'({100 * found // max(len(recorded), 1)} %; private {private_found} of {len(private)})')


if __name__ == '__main__':
    main()
