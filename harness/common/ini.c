/* ini.c — the `[section] key = value` reader (see ini.h for the syntax and the rules). */
#include "ini.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

#define INI_FILE_MAX (1 << 20)   /* larger files are refused: these are hand-written */

typedef struct seen_key {
    char section[INI_NAME_MAX];
    char key[INI_NAME_MAX];
    int line;
} seen_key;

typedef struct ini_state {
    const char *name;
    ini_handler h;
    void *ctx;
    idb_err *err;
    char section[INI_NAME_MAX];
    int have_section;
    seen_key *seen;             /* INI_KEYS_MAX entries */
    int nseen;
} ini_state;

/* 1 if c may appear in a section or key name. */
static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

/* 1 if s (length n) is a non-empty name of name characters shorter than INI_NAME_MAX. */
static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n >= INI_NAME_MAX) return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i])) return 0;
    return 1;
}

/* Trim blanks (space, tab, CR) from both ends of s[0..*n); returns the new start. */
static char *trim(char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t' || *s == '\r')) { s++; (*n)--; }
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r')) (*n)--;
    return s;
}

/* Fill st->err with "NAME:LINE: why"; returns IDB_EINPUT. */
static int line_error(ini_state *st, int line, const char *why)
{
    return idb_fail(st->err, IDB_EINPUT, "%s:%d: %s", st->name, line, why);
}

/* Remember section/key, or fail when it was already given in this file. */
static int check_duplicate(ini_state *st, const char *key, int line)
{
    char why[256];
    for (int i = 0; i < st->nseen; i++) {
        if (strcmp(st->seen[i].section, st->section) == 0 && strcmp(st->seen[i].key, key) == 0) {
            snprintf(why, sizeof why, "duplicate key '%s' in [%s] (first given on line %d)", key,
                     st->section, st->seen[i].line);
            return line_error(st, line, why);
        }
    }
    if (st->nseen == INI_KEYS_MAX) {
        snprintf(why, sizeof why, "too many keys (at most %d)", INI_KEYS_MAX);
        return line_error(st, line, why);
    }
    seen_key *k = &st->seen[st->nseen++];
    strcpy(k->section, st->section);
    strcpy(k->key, key);
    k->line = line;
    return 0;
}

/* Cut a trailing comment off value s[0..*n): a '#' or ';' that starts the (trimmed) value
 * or follows a blank. */
static void cut_comment(const char *s, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if ((s[i] == '#' || s[i] == ';') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
            *n = i;
            return;
        }
}

/* Handle one line s[0..n) (no newline). Returns 0 or IDB_EINPUT with err filled. */
static int parse_line(ini_state *st, char *s, size_t n, int line)
{
    char why[INI_LINE_MAX + 128];
    s = trim(s, &n);
    if (n == 0 || s[0] == '#' || s[0] == ';') return 0;
    if (s[0] == '[') {
        char *close = memchr(s, ']', n);
        if (!close) return line_error(st, line, "section header without closing ']'");
        size_t rest = n - (size_t)(close + 1 - s);
        char *after = trim(close + 1, &rest);          /* only a comment may follow */
        if (rest > 0 && after[0] != '#' && after[0] != ';')
            return line_error(st, line, "unexpected text after the section header");
        size_t len = (size_t)(close - s) - 1;
        char *name = trim(s + 1, &len);
        if (!valid_name(name, len)) {
            snprintf(why, sizeof why, "bad section name '%.*s' (letters, digits, _ . - only)",
                     (int)len, name);
            return line_error(st, line, why);
        }
        memcpy(st->section, name, len);
        st->section[len] = 0;
        st->have_section = 1;
        return 0;
    }
    char *eq = memchr(s, '=', n);
    if (!eq) {
        snprintf(why, sizeof why, "expected 'key = value', '[section]' or a comment, got '%.*s'",
                 (int)n, s);
        return line_error(st, line, why);
    }
    size_t klen = (size_t)(eq - s), vlen = n - klen - 1;
    char *key = trim(s, &klen);
    char *value = trim(eq + 1, &vlen);
    cut_comment(value, &vlen);
    value = trim(value, &vlen);
    if (!valid_name(key, klen)) {
        snprintf(why, sizeof why, "bad key '%.*s' (letters, digits, _ . - only)", (int)klen, key);
        return line_error(st, line, why);
    }
    key[klen] = 0;
    value[vlen] = 0;
    if (!st->have_section) {
        snprintf(why, sizeof why, "key '%s' is outside any [section]", key);
        return line_error(st, line, why);
    }
    int rc = check_duplicate(st, key, line);
    if (rc) return rc;
    idb_err e = { 0 };
    int code = st->h(st->ctx, st->section, key, value, line, &e);
    if (code == 0) return 0;
    return idb_fail(st->err, code, "%s:%d: %s", st->name, line, e.msg[0] ? e.msg : "refused");
}

/* Parse text line by line (see ini.h); the duplicate-key table lives for this call only. */
int ini_parse_string(const char *name, const char *text, ini_handler h, void *ctx, idb_err *err)
{
    ini_state st = { .name = name, .h = h, .ctx = ctx, .err = err };
    st.seen = malloc(sizeof *st.seen * INI_KEYS_MAX);
    if (!st.seen) return idb_fail(err, IDB_ENOMEM, "out of memory");
    char buf[INI_LINE_MAX + 1];
    int line = 0, rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line++;
        if (n > INI_LINE_MAX) {
            char why[64];
            snprintf(why, sizeof why, "line longer than %d bytes", INI_LINE_MAX);
            rc = line_error(&st, line, why);
            break;
        }
        if (memchr(p, '\0', n)) { rc = line_error(&st, line, "NUL byte in line"); break; }
        memcpy(buf, p, n);
        buf[n] = 0;
        rc = parse_line(&st, buf, n, line);
        p = nl ? nl + 1 : p + n;
    }
    free(st.seen);
    return rc;
}

/* Read the whole file (a regular file of at most INI_FILE_MAX bytes: readfile.h) and parse
 * it as text (see ini.h). */
int ini_parse_file(const char *path, ini_handler h, void *ctx, idb_err *err)
{
    size_t n = 0;
    idb_err why = { 0 };
    char *text = idb_read_input(path, INI_FILE_MAX, IDB_EINPUT, &n, &why);
    if (!text) return idb_fail(err, why.code, "%s", why.msg);
    int rc;
    if (memchr(text, '\0', n))
        rc = idb_fail(err, IDB_EINPUT, "%s: contains a NUL byte (not a text file)", path);
    else
        rc = ini_parse_string(path, text, h, ctx, err);
    free(text);
    return rc;
}
