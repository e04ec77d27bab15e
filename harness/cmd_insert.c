/* PLACEHOLDER: idbench insert is being written. */
#include "cli.h"
int cmd_insert(int argc, char **argv) { (void)argc; (void)argv; return cli_fail(IDB_EINPUT, "insert: not yet"); }
