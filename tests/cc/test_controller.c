/* test_controller.c - every protocol of the registry driven through amcc/controller.h alone: one
 * sender and a few receivers exchange RTP facts, report blocks and the APP payloads the roles
 * make, on a simulated network (per receiver: a drop-tail bottleneck, random loss, a one-way
 * delay; RTCP every 500 ms plus the early packets the roles ask for). Only the registry test
 * and one TFMCC wire check name a protocol: a new protocol is tested by registering it.
 * Asserted for each protocol: the rate rises on a clean path and falls when loss appears;
 * it settles near a bottleneck; a receiver gone silent is dropped after the timeout and stops
 * holding the rate down; limits changed while running clamp at once (and what the sender
 * advertises follows); bad APPs are counted as such. Deterministic: simulated clock, seeded
 * random numbers. */
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

static double
rate (sim *S)
{
  return amcc_sender_rate (S->s, S->now);
}

/* Mean of the rate sampled every 100 ms until `until`. */
static double
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

static uint32_t
receivers (sim *S)
{
  amcc_sender_stats st;
  amcc_sender_get_stats (S->s, S->now, &st);
  return st.receivers;
}

/* ------------------------------------------------------------------------------------------ */

static void
test_registry (void)
{
  const amcc_protocol *a = amcc_protocol_find ("asmp"), *t = amcc_protocol_find ("tfmcc");
  amcc_ctl_config c;

  AMT_CHECK (a && t && a != t && amcc_protocol_find ("nosuch") == NULL);
  AMT_CHECK (amcc_protocol_find (NULL) == NULL && amcc_protocol_find ("asm") == NULL);
  AMT_CHECK (amcc_protocol_count () >= 2 && amcc_protocol_at (0) == a
      && amcc_protocol_at (amcc_protocol_count ()) == NULL);
  /* TFMCC cannot work without early RTCP; ASMP can */
  AMT_CHECK (a->rtp_profile == AMCC_RTP_AVP && t->rtp_profile == AMCC_RTP_AVPF);
  amcc_ctl_config_init (&c);
  c.min_bps = 2 * c.max_bps;
  AMT_CHECK (amcc_sender_new (a, &c, 0) == NULL);
  amcc_ctl_config_init (&c);
  c.rtcp_interval = 0;
  AMT_CHECK (amcc_sender_new (t, &c, 0) == NULL && amcc_receiver_new (t, &c, 0) == NULL);
}

/* A clean path: the rate grows from a low start. 5 % random loss: it falls well below. */
static void
check_rise_and_fall (const amcc_protocol *p)
{
  sim S;
  double r0, r_clean, r_lossy;

  sim_init (&S, p, 2, 300e3, 20e6);
  r0 = rate (&S);
  sim_run (&S, 15 * SEC);
  r_clean = rate (&S);
  for (int i = 0; i < S.nn; i++)
    S.n[i].loss = 0.05;
  sim_run (&S, 40 * SEC);
  r_lossy = mean_rate (&S, 45 * SEC);   /* a mean: a window protocol's sawtooth (PGMCC) spans
                                           0.25-2.8 Mbit/s here, as TCP's would */
  printf ("  %s: start %.0f, clean 15 s %.0f, 5 %% loss mean of 40-45 s %.0f bit/s\n", p->name, r0,
      r_clean, r_lossy);
  CHECK (r_clean > 2 * r0);
  CHECK (r_lossy < 0.5 * r_clean);
  CHECK (r_lossy < 1.5e6);              /* TCP's rate at 5 % loss, 40 ms: ~0.5 Mbit/s */
  sim_free (&S);
}

