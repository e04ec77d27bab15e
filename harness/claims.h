/* claims.h — the chapter's claims, each checked by an experiment (filled in below). */
#ifndef IDB_CLAIMS_H
#define IDB_CLAIMS_H
#endif
