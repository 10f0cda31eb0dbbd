/* pgmcc.c - PGMCC's arithmetic (docs/pgmcc.md): the throughput comparison that elects the
 * acker, the window and tokens clocked by its ACKs with losses read from their bitmaps, the
 * stall timeout, and what a rate follower behind a GOP-slow encoder changes in it (section
 * 2.4); on the receiver the loss filter, the bitmap and the ACK aggregation. */
#include "amcc/pgmcc.h"
#include <math.h>
#include <string.h>

void
amcc_pgmcc_params_init (struct amcc_pgmcc_params *p)
{
  memset (p, 0, sizeof *p);
  p->switch_c = 2.0 / 3.0;
  p->dupthresh = 3;
  p->min_window = 1;
  p->initial_ssthresh = INFINITY;
  p->start_from_initial_rate = 1;
  p->app_limit_factor = 2;
  p->hold_rate = 1;
  p->actuator_hold = AMCC_NS_PER_S;
  p->actuator_growth = AMCC_NS_PER_S;
  p->tested_fraction = 0.9;
  p->rtt_gain = 0.125;
  p->timeout_rtts = 4;
  p->timeout_min = AMCC_NS_PER_S;
  p->loss_filter = 1.0 / 64;
  p->ack_interval_min = 10 * AMCC_NS_PER_MS;
  p->packet_size = 1200;
  p->initial_rate_bps = 500e3;
  p->min_rate_bps = 0;
  p->max_rate_bps = 1e12;
}

/* A duration in ns within [0, AMCC_MAX_HOLD_S]. */
static int
hold_ok (amcc_time t)
{
  return t >= 0 && t <= (amcc_time) AMCC_MAX_HOLD_S * AMCC_NS_PER_S;
}

int
amcc_pgmcc_params_validate (const struct amcc_pgmcc_params *p)
{
  if (!p)
    return AMCC_ERR_PARAM;
  /* the election and the window: c > 1 would elect a better receiver, dupthresh past the 64
   * sequence numbers remembered would never judge a loss, W below 1 packet stops the clock */
  if (!(p->switch_c > 0 && p->switch_c <= 1) || p->dupthresh < 1 || p->dupthresh > 63
      || !(p->min_window >= 1) || !isfinite (p->min_window)
      || !(p->initial_ssthresh >= p->min_window))             /* INFINITY: slow start */
    return AMCC_ERR_PARAM;
  if ((p->start_from_initial_rate != 0 && p->start_from_initial_rate != 1)
      || (p->hold_rate != 0 && p->hold_rate != 1)
      || !(p->app_limit_factor >= 1)                            /* INFINITY: the paper */
      || !(p->tested_fraction >= 0 && p->tested_fraction <= 1))
    return AMCC_ERR_PARAM;
  if (!hold_ok (p->actuator_hold) || !hold_ok (p->actuator_growth)
      || !hold_ok (p->ack_interval_min) || !hold_ok (p->timeout_min) || p->timeout_min == 0
      || !(p->rtt_gain > 0 && p->rtt_gain <= 1) || !(p->loss_filter > 0 && p->loss_filter <= 1)
      || !(p->timeout_rtts > 0 && p->timeout_rtts <= 100))
    return AMCC_ERR_PARAM;
  /* packet_size 0: 1200 (amcc_pgmcc_sender_init); min_rate_bps 0: no floor */
  if (p->packet_size > 65535 || !(p->initial_rate_bps > 0) || !isfinite (p->initial_rate_bps)
      || !(p->min_rate_bps >= 0) || !(p->max_rate_bps >= p->min_rate_bps)
      || !(p->max_rate_bps > 0) || !isfinite (p->max_rate_bps))
    return AMCC_ERR_PARAM;
  return AMCC_OK;
}

/* Rizzo's simplified TCP throughput up to a constant, 1 / (RTT sqrt(p)). */
double
amcc_pgmcc_throughput (double rtt, double p)
{
  if (!(p > 0) || !(rtt > 0))
    return INFINITY;
  return 1.0 / (rtt * sqrt (p));
}

/* Rizzo's election: switch to a receiver whose throughput is below c times the acker's. */
bool
amcc_pgmcc_should_switch (double cand_rtt, double cand_p, double acker_rtt, double acker_p,
    double c)
{
  double tc = amcc_pgmcc_throughput (cand_rtt, cand_p);
  double ta = amcc_pgmcc_throughput (acker_rtt, acker_p);
  return tc < INFINITY && tc < c * ta;
}

