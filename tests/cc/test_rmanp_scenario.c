/* test_rmanp_scenario.c - RMANP on a simulated tree, paper parameters (spec/rmanp.md):
 *
 *   S --lan--> R1 --wan--> R2 --lan--> X1, X2
 *               \--lan--> X3
 *
 * A small discrete-event model in 1 ms steps: each link direction has a rate, a propagation
 * delay, a drop-tail queue and random loss; a relay's data goes to every child's link (one group
 * per relay), control goes up its parent's link. Receivers check every byte against the
 * generator as they read it and keep a checksum. Scenarios: 5 % loss both ways on the WAN link;
 * a WAN bottleneck of 180 kbit/s with a 3-packet router queue and background CBR of 14.5 KB/s,
 * 18.5 KB/s in [350, 650) s (papers/004 section 4): bandwidth use in the congested phase. */
#include <stdio.h>
#include <string.h>
#include "amcc/rmanp.h"
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S
#define LINKQ 512
#define PKT 1100

static uint8_t gen (uint64_t pos) { return (uint8_t) ((pos * 2654435761u) >> 13); }

static uint64_t
fnv (uint64_t h, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211u;
  return h;
}

static uint64_t rng = 0x1234567u;
static double
uniform (void)
{
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double) (rng >> 11) * 0x1.0p-53;
}

enum { N_S, N_R1, N_R2, N_X1, N_X2, N_X3, N_NODES };

typedef struct {
  double bps, loss;
  amcc_time delay;
  uint32_t qcap;                      /* packets waiting (not in transmission) */
  int to;                             /* node it delivers to; -1 = background sink */
  amcc_time busy_until;
  struct { amcc_time start, arrive; uint16_t len; uint8_t b[PKT]; } q[LINKQ];
  uint32_t head, n;
  uint64_t bytes_rmanp;               /* RMANP bytes transmitted, counted while `measure` */
  uint64_t dropped, bg_dropped;
} link;

typedef struct {
  amcc_rmanp_source *s;
  amcc_rmanp_relay *r1, *r2;
  amcc_rmanp_receiver *x[3];
  link down[N_NODES], up[N_NODES];    /* down[n]: parent -> n; up[n]: n -> parent */
  int parent[N_NODES];
  uint64_t written, got[3], sum[3], bad[3], src_sum;
  uint64_t total;                     /* stream length, 0 = endless */
  int measure;
  uint64_t goodput_mark[3];
} sim;

static void
link_init (link *l, double bps, amcc_time delay, uint32_t qcap, double loss, int to)
{
  memset (l, 0, sizeof *l);
  l->bps = bps;
  l->delay = delay;
  l->qcap = qcap;
  l->loss = loss;
  l->to = to;
}

static void
link_send (link *l, amcc_time now, const uint8_t *b, size_t len, int measure)
{
  uint32_t waiting = 0;
  for (uint32_t i = 0; i < l->n; i++)
    waiting += l->q[(l->head + i) % LINKQ].start > now;
  if (waiting >= l->qcap || l->n == LINKQ) {
    l->dropped++;
    l->bg_dropped += !b;
    return;
  }
  amcc_time start = l->busy_until > now ? l->busy_until : now;
  amcc_time tx = (amcc_time) (8.0 * len / l->bps * 1e9);
  l->busy_until = start + tx;
  if (measure && b)
    l->bytes_rmanp += len;
  if (l->loss > 0 && uniform () < l->loss)
    return;                           /* lost on the wire: the link time is still used */
  uint32_t k = (l->head + l->n++) % LINKQ;
  l->q[k].start = start;
  l->q[k].arrive = start + tx + l->delay;
  l->q[k].len = (uint16_t) len;
  if (b)
    memcpy (l->q[k].b, b, len);
}

