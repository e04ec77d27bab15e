/* etcd_http.h — a small client for etcd 3.4's JSON gateway over its Unix socket.
 *
 * etcd's v3 API is gRPC; the server also answers the same calls as JSON over plain
 * HTTP/1.1 on its client URL (/v3/lease/grant, /v3/kv/txn, /v3/lease/keepalive, keys and
 * values in base64). idbench speaks that directly (one POST per call, Connection: close)
 * instead of linking a gRPC library or running etcdctl per call: a lease keep-alive every
 * few hundred ms from each generator process would fork a Go program each time, and the
 * server kind's readiness check (GET /health) needs no client at all. The answers are read
 * whole; callers look for the fields they need with idb_etcd_field.
 */
#ifndef IDB_ETCD_HTTP_H
#define IDB_ETCD_HTTP_H

#include <stddef.h>

#include "err.h"

/* Send METHOD path (body: JSON, or NULL for none) to the etcd listening on the Unix socket
 * sock and put the answer's body (chunks as sent, NUL-terminated, cut at cap - 1 bytes)
 * into out. timeout_ms bounds each send and receive. Returns the HTTP status (200 ...), or
 * IDB_EUNAVAIL with err filled (no connection, a timeout, not an HTTP answer). */
int idb_etcd_call(const char *sock, const char *method, const char *path, const char *body,
                  char *out, size_t cap, int timeout_ms, idb_err *err);

/* The value of the first "name":"VALUE" (a quoted string) or "name":VALUE (true, false, a
 * number) in json into val (cap bytes, NUL-terminated). Returns 1 when found, else 0. */
int idb_etcd_field(const char *json, const char *name, char *val, size_t cap);

/* Standard base64 of n bytes of in into out (cap >= 4 * ((n + 2) / 3) + 1). */
void idb_etcd_base64(const void *in, size_t n, char *out, size_t cap);

#endif
