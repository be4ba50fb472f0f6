/* main.c: the meterscope command-line analyser's entry point.
 *
 * This first version only parses its command line; the analysis of
 * captures (transfer reports, comparisons, recommendations) comes with the
 * plugin's OTA statistics it reads.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef METERSCOPE_VERSION
#define METERSCOPE_VERSION "0.0.0"
#endif

enum { EXIT_REPORT = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_TSHARK = 3 };

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: meterscope [OPTION]... CAPTURE...\n"
            "Turn sniffer captures of CoAP block-wise transfers into transfer reports.\n"
            "\n"
            "  -h, --help       show this help and exit\n"
            "  -V, --version    show the version and exit\n"
            "\n"
            "Exit status: 0 report written, 1 usage error, 2 input error,\n"
            "3 tshark or plugin problem.\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return EXIT_REPORT;
        case 'V':
            printf("meterscope %s\n", METERSCOPE_VERSION);
            return EXIT_REPORT;
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "meterscope: no capture file given (try --help)\n");
        return EXIT_USAGE;
    }
    fprintf(stderr, "meterscope: capture analysis is not implemented in this version\n");
    return EXIT_USAGE;
}