static void
deliver (sim *S, int node, int from_parent, amcc_time now, const uint8_t *b, size_t len)
{
  switch (node) {
  case N_S: amcc_rmanp_source_on_packet (S->s, now, b, len); break;
  case N_R1: amcc_rmanp_relay_on_packet (S->r1, now, from_parent, b, len); break;
  case N_R2: amcc_rmanp_relay_on_packet (S->r2, now, from_parent, b, len); break;
  default: amcc_rmanp_receiver_on_packet (S->x[node - N_X1], now, b, len); break;
  }
}

static void
link_run (sim *S, link *l, amcc_time now, int from_parent)
{
  while (l->n && l->q[l->head].arrive <= now) {
    if (l->to >= 0)
      deliver (S, l->to, from_parent, now, l->q[l->head].b, l->q[l->head].len);
    l->head = (l->head + 1) % LINKQ;
    l->n--;
  }
}

static void
send_from (sim *S, int node, amcc_time now, amcc_rmanp_dir dir, const uint8_t *b, int n)
{
  if (dir == AMCC_RMANP_UP) {
    link_send (&S->up[node], now, b, (size_t) n, 0);
    return;
  }
  for (int c = 0; c < N_NODES; c++)
    if (S->parent[c] == node)
      link_send (&S->down[c], now, b, (size_t) n, S->measure);
}

static void
sim_init (sim *S, double wan_bps, uint32_t wan_q, double wan_loss, uint64_t total)
{
  struct amcc_rmanp_params p;
  amcc_rmanp_params_init (&p);
  memset (S, 0, sizeof *S);
  S->total = total;
  S->s = amcc_rmanp_source_new (&p, 0);
  S->r1 = amcc_rmanp_relay_new (&p, 1, 0);
  S->r2 = amcc_rmanp_relay_new (&p, 2, 0);
  for (int i = 0; i < 3; i++) {
    S->x[i] = amcc_rmanp_receiver_new (&p, 10 + i, 0);
    S->sum[i] = 14695981039346656037u;
  }
  S->src_sum = 14695981039346656037u;
  int par[N_NODES] = { -1, N_S, N_R1, N_R2, N_R2, N_R1 };
  memcpy (S->parent, par, sizeof par);
  for (int n = 1; n < N_NODES; n++) {
    int wan = n == N_R2;
    link_init (&S->down[n], wan ? wan_bps : 10e6, wan ? 180 * MS : MS, wan ? wan_q : 100,
        wan ? wan_loss : 0, n);
    link_init (&S->up[n], wan ? wan_bps : 10e6, wan ? 180 * MS : MS, 100, wan ? wan_loss : 0,
        par[n]);
  }
}

static void
sim_free (sim *S)
{
  amcc_rmanp_source_free (S->s);
  amcc_rmanp_relay_free (S->r1);
  amcc_rmanp_relay_free (S->r2);
  for (int i = 0; i < 3; i++)
    amcc_rmanp_receiver_free (S->x[i]);
}

/* One millisecond: arrivals, the application's writes and reads, every role's output. */
static void
sim_step (sim *S, amcc_time now)
{
  uint8_t b[2048];
  int n;
  amcc_rmanp_dir dir;

  for (int i = 1; i < N_NODES; i++) {
    link_run (S, &S->down[i], now, 1);
    link_run (S, &S->up[i], now, 0);
  }
  while (!S->total || S->written < S->total) {   /* the application keeps the source full */
    uint8_t chunk[4096];
    size_t want = sizeof chunk;
    if (S->total && S->total - S->written < want)
      want = (size_t) (S->total - S->written);
    for (size_t i = 0; i < want; i++)
      chunk[i] = gen (S->written + i);
    size_t took = amcc_rmanp_source_write (S->s, chunk, want);
    S->src_sum = fnv (S->src_sum, chunk, took);
    S->written += took;
    if (took < want)
      break;
  }
  if (S->total && S->written == S->total)
    amcc_rmanp_source_finish (S->s);
  while ((n = amcc_rmanp_source_poll (S->s, now, b, sizeof b, &dir)) > 0)
    send_from (S, N_S, now, dir, b, n);
  while ((n = amcc_rmanp_relay_poll (S->r1, now, b, sizeof b, &dir)) > 0)
    send_from (S, N_R1, now, dir, b, n);
  while ((n = amcc_rmanp_relay_poll (S->r2, now, b, sizeof b, &dir)) > 0)
    send_from (S, N_R2, now, dir, b, n);
  for (int i = 0; i < 3; i++) {
    while ((n = amcc_rmanp_receiver_poll (S->x[i], now, b, sizeof b, &dir)) > 0)
      send_from (S, N_X1 + i, now, dir, b, n);
    size_t got;
    while ((got = amcc_rmanp_receiver_read (S->x[i], b, sizeof b)) > 0) {
      for (size_t k = 0; k < got; k++)
        S->bad[i] += b[k] != gen (S->got[i] + k);
      S->sum[i] = fnv (S->sum[i], b, got);
      S->got[i] += got;
    }
  }
}