/* ---------------------------------------------------------------- sender */

void
amcc_pgmcc_sender_init (struct amcc_pgmcc_sender *s, const struct amcc_pgmcc_params *p,
    amcc_time now)
{
  (void) now;
  memset (s, 0, sizeof *s);
  s->p = *p;
  s->w = s->tokens = p->min_window;
  s->ssthresh = p->initial_ssthresh;
  s->last_ack = s->timeout_at = s->echo_at = AMCC_TIME_NONE;
  s->mean_size = p->packet_size ? p->packet_size : 1200;
}

void
amcc_pgmcc_sender_on_sent (struct amcc_pgmcc_sender *s, amcc_time now, size_t bytes)
{
  s->sent++;
  s->ring[s->ring_next].t = now;
  s->ring[s->ring_next].n = s->sent;
  double x = amcc_pgmcc_sender_window_rate (s);
  s->ring[s->ring_next].x = x > 0 ? x : s->p.initial_rate_bps;
  s->ring_next = (s->ring_next + 1) % AMCC_PGMCC_SEND_RING;
  if (s->ring_n < AMCC_PGMCC_SEND_RING)
    s->ring_n++;
  if (bytes)
    s->mean_size += ((double) bytes - s->mean_size) / 16;
  s->tokens -= 1;
  if (s->tokens < -s->w)
    s->tokens = -s->w;          /* a rate-following sender overdraws: keep the account bounded */
}

/* The last recorded send at or before t: its ring index, or -1 when t is older than the
 * record. */
static long
ring_at (const struct amcc_pgmcc_sender *s, amcc_time t)
{
  size_t first = (s->ring_next + AMCC_PGMCC_SEND_RING - s->ring_n) % AMCC_PGMCC_SEND_RING;
  size_t lo = 0, hi = s->ring_n;

  if (s->ring_n == 0 || t < s->ring[first].t)
    return -1;
#define AT(i) s->ring[(first + (i)) % AMCC_PGMCC_SEND_RING]
  while (hi - lo > 1) {         /* AT(lo).t <= t < AT(hi).t (hi = ring_n: past the end) */
    size_t mid = (lo + hi) / 2;
    if (AT (mid).t <= t)
      lo = mid;
    else
      hi = mid;
  }
#undef AT
  return (long) ((first + lo) % AMCC_PGMCC_SEND_RING);
}

/* Packets sent by time t, interpolated between the recorded sends; < 0 when t is older than
 * the record. */
static double
count_at (const struct amcc_pgmcc_sender *s, amcc_time t)
{
  long i = ring_at (s, t);

  if (i < 0)
    return -1;
  size_t j = ((size_t) i + 1) % AMCC_PGMCC_SEND_RING;
  if (j == s->ring_next)
    return (double) s->ring[i].n;       /* the last send */
  double f = (double) (t - s->ring[i].t) / (double) (s->ring[j].t - s->ring[i].t);
  return (double) s->ring[i].n + f * (double) (s->ring[j].n - s->ring[i].n);
}

/* What the sender sent in [t0, t1) over the window's rate then (at t1): 1 when it followed
 * its window, < 1 when the encoder lagged below it, > 1 above; -1 unknown. */
static double
sent_share (const struct amcc_pgmcc_sender *s, amcc_time t0, amcc_time t1)
{
  double c0 = count_at (s, t0), c1 = count_at (s, t1);
  long i = ring_at (s, t1);

  if (c0 < 0 || i < 0 || t1 <= t0 || !(s->ring[i].x > 0))
    return -1;
  return (c1 - c0) * 8 * s->mean_size / amcc_time_to_s (t1 - t0) / s->ring[i].x;
}

/* The echo's age on our clock minus the receiver's hold, us; < 0 when bogus. */
static double
echo_rtt_us (amcc_time now, const struct amcc_pgmcc_feedback *fb)
{
  uint32_t now_us = (uint32_t) ((uint64_t) (now / AMCC_NS_PER_US));
  uint32_t age = now_us - fb->echo_ts_us;
  if (!fb->has_echo || age < fb->hold_us || age - fb->hold_us > AMCC_MAX_RTT_US)
    return -1;
  return (double) (age - fb->hold_us);
}

