/* main.c — idbench: the command table and dispatch. Adding a command: one line here,
 * its declaration in cli.h, its file in meson.build. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const cli_command cli_commands[] = {
    { "list", "list", cmd_list },
    { "help", "help [STRATEGY|STORE]", cmd_help },
    { "gen", "gen NAME [-n COUNT] [-t THREADS] [-o KEY=VALUE]...", cmd_gen },
    { "decode", "decode NAME ID [-o KEY=VALUE]...", cmd_decode },
    { "bench", "bench [--benchmark_* flags]", cmd_bench },
    { "insert", "insert --store S --strategy NAME -n COUNT [--batch B] [--shards K] [--shops N] "
                "[--dir DIR] [-o KEY=VALUE]... [-s KEY=VALUE]... [--seed N] [--format csv|json] "
                "[--curve P1,P2,...]", cmd_insert },
    { "simulate", "simulate WORKLOAD.ini... [--seed N] [--strategies a,b,...] "
                  "[--format csv|json|table] [--set SECTION.KEY=VALUE]... [--timeline FILE] [-v]",
      cmd_simulate },
    { "claims", "claims [--quick]", cmd_claims },
    { "collide", "collide --bits B --rate R", cmd_collide },
    { "matrix", "matrix [MATRIX.ini...] [--quick] [--out DIR] [--repeat N] [--seed N]",
      cmd_matrix },
    { "plot", "plot RESULTS_DIR", cmd_plot },
    { 0 },
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "idbench: missing command (try: idbench help)\n");
        return EXIT_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cmd_help(1, argv + 1);
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, argv[1]) == 0) return c->run(argc - 1, argv + 1);
    return cli_fail(IDB_EINPUT, "unknown command '%s' (try: idbench help)", argv[1]);
}
