/* preload_defaults.c: the sanitizer build's tests preload the ASan and
 * UBSan runtimes into every program they start (CMakeLists.txt), for the
 * plugin inside the system's uninstrumented tshark; this library, preloaded
 * before them (the runtime takes the first definition it finds, and its own
 * is a weak one), gives those programs ASan's defaults. Leaks are checked in
 * tshark, which carries the plugin (it keeps its own allocations reachable
 * until it exits: it reports none of its own); not in the shells, Python and
 * capture tools that the tests also run, whose leaks at exit are theirs.
 * The executables built here bring their own defaults (own_leaks.c), which
 * come first. It runs while the runtime starts, before its interceptors
 * work: a system call and plain loops, no C library function.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <sys/syscall.h>
#include <unistd.h>

const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    static const char name[] = "tshark";
    char exe[4096];
    long n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof exe - 1);
    long base = 0;

    for (long i = 0; i < n; i++)
        if (exe[i] == '/')
            base = i + 1;
    if (n <= 0 || n - base != (long)sizeof name - 1)
        return "detect_leaks=0";
    for (long i = 0; i < (long)sizeof name - 1; i++)
        if (exe[base + i] != name[i])
            return "detect_leaks=0";
    return "detect_leaks=1";
}