/* When the echoed packet left, on our clock (the echo is its low 32 bits in us). */
static amcc_time
echo_sent_at (amcc_time now, const struct amcc_pgmcc_feedback *fb)
{
  uint32_t now_us = (uint32_t) ((uint64_t) (now / AMCC_NS_PER_US));
  return now - (amcc_time) (now_us - fb->echo_ts_us) * AMCC_NS_PER_US;
}

double
amcc_pgmcc_sender_rtt_packets (const struct amcc_pgmcc_sender *s, amcc_time now,
    const struct amcc_pgmcc_feedback *fb)
{
  if (echo_rtt_us (now, fb) < 0)
    return -1;
  double c0 = count_at (s, echo_sent_at (now, fb));
  double c1 = count_at (s, now - (amcc_time) fb->hold_us * AMCC_NS_PER_US);
  return c0 < 0 || c1 < c0 ? -1 : c1 - c0;
}

/* The window, packets, that sends rate_bps at the acker's RTT and the mean packet size: docs/pgmcc.md
 * section 2.3's rate = W s / RTT solved for W, W = x RTT / s (s in bits), at least min_window.
 * Needs srtt_s > 0. */
static double
window_for_rate (const struct amcc_pgmcc_sender *s, double rate_bps)
{
  return fmax (rate_bps * s->srtt_s / (8 * s->mean_size), s->p.min_window);
}

/* hold_rate: W is the rate x it stands for at the RTT and packet size now (a rate follower's
 * queue draining must not raise the target: an ACK-clocked sender would not send faster). */
static void
w_from_rate (struct amcc_pgmcc_sender *s)
{
  if (!(s->p.hold_rate && s->x_bps > 0 && s->srtt_s > 0))
    return;
  double w = window_for_rate (s, s->x_bps);
  if (isfinite (s->ssthresh))
    s->ssthresh *= w / s->w;    /* slow start ends at the same rate */
  s->w = w;
}

static void
rate_from_w (struct amcc_pgmcc_sender *s)
{
  if (s->srtt_s > 0)
    s->x_bps = s->w * 8 * s->mean_size / s->srtt_s;
}

double
amcc_pgmcc_sender_window_rate (const struct amcc_pgmcc_sender *s)
{
  if (!(s->srtt_s > 0))
    return 0;
  return s->p.hold_rate && s->x_bps > 0 ? s->x_bps : s->w * s->mean_size * 8 / s->srtt_s;
}

/* The growth per packet acknowledged, RTT / (RTT + actuator_growth): one step per round trip
 * of the whole loop, whose target reaches the packets only a GOP later; 1 = the paper's step
 * per RTT. */
static double
growth_step (const struct amcc_pgmcc_sender *s)
{
  if (s->p.actuator_growth <= 0 || !(s->srtt_s > 0))
    return 1;
  return s->srtt_s / (s->srtt_s + amcc_time_to_s (s->p.actuator_growth));
}

/* n new ACKs: slow start W += 1 (tokens + 2), congestion avoidance W += 1/W (tokens + 1 + 1/W)
 * per packet acked (TCP's rule; OpenPGM counts the same); tokens never above W. */
void
amcc_pgmcc_window_ack (struct amcc_pgmcc_sender *s, uint32_t n)
{
  double g = growth_step (s);

  w_from_rate (s);
  for (uint32_t i = 0; i < n; i++) {
    if (s->w < s->ssthresh) {
      s->w += g;
      s->tokens += 1 + g;
    } else {
      s->tokens += 1 + g / s->w;
      s->w += g / s->w;
    }
  }
  if (s->tokens > s->w)
    s->tokens = s->w;
  rate_from_w (s);
}

/* A loss: W halves (not below min_window) and the tokens pay for it, T -= W (floor 0). */
void
amcc_pgmcc_window_loss (struct amcc_pgmcc_sender *s)
{
  w_from_rate (s);
  s->w = fmax (s->w / 2, s->p.min_window);
  s->ssthresh = s->w;
  s->tokens = s->tokens > s->w ? s->tokens - s->w : 0;
  rate_from_w (s);
}

static void
arm_timeout (struct amcc_pgmcc_sender *s, amcc_time now)
{
  double t = s->p.timeout_rtts * s->srtt_s;
  amcc_time wait = amcc_time_from_s (t);
  s->timeout_at = now + (wait > s->p.timeout_min ? wait : s->p.timeout_min);
}

