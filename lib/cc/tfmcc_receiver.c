/* tfmcc_receiver.c - TFMCC receiver (RFC 4654 sections 4 and 5): loss events and the loss event
 * rate (with history discounting), receive rate, RTT with one-way adjustment, the desired rate
 * X_r, the feedback timer with suppression, CLR reports every RTT, leaving. */
#include "amcc/tfmcc.h"
#include "amcc/tcpmodel.h"
#include <math.h>
#include <string.h>

#define MIN_RTT_S 1e-4

static double secs (amcc_time t) { return (double) t / 1e9; }
static amcc_time ns_from_s (double s) { return (amcc_time) llround (s * 1e9); }
static uint32_t us32 (amcc_time t) { return (uint32_t) (uint64_t) (t / AMCC_NS_PER_US); }
static void arm_round_timer (struct amcc_tfmcc_receiver *rx, amcc_time now);

/* RFC 5348 5.5 general discount factor DF from the current history: 1 unless the open interval
 * is more than twice the average of the closed ones; then 2 I_mean / I_0, floored at 0.5. */
static double general_df (const amcc_loss_history *h, const double *d)
{
  double mean = amcc_loss_history_mean (h, 0, d);
  double i0 = h->interval[0];
  if (mean > 0 && i0 > 2 * mean)
    return fmax (0.5, 2 * mean / i0);
  return 1.0;
}

/* Loss event rate (RFC 4654 5.4, RFC 5348 5.4-5.5): p = 1 / max(I_mean with I_0, without I_0);
 * with discounting the closed intervals of the "with I_0" mean are weighted by DF_i * DF and
 * the normaliser W_tot accumulates the same discounted weights (the RFC 4654 errata). */
double amcc_tfmcc_history_p (const amcc_loss_history *h, const double *df, bool discounting)
{
  if (!h || amcc_loss_history_count (h) == 0)
    return 0;
  double d[AMCC_LOSS_N + 1], dw[AMCC_LOSS_N + 1];
  d[0] = 1;
  for (int i = 1; i <= AMCC_LOSS_N; i++)
    d[i] = df ? df[i] : 1;
  double without = amcc_loss_history_mean (h, 0, d);
  double gdf = discounting ? general_df (h, d) : 1.0;
  dw[0] = 1;
  for (int i = 1; i <= AMCC_LOSS_N; i++)
    dw[i] = d[i] * gdf;
  double with = amcc_loss_history_mean (h, 1, dw);
  double avg = fmax (with, without);
  return avg > 0 ? fmin (1.0, 1.0 / avg) : 0;
}

void amcc_tfmcc_receiver_init (struct amcc_tfmcc_receiver *rx, const struct amcc_tfmcc_params *p,
                               uint32_t own_ssrc, amcc_time now)
{
  memset (rx, 0, sizeof *rx);
  if (p)
    rx->p = *p;
  else
    amcc_tfmcc_params_init (&rx->p);
  if (rx->p.packet_size == 0)
    rx->p.packet_size = 1200;
  amcc_seq_init (&rx->seq);
  amcc_loss_events_init (&rx->ev);
  for (int i = 0; i <= AMCC_LOSS_N; i++)
    rx->df[i] = 1;
  rx->ssrc = own_ssrc;
  rx->mean_size = rx->p.packet_size;
  rx->r_max_s = secs (rx->p.r_max_initial > 0 ? rx->p.r_max_initial : 500 * AMCC_NS_PER_MS);
  rx->win_a_start = rx->win_b_start = AMCC_TIME_NONE;
  rx->report_due = AMCC_TIME_NONE;
  rx->last_report = AMCC_TIME_NONE;
  rx->below_floor_since = AMCC_TIME_NONE;
  (void) now;
}

/* RTT used by the equation: the smoothed echo RTT adjusted by the change in one-way delay
 * since that echo (4.2); R_max from the sender until the first echo. Never below the smallest
 * echo sample: the delta is taken from the last echo, which may have met a full queue while the
 * smoothed RTT (q = 0.9) barely moved; the queue draining then drove the sum to ~0 and the
 * equation to Gbit/s (live: RTT 0.000-0.012 s at the slow receiver). */
double amcc_tfmcc_receiver_rtt (const struct amcc_tfmcc_receiver *rx)
{
  if (!rx->have_rtt)
    return rx->r_max_s;
  return fmax (rx->rtt_s + rx->owd_delta_s, fmax (rx->rtt_min_s, MIN_RTT_S));
}

/* Receive rate over the last 2-4 units: window A spans 2..4 units, B restarts A every 2 units.
 * unit = max(RTT, recv_window_min / 2) and A keeps >= recv_window_packets packets: a few RTTs
 * hold 1-4 frames of 40 ms video and swing 0.4-2x the mean (tftune measurements), so 2x that
 * would cut X in slowstart; no rate (0) until A spans 2 units (a first packet over a tiny span
 * reads as Mbit/s). */
