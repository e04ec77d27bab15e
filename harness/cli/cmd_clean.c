/* cmd_clean.c — `idbench clean DIR`: stop the private servers a killed idbench left under
 * DIR (found by their pid files, signalled only when their start time still matches) and
 * remove their socket directories; DIR and the servers' data stay. docs/servers.md.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "server.h"

/* idbench clean DIR: say how many stale servers were stopped. */
int cmd_clean(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cli_usage("clean", "clean takes one argument, the directory of a run");
    idb_err err = { 0 };
    int stopped = 0;
    if (idb_servers_clean(argv[1], &stopped, &err) != 0) return cli_fail_err(&err);
    printf("stopped %d stale server%s under %s\n", stopped, stopped == 1 ? "" : "s", argv[1]);
    return 0;                                           /* main() checks the write */
}
