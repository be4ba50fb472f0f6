#!/usr/bin/env python3
"""callgrind_entry_cost.py OUT OBJECT_SUBSTRING: the instructions a shared
object costs a run, counted where the rest of the program calls into it:
the inclusive cost of every call from a function outside the object to one
inside it (its own instructions and everything it asks of the libraries
it calls), from a callgrind output file. Calls the object makes into
itself are inside those, and are not counted again. Prints one integer.

Why not the object's self cost: a plugin that reads bytes itself instead of
asking the library for each one moves instructions into the object while
the run costs less; the cost at the entry points follows the run."""
import re
import sys


def main():
    path, needle = sys.argv[1], sys.argv[2]
    names = {}          # "(n)" -> object path, for ob= / cob=
    current_ob = ""
    call_ob = None      # the callee's object of the last calls= line, until its cost line
    pending = False
    total = 0

    def resolve(value):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", value)
        if not m:
            return value
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "")

    cob = None
    with open(path, errors="replace") as f:
        for line in f:
            if pending:
                pending = False
                parts = line.split()
                # positions then the events (Ir first): skip the position column(s)
                if len(parts) >= 2 and needle not in current_ob and call_ob and needle in call_ob:
                    total += int(parts[1])
                continue
            if line.startswith("ob="):
                current_ob = resolve(line[3:].strip())
                cob = None
            elif line.startswith("cob="):
                cob = resolve(line[4:].strip())
            elif line.startswith(("fn=", "fl=", "fi=", "fe=")):
                cob = None if line.startswith("fn=") else cob
            elif line.startswith("cfn=") or line.startswith("cfi=") or line.startswith("cfl="):
                pass
            elif line.startswith("calls="):
                call_ob = cob if cob is not None else current_ob
                pending = True
                cob = None
    print(total)


if __name__ == "__main__":
    main()
