/* ctl_sim.h - the simulated network of the controller tests (test_controller.c, test_policy.c):
 * one sender and up to MAXRX receivers of any registered protocol exchange RTP facts, report
 * blocks and the APP payloads the roles make; per receiver a drop-tail bottleneck, random loss
 * and a one-way delay; RTCP every IV plus the early packets the roles ask for (at most one per
 * EARLY_GAP, as the elements). Deterministic: simulated clock, seeded random numbers. Static
 * functions: include it from one test file each. */
#ifndef CTL_SIM_H
#define CTL_SIM_H
#include <amcc/asmp.h>
#include <amcc/controller.h>
#include <amcc/rtt.h>
#include <amcc/tfmcc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S
#define TICK MS
#define PKT 1000                        /* RTP packet, bytes */
#define MAXRX 4
#define RING 8192
#define MAXMSG 256
#define CAP 512                         /* APP payload room */
#define SENDER_SSRC 0x5E4D0001u
#define IV (500 * MS)                   /* RTCP interval */
#define EARLY_GAP (50 * MS)             /* as the elements: early RTCP at most every 50 ms */

static const char *pname = "";
#define CHECK(cond) do { int ok_ = !!(cond); if (!ok_) fprintf (stderr, "  [%s] %s\n", pname, \
      #cond); AMT_CHECK (ok_); } while (0)

typedef struct { amcc_time arr, sent; uint32_t seq; } inflight;

typedef struct {
  amcc_receiver *r;
  uint32_t ssrc;
  double cap_bps;                       /* bottleneck, 0 = none */
  double loss;                          /* random loss probability on its path */
  amcc_time delay, buffer, link_free;   /* one-way delay; drop-tail queue in time */
  inflight q[RING];
  int head, tail;
  amcc_time next_rtcp, last_early;
  int silent;                           /* sends no RTCP (crashed, no BYE) */
  uint32_t lsr;                         /* last SR: NTP 16.16 and arrival */
  amcc_time sr_arrival;
} node;

typedef struct {
  amcc_time at;
  int to;                               /* -1 = the sender */
  uint32_t from, lsr, dlsr;
  int sr, rb, has_app;
  amcc_app app;
  uint8_t data[CAP];
} msg;

typedef struct {
  const amcc_protocol *proto;
  amcc_sender *s;
  node n[MAXRX];
  int nn;
  msg m[MAXMSG];
  amcc_time now, next_send, next_sr, sender_early;
  uint32_t seq;
  uint64_t rng;
  uint32_t proofs;            /* cfg.proofs of the sender */
  int unproven, taken;        /* receiver APPs the sender classified so */
} sim;

static uint32_t sim_proofs;   /* cfg.proofs for the next sim_init */
static int sim_contain_off;   /* the next sim_init turns contain.c's rules off */
/* changes a receiver's APP before it leaves (an attacker's forgeries); NULL = none */
static void (*sim_tamper) (sim *S, int i, msg *m);
/* changes the sender's config in the next sim_init, after the above; NULL = none */
static void (*sim_config) (amcc_ctl_config *c);

