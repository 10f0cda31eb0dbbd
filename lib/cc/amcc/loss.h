/* loss.h - loss estimators shared by ASMP, TFMCC and (later) AVMRC/RMRC.
 *
 * 1. amcc_loss_filter: weighted mean of the last 8 per-interval loss rates (ASMP eq. 2-3).
 * 2. amcc_loss_history: Average Loss Interval over 8 loss intervals (RFC 5348 5.4, RFC 4654 5,
 *    AVMRC 3.2): I_mean with and without the open interval I_0, an optional per-interval
 *    discount hook (RFC 5348 5.5), p = 1 / I_mean.
 * 3. amcc_loss_events: turns received extended sequence numbers into loss events (a packet is
 *    lost once AMCC_LOSS_NDUPACK later packets arrived; losses within one RTT -- or tau -- of
 *    an event's first loss belong to that event) and drives an amcc_loss_history.
 * Intervals are counted in packets. Nothing here reads a clock. */
#ifndef AMCC_LOSS_H
#define AMCC_LOSS_H
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_LOSS_N 8              /* history length n (ASMP m = 8, RFC 5348 n = 8) */
/* w_0..w_7 = 1,1,1,1,0.8,0.6,0.4,0.2 (ASMP eq. 3, RFC 5348 5.4) */
extern const double amcc_loss_weights[AMCC_LOSS_N];

/* ---- 1. interval loss-rate filter (ASMP eq. 2-3) ---- */
typedef struct amcc_loss_filter {
  double l[AMCC_LOSS_N];  /* l[0] newest */
  int count;              /* samples held (0..8) */
} amcc_loss_filter;

void amcc_loss_filter_init (amcc_loss_filter *f);
/* Push one interval's loss fraction (clamped to [0,1]; NaN is ignored) and return the smoothed
 * value sum(w_i l_i) / sum(w_i) over the samples held (eq. 2). */
double amcc_loss_filter_push (amcc_loss_filter *f, double interval_loss);
double amcc_loss_filter_value (const amcc_loss_filter *f); /* 0 when empty */

/* ---- 2. loss-event history: Average Loss Interval ---- */
typedef struct amcc_loss_history {
  double interval[AMCC_LOSS_N + 1]; /* [0] = open interval I_0, [1..8] = closed I_1..I_8 */
  int closed;                       /* number of closed intervals held (0..8) */
} amcc_loss_history;

void amcc_loss_history_init (amcc_loss_history *h);
/* Set I_0, the packets since the first loss of the most recent loss event (inclusive). */
void amcc_loss_history_set_open (amcc_loss_history *h, double packets);
/* A new loss event: push a closed interval of 'packets' as I_1 (older ones shift, I_8 drops).
 * Also used to seed the history with a synthetic interval (RFC 5348 6.3.1, RFC 4654 5). */
void amcc_loss_history_push (amcc_loss_history *h, double packets);
int amcc_loss_history_count (const amcc_loss_history *h); /* closed intervals held */
/* I_mean over I_1..I_n (with_open = 0) or I_0..I_(n-1) (with_open = 1), weights w_i,
 * optionally multiplied by caller discount factors df[0..8] (NULL = all 1; RFC 5348 5.5 hook).
 * Returns 0 when no closed interval is held. */
double amcc_loss_history_mean (const amcc_loss_history *h, int with_open, const double *df);
/* max(I_mean with, I_mean without) (RFC 5348 5.4; RFC 4654 5, errata applied). */
double amcc_loss_history_avg (const amcc_loss_history *h, const double *df);
/* Loss event rate p = 1 / avg; 0 when no loss event yet. */
double amcc_loss_history_p (const amcc_loss_history *h, const double *df);
/* RFC 5348 5.5 general discount factor: 1 if I_0 <= 2 I_mean else max(0.5, 2 I_mean / I_0). */
double amcc_loss_history_general_df (const amcc_loss_history *h);

/* ---- 3. loss-event detection from sequence numbers ---- */
#define AMCC_LOSS_NDUPACK 3        /* later packets before a gap counts as lost (RFC 5348 5.1) */
/* Arrivals not yet decided are kept in a ring of this size. A missing packet is lost once 3
 * packets above it have ARRIVED (RFC 5348 5.1), however far above; only when an arrival needs
 * the ring slot of another undecided arrival 64 seqs away are the missing seqs below decided
 * early (as lost): a reordering that deep with fewer than 3 arrivals in between. */
#define AMCC_LOSS_WINDOW 64

/* Bits returned by amcc_loss_events_on_packet(). */
#define AMCC_LOSS_EV_LOST  1       /* at least one packet was declared lost by this arrival */
#define AMCC_LOSS_EV_NEW   2       /* a new loss event started */
#define AMCC_LOSS_EV_FIRST 4       /* ...and it is the first ever: the caller may seed the history
                                      with amcc_loss_history_push() (e.g. from the TFMCC
                                      equation at the current receive rate); nothing was pushed */

typedef struct amcc_loss_events {
  amcc_loss_history hist;
  uint64_t max_seq;                /* highest extended seq seen */
  uint64_t checked;                /* every seq < checked has been declared received or lost */
  uint64_t pending;                /* arrivals in [checked, max_seq] (not decided yet) */
  amcc_time arrival[AMCC_LOSS_WINDOW]; /* arrival time by seq % WINDOW, AMCC_TIME_NONE = none */
  uint64_t slot_seq[AMCC_LOSS_WINDOW];
  uint64_t event_seq;              /* seq of the first loss of the current event */
  amcc_time event_time;            /* (interpolated) time of that loss */
  uint64_t prev_seq;               /* last packet decided received (interpolation anchor) */
  amcc_time prev_time;
  uint64_t events;                 /* loss events so far */
  uint64_t lost;                   /* packets declared lost so far */
  int started;
} amcc_loss_events;

void amcc_loss_events_init (amcc_loss_events *e);
/* One received packet (extended seq from amcc_seq_update, duplicates already filtered).
 * window: losses within this time of an event's first loss join that event (RTT for TFMCC,
 * tau for AVMRC). Returns a mask of AMCC_LOSS_EV_* bits; updates e->hist (I_0 every packet). */
int amcc_loss_events_on_packet (amcc_loss_events *e, amcc_time now, uint64_t ext_seq,
    amcc_time window);
/* Convenience: loss event rate of the history (p = 1/avg, 0 before any loss). */
double amcc_loss_events_p (const amcc_loss_events *e);

#ifdef __cplusplus
}
#endif
#endif
