/* strategy.h — the ID strategy plug-in interface (version 1).
 *
 * One const idb_strategy per strategy, filled with designated initializers, listed in
 * registry.c. A strategy gets its time only from the idb_clock it is given and its
 * randomness only from random.h. Every instance is safe to call from several threads; a
 * strategy whose IDs are ordered says whether the order is per instance or per thread
 * (uuidv7, ulid: per thread, their state kept per thread by slots.h).
 *
 * Per-instance configuration is by option name, so the harness needs no per-strategy code.
 * The harness fills in these options, each only where the strategy declares it, and never
 * over a value the user gave (a user's -o value wins). One function does it for the insert
 * runner and the simulator (harness_kv.h: idb_strategy_harness_kv):
 *
 *   shard       the instance's shard k            insert runner; simulator, per shard
 *   shards      the shard count K                 insert runner; simulator, per shard
 *   base        IDs start above this: the highest simulator, per shard, when a shard is
 *               64-bit ID issued so far             added and re-allocation is safe
 *   worker      a worker ID                       insert runner: k (one worker per shard);
 *                                                 simulator: the API instance (per-instance
 *                                                 strategies; a clash when asked for)
 *   range_size  IDs per leased range              simulator: the workload's range_size
 *   dir         a directory for its own files     insert runner: the run's directory;
 *                                                 simulator: a private temporary one
 *   name        the counter service to use        simulator: its own counter server
 *   dsn, url    the run's counter server          insert, gen, bench, claims: the server
 *               (backend=postgres / redis)          they started (harness/runner/ctrsrv.h)
 *   secret_file its password's file (transport=tcp) the same, when it listens on TCP
 *
 * Lifecycle: create() -> next()... -> destroy(). format/parse/decode need no instance.
 */
#ifndef IDB_STRATEGY_H
#define IDB_STRATEGY_H

#include <stddef.h>

#include "clock.h"
#include "err.h"
#include "id.h"
#include "options.h"

#define IDB_STRATEGY_VERSION 1
/* Room for any strategy's text form plus NUL: a byte is at most 2.41 decimal digits (2 hex,
 * 1.6 base32, 1.35 base62), so a form in base 10 or above of IDB_ID_MAX bytes fits. */
#define IDB_TEXT_MAX (IDB_ID_MAX * 5 / 2 + 2)
_Static_assert(IDB_TEXT_MAX >= IDB_ID_HEX_MAX, "idb_text_hex_format must fit in IDB_TEXT_MAX");

enum idb_coord {
    IDB_COORD_NONE,              /* no other server is asked */
    IDB_COORD_PER_RANGE,         /* a server is asked once per range or block of IDs */
    IDB_COORD_PER_ID,            /* a server is asked for every ID */
};

/* What a strategy promises when several processes, each with its own instance and the
 * default options, make IDs at the same time: whether no two of their IDs are equal, and on
 * what condition. `idbench list` prints it as its fourth column (the name in quotes below),
 * and the uniqueness soak (tests/test_soak.sh) runs several processes of every strategy
 * that promises it, on that condition, and checks that no ID comes twice. The registry
 * refuses a strategy whose condition names an option it does not declare. Restarts are
 * each strategy's own business (its header comment says; see state_file). */
enum idb_xproc {
    IDB_XPROC_NONE,              /* "none": no promise; processes may repeat each other's IDs
                                  * (counter and segment while their counter service is one
                                  * atomic per process; interleaved's shards restart at k+1) */
    IDB_XPROC_ALWAYS,            /* "always": unique with no coordination at all, by random
                                  * bits (a collision is a birthday event: idbench collide) */
    IDB_XPROC_DISTINCT_WORKER,   /* "distinct-worker": unique when each process has its own
                                  * value of the `worker` option, which it must declare */
    IDB_XPROC_SHARED_DIR,        /* "shared-dir": unique when all use one directory, the
                                  * `dir` option, which it must declare (range's leases) */
    IDB_XPROC_COUNT
};

/* The fork rule: what an instance does when used in a child made by fork() (the parent's
 * instance, copied with its state). Every strategy declares one of these in `fork`, the
 * registry refuses a strategy that declares neither, and tests/test_fork.c checks every
 * registered strategy's behaviour against its declaration (one ID, fork, one next() in each
 * process on a manual clock frozen in one ms: the two IDs differ, or the child is refused).
 * The child finds out through forkgen.h (a generation in a MADV_WIPEONFORK page, so a child
 * made by _Fork() or a raw clone() is noticed too; an atfork handler as the second line),
 * at the cost of a load and two compares per next(); tests/test_fork_routes.c checks every
 * strategy over fork, _Fork and clone. The strategy's header comment says why it is safe
 * or why it refuses. */