/* A 1 Mbit/s bottleneck with a 100 ms queue: the rate ends near it, not far above or below. */
static void
check_bottleneck (const amcc_protocol *p)
{
  sim S;
  double mean;

  sim_init (&S, p, 2, 500e3, 20e6);
  S.n[1].cap_bps = 1e6;
  sim_run (&S, 20 * SEC);
  mean = mean_rate (&S, 40 * SEC);
  printf ("  %s: mean rate over [20, 40) s behind 1 Mbit/s: %.0f bit/s\n", p->name, mean);
  CHECK (mean > 0.5e6 && mean < 1.3e6);
  sim_free (&S);
}

/* The slow receiver falls silent without a BYE: after the timeout it is not counted and no
 * longer holds the rate down. A BYE removes a receiver at once. */
static void
check_timeout (const amcc_protocol *p)
{
  sim S;
  amcc_time timeout, quiet;
  double held, freed;

  sim_init (&S, p, 2, 500e3, 20e6);
  timeout = amcc_sender_receiver_timeout (S.s);
  CHECK (timeout == 3 * IV);
  S.n[1].cap_bps = 400e3;
  sim_run (&S, 15 * SEC);
  held = mean_rate (&S, 20 * SEC);
  CHECK (receivers (&S) == 2);
  quiet = S.now;
  S.n[1].silent = 1;
  sim_run (&S, quiet + timeout / 2);
  CHECK (receivers (&S) == 2);
  sim_run (&S, quiet + timeout + IV);
  CHECK (receivers (&S) == 1);
  sim_run (&S, quiet + 25 * SEC);
  freed = mean_rate (&S, quiet + 30 * SEC);
  printf ("  %s: mean behind 400 kbit/s %.0f; 25-30 s after it fell silent %.0f bit/s\n",
      p->name, held, freed);
  CHECK (held < 800e3);
  CHECK (freed > 4 * held);
  amcc_sender_on_bye (S.s, S.now, S.n[0].ssrc);
  CHECK (receivers (&S) == 0);
  sim_free (&S);
}

/* The slowest receiver expires without a BYE (its reports may only have been lost): the rate it
 * held down is freed by at most 10 % per RTCP interval; after a BYE at once. */
static void
check_expiry_ramp (const amcc_protocol *p)
{
  double expiry_worst = 0;

  for (int bye = 0; bye < 2; bye++) {
    sim S;
    double held, r, worst = 0;
    amcc_time quiet, timeout, t;

    sim_init (&S, p, 2, 500e3, 20e6);
    timeout = amcc_sender_receiver_timeout (S.s);
    S.n[1].cap_bps = 400e3;
    sim_run (&S, 15 * SEC);
    held = amcc_sender_rate (S.s, S.now);
    quiet = S.now;
    S.n[1].silent = 1;
    if (bye)
      amcc_sender_on_bye (S.s, S.now, S.n[1].ssrc);
    for (t = quiet + IV / 4; t < quiet + timeout + 3 * IV; t += IV / 4) {
      sim_run (&S, t);
      r = amcc_sender_rate (S.s, S.now);
      if (!bye && t > quiet + timeout + IV) {
        /* at most 1.1^k over what it was, k intervals since the expiry (timeout + 1 interval
         * of slack for when it is noticed) */
        double k = (double) (t - quiet - timeout) / (double) IV;
        CHECK (r <= held * 1.25 * pow (1.1, k));
      }
      worst = r > worst ? r : worst;
    }
    printf ("  %s %s: held %.0f, at most %.0f bit/s within %.1f s\n", p->name,
        bye ? "BYE" : "expiry", held, worst, (double) (timeout + 3 * IV) / 1e9);
    /* ASMP's own rate jumps to the fast receiver's at once: after a BYE it must, after an
     * expiry it must not (TFMCC rises by its own slow increase either way) */
    if (bye && !strcmp (p->name, "asmp"))
      CHECK (worst > 1.5 * expiry_worst);
    if (!bye)
      expiry_worst = worst;
    sim_free (&S);
  }
}

/* Every receiver falls silent (no BYE): past the receiver timeout the target halves, and halves
 * again every further timeout, to the minimum; it never holds or rises meanwhile. When
 * reports come back the protocol's own rate takes over again. */
