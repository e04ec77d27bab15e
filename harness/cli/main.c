/* main.c — idbench: the command table and dispatch. Adding a command: one line here,
 * its declaration in cli.h, its file in meson.build. Every command's output is checked
 * here once it returns: a write to stdout that failed is a runtime failure (exit 1). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "store.h"
#include "strategy.h"

const cli_command cli_commands[] = {
    { "list", "list", cmd_list },
    { "help", "help [STRATEGY|STORE]", cmd_help },
    { "gen", "gen NAME [-n COUNT] [-t THREADS] [-o KEY=VALUE]...", cmd_gen },
    { "decode", "decode NAME ID [-o KEY=VALUE]...", cmd_decode },
    { "bench", "bench [--benchmark_* flags]", cmd_bench },
    { "insert", "insert --store S --strategy NAME -n COUNT [--batch B] [--shards K] [--clients C] "
                "[--shops N] "
                "[--dir DIR] [-o KEY=VALUE]... [-s KEY=VALUE]... [--seed N] [--format csv|json] "
                "[--curve P1,P2,...] [--rate R [--arrivals poisson|fixed] [--commit-ms T]] "
                "[--window W --series FILE] [--then STRATEGY:N] [--fault NAME@N[:ARG]]",
      cmd_insert },
    { "read", "read --store S --dir DIR -n LOOKUPS --pattern uniform|recent:H|mixed:P:H|"
              "range:W|shop[:W] "
              "[--strategy NAME] [--cache cold|warm] [--seed N] [--miss-share F] "
              "[--format csv|json]", cmd_read },
    { "simulate", "simulate WORKLOAD.ini... [--seed N] [--strategies a,b,...] "
                  "[--format csv|json|table] [--set SECTION.KEY=VALUE]... [--timeline FILE] "
                  "[--jobs N] [-v]",
      cmd_simulate },
    { "locality", "locality [-n N] [--seed N] [--out DIR]", cmd_locality },
    { "claims", "claims [--quick] [--waits-store STORE|none] [--no-failover]", cmd_claims },
    { "collide", "collide --bits B --rate R", cmd_collide },
    { "matrix", "matrix [MATRIX.ini...] [--quick] [--out DIR] [--repeat N] [--seed N]",
      cmd_matrix },
    { "plot", "plot RESULTS_DIR", cmd_plot },
    { "index", "index [PARENT]", cmd_index },
    { "clean", "clean [DIR]", cmd_clean },
    { "compare", "compare RESULTS_A RESULTS_B | --within RESULTS --a S1 --b S2 [--metric M]... "
                 "[--alpha 0.05] [--format table|csv|json] [--fail-on-regression PCT]",
      cmd_compare },
    { 0 },
};

/* One line for a write to stdout that failed with errnum (0: why is no longer known);
 * returns the exit status, 1. */
int cli_stdout_failed(int errnum)
{
    return cli_fail(IDB_EIO, "cannot write to stdout: %s",
                    errnum ? strerror(errnum) : "an earlier write failed");
}

/* Flush and close stdout after a command returned status: a write that failed now or
 * earlier (the stream's error flag) turns a success into exit 1 with one line. A command
 * that failed has said why already, so nothing more is printed then. */
static int finish_stdout(int status)
{
    int failed = fflush(stdout) != 0, errnum = errno;
    if (!failed && ferror(stdout)) {    /* an earlier write failed and its reason is gone */
        failed = 1;
        errnum = 0;
    }
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        errnum = errno;
    }
    return failed && status == 0 ? cli_stdout_failed(errnum) : status;
}

int main(int argc, char **argv)
{
    idb_err err = { 0 };            /* a plug-in that breaks its interface stops every command */
    if (idb_strategy_check_table(idb_strategies, &err) != 0 ||
        idb_store_check_table(idb_stores, &err) != 0)
        return cli_fail_err(&err);
    if (argc < 2) {
        fprintf(stderr, "idbench: missing command (try: idbench help)\n");
        return EXIT_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return finish_stdout(cmd_help(1, argv + 1));
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, argv[1]) == 0) return finish_stdout(c->run(argc - 1, argv + 1));
    return cli_fail(IDB_EINPUT, "unknown command '%s' (try: idbench help)", argv[1]);
}
