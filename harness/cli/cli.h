/* cli.h — what every idbench command shares: the command table, error lines, exit codes,
 * and collecting repeated -o/-s KEY=VALUE arguments.
 *
 * Exit status: 0 success, 2 bad input (usage, unknown names, bad options, malformed IDs),
 * 1 runtime failure. Every failure prints exactly one line on stderr starting "idbench: ":
 * control characters in it are escaped (\n, \xNN) and a message of more than a few hundred
 * bytes keeps its start and its end, the middle cut out.
 */
#ifndef IDB_CLI_H
#define IDB_CLI_H

#include "err.h"

#define EXIT_INPUT 2
#define EXIT_RUNTIME 1
#define CLI_MAX_KV 32

/* A command: `idbench NAME args...`; run gets argv with argv[0] = NAME. */
typedef struct cli_command {
    const char *name;
    const char *usage;       /* one line, after "idbench " */
    int (*run)(int argc, char **argv);
} cli_command;

extern const cli_command cli_commands[];

/* Print "idbench: <message>" on stderr as one line (escaped, shortened: see above); return
 * the exit status for code (2 or 1). */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print err's message as one idbench: line; return its exit status. */
int cli_fail_err(const idb_err *err);

/* Print "idbench: cannot write to stdout: <strerror(errnum)>" (errnum 0: the reason is no
 * longer known); return 1. main() (main.c) checks stdout after every command; a command
 * that stops early on a failed write uses it. */
int cli_stdout_failed(int errnum);

/* Print "idbench: <message>" and the usage of command name; return 2. */
int cli_usage(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growing list of KEY=VALUE strings from repeated -o or -s flags. */
typedef struct cli_kv {
    const char *kv[CLI_MAX_KV];
    int n;
} cli_kv;

/* Append s (kept by pointer). Returns 0, or 2 after printing an error when full. */
int cli_kv_add(cli_kv *l, const char *s);

/* Parse a positive decimal count (>= 1) for flag; returns 0 or prints an error and
 * returns 2. */
int cli_parse_count(const char *flag, const char *s, long long min, long long max, long long *out);

/* The commands, in cmd_*.c files named after them (cmd_ids.c: list, help, gen, decode;
 * cmd_matrix.c: matrix, plot; cmd_clean.c: clean; cmd_compare.c: compare). Each returns
 * the exit status. */
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_insert(int argc, char **argv);
int cmd_read(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_claims(int argc, char **argv);
int cmd_locality(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_collide(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