static void
new_acker (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t ssrc, double p, double rtt)
{
  if (s->has_acker)
    s->acker_switches++;
  s->has_acker = true;
  s->acker = ssrc;
  s->acker_p = p;
  s->claim_p = p;
  s->acker_rtt_pkts = rtt > 0 ? rtt : 0;
  s->ack_started = s->holding = false;
  s->announce = true;
  arm_timeout (s, now);
}

/* Losses among the sequence numbers that became old enough: a hole followed by dupthresh later
 * numbers. Only those within the 64 remembered are judged (older ones: unknown, not lost). */
static uint32_t
judge_losses (struct amcc_pgmcc_sender *s, uint32_t *after_hold)
{
  uint32_t upto = s->ack_hi - s->p.dupthresh, n = 0;

  *after_hold = 0;
  if ((int32_t) (upto - s->judged) <= 0)
    return 0;
  uint32_t from = s->judged + 1;
  if (s->ack_hi - from >= 64)
    from = s->ack_hi - 63;
  for (uint32_t x = from; (int32_t) (x - upto) <= 0; x++) {
    if (!((s->known >> (s->ack_hi - x)) & 1))
      continue;                 /* no ACK covered it: unknown */
    int lost = !((s->seen >> (s->ack_hi - x)) & 1);
    /* the receivers' own loss filter over what the bitmaps say (containment's claim_p) */
    s->claim_p += s->p.loss_filter * ((lost ? 1.0 : 0.0) - s->claim_p);
    if (lost) {
      n++;                      /* covered by an ACK and not received */
      if (!s->holding || (int32_t) (x - s->recover) > 0)
        (*after_hold)++;        /* sent after the last reaction: a new congestion event */
    }
  }
  s->judged = upto;
  return n;
}

static uint32_t
popcount64 (uint64_t x)
{
  uint32_t n = 0;
  for (; x; x &= x - 1)         /* no builtin: it may call libgcc (cc-deps) */
    n++;
  return n;
}

