/* cmd_index.c — `idbench index [PARENT]`: write PARENT/index.html (default results/), the
 * list of the results directories in PARENT with their status, revision and headline
 * (results_index.h). A matrix run rewrites results/index.html itself; this command writes an
 * index for results directories kept anywhere else (a matrix run's --out outside results/
 * writes nothing outside its own directory). Prints the index's path on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "results_index.h"

/* idbench index [PARENT] */
int cmd_index(int argc, char **argv)
{
    if (argc > 2) return cli_usage("index", "index takes at most one directory");
    const char *parent = argc == 2 ? argv[1] : MX_RUNS_DIR;
    if (parent[0] == '-') return cli_usage("index", "index: unknown flag '%s'", parent);
    struct stat sb;
    if (lstat(parent, &sb) != 0)
        return cli_fail(IDB_EINPUT, "index: %s: %s", parent, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return cli_fail(IDB_EINPUT, "index: %s is not a directory%s", parent,
                        S_ISLNK(sb.st_mode) ? " (a symlink)" : "");
    idb_err err = { 0 };
    if (mx_index_write(parent, &err) != 0) return cli_fail_err(&err);
    printf("%s/index.html\n", parent);
    return 0;
}
