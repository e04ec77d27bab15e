/* etcd_http.c — the JSON-gateway client of etcd_http.h: one HTTP/1.1 request per Unix
 * socket connection, the answer read to the end (Connection: close), its status line and
 * body split; a field finder and base64 for keys. */
#include "etcd_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define REQ_HEAD_MAX 512

/* Connect to sock with send and receive timeouts of timeout_ms; the fd or -1. */
static int dial(const char *sock, int timeout_ms)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    if (strlen(sock) >= sizeof a.sun_path) return -1;
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Write all n bytes of p to fd; 0 or -1. */
static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int idb_etcd_call(const char *sock, const char *method, const char *path, const char *body,
                  char *out, size_t cap, int timeout_ms, idb_err *err)
{
    char head[REQ_HEAD_MAX];
    size_t blen = body ? strlen(body) : 0;
    int hn = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: localhost\r\n"
                      "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n", method, path, blen);
    if (hn < 0 || hn >= (int)sizeof head)
        return idb_fail(err, IDB_EUNAVAIL, "etcd: request path too long");
    int fd = dial(sock, timeout_ms);
    if (fd < 0)
        return idb_fail(err, IDB_EUNAVAIL, "etcd: cannot connect to %s: %s", sock,
                        strerror(errno));
    char *buf = malloc(cap + REQ_HEAD_MAX);
    size_t got = 0, room = cap + REQ_HEAD_MAX - 1;
    int ok = buf && send_all(fd, head, (size_t)hn) == 0 && send_all(fd, body, blen) == 0;
    while (ok && got < room) {
        ssize_t r = recv(fd, buf + got, room - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) ok = 0;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    int status = 0;
    if (ok) buf[got] = 0;
    const char *sep = ok ? strstr(buf, "\r\n\r\n") : NULL;
    if (!sep || sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
        free(buf);
        return idb_fail(err, IDB_EUNAVAIL, "etcd: no HTTP answer to %s %s on %s", method, path,
                        sock);
    }
    snprintf(out, cap, "%s", sep + 4);
    free(buf);
    return status;
}

int idb_etcd_field(const char *json, const char *name, char *val, size_t cap)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", name);
    const char *p = strstr(json, pat);
    if (!p || cap == 0) return 0;
    p += strlen(pat);
    int quoted = *p == '"';
    p += quoted;
    size_t n = quoted ? strcspn(p, "\"") : strcspn(p, ",}] \r\n");
    if (n >= cap) n = cap - 1;
    memcpy(val, p, n);
    val[n] = 0;
    return 1;
}

void idb_etcd_base64(const void *in, size_t n, char *out, size_t cap)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *b = in;
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 <= cap; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) |
                     (i + 2 < n ? b[i + 2] : 0);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    if (cap) out[o < cap ? o : cap - 1] = 0;
}
