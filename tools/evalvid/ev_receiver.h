/* ev_receiver.h - loads the traces of one receiver and builds its frame table. */
#ifndef EV_RECEIVER_H
#define EV_RECEIVER_H
#include "ev_frames.h"

typedef struct {
  ev_sd_pkt *sd; size_t nsd;
  ev_rd_pkt *rd; size_t nrd;
  double *arrival;            /* per sd packet, NaN = lost */
  ev_frame *f; size_t n;      /* frames 0..n-1 */
  size_t duplicates;
} ev_receiver;

/* SD: sender dump; RD: receiver dump, or NULL for a lossless receiver (arrival = send time);
 * ST: video trace, needed only for a five-column sd. Builds frames and jitter; the schedule is
 * left to the caller (ev_playout_schedule). */
int ev_receiver_load(ev_receiver *r, const char *sdpath, const char *rdpath, const char *stpath,
                     char *err, size_t errlen);
void ev_receiver_free(ev_receiver *r);


#include <stdio.h>
/* The per-frame table as CSV (header + one row per frame; times absolute, s; empty = none). */
void ev_frames_write_csv(FILE *out, const ev_frame *f, size_t n);
#endif