static void
check_all_silent (const amcc_protocol *p)
{
  sim S;
  amcc_time timeout, quiet;
  double heard, prev, r;

  sim_init (&S, p, 2, 500e3, 20e6);
  timeout = amcc_sender_receiver_timeout (S.s);
  sim_run (&S, 15 * SEC);
  heard = amcc_sender_rate (S.s, S.now);
  quiet = S.now;
  S.n[0].silent = S.n[1].silent = 1;
  prev = heard;
  for (amcc_time t = quiet + IV / 4; t < quiet + 8 * timeout; t += IV / 4) {
    sim_run (&S, t);
    r = amcc_sender_rate (S.s, S.now);
    if (t > quiet + timeout + IV)           /* receivers heard within the timeout count */
      CHECK (r <= prev * 1.0001);           /* never rises once nobody is heard */
    prev = r;
  }
  r = amcc_sender_rate (S.s, S.now);
  printf ("  %s: %.0f bit/s while heard, %.0f after 8 silent timeouts\n", p->name, heard, r);
  CHECK (r <= heard / 64 || r <= 64e3 * 1.0001);
  S.n[0].silent = S.n[1].silent = 0;
  sim_run (&S, S.now + 20 * SEC);
  CHECK (amcc_sender_rate (S.s, S.now) > 2 * r);
  sim_free (&S);
}

/* A restarted sender (new SSRC) is a new session for the receiver: packets of another SSRC are
 * ignored while ours sends; once ours has been silent for an RTCP interval the new one takes
 * over and the protocol's state starts afresh (nothing measured or reported on B yet). */
static void
check_sender_change (const amcc_protocol *p)
{
  amcc_ctl_config c;
  amcc_receiver *r;
  amcc_receiver_stats st;
  amcc_time t = 0;
  uint8_t buf[CAP];
  amcc_app app;
  uint16_t seq_a = 100, seq_b = 40000;

  amcc_ctl_config_init (&c);
  c.rtcp_interval = IV;
  c.ssrc = 0x100;
  r = amcc_receiver_new (p, &c, 0);
  for (; t < 10 * SEC; t += 10 * MS) {      /* A at 1 Mbit/s, B now and then */
    amcc_packet a = { .ssrc = 0xA, .seq = seq_a++, .rtp_ts = (uint32_t) (t / 100000 * 9),
      .bytes = 1250, .send_time = t - 20 * MS };
    amcc_receiver_on_rtp (r, t, &a);
    if (t % (500 * MS) == 0) {
      amcc_packet b = { .ssrc = 0xB, .seq = seq_b++, .rtp_ts = 7, .bytes = 1250,
        .send_time = t - 20 * MS };
      amcc_receiver_on_rtp (r, t, &b);
    }
    if (t % IV == 0)
      amcc_receiver_next_app (r, t, buf, sizeof buf, &app);
  }
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xA && st.sender_changes == 0);
  CHECK (st.rate_bps > 0);                  /* it has reported on A */
  /* A stops; B within the interval is still not measured, after it B takes over */
  t += IV / 2;
  amcc_packet b = { .ssrc = 0xB, .seq = seq_b++, .rtp_ts = 9, .bytes = 1250, .send_time = t };
  amcc_receiver_on_rtp (r, t, &b);
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xA && st.sender_changes == 0);
  t += IV;
  b.seq = seq_b++;
  amcc_receiver_on_rtp (r, t, &b);
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xB && st.sender_changes == 1);
  CHECK (st.rate_bps == 0);                 /* fresh state: nothing reported on B yet */
  amcc_receiver_free (r);
}

/* Limits changed while running take effect at once, in the rate and in what the sender
 * advertises; a higher max lets the rate grow past the old one. */
