/* own_leaks.c: linked into every executable of the sanitizer build
 * (CMakeLists.txt): ASan reads its defaults here first, so the analyser,
 * the generator and every unit test check their leaks at exit, whatever
 * the preloaded defaults (preload_defaults.c) say for other programs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "detect_leaks=1";
}