static int
all_done (sim *S)
{
  for (int i = 0; i < 3; i++)
    if (!amcc_rmanp_receiver_done (S->x[i]))
      return 0;
  return amcc_rmanp_source_done (S->s);
}

static void
check_complete (sim *S, const char *name, amcc_time limit)
{
  amcc_time t;
  struct amcc_rmanp_stats a, b;
  for (t = 0; t < limit && !all_done (S); t += MS)
    sim_step (S, t);
  amcc_rmanp_relay_get_stats (S->r1, &a);
  amcc_rmanp_relay_get_stats (S->r2, &b);
  printf ("# %s: %llu bytes in %.1f s; R1 repairs %llu, cache hits %llu, CIs in %llu, "
      "reactions %llu, overflows %llu; R2 repairs %llu, gaps %llu, NACKs up %llu; "
      "wan drops %llu\n", name, (unsigned long long) S->total, amcc_time_to_s (t),
      (unsigned long long) a.retransmitted, (unsigned long long) a.cache_hits,
      (unsigned long long) a.ci_received, (unsigned long long) a.reactions,
      (unsigned long long) a.overflows, (unsigned long long) b.retransmitted,
      (unsigned long long) b.gaps, (unsigned long long) b.nacks_sent,
      (unsigned long long) S->down[N_R2].dropped);
  AMT_CHECK (all_done (S));
  for (int i = 0; i < 3; i++)
    AMT_CHECK (S->got[i] == S->total && S->bad[i] == 0 && S->sum[i] == S->src_sum);
  AMT_CHECK (a.queue_peak <= 10 && b.queue_peak <= 10);
  amcc_rmanp_source_get_stats (S->s, &a);
  AMT_CHECK (a.excluded == 0 && b.excluded == 0);    /* nobody is below Rm here */
  amcc_rmanp_relay_get_stats (S->r1, &a);
  AMT_CHECK (a.excluded == 0);
}

/* 5 % random loss both ways on the WAN link: every byte arrives, repaired by R1. */
static void
test_loss_5pct (void)
{
  static sim S;
  for (uint64_t seed = 1; seed <= 5; seed++) {
    rng = 0x9E3779B97F4A7C15u * seed;
    sim_init (&S, 1e6, 100, 0.05, 200000);
    check_complete (&S, "5% loss on R1-R2", 600 * SEC);
    struct amcc_rmanp_stats a;
    amcc_rmanp_relay_get_stats (S.r1, &a);
    AMT_CHECK (a.retransmitted > 0 && a.cache_hits > 0);
    sim_free (&S);
  }
}

