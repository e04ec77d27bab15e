/* fuzz_ini.c — libFuzzer target: the `[section] key = value` reader (harness/common/ini.c),
 * from memory (ini_parse_string) and from a file (ini_parse_file).
 *
 * Input: the text of an ini file. The handler refuses a key whose value is "refuse" (so
 * the handler's error path is taken too) and records every call. Checked:
 *   - every call has a section and a key of 1..INI_NAME_MAX-1 name characters, a value
 *     without blanks at either end and no line break, lines counting up from 1, and no
 *     section/key pair twice;
 *   - a refusal has code IDB_EINPUT and a message starting with the file's name;
 *   - for one input in FILE_EVERY (by its length), the file reader agrees with the string
 *     reader on the same bytes: the same calls, the same result and message (an input with
 *     a NUL byte is refused by the file reader; the string reader sees it up to the NUL).
 *     Not every input: ini_parse_file's 1 MB buffer costs ~10 ms under ASan, and the
 *     workload and matrix targets read every input through it anyway.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "ini.h"

#define CALLS_MAX (INI_KEYS_MAX + 1)     /* the reader refuses more keys than INI_KEYS_MAX */
#define REFUSE "refuse"
#define FNV_PRIME 0x100000001b3ULL        /* 64-bit FNV-1a */
#define FILE_EVERY 16                    /* inputs whose length is a multiple go to a file too */

/* The calls of one parse, as one hash and a count, and the pairs seen. */
typedef struct record {
    int calls, last_line;
    uint64_t hash;
    char seen[CALLS_MAX][2 * INI_NAME_MAX + 1];
} record;

/* 1 if s is a valid section or key name. */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= INI_NAME_MAX) return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* FNV-1a of s (and its NUL) into h. */
static uint64_t mix(uint64_t h, const char *s)
{
    do { h = (h ^ (unsigned char)*s) * FNV_PRIME; } while (*s++);
    return h;
}

/* ini handler: check and record the call; refuse the value "refuse". */
static int on_key(void *ctx, const char *section, const char *key, const char *value, int line,
                  idb_err *err)
{
    record *r = ctx;
    FUZZ_CHECK(valid_name(section) && valid_name(key), "bad name [%s] %s", section, key);
    size_t n = strlen(value);
    FUZZ_CHECK(!n || (!strchr(" \t\r", value[0]) && !strchr(" \t\r", value[n - 1])),
               "value '%s' not trimmed", value);
    FUZZ_CHECK(!strchr(value, '\n'), "value with a line break");
    FUZZ_CHECK(line > r->last_line, "line %d after line %d", line, r->last_line);
    FUZZ_CHECK(r->calls < CALLS_MAX, "more than %d keys", CALLS_MAX);
    char pair[sizeof r->seen[0]];
    snprintf(pair, sizeof pair, "%s\n%s", section, key);
    for (int i = 0; i < r->calls; i++)
        FUZZ_CHECK(strcmp(r->seen[i], pair) != 0, "[%s] %s given twice", section, key);
    memcpy(r->seen[r->calls++], pair, sizeof pair);
    r->last_line = line;
    r->hash = mix(mix(mix(r->hash, section), key), value) + (uint64_t)line;
    if (strcmp(value, REFUSE) == 0) return idb_fail(err, IDB_EINPUT, "refused");
    return 0;
}

/* A refusal names the file and has a code. */
static void check_refusal(int rc, const idb_err *err, const char *name)
{
    if (rc == 0) return;
    FUZZ_CHECK(rc == IDB_EINPUT || rc == IDB_ENOMEM, "code %d", rc);
    FUZZ_CHECK(strncmp(err->msg, name, strlen(name)) == 0, "message '%s' does not start with "
               "the file name", err->msg);
}

/* One input: an ini text, read from memory and (some inputs) from a file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static record a, b;                  /* static: a fresh 66 KB per input costs ASan dearly */
    char path[PATH_MAX];
    fuzz_tmp_path("fuzz.ini", path, sizeof path);
    char *text = fuzz_text(data, size);
    a.calls = b.calls = a.last_line = b.last_line = 0;
    a.hash = b.hash = 0;
    idb_err ea = { 0 }, eb = { 0 };
    int ra = ini_parse_string(path, text, on_key, &a, &ea);
    check_refusal(ra, &ea, path);
    free(text);
    if (size % FILE_EVERY != 0) return 0;
    fuzz_write_file(path, data, size);
    int rb = ini_parse_file(path, on_key, &b, &eb);
    check_refusal(rb, &eb, path);
    if (!memchr(data, 0, size)) {
        FUZZ_CHECK(ra == rb && a.calls == b.calls && a.hash == b.hash,
                   "file and string readers differ: %d/%d calls, %d/%d", a.calls, b.calls,
                   ra, rb);
        FUZZ_CHECK(strcmp(ea.msg, eb.msg) == 0, "messages differ: '%s' / '%s'", ea.msg, eb.msg);
    } else {
        FUZZ_CHECK(rb != 0, "the file reader accepted a NUL byte");
    }
    return 0;
}