static void
check_limits (const amcc_protocol *p)
{
  sim S;
  double before, r;

  sim_init (&S, p, 1, 500e3, 800e3);
  sim_run (&S, 20 * SEC);
  before = rate (&S);
  CHECK (before <= 800e3 && before > 600e3);
  amcc_sender_set_limits (S.s, 64e3, 300e3);
  CHECK (rate (&S) == 300e3);
  sim_run (&S, S.now + 2 * SEC);
  CHECK (rate (&S) == 300e3);
  amcc_sender_set_limits (S.s, 1.2e6, 20e6);
  CHECK (rate (&S) == 1.2e6);
  amcc_sender_set_limits (S.s, 64e3, 20e6);
  sim_run (&S, S.now + 20 * SEC);
  r = rate (&S);
  printf ("  %s: max 800 k: %.0f; after max 300 k then 20 M for 20 s: %.0f bit/s\n", p->name,
      before, r);
  CHECK (r > 1.2e6);
  sim_free (&S);
}

/* Bad input is classified, never taken: foreign names, payloads of our name that do not
 * decode, our own APP looped back. */
static void
check_bad_apps (const amcc_protocol *p)
{
  sim S;
  uint8_t buf[CAP], junk[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  amcc_app sa, ra;
  node *n;

  sim_init (&S, p, 1, 500e3, 20e6);
  n = &S.n[0];
  sim_run (&S, 5 * SEC);
  CHECK (amcc_sender_on_app (S.s, S.now, 0x100, "XYZW", 0, junk, 8) == AMCC_APP_FOREIGN);
  CHECK (amcc_receiver_on_app (n->r, S.now, SENDER_SSRC, "XYZW", 0, junk, 8)
      == AMCC_APP_FOREIGN);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, sizeof buf, &sa) == 1);
  CHECK (amcc_receiver_on_app (n->r, S.now, n->ssrc, sa.name, sa.subtype, buf, sa.len)
      == AMCC_APP_IGNORED);
  CHECK (amcc_receiver_on_app (n->r, S.now, SENDER_SSRC, sa.name, sa.subtype, junk, 8)
      == AMCC_APP_MALFORMED);
  /* the sender's own kind of APP heard from another sender is not for the sender role */
  CHECK (amcc_sender_on_app (S.s, S.now, 0x999, sa.name, sa.subtype, buf, sa.len)
      == AMCC_APP_IGNORED);
  /* a receiver APP name with a payload that does not decode */
  for (int tries = 0; tries < 200; tries++) {
    sim_run (&S, S.now + 10 * MS);
    if (amcc_receiver_next_app (n->r, S.now, buf, sizeof buf, &ra) == 1)
      break;
    ra.len = 0;
  }
  CHECK (ra.len > 0);
  CHECK (amcc_sender_on_app (S.s, S.now, n->ssrc, ra.name, ra.subtype, junk, 8)
      == AMCC_APP_MALFORMED);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, 2, &sa) == AMCC_ERR_NOSPACE);
  CHECK (amcc_receiver_next_app (n->r, S.now, buf, 2, &ra) == AMCC_ERR_NOSPACE);
  sim_free (&S);
}

/* cfg.proofs (issue 14): a receiver's reports count once a report block of it echoed one of our
 * SRs (LSR) without claiming to have held it longer than since we sent it (DLSR); eq. 9's RTT
 * then comes from our own SR send time. A forger who never heard an SR stays unproven. */
