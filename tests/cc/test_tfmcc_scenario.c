/* test_tfmcc_scenario.c - one TFMCC sender and many receivers on a discrete-event simulated
 * network: every receiver sits behind its own drop-tail bottleneck (capacity, buffer, one-way
 * delays); sender fields and reports go through the real APP codecs. Scenarios (RFC 4654):
 *   slowstart, then the first loss ends it (3.6);
 *   a slower receiver joins -> it becomes CLR and the rate follows; it leaves -> CLR switch and
 *   increases held for a round (3.3);
 *   the CLR's reports stop -> halving after 4 RTTs, CLR gone after 10 (3.3);
 *   1000 receivers -> non-CLR reports per round stay bounded and the slowest is heard (4.5).
 * Deterministic (fixed PRNG seed, simulated clock); no wall-clock assertions. */
#include <amcc/tfmcc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define S AMCC_NS_PER_S
#define PKT 1000                       /* bytes per RTP packet */
#define INFO_EVERY (100 * MS)          /* sender APP (early RTCP) interval */

enum { EV_SEND, EV_INFO, EV_PKT, EV_SINFO, EV_REPORT, EV_TIMER };

struct ev {
  amcc_time t;
  uint64_t order;                      /* FIFO among equal times */
  int type, node;
  uint16_t seq;
  union { struct amcc_tfmcc_sender_info info; struct amcc_tfmcc_report rep; } u;
};

struct node {
  struct amcc_tfmcc_receiver rx;
  double cap_bps;
  amcc_time d_down, d_up, qmax, busy;
  amcc_time join_at, leave_at;         /* leave_at < 0: never */
  amcc_time uplink_cut_at;             /* reports dropped from then on (< 0: never) */
  amcc_time timer_at;
  bool joined, gone;
  uint64_t rx_bytes_window;            /* bytes received inside the measurement window */
};

struct sample { amcc_time t; double rate; bool has_clr, held, slowstart; uint32_t clr; };

struct sim {
  struct amcc_tfmcc_sender *tx;
  struct node *n;
  int nn;
  struct ev *heap;
  size_t len, cap;
  uint64_t order;
  uint64_t rng;
  uint16_t seq;
  amcc_time now, end, win_from, win_to;
  struct sample *smp;
  size_t nsmp;
  int reports_nonclr[65536];           /* by fb_nr */
  amcc_time round_seen[65536];         /* first sample time showing each fb_nr */
  /* slowstart bookkeeping */
  bool seen_loss, slowstart_ok;
  amcc_time first_loss_t;
  double max_rate_in_slowstart;
  int slowstart_over_clr_link;         /* samples with X > 2 x the CLR's link (+5 %) */
  /* per-scenario hooks */
  int watch_node;
  amcc_time watch_last_report;
  double watch_rate_before, watch_rate_after;
  double watch_rtt, watch_unit;
  bool leave_checked, leave_ok;
  int codec_failures;                  /* APP encode/decode round trips that failed */
};

static uint32_t rnd (struct sim *s)
{
  s->rng ^= s->rng << 13; s->rng ^= s->rng >> 7; s->rng ^= s->rng << 17;
  return (uint32_t) (s->rng >> 16);
}
static double uniform01 (struct sim *s) { return ((double) rnd (s) + 1.0) / 4294967296.0; }