enum idb_fork {
    IDB_FORK_UNDECLARED,         /* 0: not decided; refused by the registry */
    IDB_FORK_SAFE,               /* provably safe: the child's IDs cannot repeat the parent's
                                  * more often than two unrelated processes' would (fresh
                                  * random bits per ID, or per-process bits redrawn) */
    IDB_FORK_REFUSES,            /* next() in the child returns IDB_EFORK and makes nothing:
                                  * the state it would continue from is the parent's */
    IDB_FORK_COUNT
};

/* What a strategy does when its clock reads earlier than the last time it put in an ID,
 * with its default options (tests/test_sim.c steps a clock back and checks this). */
enum idb_clock_back {
    IDB_CLOCK_UNUSED,            /* 0: it reads no clock (counters, ranges, random) */
    IDB_CLOCK_BACK_CONTINUE,     /* goes on without stopping: its time field stays on the
                                  * last time used (uuidv7, ulid) or repeats it (objectid,
                                  * ksuid: random or counter bits keep IDs apart) */
    IDB_CLOCK_BACK_WAIT,         /* goes on, but waits for the clock where the time it may
                                  * run ahead is used up (sonyflake: one 10 ms tick) */
    IDB_CLOCK_BACK_REFUSE,       /* refuses (IDB_ECLOCK) until the clock passes the last
                                  * time used (snowflake's on_backwards=refuse) */
    IDB_CLOCK_BACK_COUNT
};

/* One text form a strategy declares with its table (`vectors`): a published or
 * hand-checked ID in its text form and the canonical form format() must give back
 * (the same text unless case or spelling differ). tests/test_parsers.c round-trips every
 * registered strategy's vectors, so a new strategy brings its own. */
typedef struct idb_text_vector {
    const char *text, *canonical;
} idb_text_vector;

/* decode() calls emit once per field, in a fixed order; value is text. */
typedef void (*idb_emit_fn)(void *ctx, const char *key, const char *value);

typedef struct idb_strategy {
    int version;                 /* IDB_STRATEGY_VERSION */
    const char *name;            /* short, stable, lowercase: the name on the command line */
    const char *summary;         /* one line for `idbench list` */
    int bits;                    /* ID width: a multiple of 8, 8 .. IDB_ID_MAX * 8; every
                                  * ID next() and parse() make has bits / 8 bytes */
    int time_ordered;            /* 1 if IDs sort (roughly) by creation time */
    enum idb_coord coord;
    enum idb_xproc cross_process;   /* uniqueness across processes (above); 0 = none */
    enum idb_fork fork;          /* the fork rule (above): IDB_FORK_SAFE or IDB_FORK_REFUSES */
    const idb_opt_decl *options; /* terminated by {0}; may be NULL */
    /* Declared behaviour (tests read it instead of naming strategies): */
    enum idb_clock_back on_clock_back;   /* a clock stepped back, default options */
    double max_ids_per_s;        /* most IDs one instance (one worker) can make per second
                                  * (snowflake 4,096,000; sonyflake 25,600); 0: no cap */
    const idb_text_vector *vectors;   /* text forms that round-trip, ended by {0}: at
                                       * least one (the registry refuses none) */
    /* Where its IDs fall in their key space, for range partitioning (the simulator's
     * router, a range-sharded store's split = space, the claims): */
    int value_bits;              /* every ID, read as an unsigned big-endian number, is
                                  * below 2^value_bits: the space equal ranges divide (63
                                  * for a positive signed 64-bit integer: snowflake,
                                  * sonyflake, range, bitrev, autorandom); 0: bits, the
                                  * whole width (idb_strategy_value_bits) */
    int uniform_bits;            /* how many leading bits of that space its IDs spread
                                  * evenly over (random bits, a bit-reversed counter), so up
                                  * to 2^uniform_bits equal ranges take equal shares of the
                                  * inserts (uuidv4 48, bitrev 63, autorandom its 5 shard
                                  * bits); 0: none; never with time_ordered */

    /* Make an instance from checked options (idb_opts_parse) and a clock the caller keeps
     * alive. Returns 0 and *inst, or an IDB_E* code with err filled. */
    int (*create)(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err);
    /* Write the next ID into *id. Returns 0, or IDB_ECLOCK (clock behind; err->behind_ms),
     * IDB_EUNAVAIL, IDB_EEXHAUSTED, IDB_EIO or IDB_EFORK (the fork rule) with err filled;
     * *id is then unspecified. */
    int (*next)(void *inst, idb_id *id, idb_err *err);
    /* Free an instance (NULL is fine). */
    void (*destroy)(void *inst);

    /* Text form of id into buf (IDB_TEXT_MAX bytes), NUL-terminated. */
    void (*format)(const idb_id *id, char *buf);
    /* Strict parser of the text form: returns 0, or IDB_EINPUT with err saying why. */
    int (*parse)(const char *text, idb_id *id, idb_err *err);
    /* Emit the fields of id (options as given to create, e.g. an epoch). Returns 0 or
     * IDB_EINPUT when id is not one this strategy could have made. */
    int (*decode)(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                  idb_err *err);

    /* 1: the store assigns every key (autoinc: an identity or AUTO_INCREMENT column). The
     * insert runner then makes no ID: it asks a store that can assign keys (store.h,
     * version 4: insert_assigned) for each row's key and refuses every other store; 8-byte
     * keys only. next() still works where there is no store (ids, bench, the simulator):
     * what one database would hand out alone. 0 (every other strategy): the strategy's
     * own IDs. An addition within version 1: a table that leaves it out reads 0. */
    int store_assigned;
} idb_strategy;

