/* shell_line.h — for the server tests that ask a client program (psql, mariadb, redis-cli)
 * what a server holds: a command template's words replaced by a server's values, and a
 * shell command's first line of output (stderr joined). */
#ifndef IDB_SHELL_LINE_H
#define IDB_SHELL_LINE_H

#include <stdio.h>
#include <string.h>

/* A word of a command template and what replaces it. */
typedef struct shell_word {
    const char *word, *value;
} shell_word;

/* Copy fmt into cmd (len bytes) with every occurrence of words[0..n)'s words replaced by
 * their values (the first word that matches at a place wins: list longer words first). */
static inline void shell_expand(const char *fmt, const shell_word *words, size_t n, char *cmd,
                                size_t len)
{
    size_t o = 0;
    while (*fmt && o + 1 < len) {
        size_t i = 0;
        while (i < n && strncmp(fmt, words[i].word, strlen(words[i].word)) != 0) i++;
        if (i == n) {
            cmd[o++] = *fmt++;
            continue;
        }
        o += (size_t)snprintf(cmd + o, len - o, "%s", words[i].value);
        fmt += strlen(words[i].word);
    }
    cmd[o < len ? o : len - 1] = 0;
}

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