/* A 32 kbit/s WAN with a 3-packet router queue: R2 sees the losses, R1 throttles and repairs. */
static void
test_bottleneck_relay (void)
{
  static sim S;
  sim_init (&S, 32e3, 3, 0, 400000);
  check_complete (&S, "32 kbit/s bottleneck", 900 * SEC);
  struct amcc_rmanp_stats a, b;
  amcc_rmanp_relay_get_stats (S.r1, &a);
  amcc_rmanp_relay_get_stats (S.r2, &b);
  AMT_CHECK (a.reactions > 0 && b.gaps > 0 && b.ci_sent > 0 && a.retransmitted > 0);
  sim_free (&S);
}

/* The paper's background step on a 180 kbit/s WAN: RMANP's share of what the background leaves
 * free in [350, 650) s (paper 94.7 %) and elsewhere after the start (paper 80.8 % with slow
 * start). Endless stream, every byte checked. */
static void
test_bandwidth_use (void)
{
  static sim S;
  const double wan = 180e3, bg_lo = 14.5e3 * 8, bg_hi = 18.5e3 * 8;
  sim_init (&S, wan, 3, 0, 0);
  amcc_time next_bg = 0;
  uint64_t bytes_at = 0, got_at = 0, bg_drop_at = 0, bg_drop_end = 0;
  for (amcc_time t = 0; t < 950 * SEC; t += MS) {
    int hi = t >= 350 * SEC && t < 650 * SEC;
    if (t == 350 * SEC) {
      S.measure = 1;
      bytes_at = 0;
      bg_drop_at = S.down[N_R2].bg_dropped;
      got_at = S.got[0];
    }
    if (t == 650 * SEC) {
      S.measure = 0;
      bytes_at = S.down[N_R2].bytes_rmanp;
      bg_drop_end = S.down[N_R2].bg_dropped;
      got_at = S.got[0] - got_at;
    }
    while (next_bg <= t) {            /* CBR of 1000-byte packets on the WAN, N0 -> N3 */
      link_send (&S.down[N_R2], t, NULL, 1000, 0);
      next_bg += (amcc_time) (8000.0 / (hi ? bg_hi : bg_lo) * 1e9);
    }
    sim_step (&S, t);
  }
  /* the background is CBR in the same drop-tail queue: what it lost there RMANP took */
  double free_bps = wan - bg_hi, use = 8.0 * bytes_at / 300.0, good = 8.0 * got_at / 300.0;
  double bg_lost_bps = 8.0 * 1000 * (double) (bg_drop_end - bg_drop_at) / 300.0;
  double left_bps = free_bps + bg_lost_bps;
  struct amcc_rmanp_stats a, b;
  amcc_rmanp_relay_get_stats (S.r1, &a);
  amcc_rmanp_relay_get_stats (S.r2, &b);
  printf ("# bandwidth use [350, 650) s: RMANP on the WAN %.1f kbit/s = %.1f %% of the %.1f "
      "kbit/s the background's rate leaves, %.1f %% of the %.1f kbit/s it left (%.1f kbit/s of "
      "background lost in the queue); goodput at X1 %.1f kbit/s = %.1f %% / %.1f %%; R1 queue "
      "peak %u, reactions %llu, repairs %llu; bytes checked at X1 %llu\n", use / 1e3,
      100 * use / free_bps, free_bps / 1e3, 100 * use / left_bps, left_bps / 1e3,
      bg_lost_bps / 1e3, good / 1e3, 100 * good / free_bps, 100 * good / left_bps,
      a.queue_peak, (unsigned long long) a.reactions, (unsigned long long) a.retransmitted,
      (unsigned long long) S.got[0]);
  AMT_CHECK (use >= 0.9 * free_bps && use >= 0.9 * left_bps && use <= 1.01 * left_bps);
  for (int i = 0; i < 3; i++)
    AMT_CHECK (S.bad[i] == 0 && S.got[i] > 0);
  AMT_CHECK (a.queue_peak <= 10 && b.queue_peak <= 10);
  sim_free (&S);
}

int
main (void)
{
  AMT_RUN (test_loss_5pct);
  AMT_RUN (test_bottleneck_relay);
  AMT_RUN (test_bandwidth_use);
  return amt_summary ();
}