/* The window's part of an ACK: counts, losses, reaction, growth (W in packets, synced). */
static void
ack_window (struct amcc_pgmcc_sender *s, amcc_time now, const struct amcc_pgmcc_ack *a,
    amcc_time echo_at)
{
  uint64_t mask = ((uint64_t) a->bitmap << 1) | 1;     /* bit i: rx_max - i */
  uint64_t cover = (UINT64_C (1) << 33) - 1;           /* rx_max and the 32 before it */
  uint32_t fresh, lost, fresh_event;

  s->last_ack = now;
  arm_timeout (s, now);
  if (!s->ack_started) {        /* the first ACK of this acker: a reference, no judgement */
    s->ack_started = true;
    s->ack_hi = s->judged = a->fb.rx_max;
    s->seen = mask;
    s->known = cover;
    s->received = a->received;
    s->acks++;
    amcc_pgmcc_window_ack (s, 1);
    return;
  }
  int32_t d = (int32_t) (a->fb.rx_max - s->ack_hi);
  if (d > 0) {
    s->seen = d >= 64 ? 0 : s->seen << d;
    s->known = d >= 64 ? 0 : s->known << d;
    s->ack_hi = a->fb.rx_max;
  } else {
    uint32_t back = s->ack_hi - a->fb.rx_max;   /* unsigned: d may be INT32_MIN */
    mask = back >= 64 ? 0 : mask << back;
    cover = back >= 64 ? 0 : cover << back;
  }
  s->known |= cover;
  fresh = popcount64 (mask & ~s->seen);
  s->seen |= mask;
  /* the received counter: packets acknowledged also where no bitmap reached (ACKs more than
   * 33 packets apart, lost ACKs); at most what the sequence numbers allow */
  uint32_t delta = a->received - s->received;
  if (d > 0 && (int32_t) delta > 0 && delta <= (uint32_t) d + 32) {
    fresh = delta > fresh ? delta : fresh;
    s->received = a->received;
  } else if (d > 0)
    s->received = a->received; /* implausible: resynchronise, count the bitmap's only */
  if (s->holding && now < s->react_at + s->p.actuator_hold) {
    /* what is in flight now left before the reaction reached the encoder: the same event */
    double flight = ceil (s->acker_rtt_pkts > 0 ? s->acker_rtt_pkts : s->w);
    uint32_t r = s->ack_hi + (uint32_t) fmin (flight, 1u << 30);
    if ((int32_t) (r - s->recover) > 0)
      s->recover = r;
  }
  lost = judge_losses (s, &fresh_event);
  s->losses += lost;
  s->acks += fresh;
  if (s->holding && (int32_t) (s->ack_hi - s->recover) > 0)
    s->holding = false;         /* past what was in flight at the last reaction: one RTT */
  if (fresh_event) {            /* a loss of a packet sent after the last reaction */
    double x = amcc_pgmcc_sender_window_rate (s);
    amcc_pgmcc_window_loss (s);
    double y = amcc_pgmcc_sender_window_rate (s);
    s->undo[s->undo_next].t = now;      /* what a demotion would undo */
    s->undo[s->undo_next].acker = s->acker;
    s->undo[s->undo_next].taken = x > y ? x - y : 0;
    s->undo_next = (s->undo_next + 1) % AMCC_PGMCC_UNDO;
    if (s->undo_n < AMCC_PGMCC_UNDO)
      s->undo_n++;
    s->reactions++;
    s->holding = true;
    s->react_at = now;
    double flight = ceil (s->acker_rtt_pkts > 0 ? s->acker_rtt_pkts : s->w);
    s->recover = s->ack_hi + (uint32_t) fmin (flight, 1u << 30);   /* what was in flight */
    return;
  }
  if (s->holding) {             /* losses ignored for one RTT; the window waits too */
    s->tokens = fmin (s->tokens + fresh * (1 + 1 / s->w), s->w);
    return;
  }
  double w0 = s->w;
  if (s->p.tested_fraction > 0 && echo_at != AMCC_TIME_NONE && s->srtt_s > 0) {
    /* the acked packets left while the encoder lagged below the window: untested, no growth
     * (RFC 7661's idea; a packet-clocked sender always fills its window) */
    amcc_time from = echo_at - amcc_time_from_s (s->srtt_s);
    if (s->echo_at != AMCC_TIME_NONE && s->echo_at < from)
      from = s->echo_at;
    double sh = sent_share (s, from, echo_at);
    if (sh >= 0 && sh < s->p.tested_fraction) {
      s->tokens = fmin (s->tokens + fresh, s->w);
      return;
    }
  }
  amcc_pgmcc_window_ack (s, fresh);
  if (s->srtt_s > 0 && isfinite (s->p.app_limit_factor)) {
    double c0 = count_at (s, now - amcc_time_from_s (s->srtt_s));
    double cap = c0 < 0 ? INFINITY : s->p.app_limit_factor * ((double) s->sent - c0) + 1;
    if (s->w > cap)             /* app-limited: no growth the sender never tested */
      s->w = fmax (w0, cap);
  }
}

static void
on_ack (struct amcc_pgmcc_sender *s, amcc_time now, const struct amcc_pgmcc_ack *a)
{
  double us = echo_rtt_us (now, &a->fb);
  amcc_time echo_at = AMCC_TIME_NONE;

  if (us >= 0) {
    double x = us / 1e6;
    bool first = s->srtt_s == 0;
    s->srtt_s = first ? x : s->srtt_s + s->p.rtt_gain * (x - s->srtt_s);
    if (first && s->p.start_from_initial_rate && s->srtt_s > 0) {
      s->w = window_for_rate (s, s->p.initial_rate_bps);
      s->tokens = s->w;
    }
    echo_at = echo_sent_at (now, &a->fb);
  }
  w_from_rate (s);              /* hold_rate: the new RTT moves W, not the rate */
  ack_window (s, now, a, echo_at);
  rate_from_w (s);
  if (echo_at != AMCC_TIME_NONE)
    s->echo_at = echo_at;
}

int
amcc_pgmcc_sender_would_elect (const struct amcc_pgmcc_sender *s, amcc_time now,
    uint32_t ssrc, const struct amcc_pgmcc_feedback *fb)
{
  if (!s->has_acker)
    return 2;                   /* none: the first to speak (OpenPGM) */
  if (ssrc == s->acker)
    return 0;
  double rtt = amcc_pgmcc_sender_rtt_packets (s, now, fb);
  return rtt >= 0 && amcc_pgmcc_should_switch (rtt, fb->loss, s->acker_rtt_pkts, s->acker_p,
      s->p.switch_c) ? 1 : 0;
}

