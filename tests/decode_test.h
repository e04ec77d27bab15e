/* decode_test.h — what the strategy tests share to look at decode()'s output: two
 * callbacks (fields one by one, or all of them as one "key=value;" string) and a
 * cmocka test-function macro. Include after <cmocka.h>. */
#ifndef IDB_DECODE_TEST_H
#define IDB_DECODE_TEST_H

#include <stdio.h>
#include <string.h>

/* A cmocka test function (state unused). */
#define TEST(name) static void name(void **state __attribute__((unused)))

#define DECODED_MAX 512

typedef struct fields { int n; char key[16][32]; char val[16][64]; } fields;

/* decode() callback, ctx a fields: remember each key and value. */
static inline void collect_fields(void *ctx, const char *key, const char *value)
{
    fields *f = ctx;
    assert_true(f->n < 16);
    snprintf(f->key[f->n], sizeof f->key[0], "%s", key);
    snprintf(f->val[f->n], sizeof f->val[0], "%s", value);
    f->n++;
}

/* The value decode() gave for key (fails the test when missing). */
static inline const char *field(const fields *f, const char *key)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->key[i], key) == 0) return f->val[i];
    fail_msg("decode gave no field %s", key);
    return NULL;
}

/* decode() callback, ctx a char[DECODED_MAX]: append "key=value;". */
static inline void collect_text(void *ctx, const char *key, const char *value)
{
    char *decoded = ctx;
    size_t n = strlen(decoded);
    snprintf(decoded + n, DECODED_MAX - n, "%s=%s;", key, value);
}

#endif
