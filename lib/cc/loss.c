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

static int
was_received (const amcc_loss_events *e, uint64_t s, uint64_t old_max)
{
  unsigned k = (unsigned) (s % AMCC_LOSS_WINDOW);
  return s <= old_max && e->slot_seq[k] == s && e->arrival[k] != AMCC_TIME_NONE;
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

int
amcc_loss_events_on_packet (amcc_loss_events *e, amcc_time now, uint64_t ext_seq,
    amcc_time window)
{
  int mask = 0;
  if (!e->started) {
    e->started = 1;
    e->max_seq = ext_seq;
    e->checked = ext_seq;
    e->prev_seq = ext_seq;
    e->prev_time = now;
  }
  if (ext_seq < e->checked)
    return 0;                   /* already decided (declared lost, or a duplicate) */
  uint64_t old_max = e->max_seq;
  uint64_t new_max = ext_seq > old_max ? ext_seq : old_max;
  if (new_max - e->checked > 65536)
    e->checked = new_max - 65536;       /* bound the work after a huge jump */
  /* decide every seq at least NDUPACK below the new maximum, before the ring slot is reused */
  while (e->checked + AMCC_LOSS_NDUPACK <= new_max) {
    uint64_t s = e->checked++;
    if (s == ext_seq || was_received (e, s, old_max)) {
      e->prev_seq = s;
      e->prev_time = s == ext_seq ? now : e->arrival[s % AMCC_LOSS_WINDOW];
      continue;
    }
    /* next received packet after s: in the ring up to old_max, else this one */
    uint64_t a_seq = ext_seq;
    amcc_time a_t = now;
    for (uint64_t n = s + 1; n <= old_max && n < s + AMCC_LOSS_WINDOW; n++) {
      if (was_received (e, n, old_max)) {
        a_seq = n;
        a_t = e->arrival[n % AMCC_LOSS_WINDOW];
        break;
      }
    }
    mask |= on_loss (e, s, interpolate (s, e->prev_seq, e->prev_time, a_seq, a_t), window);
  }
  unsigned k = (unsigned) (ext_seq % AMCC_LOSS_WINDOW);
  e->slot_seq[k] = ext_seq;
  e->arrival[k] = now;
  e->max_seq = new_max;
  if (e->events > 0)
    amcc_loss_history_set_open (&e->hist, (double) (e->max_seq - e->event_seq + 1));
  return mask;
}

double
amcc_loss_events_p (const amcc_loss_events *e)
{
  return amcc_loss_history_p (&e->hist, NULL);
}