int
amcc_pgmcc_sender_feedback (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t ssrc,
    const struct amcc_pgmcc_feedback *fb, const struct amcc_pgmcc_ack *ack, bool may_elect)
{
  double rtt = amcc_pgmcc_sender_rtt_packets (s, now, fb);

  if (!s->has_acker) {
    if (may_elect)
      new_acker (s, now, ssrc, fb->loss, rtt);  /* none: the first to speak (OpenPGM) */
  } else if (ssrc == s->acker) {
    s->acker_p = fb->loss;
    if (rtt >= 0)
      s->acker_rtt_pkts = s->acker_rtt_pkts > 0
          ? s->acker_rtt_pkts + s->p.rtt_gain * (rtt - s->acker_rtt_pkts) : rtt;
  } else if (may_elect && rtt >= 0 && amcc_pgmcc_should_switch (rtt, fb->loss,
          s->acker_rtt_pkts, s->acker_p, s->p.switch_c))
    new_acker (s, now, ssrc, fb->loss, rtt);
  if (!s->has_acker || ssrc != s->acker)
    return 0;
  if (ack)
    on_ack (s, now, ack);
  return 1;
}

int
amcc_pgmcc_sender_on_feedback (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t ssrc,
    const struct amcc_pgmcc_feedback *fb, const struct amcc_pgmcc_ack *ack)
{
  return amcc_pgmcc_sender_feedback (s, now, ssrc, fb, ack, true);
}

void
amcc_pgmcc_sender_demote (struct amcc_pgmcc_sender *s, amcc_time now, amcc_time undo_from)
{
  double x = amcc_pgmcc_sender_window_rate (s);

  (void) now;
  if (!s->has_acker)
    return;
  for (size_t i = 0; i < s->undo_n; i++)
    if (s->undo[i].acker == s->acker && s->undo[i].t >= undo_from) {
      x += s->undo[i].taken;
      s->undo[i].taken = 0;     /* undone once */
    }
  if (s->srtt_s > 0 && x > amcc_pgmcc_sender_window_rate (s)) {
    s->w = fmax (x * s->srtt_s / (8 * s->mean_size), s->p.min_window);
    s->ssthresh = s->w;         /* its halvings undone: congestion avoidance from there */
    s->tokens = fmin (s->tokens, s->w);
    rate_from_w (s);
  }
  s->demotions++;
  amcc_pgmcc_sender_on_bye (s, s->acker);
}

void
amcc_pgmcc_sender_on_bye (struct amcc_pgmcc_sender *s, uint32_t ssrc)
{
  if (s->has_acker && ssrc == s->acker) {
    s->has_acker = s->ack_started = s->holding = false;
    s->acker = 0;
    s->announce = true;
    s->timeout_at = AMCC_TIME_NONE;
  }
}

double
amcc_pgmcc_sender_rate (struct amcc_pgmcc_sender *s, amcc_time now)
{
  double r;

  if (s->has_acker && s->timeout_at != AMCC_TIME_NONE && now >= s->timeout_at) {
    /* a stall: the acker went silent. TCP's timeout: W to its minimum, slow start to half the
     * old window, and a new election from the next feedback (the acker may be gone) */
    w_from_rate (s);
    s->ssthresh = fmax (s->w / 2, s->p.min_window);
    s->w = s->tokens = s->p.min_window;
    rate_from_w (s);
    s->timeouts++;
    uint32_t old = s->acker;
    amcc_pgmcc_sender_on_bye (s, old);
  }
  amcc_pgmcc_sender_cap_window (s, s->p.max_rate_bps);
  r = amcc_pgmcc_sender_window_rate (s);        /* docs/pgmcc.md: rate = W s / RTT */
  if (!(r > 0))
    r = s->p.initial_rate_bps;
  if (r < s->p.min_rate_bps)
    r = s->p.min_rate_bps;
  return r > s->p.max_rate_bps ? s->p.max_rate_bps : r;
}

void
amcc_pgmcc_sender_cap_window (struct amcc_pgmcc_sender *s, double rate_bps)
{
  if (!(s->srtt_s > 0) || !(rate_bps >= 0))
    return;
  w_from_rate (s);
  double w = window_for_rate (s, rate_bps);
  if (s->w > w) {
    s->w = w;
    s->tokens = fmin (s->tokens, w);
  }
  rate_from_w (s);
}

