#!/bin/sh
# tree-files.sh DIR: the project's files under DIR as they are now,
# NUL-separated, relative to DIR, for a copy into a chroot: in a git
# checkout (with git installed) the files git knows of or would add; in an
# unpacked tarball or without git, every file but build output (build*/)
# and version control. Never an empty list: that would copy nothing.
set -eu
cd "$1"
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z -co --exclude-standard |
        xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh
else
    find . \( -name .git -o -path './build*' \) -prune -o \( -type f -o -type l \) -print0 | sed -z 's|^\./||'
fi
