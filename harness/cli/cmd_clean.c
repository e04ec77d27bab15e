/* cmd_clean.c — `idbench clean [DIR]`: stop the private servers a killed idbench left under
 * DIR (found by their records, signalled only when proved to be those servers) and remove
 * their socket directories and half-made data, refusing a DIR whose run is live; then,
 * with or without DIR, remove from /tmp the socket directories of ended runs
 * (idb_servers_sweep: owner gone, server gone), which a run whose counter server lived in
 * a private temporary directory leaves where no DIR finds them. DIR and complete data
 * stay. docs/servers.md. A results directory of a matrix killed without a word (or a
 * directory of them) is marked interrupted and its scratch directory removed (mx_recover;
 * docs/results-format.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "matrix.h"
#include "server.h"

/* The results-directory part of clean: the matrix runs at or under dir killed without a
 * word are marked interrupted and their scratch directories removed (mx_recover). */
static void clean_results(const char *dir)
{
    int n = mx_recover(dir);
    if (n) printf("marked %d killed matrix run%s interrupted under %s\n", n, n == 1 ? "" : "s",
                  dir);
}

/* idbench clean [DIR]: say how many stale servers were stopped under DIR (when given) and
 * how many socket directories were removed. */
int cmd_clean(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return cli_usage("clean", "clean takes at most one argument, the directory of a run");
    idb_err err = { 0 };
    int stopped = 0;
    if (argc == 2) clean_results(argv[1]);
    if (argc == 2 && idb_servers_clean(argv[1], &stopped, &err) != 0)
        return cli_fail_err(&err);
    int swept = idb_servers_sweep();
    if (argc == 2)
        printf("stopped %d stale server%s under %s\n", stopped, stopped == 1 ? "" : "s",
               argv[1]);
    printf("removed %d socket director%s of ended runs from /tmp\n", swept,
           swept == 1 ? "y" : "ies");
    return 0;                                           /* main() checks the write */
}