static void update_windows (struct amcc_tfmcc_receiver *rx, amcc_time now)
{
  if (rx->win_a_start == AMCC_TIME_NONE)
    return;
  double u = fmax (amcc_tfmcc_receiver_rtt (rx), secs (rx->p.recv_window_min) / 2);
  amcc_time r = ns_from_s (u);
  if (rx->win_b_start == AMCC_TIME_NONE && now - rx->win_a_start >= 2 * r) {
    rx->win_b_start = now;
    rx->win_b_bytes = 0;
    rx->win_b_packets = 0;
  }
  if (rx->win_b_start != AMCC_TIME_NONE && now - rx->win_a_start >= 4 * r &&
      rx->win_b_packets >= rx->p.recv_window_packets) {
    rx->win_a_start = rx->win_b_start;
    rx->win_a_bytes = rx->win_b_bytes;
    rx->win_a_packets = rx->win_b_packets;
    rx->win_b_start = now;
    rx->win_b_bytes = 0;
    rx->win_b_packets = 0;
  }
  double span = secs (now - rx->win_a_start);
  if (span >= 2 * u)
    rx->recv_rate_bps = 8.0 * rx->win_a_bytes / span;
}

/* Receive rate for the first-loss seed before the window is full (a loss in the first key
 * frame): what window A holds so far; 1 packet per RTT only without two packets in it. */
static double provisional_rate (const struct amcc_tfmcc_receiver *rx, amcc_time now, double rtt)
{
  double span = rx->win_a_start != AMCC_TIME_NONE ? secs (now - rx->win_a_start) : 0;
  if (rx->win_a_packets >= 2 && span > 0)
    return 8.0 * rx->win_a_bytes / span;
  return 8.0 * rx->mean_size / rtt;
}

double amcc_tfmcc_receiver_recv_rate (const struct amcc_tfmcc_receiver *rx)
{
  return rx->recv_rate_bps;
}

bool amcc_tfmcc_receiver_is_clr (const struct amcc_tfmcc_receiver *rx)
{
  return rx->is_clr;
}

double amcc_tfmcc_receiver_loss_event_rate (const struct amcc_tfmcc_receiver *rx)
{
  return amcc_tfmcc_history_p (&rx->ev.hist, rx->df, rx->p.history_discounting);
}

/* X_r (4.3/3.6): the equation at (s, R, p) after the first loss; 2x the receive rate before. */
double amcc_tfmcc_receiver_rate (const struct amcc_tfmcc_receiver *rx)
{
  double p = amcc_tfmcc_receiver_loss_event_rate (rx);
  if (p <= 0)
    return 2.0 * rx->recv_rate_bps;
  return amcc_tfmcc_rate (rx->mean_size, amcc_tfmcc_receiver_rtt (rx), p);
}

static void note_sender_ts (struct amcc_tfmcc_receiver *rx, amcc_time now, uint32_t ts_us)
{
  if (rx->have_owd_base)
    rx->owd_delta_s = (int32_t) ((us32 (now) - ts_us) - rx->owd_base_us) / 1e6;
}

void amcc_tfmcc_receiver_on_rtp (struct amcc_tfmcc_receiver *rx, amcc_time now, uint16_t seq16,
                                 size_t bytes, bool has_sender_ts, uint32_t sender_ts_us)
{
  uint64_t ext = 0;
  amcc_seq_result res = amcc_seq_update (&rx->seq, seq16, &ext);
  if (res < AMCC_SEQ_NEW)
    return;                                  /* duplicate, too old, probation */
  if (res == AMCC_SEQ_RESYNC) {              /* sender restarted: start the loss history over */
    amcc_loss_events_init (&rx->ev);
    for (int i = 0; i <= AMCC_LOSS_N; i++)
      rx->df[i] = 1;
  }
  rx->packets++;
  arm_round_timer (rx, now);
  if (bytes > 0 && bytes <= 65535)
    rx->mean_size += ((double) bytes - rx->mean_size) / 16.0;
  if (has_sender_ts)
    note_sender_ts (rx, now, sender_ts_us);
  if (rx->win_a_start == AMCC_TIME_NONE)
    rx->win_a_start = now;
  rx->win_a_bytes += (double) bytes;
  rx->win_a_packets++;
  if (rx->win_b_start != AMCC_TIME_NONE) {
    rx->win_b_bytes += (double) bytes;
    rx->win_b_packets++;
  }
  update_windows (rx, now);

  double dprev = 1.0;
  if (rx->p.history_discounting && amcc_loss_history_count (&rx->ev.hist) > 0)
    dprev = general_df (&rx->ev.hist, rx->df);
  double rtt = amcc_tfmcc_receiver_rtt (rx);
  int ev = amcc_loss_events_on_packet (&rx->ev, now, ext, ns_from_s (rtt));
  if (ev & AMCC_LOSS_EV_FIRST) {
    /* RFC 4654 5 / RFC 5348 6.3.1: seed I_1 so that the equation gives the receive rate */
    double x = rx->recv_rate_bps > 0 ? rx->recv_rate_bps : provisional_rate (rx, now, rtt);
    double p = amcc_tfmcc_loss_for_rate (x, rx->mean_size, rtt);
    amcc_loss_history_push (&rx->ev.hist, p > 0 ? 1.0 / p : 1.0);
    rx->seed_pending = !rx->have_rtt;       /* seeded with R_max: redo at the first RTT */
    rx->seed_rate_bps = x;
  } else if ((ev & AMCC_LOSS_EV_NEW) && rx->p.history_discounting) {
    /* the closed intervals keep the discount that applied while I_0 was open (RFC 5348 5.5) */
    for (int i = AMCC_LOSS_N; i >= 2; i--)
      rx->df[i] = rx->df[i - 1] * dprev;
    rx->df[1] = 1;
  }
}

