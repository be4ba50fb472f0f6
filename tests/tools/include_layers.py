#!/usr/bin/env python3
"""include_layers.py [ROOT]: the include structure of meterscope's C code, as
units (a .c file, its .h and its _private.h or _internal.h are one unit) joined by `#include "..."` arrows,
checked against two rules:
- no circle: no unit reaches itself through its includes;
- no arrow back up: a unit includes only units of its own layer or below.
The layers, from the bottom: common/ (shared by everything); plugin/core/
(pure readers and the tracker, no proto_tree); plugin/epan/ (registration,
trees, taps); analyzer/ (over common/ and the pure plugin/core/ readers it
shares); the generator (captures/); fuzz/ over them all. Prints the
circles and upward arrows it finds, and the layers with their units;
exit 1 if there is any. Run by ctest as tree.layers."""
import collections
import os
import re
import sys

LAYERS = [            # (folder, layer): a folder's units belong to its layer
    ("common", 0),
    ("plugin/core", 1),
    ("plugin/epan", 2),
    ("analyzer", 2),
    ("captures", 1),
    ("fuzz", 3),
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    for folder, layer in LAYERS:
        if path == folder or path.startswith(folder + "/"):
            return folder, layer
    return None, None


def sources(root):
    for folder, _ in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def unit(path):
    """A module's private header (X_private.h, X_internal.h) is part of the
    module X: its working records, shared by X's own files only."""
    stem = os.path.splitext(path)[0]
    for suffix in ("_private", "_internal"):
        if stem.endswith(suffix):
            return stem[: -len(suffix)]
    return stem


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = sorted(sources(root))
    by_name = collections.defaultdict(list)
    for f in files:
        by_name[os.path.basename(f)].append(f)
    arrows = collections.defaultdict(set)       # unit -> units it includes
    unresolved = []
    for f in files:
        with open(os.path.join(root, f), errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if here in by_name.get(os.path.basename(inc), []):
                target = here
            else:
                # The build's include folders: a header is found by its name,
                # in its own component (plugin, analyzer, captures) first.
                cands = [c for c in by_name.get(os.path.basename(inc), []) if c.endswith(inc)]
                own = [c for c in cands if c.split("/")[0] == f.split("/")[0]]
                cands = own if len(own) == 1 else cands
                if len(cands) != 1:
                    unresolved.append("%s: %s (%d files of that name)" % (f, inc, len(cands)))
                    continue
                target = cands[0]
            if unit(target) != unit(f):
                arrows[unit(f)].add(unit(target))
    units = sorted({unit(f) for f in files})
    problems = 0
    # No arrow back up.
    for u in units:
        folder, layer = layer_of(u)
        for v in sorted(arrows[u]):
            vf, vl = layer_of(v)
            if vl > layer or (vl == layer and vf != folder and folder != "fuzz"):
                print("UP    %s (%s) -> %s (%s)" % (u, folder, v, vf))
                problems += 1
    # No circle: strongly connected components of more than one unit.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in arrows[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for u in units:
        if u not in index:
            visit(u)
    for comp in comps:
        print("CIRCLE %d units: %s" % (len(comp), ", ".join(comp)))
        problems += 1
    for u in unresolved:
        print("note  unresolved include %s" % u)
    counts = collections.Counter(layer_of(u)[0] for u in units)
    print("layers (bottom first): %s" % ", ".join("%s %d units" % (f, counts[f]) for f, _ in LAYERS))
    print("include_layers: %d units, %d arrows, %d circles, %d arrows back up" % (
        len(units), sum(len(v) for v in arrows.values()), len(comps), problems - len(comps)))
    if not units:
        print("include_layers: no C files in %s" % root)
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