bool
amcc_pgmcc_sender_may_send (const struct amcc_pgmcc_sender *s)
{
  return s->tokens >= 1;
}

/* ---------------------------------------------------------------- receiver */

void
amcc_pgmcc_receiver_init (struct amcc_pgmcc_receiver *r, const struct amcc_pgmcc_params *p,
    uint32_t ssrc)
{
  memset (r, 0, sizeof *r);
  r->p = *p;
  r->ssrc = ssrc;
  r->first_unacked = r->last_ack = r->hi_at = AMCC_TIME_NONE;
}

/* The loss filter (the draft's low-pass filter of the loss indicator): p += a (x - p). */
static void
filter_loss (struct amcc_pgmcc_receiver *r, int lost)
{
  r->loss += r->p.loss_filter * ((lost ? 1.0 : 0.0) - r->loss);
}

void
amcc_pgmcc_receiver_on_rtp (struct amcc_pgmcc_receiver *r, amcc_time now, uint32_t extseq,
    bool has_ts, uint32_t ts_us)
{
  if (!r->started) {
    r->started = true;
    r->hi = extseq;
    r->bitmap = 0;
  } else {
    int32_t d = (int32_t) (extseq - r->hi);
    if (d == 0)
      return;                   /* duplicate */
    if (d < 0) {                /* late: fills a hole if still in the bitmap */
      uint32_t age = r->hi - extseq - 1;
      if (age >= 32 || (r->bitmap >> age) & 1)
        return;
      r->bitmap |= UINT32_C (1) << age;
      if (r->lost)
        r->lost--;
      goto counted;
    }
    uint32_t gap = (uint32_t) d - 1;
    for (uint32_t i = 0; i < gap && i < 4096; i++)
      filter_loss (r, 1);
    r->lost += gap;
    r->bitmap = d >= 33 ? 0 : ((d == 32 ? 0 : r->bitmap << d) | (UINT32_C (1) << (d - 1)));
    r->hi = extseq;
  }
  filter_loss (r, 0);
  r->hi_at = now;
  r->hi_has_ts = has_ts;
  r->hi_ts_us = has_ts ? ts_us : 0;
counted:
  r->received++;
  if (r->unacked++ == 0)
    r->first_unacked = now;
}

void
amcc_pgmcc_receiver_on_sender_info (struct amcc_pgmcc_receiver *r,
    const struct amcc_pgmcc_sender_info *si)
{
  r->is_acker = si->has_acker && si->acker_ssrc == r->ssrc;
}

/* The acker ACKs as soon as a packet is unacknowledged, but at most one ACK per
 * ack_interval_min: one ACK then covers every packet since the last one. */
amcc_time
amcc_pgmcc_receiver_ack_due (const struct amcc_pgmcc_receiver *r)
{
  if (!r->is_acker || r->unacked == 0)
    return AMCC_TIME_NONE;
  amcc_time due = r->first_unacked;
  if (r->last_ack != AMCC_TIME_NONE && r->last_ack + r->p.ack_interval_min > due)
    due = r->last_ack + r->p.ack_interval_min;
  return due;
}

void
amcc_pgmcc_receiver_feedback (const struct amcc_pgmcc_receiver *r, amcc_time now,
    struct amcc_pgmcc_feedback *fb)
{
  memset (fb, 0, sizeof *fb);
  fb->loss = r->loss < 0 ? 0 : r->loss > 1 ? 1 : r->loss;
  if (!r->started)
    return;
  fb->rx_max = r->hi;
  fb->has_echo = r->hi_has_ts;
  if (fb->has_echo) {
    fb->echo_ts_us = r->hi_ts_us;
    amcc_time hold = now > r->hi_at ? (now - r->hi_at) / AMCC_NS_PER_US : 0;
    fb->hold_us = hold > (amcc_time) AMCC_MAX_HOLD_US ? AMCC_MAX_HOLD_US : (uint32_t) hold;
  }
}

void
amcc_pgmcc_receiver_make_ack (struct amcc_pgmcc_receiver *r, amcc_time now,
    struct amcc_pgmcc_ack *ack)
{
  amcc_pgmcc_receiver_feedback (r, now, &ack->fb);
  ack->bitmap = r->bitmap;
  ack->received = r->received;
  r->unacked = 0;
  r->first_unacked = AMCC_TIME_NONE;
  r->last_ack = now;
  r->acks++;
}