/* The synthetic first interval was computed with R_max; with the first measured RTT, recompute
 * it so that the equation still gives the receive rate of the first loss (RFC 5348 6.3.1). */
static void reseed (struct amcc_tfmcc_receiver *rx)
{
  uint64_t k = rx->ev.events;               /* the seed is I_k: one push per later event */
  rx->seed_pending = false;
  if (k < 1 || k > AMCC_LOSS_N || amcc_loss_history_count (&rx->ev.hist) < (int) k)
    return;                                  /* the seed has already left the history */
  double p = amcc_tfmcc_loss_for_rate (rx->seed_rate_bps, rx->mean_size, rx->rtt_s);
  if (p > 0)
    rx->ev.hist.interval[k] = 1.0 / p;
}

/* Arm the non-CLR feedback timer of the current round: round start + t, once there is data. */
static void arm_round_timer (struct amcc_tfmcc_receiver *rx, amcc_time now)
{
  if (rx->is_clr || rx->sent_this_round || rx->report_due != AMCC_TIME_NONE || rx->packets < 2 ||
      !rx->have_info || rx->round_t_s < 0)
    return;
  amcc_time due = rx->round_seen_at + ns_from_s (rx->round_t_s);
  rx->report_due = due > now ? due : now;
}

static void cancel_unless_clr (struct amcc_tfmcc_receiver *rx)
{
  if (!rx->is_clr && !rx->leave_requested) {
    rx->report_due = AMCC_TIME_NONE;
    rx->sent_this_round = true;              /* done for this round: suppressed */
  }
}

static void track_floor (struct amcc_tfmcc_receiver *rx, amcc_time now, double rate)
{
  if (rx->packets == 0 || rate >= rx->mean_size) {   /* floor: 8 s bits per 8 s */
    rx->below_floor_since = AMCC_TIME_NONE;
  } else if (rx->below_floor_since == AMCC_TIME_NONE) {
    rx->below_floor_since = now;
  }
}

