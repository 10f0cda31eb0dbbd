/* loss.c - interval loss filter (ASMP eq. 2-3), Average Loss Interval (RFC 5348 5.4-5.5,
 * RFC 4654 5) and loss-event detection (RFC 5348 5.1-5.2). */
#include <math.h>
#include <string.h>
#include "amcc/loss.h"

const double amcc_loss_weights[AMCC_LOSS_N] = { 1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2 };

void
amcc_loss_filter_init (amcc_loss_filter *f)
{
  memset (f, 0, sizeof *f);
}

/* eq. 2: l = sum(w_i l_i) / sum(w_i), i = 0 newest, over the samples held. */
double
amcc_loss_filter_value (const amcc_loss_filter *f)
{
  double num = 0, den = 0;
  for (int i = 0; i < f->count; i++) {
    num += amcc_loss_weights[i] * f->l[i];
    den += amcc_loss_weights[i];
  }
  return den > 0 ? num / den : 0.0;
}

double
amcc_loss_filter_push (amcc_loss_filter *f, double interval_loss)
{
  if (isnan (interval_loss))
    return amcc_loss_filter_value (f);
  if (interval_loss < 0)
    interval_loss = 0;
  if (interval_loss > 1)
    interval_loss = 1;
  memmove (&f->l[1], &f->l[0], (AMCC_LOSS_N - 1) * sizeof f->l[0]);
  f->l[0] = interval_loss;
  if (f->count < AMCC_LOSS_N)
    f->count++;
  return amcc_loss_filter_value (f);
}

void
amcc_loss_history_init (amcc_loss_history *h)
{
  memset (h, 0, sizeof *h);
}

void
amcc_loss_history_set_open (amcc_loss_history *h, double packets)
{
  h->interval[0] = (packets > 0 && isfinite (packets)) ? packets : 0.0;
}

void
amcc_loss_history_push (amcc_loss_history *h, double packets)
{
  if (!(packets > 0) || !isfinite (packets))
    packets = 1.0;      /* an interval holds at least the lost packet itself */
  memmove (&h->interval[2], &h->interval[1], (AMCC_LOSS_N - 1) * sizeof h->interval[0]);
  h->interval[1] = packets;
  h->interval[0] = 0;
  if (h->closed < AMCC_LOSS_N)
    h->closed++;
}

int
amcc_loss_history_count (const amcc_loss_history *h)
{
  return h->closed;
}

/* RFC 5348 5.4: I_tot1 = sum_{i=1..n} I_i w_(i-1) (without I_0), I_tot0 = sum_{i=0..n-1} I_i w_i
 * (with I_0), each over the intervals held, divided by its own weight total. */
double
amcc_loss_history_mean (const amcc_loss_history *h, int with_open, const double *df)
{
  if (h->closed == 0)
    return 0.0;
  double tot = 0, wtot = 0;
  int first = with_open ? 0 : 1;
  int last = with_open ? (h->closed < AMCC_LOSS_N ? h->closed : AMCC_LOSS_N - 1) : h->closed;
  for (int i = first; i <= last; i++) {
    double w = amcc_loss_weights[i - first] * (df ? df[i] : 1.0);
    tot += h->interval[i] * w;
    wtot += w;        /* RFC 4654 errata: the weight total accumulates */
  }
  return wtot > 0 ? tot / wtot : 0.0;
}

double
amcc_loss_history_avg (const amcc_loss_history *h, const double *df)
{
  double a = amcc_loss_history_mean (h, 0, df), b = amcc_loss_history_mean (h, 1, df);
  return a > b ? a : b;
}

double
amcc_loss_history_p (const amcc_loss_history *h, const double *df)
{
  double avg = amcc_loss_history_avg (h, df);
  if (!(avg > 0))
    return 0.0;
  double p = 1.0 / avg;
  return p > 1.0 ? 1.0 : p;
}

double
amcc_loss_history_general_df (const amcc_loss_history *h)
{
  double mean = amcc_loss_history_mean (h, 0, NULL);
  if (!(mean > 0) || h->interval[0] <= 2.0 * mean)
    return 1.0;
  double df = 2.0 * mean / h->interval[0];
  return df < 0.5 ? 0.5 : df;
}

/* ---- loss-event detection ---- */

void
amcc_loss_events_init (amcc_loss_events *e)
{
  memset (e, 0, sizeof *e);
  amcc_loss_history_init (&e->hist);
  for (int i = 0; i < AMCC_LOSS_WINDOW; i++)
    e->arrival[i] = AMCC_TIME_NONE;
}

/* s arrived and is not decided yet (its ring slot still holds it) */
static int
pending_received (const amcc_loss_events *e, uint64_t s)
{
  unsigned k = (unsigned) (s % AMCC_LOSS_WINDOW);
  return s >= e->checked && e->slot_seq[k] == s && e->arrival[k] != AMCC_TIME_NONE;
}

