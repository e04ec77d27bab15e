/* pagesim_rows.h — the pagesim store's row fields, kept compact in insertion order.
 *
 * The model needs a row's fields only to hand them back from scan(), so they are kept
 * as variable-length integers (about 9 bytes a row instead of a 24-byte record), in
 * blocks of a few rows that are decoded from their start (pagesim_rows.c).
 */
#ifndef IDB_PAGESIM_ROWS_H
#define IDB_PAGESIM_ROWS_H

#include <stdint.h>

typedef struct psr_rows psr_rows;

/* The fields of one row. */
typedef struct psr_row {
    uint32_t shop, display_no;
    int64_t created_ms, total_cents;
} psr_row;

/* An empty table. Returns NULL when out of memory. */
psr_rows *psr_new(void);

/* Make room for the next row, so that psr_append cannot fail. Returns 0, or IDB_ENOMEM
 * (also at 2^32 - 1 rows). */
int psr_reserve(psr_rows *t);

/* Append r as row number psr_count(). Returns 0, or IDB_ENOMEM with the table unchanged
 * (never after psr_reserve). */
int psr_append(psr_rows *t, const psr_row *r);

/* Rows appended so far. */
uint32_t psr_count(const psr_rows *t);

/* Row number i (< psr_count()) into *out. */
void psr_get(const psr_rows *t, uint32_t i, psr_row *out);

/* Free the table (NULL is fine). */
void psr_free(psr_rows *t);

#endif