void amcc_tfmcc_receiver_on_sender_info (struct amcc_tfmcc_receiver *rx, amcc_time now,
                                         const struct amcc_tfmcc_sender_info *info,
                                         double uniform_x)
{
  if (!info)
    return;
  bool new_round = !rx->have_info || info->fb_nr != rx->fb_nr;
  rx->have_info = true;
  rx->fb_nr = info->fb_nr;
  if (info->r_max_us > 0)
    rx->r_max_s = info->r_max_us / 1e6;
  rx->sender_slowstart = info->slowstart;
  rx->last_sender_ts_us = info->ts_us;
  rx->last_sender_ts_arrival = now;
  note_sender_ts (rx, now, info->ts_us);

  bool was_clr = rx->is_clr;
  if (info->has_echo && info->echo_ssrc == rx->ssrc) {
    /* RTT sample from our own echoed timestamp (4.2), q = 0.9 for the CLR, 0.5 otherwise */
    int64_t us = (int64_t) (uint32_t) (us32 (now) - info->echo_ts_us) - (int64_t) info->echo_hold_us;
    double sample = us / 1e6;
    rx->is_clr = info->echo_is_clr;
    if (sample > 0 && sample <= AMCC_MAX_RTT_S) {
      if (!rx->have_rtt || sample < rx->rtt_min_s)
        rx->rtt_min_s = sample;
      if (!rx->have_rtt) {
        rx->rtt_s = sample;
        rx->have_rtt = true;
      } else {
        double q = rx->is_clr ? rx->p.q_rtt_clr : rx->p.q_rtt;
        rx->rtt_s = q * rx->rtt_s + (1 - q) * sample;
      }
      if (rx->seed_pending)
        reseed (rx);
      rx->have_owd_base = true;           /* one-way adjustment restarts from this echo */
      rx->owd_base_us = us32 (now) - info->ts_us;
      rx->owd_delta_s = 0;
    }
  } else if (info->has_echo && info->echo_is_clr) {
    rx->is_clr = false;                   /* someone else is the CLR */
  }

  double rate = amcc_tfmcc_receiver_rate (rx);
  track_floor (rx, now, rate);
  if (new_round) {
    /* 4.5: t = max(T (1 + ln x / ln N), 0), x uniform in (0,1]; a new round cancels the old
     * round's pending report (not the CLR's, not a leave) */
    double x = uniform_x > 0 && uniform_x <= 1 ? uniform_x : (uniform_x > 1 ? 1.0 : 1e-300);
    double T = rx->p.round_rmax_factor * rx->r_max_s;
    rx->round_t_s = fmax (T * (1.0 + log (x) / log (rx->p.n_receivers_bound)), 0.0);
    rx->round_seen_at = now;
    rx->sent_this_round = false;
    if (!rx->is_clr && !rx->leave_requested)
      rx->report_due = AMCC_TIME_NONE;
  }
  if (rx->is_clr) {
    /* the CLR reports once per RTT and is never suppressed (4.5) */
    if (!was_clr || rx->report_due == AMCC_TIME_NONE) {
      amcc_time due = rx->last_report == AMCC_TIME_NONE
          ? now : rx->last_report + ns_from_s (amcc_tfmcc_receiver_rtt (rx));
      rx->report_due = due < now ? now : due;
    }
    return;
  }
  arm_round_timer (rx, now);
  /* suppression: someone reported a rate low enough, and R_max covers our RTT. Known gap: RFC 4654
   * 4.5 compares X_supp with X_fbr, the rate calculated at the start of the round (to avoid an
   * implosion when rates change fast); the exact rule was not checked, the current rate is used */
  if (rx->report_due != AMCC_TIME_NONE && info->has_supp && info->x_supp_bps < rate &&
      rx->r_max_s >= amcc_tfmcc_receiver_rtt (rx))
    cancel_unless_clr (rx);
}

amcc_time amcc_tfmcc_receiver_next_report_time (const struct amcc_tfmcc_receiver *rx)
{
  return rx->report_due;
}

void amcc_tfmcc_receiver_make_report (struct amcc_tfmcc_receiver *rx, amcc_time now,
                                      struct amcc_tfmcc_report *out)
{
  memset (out, 0, sizeof *out);
  update_windows (rx, now);
  double p = amcc_tfmcc_receiver_loss_event_rate (rx);
  double rate = amcc_tfmcc_receiver_rate (rx);
  track_floor (rx, now, rate);
  out->fb_nr = rx->fb_nr;
  out->have_rtt = rx->have_rtt;
  out->have_loss = p > 0;
  out->loss_event_rate = p > 0 ? p : 0;
  out->leaving = rx->leave_requested;
  out->ts_us = us32 (now);
  out->rate_bps = isfinite (rate) && rate >= 0 ? fmin (rate, 1e12) : 0;
  out->recv_rate_bps = fmin (rx->recv_rate_bps, 1e12);
  if (rx->have_info && now >= rx->last_sender_ts_arrival &&
      (uint64_t) ((now - rx->last_sender_ts_arrival) / AMCC_NS_PER_US) <= AMCC_MAX_HOLD_US) {
    out->has_echo = true;
    out->echo_ts_us = rx->last_sender_ts_us;
    out->echo_hold_us = (uint32_t) ((now - rx->last_sender_ts_arrival) / AMCC_NS_PER_US);
  }
  rx->last_report = now;
  rx->sent_this_round = true;
  if (rx->leave_requested)
    rx->report_due = AMCC_TIME_NONE;
  else if (rx->is_clr)
    rx->report_due = now + ns_from_s (amcc_tfmcc_receiver_rtt (rx));
  else
    rx->report_due = AMCC_TIME_NONE;      /* next round draws a new timer */
}

void amcc_tfmcc_receiver_leave (struct amcc_tfmcc_receiver *rx, amcc_time now)
{
  rx->leave_requested = true;
  rx->report_due = now;
}

bool amcc_tfmcc_receiver_should_leave (const struct amcc_tfmcc_receiver *rx, amcc_time now)
{
  return rx->below_floor_since != AMCC_TIME_NONE &&
         now - rx->below_floor_since >= rx->p.leave_after;
}
