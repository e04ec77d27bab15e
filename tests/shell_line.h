/* shell_line.h — a shell command's first line of output (stderr joined), for the server
 * tests that ask a client program (psql, mariadb, redis-cli) what a server holds. */
#ifndef IDB_SHELL_LINE_H
#define IDB_SHELL_LINE_H

#include <stdio.h>
#include <string.h>

/* Run cmd with its stderr joined to stdout; its first line (no newline) into out (len
 * bytes), the rest read and dropped. Returns pclose's status, or -1 when it cannot run. */
static inline int shell_first_line(const char *cmd, char *out, size_t len)
{
    char full[8192];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    out[0] = 0;
    if (!p) return -1;
    if (fgets(out, (int)len, p)) out[strcspn(out, "\n")] = 0;
    while (fgetc(p) != EOF) {}
    return pclose(p);
}

#endif