/* The registry (registry.c): every strategy, NULL-terminated. */
extern const idb_strategy *const idb_strategies[];

/* Check every strategy of table (NULL-terminated; idb_strategies at start-up) against this
 * interface: a name, version == IDB_STRATEGY_VERSION, bits a multiple of 8 in
 * 8 .. IDB_ID_MAX * 8, all six functions set, cross_process one of enum idb_xproc with
 * the option its condition names declared, fork IDB_FORK_SAFE or IDB_FORK_REFUSES,
 * on_clock_back one of enum idb_clock_back, max_ids_per_s not negative, at least one
 * text vector, value_bits 0 or 1..bits, uniform_bits 0..value_bits and not with
 * time_ordered.
 * Returns 0, or IDB_EINPUT with err naming the first plug-in that fails and why. idbench's
 * main() runs it before any command, so no command sees a strategy that breaks the
 * contract (e.g. writes past an idb_id). */
int idb_strategy_check_table(const idb_strategy *const *table, idb_err *err);

/* The name of a cross_process value as `idbench list` prints it ("none", "always",
 * "distinct-worker", "shared-dir"), or "?" for a value out of range. */
const char *idb_xproc_name(enum idb_xproc x);

/* The name of a fork value ("safe", "refuses"), or "?" for any other. */
const char *idb_fork_rule_name(enum idb_fork f);

/* The strategy called name, or NULL. */
const idb_strategy *idb_strategy_find(const char *name);

/* s's value_bits, or bits when it declares none (0): its IDs are below 2^that. */
int idb_strategy_value_bits(const idb_strategy *s);

/* Parse "key=value" options for s and create an instance. Returns 0 or an IDB_E* code. */
int idb_strategy_create_kv(const idb_strategy *s, const char *const *kv, int nkv,
                           idb_clock *clock, void **inst, idb_err *err);

/* Shared text forms (text.c). Each parser is strict: exact length, valid digits only. */
void idb_text_u64_format(const idb_id *id, char *buf);        /* decimal, no leading zeros */
int idb_text_u64_parse(const char *text, idb_id *id, idb_err *err);
void idb_text_uuid_format(const idb_id *id, char *buf);       /* lowercase 8-4-4-4-12 */
int idb_text_uuid_parse(const char *text, idb_id *id, idb_err *err);  /* any case */
/* Check that id is a 16-byte RFC 9562 UUID (variant 0b10) of this version. Returns 0 or
 * IDB_EINPUT; text (may be NULL) names the input in the message. */
int idb_uuid_check(const idb_id *id, const char *text, int version, idb_err *err);
void idb_text_hex_format(const idb_id *id, char *buf);        /* lowercase, 2 digits a byte */
int idb_text_hex_parse(const char *text, int bytes, idb_id *id, idb_err *err);

/* The input text as it may appear in a one-line message: bytes outside printable ASCII
 * become \xNN (a newline must not reach stderr raw), cut with "..." past 60 bytes.
 * buf needs IDB_SHOWN_MAX bytes; returns buf. For parsers' error messages. */
#define IDB_SHOWN_MAX 256
const char *idb_text_shown(const char *text, char *buf);

/* Decode helpers: emit a signed or an unsigned integer (every field that cannot be
 * negative: a value above 2^63 - 1 must not print as negative), or a hex field. */
void idb_emit_int(idb_emit_fn emit, void *ctx, const char *key, long long v);
void idb_emit_uint(idb_emit_fn emit, void *ctx, const char *key, uint64_t v);
void idb_emit_hex(idb_emit_fn emit, void *ctx, const char *key, const uint8_t *p, int n);

/* Emit Unix time ms (>= 0) as ISO 8601 UTC: 2022-02-22T19:22:22.000Z, or to the second
 * (2022-02-22T19:22:22Z) when whole_seconds. */
void idb_emit_time(idb_emit_fn emit, void *ctx, const char *key, int64_t ms, int whole_seconds);

#endif
