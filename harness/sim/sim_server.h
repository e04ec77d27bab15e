/* sim_server.h — the simulator's counter server: one server with a service time and a FIFO
 * queue of finite capacity, in virtual time.
 *
 * Strategies that declare a counter service `name` (counter, segment) reach it through the
 * counter-service seam (counter_service.h): every take() they make is one request. The
 * simulator tells the server when the order that makes it was sent (sim_server_begin);
 * each request then goes like this:
 *
 *   sent at s ──rtt/2──> arrives at a ──wait──> served [b, b + service) ──rtt/2──> answered
 *
 *   a = s + rtt/2, never before the arrival of the request played before it (requests are
 *       served in the order the simulation plays them);
 *   b = max(a, when the server finishes the request before it) (one request at a time);
 *   answered at b + service + rtt/2; the request's latency is that minus s.
 *
 * A request that would wait while queue_max requests are already waiting is refused
 * (IDB_EUNAVAIL, "queue full") and answered at a + rtt/2; a request sent inside the outage
 * window [outage_start_s, + outage_s) is refused at once (the connection is refused; the
 * window is judged at the send time, so an outage fails exactly the orders sent in it).
 * Refused requests take no service time. A second request of the same order is sent when
 * the first is answered. The capacity of the server is 1 / service requests per second.
 */
#ifndef IDB_SIM_SERVER_H
#define IDB_SIM_SERVER_H

#include <stdint.h>

#include "counter_service.h"
#include "err.h"
#include "sim_workload.h"

typedef struct sim_server {
    idb_counter_service svc;      /* first member: what the strategies are handed */
    idb_counter_service *backend; /* the numbers (an in-process counter, reset per run) */
    int64_t half_rtt_ns, service_ns, queue_max;
    int64_t out0_ns, out1_ns;     /* outage window [out0, out1); INT64_MAX when none */
    int64_t free_ns;              /* when the server finishes its last admitted request */
    int64_t last_arrive_ns;       /* arrival of the last request */
    int64_t *waiting;             /* ring: start times of the admitted requests still waiting */
    int64_t wcap, whead, wlen;
    /* Per order (reset by sim_server_begin). */
    int64_t now_ns;               /* when the next request is sent */
    int64_t lat_ns;               /* time spent in this order's requests so far */
    int requests;                 /* requests this order made (answered or refused) */
    /* Per run. */
    int64_t served, refused_full, refused_down;
} sim_server;

/* Set up server c for workload w with a fresh counter numbered from 1 (named name, also
 * the name its backend counter is kept under with "-numbers" added) and attach it under
 * name. Returns 0, or an IDB_E* code with err filled (the counter table is full). Undo with
 * sim_server_free. */
int sim_server_init(sim_server *c, const sim_workload *w, const char *name, idb_err *err);

/* Detach the server named name and free what it holds (safe on a zeroed struct). */
void sim_server_free(sim_server *c, const char *name);

/* An order sends its first request at true time t_ns (clears the per-order figures). */
void sim_server_begin(sim_server *c, int64_t t_ns);

#endif