/* RFC 5348 5.2: a lost packet's time is interpolated between the arrivals around it. */
static amcc_time
interpolate (uint64_t s, uint64_t b_seq, amcc_time b_t, uint64_t a_seq, amcc_time a_t)
{
  if (a_seq <= b_seq)
    return a_t;
  double f = (double) (s - b_seq) / (double) (a_seq - b_seq);
  return b_t + (amcc_time) ((double) (a_t - b_t) * f);
}

static int
on_loss (amcc_loss_events *e, uint64_t s, amcc_time t, amcc_time window)
{
  e->lost++;
  if (e->events == 0) {
    e->events = 1;
    e->event_seq = s;
    e->event_time = t;
    return AMCC_LOSS_EV_LOST | AMCC_LOSS_EV_NEW | AMCC_LOSS_EV_FIRST;
  }
  if (t - e->event_time > window) {
    /* closed interval: from the first loss of the old event to just before this one */
    amcc_loss_history_push (&e->hist, (double) (s - e->event_seq));
    e->events++;
    e->event_seq = s;
    e->event_time = t;
    return AMCC_LOSS_EV_LOST | AMCC_LOSS_EV_NEW;
  }
  return AMCC_LOSS_EV_LOST;
}

static void
decide_received (amcc_loss_events *e, uint64_t s, amcc_time t)
{
  e->prev_seq = s;
  e->prev_time = t;
  e->checked = s + 1;
}

/* Decide seqs from e->checked upwards, in order. A received one is decided at once; a missing
 * one is lost once NDUPACK packets above it have arrived (RFC 5348 5.1: e->pending counts the
 * arrivals in [checked, max_seq]), or unconditionally while below force_below. Stops at the
 * first missing seq that is not decided yet. */
static int
decide (amcc_loss_events *e, uint64_t force_below, amcc_time window)
{
  int mask = 0;
  uint64_t a_seq = 0;             /* next arrival above the seq being decided (cached) */
  amcc_time a_t = 0;
  while (e->checked <= e->max_seq) {
    uint64_t s = e->checked;
    if (pending_received (e, s)) {
      e->pending--;
      decide_received (e, s, e->arrival[s % AMCC_LOSS_WINDOW]);
      continue;
    }
    if (e->pending < AMCC_LOSS_NDUPACK && s >= force_below)
      break;
    if (a_seq <= s) {
      a_seq = 0;
      for (uint64_t n = s + 1; n <= e->max_seq; n++) {
        if (pending_received (e, n)) {
          a_seq = n;
          a_t = e->arrival[n % AMCC_LOSS_WINDOW];
          break;
        }
      }
      if (a_seq == 0) {           /* forced with nothing above: no later arrival to use */
        a_seq = s;
        a_t = e->prev_time;
      }
    }
    mask |= on_loss (e, s, interpolate (s, e->prev_seq, e->prev_time, a_seq, a_t), window);
    e->checked = s + 1;
  }
  return mask;
}

int
amcc_loss_events_on_packet (amcc_loss_events *e, amcc_time now, uint64_t ext_seq,
    amcc_time window)
{
  int mask = 0;
  if (!e->started) {
    e->started = 1;
    e->max_seq = ext_seq;
    e->prev_seq = ext_seq;
    e->prev_time = now;
    e->checked = ext_seq;
  }
  if (ext_seq < e->checked || pending_received (e, ext_seq))
    return 0;                   /* already decided (declared lost, or a duplicate) */
  if (ext_seq > e->max_seq + 65536) {
    /* bound the work after a huge jump: decide what is pending, forget the seqs between */
    mask |= decide (e, e->max_seq + 1, window);
    e->checked = e->max_seq = ext_seq - 65536;
  }
  /* The ring holds every arrival not yet decided. If this packet's slot is taken by another
   * pending arrival r (64 or more seqs away, with fewer than NDUPACK arrivals in between), the
   * seqs below min(r + 1, this one) are decided now: missing ones count as lost early. */
  unsigned k = (unsigned) (ext_seq % AMCC_LOSS_WINDOW);
  uint64_t r = e->slot_seq[k];
  if (ext_seq > e->max_seq)
    e->max_seq = ext_seq;
  if (pending_received (e, r))
    mask |= decide (e, r < ext_seq ? r + 1 : ext_seq, window);
  if (pending_received (e, r) && ext_seq == e->checked) {
    decide_received (e, ext_seq, now);      /* r is above: this one is decided without a slot */
  } else {
    e->slot_seq[k] = ext_seq;
    e->arrival[k] = now;
    e->pending++;
  }
  mask |= decide (e, 0, window);
  if (e->events > 0)
    amcc_loss_history_set_open (&e->hist, (double) (e->max_seq - e->event_seq + 1));
  return mask;
}

double
amcc_loss_events_p (const amcc_loss_events *e)
{
  return amcc_loss_history_p (&e->hist, NULL);
}