static bool ev_less (const struct ev *a, const struct ev *b)
{
  return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void push (struct sim *s, const struct ev *e)
{
  if (s->len == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->heap = realloc (s->heap, s->cap * sizeof *s->heap);
  }
  size_t i = s->len++;
  s->heap[i] = *e;
  s->heap[i].order = s->order++;
  while (i > 0 && ev_less (&s->heap[i], &s->heap[(i - 1) / 2])) {
    struct ev t = s->heap[i]; s->heap[i] = s->heap[(i - 1) / 2]; s->heap[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static struct ev pop (struct sim *s)
{
  struct ev top = s->heap[0];
  s->heap[0] = s->heap[--s->len];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->len && ev_less (&s->heap[l], &s->heap[m])) m = l;
    if (r < s->len && ev_less (&s->heap[r], &s->heap[m])) m = r;
    if (m == i) break;
    struct ev t = s->heap[i]; s->heap[i] = s->heap[m]; s->heap[m] = t;
    i = m;
  }
  return top;
}

static void sim_init (struct sim *s, int nn, amcc_time end)
{
  memset (s, 0, sizeof *s);
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  p.packet_size = PKT;
  s->tx = amcc_tfmcc_sender_new (&p, 0);
  s->nn = nn;
  s->n = calloc ((size_t) nn, sizeof *s->n);
  for (int i = 0; i < nn; i++) {
    amcc_tfmcc_receiver_init (&s->n[i].rx, &p, 0x1000u + (uint32_t) i, 0);
    s->n[i].leave_at = s->n[i].uplink_cut_at = -1;
    s->n[i].qmax = 50 * MS;
    s->n[i].timer_at = AMCC_TIME_NONE;
  }
  s->rng = 0x2545F4914F6CDD1Dull;
  s->end = end;
  s->smp = calloc ((size_t) (end / INFO_EVERY + 2), sizeof *s->smp);
  s->slowstart_ok = true;
  s->watch_node = -1;
  for (int i = 0; i < 65536; i++)
    s->round_seen[i] = -1;
  struct ev e = { .t = 0, .type = EV_SEND };
  push (s, &e);
  e.type = EV_INFO;
  push (s, &e);
}

static void sim_free (struct sim *s)
{
  AMT_CHECK (s->codec_failures == 0);   /* every APP the core produced went through the codecs */
  amcc_tfmcc_sender_free (s->tx);
  free (s->n);
  free (s->heap);
  free (s->smp);
}

static struct amcc_tfmcc_sender_state tx_state (struct sim *s)
{
  struct amcc_tfmcc_sender_state st;
  amcc_tfmcc_sender_get_state (s->tx, &st);
  return st;
}

/* (Re)arm the event that fires this receiver's feedback timer. */
static void arm_timer (struct sim *s, int i)
{
  amcc_time due = amcc_tfmcc_receiver_next_report_time (&s->n[i].rx);
  if (due == AMCC_TIME_NONE || due == s->n[i].timer_at)
    return;
  if (due < s->now)
    due = s->now;
  s->n[i].timer_at = due;
  struct ev e = { .t = due, .type = EV_TIMER, .node = i };
  push (s, &e);
}

/* Queueing at node i's bottleneck for a packet sent now: arrival time, or -1 if dropped. */
static amcc_time through_bottleneck (struct sim *s, struct node *n, size_t bytes, bool droppable)
{
  amcc_time start = n->busy > s->now ? n->busy : s->now;
  if (droppable && start - s->now > n->qmax)
    return -1;
  n->busy = start + (amcc_time) llround (8.0 * (double) bytes / n->cap_bps * 1e9);
  return n->busy + n->d_down;
}

static void on_report_arrival (struct sim *s, const struct ev *e)
{
  struct amcc_tfmcc_sender_state before = tx_state (s);
  uint32_t ssrc = 0x1000u + (uint32_t) e->node;
  if (!(before.has_clr && before.clr_ssrc == ssrc))
    s->reports_nonclr[e->u.rep.fb_nr]++;
  if (e->node == s->watch_node && !e->u.rep.leaving) {
    s->watch_last_report = s->now;
    s->watch_rate_before = before.rate_bps;
  }
  amcc_tfmcc_sender_on_report (s->tx, s->now, ssrc, &e->u.rep);
  struct amcc_tfmcc_sender_state after = tx_state (s);
  if (e->node == s->watch_node && !e->u.rep.leaving) {
    s->watch_rtt = after.clr_rtt_s;
    s->watch_unit = after.clr_unit_s;
    s->watch_rate_after = after.rate_bps;
  }
  if (!s->seen_loss) {
    if (!before.slowstart)
      s->slowstart_ok = false;             /* slowstart must last until the first loss */
    if (e->u.rep.have_loss) {
      s->seen_loss = true;
      s->first_loss_t = s->now;
      if (after.slowstart)
        s->slowstart_ok = false;
    }
  }
  if (e->u.rep.leaving && before.has_clr && before.clr_ssrc == ssrc) {
    s->leave_checked = true;
    s->leave_ok = after.has_clr && after.clr_ssrc != ssrc && after.increase_held &&
                  after.rate_bps <= before.rate_bps;
  }
}

static void send_report (struct sim *s, int i)
{
  struct node *n = &s->n[i];
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&n->rx, s->now, &r);
  uint8_t buf[64];
  struct ev e = { .t = s->now + n->d_up, .type = EV_REPORT, .node = i };
  uint32_t ssrc = 0;
  int len = amcc_tfmcc_report_write_app (&r, n->rx.ssrc, buf, sizeof buf);
  if (!(len > 0 && amcc_tfmcc_report_read_app (&e.u.rep, &ssrc, buf, (size_t) len) == len))
    s->codec_failures++;
  if (r.leaving)
    n->gone = true;
  if (n->uplink_cut_at >= 0 && s->now >= n->uplink_cut_at)
    return;
  push (s, &e);
}

static void step (struct sim *s, struct ev *e)
{
  s->now = e->t;
  struct node *n = e->type >= EV_PKT && e->type != EV_REPORT ? &s->n[e->node] : NULL;
  if (n && n->gone)
    return;
  switch (e->type) {
  case EV_SEND: {
    uint16_t seq = s->seq++;
    amcc_tfmcc_sender_on_packet_sent (s->tx, s->now, PKT);
    for (int i = 0; i < s->nn; i++) {
      struct node *m = &s->n[i];
      if (m->gone || s->now < m->join_at)
        continue;
      amcc_time at = through_bottleneck (s, m, PKT, true);
      if (at < 0)
        continue;
      struct ev p = { .t = at, .type = EV_PKT, .node = i, .seq = seq };
      push (s, &p);
    }
    struct ev next = { .t = s->now + amcc_tfmcc_sender_pacing_interval (s->tx, s->now, PKT),
                       .type = EV_SEND };
    push (s, &next);
    break;
  }
  case EV_INFO: {
    struct amcc_tfmcc_sender_info info;
    amcc_tfmcc_sender_fill_info (s->tx, s->now, &info);
    uint8_t buf[64];
    uint32_t ssrc;
    struct ev d = { .type = EV_SINFO };
    int len = amcc_tfmcc_sender_info_write_app (&info, 0x5E4D, buf, sizeof buf);
    if (!(len > 0 && amcc_tfmcc_sender_info_read_app (&d.u.info, &ssrc, buf, (size_t) len) == len))
      s->codec_failures++;
    for (int i = 0; i < s->nn; i++) {
      struct node *m = &s->n[i];
      if (m->gone || s->now < m->join_at)
        continue;
      d.t = through_bottleneck (s, m, 0, false);
      d.node = i;
      push (s, &d);
    }
    struct amcc_tfmcc_sender_state st = tx_state (s);
    struct sample *sm = &s->smp[s->nsmp++];
    *sm = (struct sample) { s->now, st.rate_bps, st.has_clr, st.increase_held, st.slowstart, st.clr_ssrc };
    if (s->round_seen[st.fb_nr] < 0)
      s->round_seen[st.fb_nr] = s->now;
    if (!s->seen_loss && st.rate_bps > s->max_rate_in_slowstart)
      s->max_rate_in_slowstart = st.rate_bps;
    if (st.slowstart && st.has_clr && st.clr_ssrc - 0x1000u < (uint32_t) s->nn &&
        st.rate_bps > 2 * s->n[st.clr_ssrc - 0x1000u].cap_bps * 1.05)
      s->slowstart_over_clr_link++;
    for (int i = 0; i < s->nn; i++)     /* scheduled leaves */
      if (s->n[i].leave_at >= 0 && s->now >= s->n[i].leave_at && !s->n[i].rx.leave_requested) {
        amcc_tfmcc_receiver_leave (&s->n[i].rx, s->now);
        arm_timer (s, i);
      }
    struct ev next = { .t = s->now + INFO_EVERY, .type = EV_INFO };
    push (s, &next);
    break;
  }
  case EV_PKT:
    amcc_tfmcc_receiver_on_rtp (&n->rx, s->now, e->seq, PKT, false, 0);
    if (s->now >= s->win_from && s->now < s->win_to)
      n->rx_bytes_window += PKT;
    arm_timer (s, e->node);
    break;
  case EV_SINFO:
    amcc_tfmcc_receiver_on_sender_info (&n->rx, s->now, &e->u.info, uniform01 (s));
    arm_timer (s, e->node);
    break;
  case EV_TIMER:
    if (n->timer_at != e->t)
      break;                              /* superseded */
    n->timer_at = AMCC_TIME_NONE;
    if (n->rx.report_due != AMCC_TIME_NONE && n->rx.report_due <= s->now)
      send_report (s, e->node);
    arm_timer (s, e->node);
    break;
  case EV_REPORT:
    on_report_arrival (s, e);
    break;
  }
}

static void run (struct sim *s, amcc_time until)
{
  while (s->len > 0 && s->heap[0].t <= until) {
    struct ev e = pop (s);
    step (s, &e);
  }
  s->now = until;
}

/* Mean sending rate and the fraction of samples with CLR == ssrc in [from, to). */
static double mean_rate (const struct sim *s, amcc_time from, amcc_time to)
{
  double sum = 0; int k = 0;
  for (size_t i = 0; i < s->nsmp; i++)
    if (s->smp[i].t >= from && s->smp[i].t < to) { sum += s->smp[i].rate; k++; }
  return k ? sum / k : 0;
}

static double clr_share (const struct sim *s, amcc_time from, amcc_time to, uint32_t ssrc)
{
  int k = 0, hit = 0;
  for (size_t i = 0; i < s->nsmp; i++)
    if (s->smp[i].t >= from && s->smp[i].t < to) {
      k++;
      hit += s->smp[i].has_clr && s->smp[i].clr == ssrc;
    }
  return k ? (double) hit / k : 0;
}

static void set_node (struct sim *s, int i, double cap, amcc_time down, amcc_time up)
{
  s->n[i].cap_bps = cap;
  s->n[i].d_down = down;
  s->n[i].d_up = up;
}

/* Slowstart until the first loss; then the rate settles at the slowest bottleneck. */
static void test_slowstart_then_loss (void)
{
  static struct sim s;
  sim_init (&s, 3, 60 * S);
  set_node (&s, 0, 2e6, 10 * MS, 10 * MS);
  set_node (&s, 1, 4e6, 20 * MS, 20 * MS);
  set_node (&s, 2, 8e6, 30 * MS, 30 * MS);
  s.win_from = 30 * S; s.win_to = 60 * S;
  run (&s, 60 * S);
  AMT_CHECK (s.seen_loss && s.slowstart_ok);
  /* slowstart: X = min reported 2 x receive rate <= 2 x the slowest link (one packet of
   * measurement slack per 2-RTT window ~ 5 % here) */
  AMT_CHECK (s.max_rate_in_slowstart > 10 * 8.0 * PKT / 0.5);   /* it did ramp up */
  /* X is always some receiver's report, 2 x its receive rate <= 2 x its link (+5 % slack for
   * one packet per 2-RTT measurement window) */
  AMT_CHECK (s.max_rate_in_slowstart <= 2 * 8e6 * 1.05);
  /* stronger: X is the CLR's X_r or lower, so never above twice the CLR's own link */
  AMT_CHECK (s.slowstart_over_clr_link == 0);
  /* the 2 Mbit/s receiver is the CLR; its goodput is at least half the link (the equation
   * never more than halves per loss event) and at most the link */
  AMT_CHECK (clr_share (&s, 30 * S, 60 * S, 0x1000) >= 0.9);
  double goodput = 8.0 * (double) s.n[0].rx_bytes_window / 30.0;
  AMT_CHECK (goodput >= 0.5 * 2e6 && goodput <= 2e6);
  printf ("# slowstart: first loss at %.2f s, peak rate in slowstart %.0f bit/s, goodput %.0f "
          "bit/s on the 2 Mbit/s link\n", s.first_loss_t / 1e9, s.max_rate_in_slowstart, goodput);
  sim_free (&s);
}

/* A slow receiver joins (CLR switch, rate follows), then leaves (switch, hold, increase). */
static void test_clr_join_and_leave (void)
{
  static struct sim s;
  sim_init (&s, 3, 130 * S);
  set_node (&s, 0, 8e6, 20 * MS, 20 * MS);
  set_node (&s, 1, 6e6, 30 * MS, 30 * MS);
  set_node (&s, 2, 1e6, 25 * MS, 25 * MS);
  s.n[2].join_at = 40 * S;
  s.n[2].leave_at = 90 * S;
  s.win_from = 50 * S; s.win_to = 90 * S;
  run (&s, 130 * S);
  double before = mean_rate (&s, 25 * S, 40 * S), during = mean_rate (&s, 50 * S, 90 * S);
  AMT_CHECK (clr_share (&s, 25 * S, 40 * S, 0x1001) >= 0.9);    /* 6 Mbit/s receiver limits */
  AMT_CHECK (before > 2 * 1e6);
  AMT_CHECK (clr_share (&s, 50 * S, 90 * S, 0x1002) >= 0.9);    /* the newcomer is CLR */
  AMT_CHECK (during < 2 * 1e6);                                 /* the rate follows it */
  double goodput = 8.0 * (double) s.n[2].rx_bytes_window / 40.0;
  AMT_CHECK (goodput >= 0.5 * 1e6 && goodput <= 1e6);
  /* the leave: switch to a remaining receiver, increases held, no rate jump */
  AMT_CHECK (s.leave_checked && s.leave_ok);
  double at_leave = 0, first_held = 0;
  bool rose_while_held = false, held_seen = false;
  for (size_t i = 0; i < s.nsmp; i++) {
    if (s.smp[i].t < 90 * S)
      continue;
    if (!s.smp[i].held && !held_seen)
      at_leave = s.smp[i].rate;            /* last sample before the hold began */
    else if (s.smp[i].held) {
      if (!held_seen)
        first_held = s.smp[i].rate;
      held_seen = true;
      rose_while_held |= s.smp[i].rate > first_held;
    }
  }
  AMT_CHECK (held_seen && !rose_while_held);
  /* between the last sample before the leave and the first held one (100 ms) the CLR may still
   * have raised X by its normal limit, 8s/R_max per R_max with R_max >= 60 ms (node 1's RTT),
   * but no more: no jump at the switch */
  AMT_CHECK (first_held <= at_leave + 8.0 * PKT / 0.06 * (0.1 / 0.06));
  double after = mean_rate (&s, 120 * S, 130 * S);
  AMT_CHECK (after > 2 * 1e6);
  printf ("# join/leave: mean rate %.0f before, %.0f with the 1 Mbit/s receiver, %.0f after it "
          "left (bit/s)\n", before, during, after);
  sim_free (&s);
}

/* The CLR's reports stop reaching the sender: halve after 4 of its RTTs, gone after 10 (in
 * units of max(RTT, its report interval): the reports it can get out). */
static void test_clr_timeout (void)
{
  static struct sim s;
  sim_init (&s, 2, 60 * S);
  set_node (&s, 0, 2e6, 15 * MS, 15 * MS);
  set_node (&s, 1, 4e6, 20 * MS, 20 * MS);
  s.n[0].uplink_cut_at = 30 * S;
  s.watch_node = 0;
  run (&s, 30 * S);
  AMT_CHECK (tx_state (&s).has_clr && tx_state (&s).clr_ssrc == 0x1000);
  run (&s, 60 * S);
  amcc_time last = s.watch_last_report;
  double x0 = s.watch_rate_after, rtt = s.watch_rtt;
  /* nothing but the timeout changes X after the CLR's last report (the other receiver's rate is
   * higher): the first sample below 3/4 of it must be exactly half */
  amcc_time halved_at = -1, gone_at = -1;
  double x_last = x0;
  for (size_t i = 0; i < s.nsmp; i++) {
    if (s.smp[i].t <= last)
      continue;
    if (halved_at < 0 && s.smp[i].rate < 0.75 * x_last) {
      halved_at = s.smp[i].t;
      AMT_NEAR (s.smp[i].rate, x_last / 2, x_last * 1e-9);
    }
    if (gone_at < 0 && !(s.smp[i].has_clr && s.smp[i].clr == 0x1000))
      gone_at = s.smp[i].t;
  }
  amcc_time r = (amcc_time) llround (s.watch_unit * 1e9);
  AMT_CHECK (halved_at >= last + 4 * r && halved_at <= last + 4 * r + INFO_EVERY);
  AMT_CHECK (gone_at >= last + 10 * r && gone_at <= last + 10 * r + INFO_EVERY);
  AMT_CHECK (tx_state (&s).has_clr && tx_state (&s).clr_ssrc == 0x1001);   /* replaced */
  AMT_CHECK (r < 2 * (amcc_time) llround (rtt * 1e9));  /* per-RTT reports: the unit is ~RTT */
  printf ("# CLR timeout: last report %.3f s (rate %.0f, RTT %.3f s, unit %.3f s), halved at "
          "%.3f s, gone at %.3f s\n", last / 1e9, x0, rtt, s.watch_unit, halved_at / 1e9,
          gone_at / 1e9);
  sim_free (&s);
}

/* 1000 receivers: feedback per round stays near N^(delta/T); the slowest one is heard. */
static void test_suppression_1000 (void)
{
  static struct sim s;
  const int nn = 1000, slow = 737;
  sim_init (&s, nn, 60 * S);
  amcc_time dmax = 0, rtt_base_max = 0;
  for (int i = 0; i < nn; i++) {
    amcc_time down = (10 + (amcc_time) (rnd (&s) % 31)) * MS, up = (10 + (amcc_time) (rnd (&s) % 31)) * MS;
    set_node (&s, i, 3e6 + 3e6 * uniform01 (&s), down, up);
    if (down > dmax) dmax = down;
    if (up > dmax) dmax = up;
    if (down + up > rtt_base_max) rtt_base_max = down + up;
  }
  s.n[slow].cap_bps = 1e6;
  run (&s, 60 * S);
  AMT_CHECK (clr_share (&s, 20 * S, 60 * S, 0x1000u + slow) >= 0.9);
  AMT_CHECK (mean_rate (&s, 20 * S, 60 * S) < 2 * 1e6);
  /* Rounds fully inside [20 s, 60 s). The first timer of a round fires when n N^(t/T-1) ~ 1;
   * the reports that still get out are those firing before X_supp reaches the receivers,
   * delta later: expected count ~ N^(delta/T) (RFC 4654 4.5), with
   * delta <= up + queue (50 ms) + APP interval + down, T = 6 R_max >= 6 x (the largest RTT). */
  double T = 6 * (double) rtt_base_max / 1e9;
  double delta = (2.0 * (double) dmax + (double) s.n[0].qmax + (double) INFO_EVERY) / 1e9;
  double bound = pow (10000.0, delta / T);
  int rounds = 0, total = 0, worst = 0;
  for (int fb = 1; fb < 65535; fb++) {
    if (s.round_seen[fb] < 20 * S || s.round_seen[fb + 1] < 0)
      continue;
    rounds++;
    total += s.reports_nonclr[fb];
    if (s.reports_nonclr[fb] > worst) worst = s.reports_nonclr[fb];
  }
  double mean = rounds ? (double) total / rounds : 1e9;
  AMT_CHECK (rounds >= 10);
  AMT_CHECK (mean <= bound);
  AMT_CHECK (worst <= 4 * bound);
  printf ("# 1000 receivers: %d rounds, non-CLR reports per round mean %.2f max %d (bound %.1f "
          "= N^(%.3f/%.3f)), CLR share of the slowest %.2f\n", rounds, mean, worst, bound, delta, T,
          clr_share (&s, 20 * S, 60 * S, 0x1000u + slow));
  sim_free (&s);
}

int main (void)
{
  AMT_RUN (test_slowstart_then_loss);
  AMT_RUN (test_clr_join_and_leave);
  AMT_RUN (test_clr_timeout);
  AMT_RUN (test_suppression_1000);
  return amt_summary ();
}