static void
check_proofs (const amcc_protocol *p)
{
  sim S;
  uint8_t buf[CAP];
  amcc_app ra = { 0 };
  const amcc_peer *peer;
  size_t it = 0;
  uint32_t lsr;
  const uint32_t forger = 0x999;

  sim_proofs = 1;
  sim_init (&S, p, 1, 500e3, 20e6);
  sim_proofs = 0;
  sim_run (&S, 10 * SEC);
  CHECK (S.taken >= 5);
  CHECK (S.unproven <= 1);                  /* at most the report sent before any SR */
  for (int tries = 0; tries < 200 && !ra.len; tries++) {
    sim_run (&S, S.now + 10 * MS);
    if (amcc_receiver_next_app (S.n[0].r, S.now, buf, sizeof buf, &ra) != 1)
      ra.len = 0;
  }
  CHECK (ra.len > 0);
  lsr = S.n[0].lsr;
  CHECK (lsr != 0);
  /* never sent a block; a block with an LSR we never sent; a DLSR longer than since our SR */
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr ^ 0x5a5a, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr, 0x7fff0000, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  /* a block about another SSRC proves nothing either */
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC + 1, lsr, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_TAKEN);
  /* eq. 9 on our own clock: the receiver's RTT is the path's 2 x 20 ms (to DLSR's 1/65536 s) */
  if (p == amcc_protocol_find ("asmp")) {
    while ((peer = amcc_sender_next_peer (S.s, &it)) && peer->ssrc != S.n[0].ssrc)
      ;
    CHECK (peer != NULL);
    if (peer)
      AMT_NEAR (peer->sender_rtt_s, 0.040, 0.0002);
  }
  sim_free (&S);
}

/* TFMCC's X travels to the receivers in its sender APP (RFC 4654 2.2.1): new limits clamp
 * what is advertised too, not only the target handed to the encoder. */
static void
test_tfmcc_advertises_limits (void)
{
  sim S;
  uint8_t buf[CAP];
  amcc_app app;
  struct amcc_tfmcc_sender_info info;

  pname = "tfmcc";
  sim_init (&S, amcc_protocol_find ("tfmcc"), 1, 500e3, 20e6);
  sim_run (&S, 10 * SEC);
  CHECK (rate (&S) > 1e6);
  amcc_sender_set_limits (S.s, 64e3, 300e3);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, sizeof buf, &app) == 1);
  CHECK (memcmp (app.name, AMCC_TFMCC_APP_SENDER, 4) == 0);
  CHECK (amcc_tfmcc_sender_info_decode (&info, buf, app.len) >= 0);
  CHECK (info.rate_bps <= 300e3 * 1.001);         /* the wire rounds the rate */
  sim_free (&S);
  pname = "";
}

static void
for_each_protocol (void (*check) (const amcc_protocol *))
{
  for (size_t i = 0; i < amcc_protocol_count (); i++) {
    if (!amcc_protocol_at (i)->sender || !amcc_protocol_at (i)->receiver)
      continue;   /* receiver-driven (AVMRC: test_avmrc.c) or relay-only (RMANP: test_rmanp.c) */
    pname = amcc_protocol_at (i)->name;
    check (amcc_protocol_at (i));
  }
  pname = "";
}

/* An ASMP member reporting 20 kbit/s in its own name (a liar, or a path far worse than the
 * rest): after cfg.outlier_intervals RTCP intervals below half the next slowest report it is the
 * outlier in the stats; excluded, its reports are refused and the target rises (by the expiry
 * ramp); readmitted, it holds the group down again. */
static int forged_refused;

static void
forge_report (sim *S, uint32_t ssrc, double bps)
{
  amcc_asmp_report r = { .rate_bps = bps, .report_seq = (uint32_t) (S->now / IV) };
  uint8_t buf[64];
  size_t w;

  AMT_CHECK (amcc_asmp_report_encode (&r, buf, sizeof buf, &w) == AMCC_OK);
  amcc_sender_on_report_block (S->s, S->now, ssrc, SENDER_SSRC, 0, 0, 0);
  forged_refused += amcc_sender_on_app (S->s, S->now, ssrc, AMCC_ASMP_APP_NAME,
      AMCC_ASMP_SUBTYPE_REPORT, buf, w) == AMCC_APP_EXCLUDED;
}

