/* asmp_regime.h - private to lib/cc: what asmp_receiver.c and asmp_regime.c share (not
 * installed). The receiver closes an interval and hands its view to the regime rules, which call
 * back into the paper's equations. */
#ifndef AMCC_ASMP_REGIME_H
#define AMCC_ASMP_REGIME_H
#include "amcc/asmp.h"

/* What one report saw, shared by the rules below. */
typedef struct interval_view {
  double recv;          /* bytes/s received in the interval (0: none) */
  double secs;          /* its length */
  double rtt;           /* eq. 11 */
  double l;             /* eq. 12's loss: loss event rate or eq. 2-3 (loss_events) */
  int lossy;            /* a new loss event (or, with loss_events = 0, a lost packet) */
  int any;              /* packets arrived */
  double q;             /* least queueing delay of the interval, s; < 0 unknown */
  double send;          /* bytes/s the sender sent them at (send_rate), 0 unknown */
  double send_gap;      /* longest pause in the send times reaching into it, s (0 unknown) */
  double send_gap_norm; /* the stream's usual such pause before it, s (0 unknown) */
  double gamma;         /* eq. 19 */
  double lf;            /* eq. 2-3: the filtered loss fraction of the intervals */
  double loss_q;        /* most queueing delay of a packet right after a gap, this interval or
                           the one before, s; < 0 none */
} interval_view;

/* send_gap_s: the sender paused in this interval, whose rates measured the pause */
static inline int
amcc_asmp_paused (const amcc_asmp_params *p, const interval_view *v)
{
  return p->adaptive_mode && p->send_gap_s > 0 && v->send_gap >= p->send_gap_s
      && v->send_gap >= 3 * v->send_gap_norm;
}

/* eq. 12-14 and the first session's deviations (asmp_receiver.c) */
double amcc_asmp_rate_equations (const amcc_asmp_receiver *rx, const interval_view *v,
    double r_prev, double P, double step, double gamma, amcc_time now);
/* The regimes (adaptive_mode): STARTUP, DELAY, COMPETING (asmp_regime.c) */
double amcc_asmp_rate_adaptive (amcc_asmp_receiver *rx, const interval_view *v, double r_prev,
    amcc_time now);
#endif