static double
uniform (uint64_t *st)
{
  uint64_t z = (*st += UINT64_C (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
  return (double) ((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static void
post (sim *S, const msg *m)
{
  for (int i = 0; i < MAXMSG; i++)
    if (!S->m[i].at) {
      S->m[i] = *m;
      return;
    }
  AMT_CHECK (!"message table full");
}

static void
sim_init (sim *S, const amcc_protocol *p, int nn, double initial_bps, double max_bps)
{
  amcc_ctl_config c;

  memset (S, 0, sizeof *S);
  S->proto = p;
  S->nn = nn;
  S->rng = 42;
  amcc_ctl_config_init (&c);
  c.initial_bps = initial_bps;
  c.max_bps = max_bps;
  c.rtcp_interval = IV;
  c.ssrc = SENDER_SSRC;
  c.seed = 1;
  c.proofs = S->proofs = sim_proofs;
  if (sim_contain_off)
    c.plausible_margin = c.damp_drop = c.elect_confirm = c.acker_loss_factor = 0,
        c.report_limit = 0;
  if (sim_config)
    sim_config (&c);
  S->s = amcc_sender_new (p, &c, 0);
  AMT_CHECK (S->s != NULL);
  for (int i = 0; i < nn; i++) {
    node *n = &S->n[i];
    c.ssrc = 0x100 + (uint32_t) i;
    c.seed = 7 + (uint64_t) i;
    n->r = amcc_receiver_new (p, &c, 0);
    AMT_CHECK (n->r != NULL);
    n->ssrc = c.ssrc;
    n->delay = 20 * MS;
    n->buffer = 100 * MS;
    n->next_rtcp = IV + (amcc_time) i * 37 * MS;        /* staggered */
  }
  S->next_sr = IV / 2;
  S->sender_early = amcc_sender_early_due (S->s, 0);
}

static void
sim_free (sim *S)
{
  for (int i = 0; i < S->nn; i++)
    amcc_receiver_free (S->n[i].r);
  amcc_sender_free (S->s);
}

/* One RTP packet into every receiver's path. */
static void
send_packet (sim *S)
{
  S->seq++;
  amcc_sender_on_rtp_sent (S->s, S->now, PKT);
  for (int i = 0; i < S->nn; i++) {
    node *n = &S->n[i];
    amcc_time dep = S->now;
    if (n->loss > 0 && uniform (&S->rng) < n->loss)
      continue;
    if (n->cap_bps > 0) {
      if (n->link_free - S->now > n->buffer)
        continue;                                       /* drop-tail */
      dep = (n->link_free > S->now ? n->link_free : S->now)
          + amcc_time_from_s (8.0 * PKT / n->cap_bps);
      n->link_free = dep;
    }
    n->q[n->tail] = (inflight) { dep + n->delay, S->now, S->seq };
    n->tail = (n->tail + 1) % RING;
    AMT_CHECK (n->tail != n->head);
  }
}

static void
sender_rtcp (sim *S)
{
  msg m = { .sr = 1, .from = SENDER_SSRC, .lsr = amcc_time_to_ntp_mid32 (S->now) };
  int ret = amcc_sender_next_app (S->s, S->now, m.data, CAP, &m.app);

  amcc_sender_on_sr_sent (S->s, S->now, m.lsr);      /* as the elements do */
  CHECK (ret >= 0);
  m.has_app = ret == 1;
  for (int i = 0; i < S->nn; i++) {
    m.to = i;
    m.at = S->now + S->n[i].delay;
    post (S, &m);
  }
}

static void
receiver_rtcp (sim *S, int i)
{
  node *n = &S->n[i];
  msg m = { .from = n->ssrc, .rb = n->lsr != 0, .lsr = n->lsr,
    .dlsr = amcc_time_to_ntp_mid32 (S->now - n->sr_arrival) };
  int ret = amcc_receiver_next_app (n->r, S->now, m.data, CAP, &m.app);

  CHECK (ret >= 0);
  m.has_app = ret == 1;
  if (m.has_app && sim_tamper)
    sim_tamper (S, i, &m);
  m.to = -1;
  m.at = S->now + n->delay;
  post (S, &m);
  m.rb = 0;                             /* peers hear the APP over the group */
  for (int j = 0; m.has_app && j < S->nn; j++)
    if (j != i) {
      m.to = j;
      m.at = S->now + n->delay + S->n[j].delay;
      post (S, &m);
    }
}

static void
deliver (sim *S, msg *m)
{
  if (m->to < 0) {
    if (m->rb)
      amcc_sender_on_report_block (S->s, S->now, m->from, SENDER_SSRC, m->lsr, m->dlsr,
          amcc_time_to_ntp_mid32 (S->now));
    if (m->has_app) {
      amcc_app_result r = amcc_sender_on_app (S->s, S->now, m->from, m->app.name,
          m->app.subtype, m->data, m->app.len);
      CHECK (r == AMCC_APP_TAKEN || (S->proofs && r == AMCC_APP_UNPROVEN)
          || r == AMCC_APP_EXCLUDED);
      S->taken += r == AMCC_APP_TAKEN;
      S->unproven += r == AMCC_APP_UNPROVEN;
    }
    return;
  }
  node *n = &S->n[m->to];
  if (m->sr) {
    n->lsr = m->lsr;
    n->sr_arrival = S->now;
    amcc_receiver_on_sender_report (n->r, S->now, m->from, (uint32_t) S->nn + 1);
  }
  if (m->has_app)
    CHECK (amcc_receiver_on_app (n->r, S->now, m->from, m->app.name, m->app.subtype, m->data,
            m->app.len) == AMCC_APP_TAKEN);
}

static void
sim_run (sim *S, amcc_time until)
{
  while (S->now < until) {
    S->now += TICK;
    while (S->next_send <= S->now) {
      send_packet (S);
      S->next_send += amcc_time_from_s (8.0 * PKT / amcc_sender_rate (S->s, S->now));
    }
    for (int i = 0; i < S->nn; i++) {   /* packets at their exact arrival times */
      node *n = &S->n[i];
      for (; n->head != n->tail && n->q[n->head].arr <= S->now; n->head = (n->head + 1) % RING) {
        const inflight *f = &n->q[n->head];
        amcc_packet p = { .ssrc = SENDER_SSRC, .seq = (uint16_t) f->seq,
          .rtp_ts = (uint32_t) (f->sent / 100000 * 9), .bytes = PKT, .send_time = f->sent,
          .has_extseq = 1, .extseq = f->seq };
        amcc_receiver_on_rtp (n->r, f->arr, &p);
      }
    }
    for (int k = 0; k < MAXMSG; k++)
      if (S->m[k].at && S->m[k].at <= S->now) {
        deliver (S, &S->m[k]);
        S->m[k].at = 0;
      }
    if (S->now >= S->next_sr || (S->sender_early != AMCC_TIME_NONE && S->now >= S->sender_early)) {
      sender_rtcp (S);
      if (S->now >= S->next_sr)
        S->next_sr += IV;
      else
        S->sender_early = amcc_sender_early_due (S->s, S->now);
    }
    for (int i = 0; i < S->nn; i++) {
      node *n = &S->n[i];
      amcc_time due = amcc_receiver_early_due (n->r, S->now);
      int early = due != AMCC_TIME_NONE && due <= S->now && S->now - n->last_early >= EARLY_GAP;
      if (n->silent)                    /* no catch-up burst when it speaks again */
        while (n->next_rtcp <= S->now)
          n->next_rtcp += IV;
      if (n->silent || (S->now < n->next_rtcp && !early))
        continue;
      receiver_rtcp (S, i);
      if (S->now >= n->next_rtcp)
        n->next_rtcp += IV;
      else
        n->last_early = S->now;
    }
  }
}

static inline double
rate (sim *S)
{
  return amcc_sender_rate (S->s, S->now);
}

/* Mean of the rate sampled every 100 ms until `until`. */
static inline double
mean_rate (sim *S, amcc_time until)
{
  double sum = 0;
  int k = 0;

  for (; S->now < until; k++) {
    sim_run (S, S->now + 100 * MS);
    sum += rate (S);
  }
  return k ? sum / k : rate (S);
}

static inline uint32_t
receivers (sim *S)
{
  amcc_sender_stats st;
  amcc_sender_get_stats (S->s, S->now, &st);
  return st.receivers;
}

#endif