static void
run_forging (sim *S, amcc_time until, uint32_t ssrc)
{
  amcc_sender_stats st;

  while (S->now < until) {
    forge_report (S, ssrc, 20e3);
    sim_run (S, S->now + IV);
    amcc_sender_get_stats (S->s, S->now, &st);   /* as the elements, at every RTCP packet */
  }
}

static void
test_outlier_exclude (void)
{
  sim S;
  amcc_sender_stats st;
  const uint32_t liar = 0x999;
  double held, freed, back;
  amcc_time onset;

  pname = "asmp";
  sim_init (&S, amcc_protocol_find ("asmp"), 2, 500e3, 2e6);
  sim_run (&S, 10 * SEC);
  amcc_sender_get_stats (S.s, S.now, &st);
  CHECK (!st.have_outlier && st.excluded == 0);         /* two honest peers: no outlier */
  onset = S.now;
  run_forging (&S, onset + 4 * SEC, liar);              /* 8 intervals: not yet */
  amcc_sender_get_stats (S.s, S.now, &st);
  CHECK (!st.have_outlier);
  run_forging (&S, onset + 6 * SEC, liar);              /* 12 intervals */
  amcc_sender_get_stats (S.s, S.now, &st);
  held = rate (&S);
  printf ("  outlier: liar at 20 kbit/s, target %.0f, next slowest %.0f bit/s\n", held,
      st.next_rate_bps);
  CHECK (st.have_outlier && st.outlier_ssrc == liar && st.outlier_rate_bps == 20e3);
  CHECK (st.next_rate_bps > 2 * 20e3 && held < 100e3);
  CHECK (amcc_sender_exclude (S.s, S.now, liar, 1) == AMCC_OK);
  CHECK (forged_refused == 0);
  run_forging (&S, S.now + 20 * SEC, liar);
  CHECK (forged_refused == 40);                          /* every forged APP refused */
  amcc_sender_get_stats (S.s, S.now, &st);
  freed = rate (&S);
  CHECK (!st.have_outlier && st.excluded == 1 && st.receivers == 2);
  CHECK (freed > 4 * held);
  CHECK (amcc_sender_exclude (S.s, S.now, liar, 0) == AMCC_OK);
  run_forging (&S, S.now + 2 * SEC, liar);
  back = rate (&S);
  amcc_sender_get_stats (S.s, S.now, &st);
  printf ("  excluded: target %.0f after 20 s; readmitted: %.0f bit/s\n", freed, back);
  CHECK (st.excluded == 0 && back < 100e3);
  sim_free (&S);

  /* invalid ratios are refused */
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.outlier_ratio = 1;
  CHECK (amcc_sender_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);
  c.outlier_ratio = -0.1;
  CHECK (amcc_sender_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);
}

static void test_rise_and_fall (void) { for_each_protocol (check_rise_and_fall); }
static void test_bottleneck (void) { for_each_protocol (check_bottleneck); }
static void test_timeout (void) { for_each_protocol (check_timeout); }
static void test_limits (void) { for_each_protocol (check_limits); }
static void test_bad_apps (void) { for_each_protocol (check_bad_apps); }
static void test_proofs (void) { for_each_protocol (check_proofs); }
static void test_all_silent (void) { for_each_protocol (check_all_silent); }
static void test_expiry_ramp (void) { for_each_protocol (check_expiry_ramp); }
static void test_sender_change (void) { for_each_protocol (check_sender_change); }

int
main (void)
{
  AMT_RUN (test_registry);
  AMT_RUN (test_rise_and_fall);
  AMT_RUN (test_bottleneck);
  AMT_RUN (test_timeout);
  AMT_RUN (test_limits);
  AMT_RUN (test_bad_apps);
  AMT_RUN (test_proofs);
  AMT_RUN (test_all_silent);
  AMT_RUN (test_expiry_ramp);
  AMT_RUN (test_sender_change);
  AMT_RUN (test_tfmcc_advertises_limits);
  AMT_RUN (test_outlier_exclude);
  return amt_summary ();
}
