/* test_rmanp.c - RMANP's rules one by one (papers/004 2.1-2.4, spec/rmanp.md), values by hand:
 * the wire codec, the rate increase per ACK (Is, In), CIs with Da/Dr and their filtering, the
 * mark bit, new_queue overflow, cache hits and misses, repairs ahead of new data, the ACK timeout
 * fallback, exclusion below Rm, bounded memory under adversarial input, the relay through the
 * controller interface. The tree as a whole: test_rmanp_scenario.c. */
#include <string.h>
#include "amcc/controller.h"
#include "amcc/rmanp.h"
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S

static uint8_t payload[1 << 17];

static int
data (uint8_t *buf, uint32_t seq, uint32_t rate, uint8_t flags, uint16_t len)
{
  struct amcc_rmanp_pkt k = { .type = AMCC_RMANP_DATA, .seq = seq, .value = rate,
    .flags = flags, .payload = payload, .len = len };
  return amcc_rmanp_encode (&k, buf, 2048);
}

static int
ctl (uint8_t *buf, uint8_t type, uint32_t node, uint32_t seq, uint32_t value)
{
  struct amcc_rmanp_pkt k = { .type = type, .node = node, .seq = seq, .value = value };
  return amcc_rmanp_encode (&k, buf, 64);
}

/* Everything the relay sends now; the packets decoded, in order. */
typedef struct { int n; struct amcc_rmanp_pkt p[64]; int up[64]; uint8_t raw[64][1100]; } out;

static void
drain_relay (amcc_rmanp_relay *r, amcc_time now, out *o)
{
  int n;
  amcc_rmanp_dir dir;
  o->n = 0;
  while (o->n < 64 && (n = amcc_rmanp_relay_poll (r, now, o->raw[o->n], 1100, &dir)) > 0) {
    AMT_CHECK (amcc_rmanp_decode (&o->p[o->n], o->raw[o->n], (size_t) n) == AMCC_OK);
    o->up[o->n++] = dir == AMCC_RMANP_UP;
  }
}

static int
count (const out *o, uint8_t type)
{
  int c = 0;
  for (int i = 0; i < o->n; i++)
    c += o->p[i].type == type;
  return c;
}

static const struct amcc_rmanp_pkt *
first (const out *o, uint8_t type)
{
  for (int i = 0; i < o->n; i++)
    if (o->p[i].type == type)
      return &o->p[i];
  return NULL;
}

static void
test_wire (void)
{
  uint8_t b[2048], c[2048];
  struct amcc_rmanp_pkt k;
  int n = data (b, 7, 16000, AMCC_RMANP_F_MARK | AMCC_RMANP_F_FIN, 5);

  AMT_CHECK (n == AMCC_RMANP_DATA_HDR + 5);
  AMT_CHECK (b[0] == 1 && b[1] == AMCC_RMANP_DATA && b[2] == 0x05 && b[7] == 7);
  AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && k.seq == 7 && k.value == 16000
      && k.len == 5 && k.flags == 0x05 && k.payload == b + 16);
  for (int len = 0; len < n; len++)           /* every truncation */
    AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) len) == AMCC_ERR_TRUNCATED);
  memcpy (c, b, (size_t) n);
  c[n] = 0;
  AMT_CHECK (amcc_rmanp_decode (&k, c, (size_t) n + 1) == AMCC_ERR_FIELD);      /* trailing */
  c[0] = 2;
  AMT_CHECK (amcc_rmanp_decode (&k, c, (size_t) n) == AMCC_ERR_VERSION);
  memcpy (c, b, (size_t) n);
  c[2] = 0x08;
  AMT_CHECK (amcc_rmanp_decode (&k, c, (size_t) n) == AMCC_ERR_FIELD);          /* flag */
  memcpy (c, b, (size_t) n);
  c[1] = 9;
  AMT_CHECK (amcc_rmanp_decode (&k, c, (size_t) n) == AMCC_ERR_TYPE);
  memcpy (c, b, (size_t) n);
  c[3] = 1;
  AMT_CHECK (amcc_rmanp_decode (&k, c, (size_t) n) == AMCC_ERR_FIELD);          /* reserved */
  AMT_CHECK (data (b, 1, 0, 0, 5) == AMCC_ERR_PARAM);                           /* rate 0 */
  AMT_CHECK (data (b, 1, 1, 0, 5) > 0 && data (c, 1, 1, 0, 5) > 0);
  AMT_CHECK (amcc_rmanp_encode (&(struct amcc_rmanp_pkt) { .type = AMCC_RMANP_DATA, .value = 1,
        .len = 5, .payload = payload }, b, 20) == AMCC_ERR_NOSPACE);

  n = ctl (b, AMCC_RMANP_NACK, 0x01020304, 10, 3);
  AMT_CHECK (n == AMCC_RMANP_CTL_LEN && b[4] == 1 && b[7] == 4 && b[11] == 10 && b[15] == 3);
  AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && k.node == 0x01020304
      && k.seq == 10 && k.value == 3 && k.type == AMCC_RMANP_NACK);
  for (int len = 0; len < n; len++)
    AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) len) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (ctl (b, AMCC_RMANP_NACK, 1, 1, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (ctl (b, AMCC_RMANP_NACK, 1, 1, AMCC_RMANP_NACK_MAX + 1) == AMCC_ERR_PARAM);
  AMT_CHECK (ctl (b, AMCC_RMANP_CI, 1, 1, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (ctl (b, AMCC_RMANP_ACK, 1, 1, 1) == AMCC_ERR_PARAM);
  n = ctl (b, AMCC_RMANP_ACK, 1, 5, 0);
  b[15] = 1;                                  /* an ACK's value must be 0 */
  AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_ERR_FIELD);
  n = ctl (b, AMCC_RMANP_CI, 1, 5, 6400);
  b[2] = 1;                                   /* control has no flags */
  AMT_CHECK (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_ERR_FIELD);

  /* rejected input is counted by the role that got it */
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  amcc_rmanp_params_init (&p);
  amcc_rmanp_relay *r = amcc_rmanp_relay_new (&p, 1, 0);
  AMT_CHECK (amcc_rmanp_relay_on_packet (r, 0, 1, b, 3) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_rmanp_relay_on_packet (r, 0, 1, b, (size_t) n) == AMCC_ERR_FIELD);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.malformed == 2);
  /* a payload longer than this node's packets (a sender with a larger packet_bytes) is
   * rejected, not copied past its slot: 1057 - 16 = 1041 fits, 1042 does not */
  static uint8_t big[1100];
  struct amcc_rmanp_pkt d = { .type = AMCC_RMANP_DATA, .seq = 0, .value = 1000,
    .payload = payload, .len = 1042 };
  n = amcc_rmanp_encode (&d, big, sizeof big);
  AMT_CHECK (n == 16 + 1042);
  AMT_CHECK (amcc_rmanp_relay_on_packet (r, 0, 1, big, (size_t) n) == AMCC_ERR_FIELD);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.malformed == 3 && st.forwarded == 0 && st.cached == 0);
  amcc_rmanp_receiver *rx = amcc_rmanp_receiver_new (&p, 2, 0);
  AMT_CHECK (amcc_rmanp_receiver_on_packet (rx, 0, big, (size_t) n) == AMCC_ERR_FIELD);
  d.len = 1041;
  n = amcc_rmanp_encode (&d, big, sizeof big);
  AMT_CHECK (amcc_rmanp_receiver_on_packet (rx, 0, big, (size_t) n) == AMCC_OK);
  amcc_rmanp_receiver_get_stats (rx, &st);
  AMT_CHECK (st.malformed == 1 && st.acked == 1);
  amcc_rmanp_receiver_free (rx);
  amcc_rmanp_relay_free (r);
}

static void
test_equations (void)
{
  struct amcc_rmanp_params p;
  amcc_rmanp_params_init (&p);
  AMT_NEAR (amcc_rmanp_source_increase (&p, 16000, 1), 16080, 1e-9);   /* + 0.005 x 16000 */
  AMT_NEAR (amcc_rmanp_source_increase (&p, 16000, 10), 16800, 1e-9);
  AMT_NEAR (amcc_rmanp_relay_increase (&p, 16000, 1), 16800, 1e-9);    /* + 0.05 x 16000 */
  AMT_NEAR (amcc_rmanp_adjusted_rate (&p, 8000), 6400, 1e-9);          /* the paper's example */
  AMT_NEAR (amcc_rmanp_relayed_rate (&p, 6400), 6336, 1e-9);           /* "6.33 Kb/s" */
  AMT_CHECK (amcc_rmanp_payload_max (&p) == 1041);
  AMT_CHECK (amcc_rmanp_params_check (&p) == AMCC_OK);
  p.da = 0;
  AMT_CHECK (amcc_rmanp_params_check (&p) == AMCC_ERR_PARAM && !amcc_rmanp_relay_new (&p, 1, 0));
}

/* The source: starts at Rm, paces packets of 1057 bytes at it (0.5285 s each), + Is Rm per
 * packet ACKed by every child. */
static void
test_source_rate_per_ack (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  amcc_rmanp_params_init (&p);
  p.ack_timeout = 100 * SEC;                  /* not this test's subject */
  amcc_rmanp_source *s = amcc_rmanp_source_new (&p, 0);

  AMT_NEAR (amcc_rmanp_source_rate (s), 16000, 1e-9);
  AMT_CHECK (amcc_rmanp_source_write (s, payload, 10 * 1041) == 10 * 1041);
  AMT_CHECK (amcc_rmanp_source_poll (s, 0, b, sizeof b, &dir) == 1057 && dir == AMCC_RMANP_DOWN);
  AMT_CHECK (amcc_rmanp_source_poll (s, 528 * MS, b, sizeof b, &dir) == 0);
  AMT_CHECK (amcc_rmanp_source_next_due (s, 528 * MS) == 528500 * AMCC_NS_PER_US);
  AMT_CHECK (amcc_rmanp_source_poll (s, 529 * MS, b, sizeof b, &dir) == 1057);
  for (int i = 2; i < 10; i++)
    AMT_CHECK (amcc_rmanp_source_poll (s, i * SEC, b, sizeof b, &dir) == 1057);
  AMT_CHECK (amcc_rmanp_source_poll (s, 11 * SEC, b, sizeof b, &dir) == 0);   /* all sent */
  /* two children: the rate follows the slower one's ACKs */
  int n = ctl (b, AMCC_RMANP_ACK, 1, 3, 0);
  AMT_CHECK (amcc_rmanp_source_on_packet (s, 11 * SEC, b, (size_t) n) == AMCC_OK);
  AMT_NEAR (amcc_rmanp_source_rate (s), 16000 + 3 * 80, 1e-6);
  n = ctl (b, AMCC_RMANP_ACK, 2, 1, 0);
  amcc_rmanp_source_on_packet (s, 11 * SEC, b, (size_t) n);   /* the minimum goes back? no */
  AMT_NEAR (amcc_rmanp_source_rate (s), 16240, 1e-6);
  n = ctl (b, AMCC_RMANP_ACK, 1, 10, 0);
  amcc_rmanp_source_on_packet (s, 11 * SEC, b, (size_t) n);
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.acked == 3 && st.children == 2);
  n = ctl (b, AMCC_RMANP_ACK, 2, 10, 0);
  amcc_rmanp_source_on_packet (s, 11 * SEC, b, (size_t) n);
  AMT_NEAR (amcc_rmanp_source_rate (s), 16000 + 10 * 80, 1e-6);
  n = ctl (b, AMCC_RMANP_ACK, 2, 11, 0);       /* ACKs what was never sent: ignored */
  amcc_rmanp_source_on_packet (s, 11 * SEC, b, (size_t) n);
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.acked == 10 && st.ignored == 1 && st.queued == 0 && st.sent == 10);
  /* the window: 256 unACKed packets at most */
  AMT_CHECK (amcc_rmanp_source_write (s, payload, 2048) == 2048);
  size_t took = 2048;
  for (int i = 0; i < 300; i++)
    took += amcc_rmanp_source_write (s, payload, 2048);
  AMT_CHECK (took == 256 * 1041);
  amcc_rmanp_source_free (s);
}

/* 2.2/2.3 at the source: a CI sets the rate when lower, never below Rm; the others are filtered. */
static void
test_source_ci (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  amcc_rmanp_params_init (&p);
  p.is = 0.5;                                 /* + 8000 bit/s per packet ACKed */
  amcc_rmanp_source *s = amcc_rmanp_source_new (&p, 0);
  amcc_rmanp_source_write (s, payload, 1041);
  amcc_rmanp_source_poll (s, 0, b, sizeof b, &dir);
  int n = ctl (b, AMCC_RMANP_ACK, 1, 1, 0);
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);
  AMT_NEAR (amcc_rmanp_source_rate (s), 24000, 1e-9);
  n = ctl (b, AMCC_RMANP_CI, 1, 0, 19200);
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);
  AMT_NEAR (amcc_rmanp_source_rate (s), 19200, 1e-9);
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);         /* the same incident again */
  n = ctl (b, AMCC_RMANP_CI, 1, 0, 20000);
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);         /* a milder one */
  AMT_NEAR (amcc_rmanp_source_rate (s), 19200, 1e-9);
  n = ctl (b, AMCC_RMANP_CI, 1, 0, 9000);
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);         /* below Rm: Rm */
  AMT_NEAR (amcc_rmanp_source_rate (s), 16000, 1e-9);
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.ci_received == 4 && st.reactions == 2 && st.ci_filtered == 2);
  amcc_rmanp_source_free (s);
}

/* 2.3 at a relay: the lowest CI sets the output rate, x Dr goes up, the rest is filtered. */
static void
test_relay_ci (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[64];
  out o;
  amcc_rmanp_params_init (&p);
  p.rm_bps = 1000;
  amcc_rmanp_relay *r = amcc_rmanp_relay_new (&p, 5, 0);

  int n = ctl (b, AMCC_RMANP_CI, 9, 4, 6400);
  AMT_CHECK (amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n) == AMCC_OK);
  drain_relay (r, 0, &o);
  AMT_CHECK (o.n == 1 && o.up[0] && o.p[0].type == AMCC_RMANP_CI && o.p[0].value == 6336
      && o.p[0].node == 5 && o.p[0].seq == 4);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.controlled && st.rate_bps == 6400);
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);       /* a second detector, same rate */
  n = ctl (b, AMCC_RMANP_CI, 10, 4, 7000);
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
  drain_relay (r, 0, &o);
  AMT_CHECK (o.n == 0);
  n = ctl (b, AMCC_RMANP_CI, 10, 6, 5000);                   /* a worse incident */
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
  drain_relay (r, 0, &o);
  AMT_CHECK (o.n == 1 && o.p[0].value == 4950);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.rate_bps == 5000 && st.ci_received == 4 && st.ci_filtered == 2
      && st.reactions == 2 && st.ci_sent == 2);
  /* 2.4: + In Rm = 50 bit/s per packet the children (9 and 10) have both ACKed; the minimum
   * goes up as the relay's own ACK */
  uint8_t d[2048];
  for (uint32_t q = 0; q < 5; q++) {
    n = data (d, q, 6000, 0, 10);
    amcc_rmanp_relay_on_packet (r, 0, 1, d, (size_t) n);
  }
  static const uint32_t acks[][2] = { { 9, 0 }, { 10, 0 }, { 9, 3 }, { 10, 2 }, { 10, 5 } };
  static const double rate_after[] = { 5000, 5000, 5000, 5100, 5150 };
  for (int i = 0; i < 5; i++) {
    n = ctl (b, AMCC_RMANP_ACK, acks[i][0], acks[i][1], 0);
    amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
    amcc_rmanp_relay_get_stats (r, &st);
    AMT_NEAR (st.rate_bps, rate_after[i], 1e-9);
  }
  drain_relay (r, 0, &o);
  const struct amcc_rmanp_pkt *ack = first (&o, AMCC_RMANP_ACK);
  AMT_CHECK (ack && ack->seq == 3 && ack->node == 5 && count (&o, AMCC_RMANP_ACK) == 1);
  amcc_rmanp_relay_free (r);
}

/* 2.1: the relay that sees a gap sends a CI with the packet's rate x Da, marks the packet, does
 * not throttle itself; a marked gap further down raises no CI; an unmarked one at a receiver
 * does. */
static void
test_gap_and_mark (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  out o;
  amcc_rmanp_params_init (&p);
  amcc_rmanp_relay *r1 = amcc_rmanp_relay_new (&p, 1, 0), *r2 = amcc_rmanp_relay_new (&p, 2, 0);
  amcc_rmanp_receiver *rx = amcc_rmanp_receiver_new (&p, 3, 0);

  for (uint32_t q = 0; q < 4; q++) {
    if (q == 2)
      continue;                               /* lost above r1 */
    int n = data (b, q, 20000, 0, 100);
    amcc_rmanp_relay_on_packet (r1, q * MS, 1, b, (size_t) n);
    drain_relay (r1, q * MS, &o);
    for (int i = 0; i < o.n; i++) {
      if (o.up[i])
        continue;
      AMT_CHECK (o.p[i].seq != 3 || o.p[i].flags == AMCC_RMANP_F_MARK);
      AMT_CHECK (o.p[i].seq == 3 || o.p[i].flags == 0);
      amcc_rmanp_relay_on_packet (r2, q * MS, 1, o.raw[i], AMCC_RMANP_DATA_HDR + 100);
    }
    if (q == 3) {                             /* r1: CI 16000 up, and a NACK for 2 */
      const struct amcc_rmanp_pkt *ci = first (&o, AMCC_RMANP_CI), *na = first (&o, AMCC_RMANP_NACK);
      AMT_CHECK (ci && ci->value == 16000 && ci->seq == 3 && na && na->seq == 2 && na->value == 1);
    }
    drain_relay (r2, q * MS, &o);
    AMT_CHECK (count (&o, AMCC_RMANP_CI) == 0);
  }
  amcc_rmanp_relay_get_stats (r1, &st);
  AMT_CHECK (st.gaps == 1 && st.marked == 1 && st.ci_sent == 1 && !st.controlled);
  amcc_rmanp_relay_get_stats (r2, &st);
  AMT_CHECK (st.gaps == 1 && st.marked == 0 && st.ci_sent == 0 && st.nacks_sent == 1);

  int n = data (b, 0, 20000, 0, 10);
  amcc_rmanp_receiver_on_packet (rx, 0, b, (size_t) n);
  n = data (b, 2, 20000, AMCC_RMANP_F_MARK, 10);
  amcc_rmanp_receiver_on_packet (rx, 0, b, (size_t) n);
  n = data (b, 5, 20000, 0, 10);
  amcc_rmanp_receiver_on_packet (rx, 0, b, (size_t) n);
  amcc_rmanp_receiver_get_stats (rx, &st);
  AMT_CHECK (st.gaps == 2);
  amcc_rmanp_dir dir;
  int ci = 0;
  while ((n = amcc_rmanp_receiver_poll (rx, 0, b, sizeof b, &dir)) > 0) {
    struct amcc_rmanp_pkt k;
    amcc_rmanp_decode (&k, b, (size_t) n);
    if (k.type == AMCC_RMANP_CI) {
      AMT_CHECK (k.value == 16000 && k.seq == 5 && k.node == 3);
      ci++;
    }
  }
  AMT_CHECK (ci == 1);
  amcc_rmanp_relay_free (r1);
  amcc_rmanp_relay_free (r2);
  amcc_rmanp_receiver_free (rx);
}

/* new_queue (10) overflows: the excess is dropped but cached, a CI goes up, the next packet
 * forwarded is marked, and a NACK for a dropped one is served from the cache. */
static void
test_overflow_and_repair_order (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  out o;
  amcc_rmanp_params_init (&p);
  amcc_rmanp_relay *r = amcc_rmanp_relay_new (&p, 1, 0);

  int n = ctl (b, AMCC_RMANP_CI, 9, 0, 20000);
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
  drain_relay (r, 0, &o);                    /* the CI up (19800); 1057 B at 20 kbit/s: 0.4228 s */
  AMT_CHECK (o.n == 1 && o.p[0].value == 19800);
  for (uint32_t q = 0; q < 12; q++) {
    n = data (b, q, 24000, 0, 1041);
    amcc_rmanp_relay_on_packet (r, 0, 1, b, (size_t) n);
  }
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.queued == 10 && st.overflows == 2 && st.cached == 12 && st.queue_peak == 10);
  drain_relay (r, 0, &o);                    /* CI 24000 x 0.8 up; nothing down before 0.4228 s */
  AMT_CHECK (o.n == 1 && o.up[0] && o.p[0].type == AMCC_RMANP_CI && o.p[0].value == 19200);
  n = data (b, 12, 24000, 0, 1041);          /* the one after the overflow: marked */
  amcc_rmanp_relay_on_packet (r, 0, 1, b, (size_t) n);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.overflows == 3);             /* still full: dropped too, mark still pending */
  drain_relay (r, 422 * MS, &o);
  AMT_CHECK (o.n == 1 && o.up[0] && o.p[0].value == 19200 && o.p[0].seq == 12);  /* upstream filters it */
  drain_relay (r, 423 * MS, &o);
  AMT_CHECK (o.n == 1 && !o.up[0] && o.p[0].seq == 0 && o.p[0].flags == 0);
  /* a child NACKs 10 and 11 (dropped, cached): they go before the 9 still queued, paced */
  n = ctl (b, AMCC_RMANP_NACK, 9, 10, 2);
  amcc_rmanp_relay_on_packet (r, 423 * MS, 0, b, (size_t) n);
  drain_relay (r, 845 * MS, &o);
  AMT_CHECK (o.n == 0);                      /* next slot at 0.8456 s */
  drain_relay (r, 846 * MS, &o);
  AMT_CHECK (o.n == 1 && o.p[0].seq == 10 && o.p[0].flags == AMCC_RMANP_F_RETX);
  drain_relay (r, 1268 * MS, &o);
  AMT_CHECK (o.n == 0);                      /* 1.2684 s */
  drain_relay (r, 1269 * MS, &o);
  AMT_CHECK (o.n == 1 && o.p[0].seq == 11 && o.p[0].flags == AMCC_RMANP_F_RETX);
  drain_relay (r, 1692 * MS, &o);
  AMT_CHECK (o.n == 1 && o.p[0].seq == 1 && o.p[0].flags == 0);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.cache_hits == 2 && st.retransmitted == 2 && st.forwarded == 2 && st.controlled);
  /* the first new packet the queue takes after the overflow carries the mark */
  for (amcc_time t = 5 * SEC; st.queued; t += SEC) {
    drain_relay (r, t, &o);
    amcc_rmanp_relay_get_stats (r, &st);
  }
  n = data (b, 13, 24000, 0, 1041);
  amcc_rmanp_relay_on_packet (r, 20 * SEC, 1, b, (size_t) n);
  drain_relay (r, 20 * SEC, &o);
  const struct amcc_rmanp_pkt *d = NULL;
  for (int i = 0; i < o.n; i++)
    if (o.p[i].type == AMCC_RMANP_DATA && o.p[i].seq == 13)
      d = &o.p[i];
  AMT_CHECK (d && d->flags == AMCC_RMANP_F_MARK);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (!st.controlled);                /* 2.4: drained and the input no faster */
  amcc_rmanp_relay_free (r);
}

/* A NACK for a packet the cache no longer holds goes upstream; one it holds does not. */
static void
test_cache_miss (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  out o;
  amcc_rmanp_params_init (&p);
  amcc_rmanp_relay *r = amcc_rmanp_relay_new (&p, 4, 0);
  for (uint32_t q = 0; q < 150; q++) {
    int n = data (b, q, 16000, 0, 10);
    amcc_rmanp_relay_on_packet (r, 0, 1, b, (size_t) n);
    drain_relay (r, 0, &o);
  }
  int n = ctl (b, AMCC_RMANP_NACK, 9, 10, 1);              /* cache holds 50..149 */
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
  drain_relay (r, 0, &o);
  AMT_CHECK (o.n == 1 && o.up[0] && o.p[0].type == AMCC_RMANP_NACK && o.p[0].seq == 10
      && o.p[0].value == 1 && o.p[0].node == 4);
  n = ctl (b, AMCC_RMANP_NACK, 9, 50, 1);
  amcc_rmanp_relay_on_packet (r, 0, 0, b, (size_t) n);
  drain_relay (r, 0, &o);
  AMT_CHECK (o.n == 1 && !o.up[0] && o.p[0].seq == 50 && o.p[0].flags == AMCC_RMANP_F_RETX);
  amcc_rmanp_relay_on_packet (r, 50 * MS, 0, b, (size_t) n);   /* within repair_holdoff */
  drain_relay (r, 50 * MS, &o);
  AMT_CHECK (o.n == 0);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.cache_misses == 1 && st.cache_hits == 2 && st.cached == 100);
  amcc_rmanp_relay_free (r);
}

/* The source's fallback: 2 s without ACK progress = congestion (rate x Da), and the last packet
 * sent goes again. */
static void
test_ack_timeout (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  amcc_rmanp_params_init (&p);
  p.is = 0.5;
  amcc_rmanp_source *s = amcc_rmanp_source_new (&p, 0);
  amcc_rmanp_source_write (s, payload, 3 * 1041);
  amcc_rmanp_source_poll (s, 0, b, sizeof b, &dir);
  int n = ctl (b, AMCC_RMANP_ACK, 1, 1, 0);
  amcc_rmanp_source_on_packet (s, 100 * MS, b, (size_t) n);  /* 24000 bit/s */
  AMT_CHECK (amcc_rmanp_source_poll (s, SEC, b, sizeof b, &dir) == 1057);      /* seq 1 */
  AMT_CHECK (amcc_rmanp_source_poll (s, 2 * SEC, b, sizeof b, &dir) == 1057);  /* seq 2 */
  AMT_CHECK (amcc_rmanp_source_next_due (s, 2 * SEC) == 3 * SEC);
  AMT_CHECK (amcc_rmanp_source_poll (s, 2999 * MS, b, sizeof b, &dir) == 0);
  AMT_NEAR (amcc_rmanp_source_rate (s), 24000, 1e-9);
  n = amcc_rmanp_source_poll (s, 3 * SEC, b, sizeof b, &dir);
  struct amcc_rmanp_pkt k;
  AMT_CHECK (n == 1057 && amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && k.seq == 2
      && k.flags == AMCC_RMANP_F_RETX && k.value == 19200);
  AMT_NEAR (amcc_rmanp_source_rate (s), 19200, 1e-9);
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.ack_timeouts == 1 && st.retransmitted == 1);
  AMT_CHECK (amcc_rmanp_source_poll (s, 4 * SEC, b, sizeof b, &dir) == 0);     /* re-armed */
  amcc_rmanp_source_poll (s, 5 * SEC, b, sizeof b, &dir);
  AMT_NEAR (amcc_rmanp_source_rate (s), 16000, 1e-9);        /* 15360 < Rm */
  amcc_rmanp_source_free (s);
}

/* A child that ACKs less than half of Rm over 10 s (exclude_window) while more was sent is excluded; the source
 * no longer waits for it. One that keeps up with Rm is not. */
static void
test_exclusion (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  amcc_rmanp_params_init (&p);
  p.is = 0;                                   /* stays at Rm: 1.892 packets/s */
  p.ack_timeout = 100 * SEC;                  /* the slow child holds the ACKs: not the subject */
  p.exclude_window = 10 * SEC;
  amcc_rmanp_source *s = amcc_rmanp_source_new (&p, 0);
  amcc_rmanp_source_write (s, payload, 100 * 1041);
  int n = ctl (b, AMCC_RMANP_ACK, 2, 0, 0);   /* the slow one registers, then says nothing */
  amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);
  uint32_t sent = 0;                          /* new packets (retransmissions not counted) */
  amcc_time t;
  struct amcc_rmanp_pkt k;
  for (t = 0; t < 9 * SEC; t += 10 * MS) {
    while ((n = amcc_rmanp_source_poll (s, t, b, sizeof b, &dir)) > 0)
      if (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && !(k.flags & AMCC_RMANP_F_RETX))
        sent++;
    n = ctl (b, AMCC_RMANP_ACK, 1, sent, 0);
    amcc_rmanp_source_on_packet (s, t, b, (size_t) n);
  }
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.excluded == 0 && st.acked == 0 && sent == 18);      /* 9 s / 0.5285 s */
  for (; t < 11 * SEC; t += 10 * MS) {
    while ((n = amcc_rmanp_source_poll (s, t, b, sizeof b, &dir)) > 0)
      if (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && !(k.flags & AMCC_RMANP_F_RETX))
        sent++;
    n = ctl (b, AMCC_RMANP_ACK, 1, sent, 0);
    amcc_rmanp_source_on_packet (s, t, b, (size_t) n);
  }
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.excluded == 1 && st.children == 1 && st.acked == sent);
  n = ctl (b, AMCC_RMANP_NACK, 2, 0, 1);      /* an excluded child is not served */
  amcc_rmanp_source_on_packet (s, t, b, (size_t) n);
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.nacks_received == 0 && st.ignored == 1);
  for (; t < 40 * SEC; t += 10 * MS) {        /* the fast child stays */
    while ((n = amcc_rmanp_source_poll (s, t, b, sizeof b, &dir)) > 0)
      if (amcc_rmanp_decode (&k, b, (size_t) n) == AMCC_OK && !(k.flags & AMCC_RMANP_F_RETX))
        sent++;
    n = ctl (b, AMCC_RMANP_ACK, 1, sent, 0);
    amcc_rmanp_source_on_packet (s, t, b, (size_t) n);
  }
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.excluded == 1 && st.children == 1 && st.acked == sent && sent >= 75);
  amcc_rmanp_source_free (s);

  /* two children equally slow: the session holds them back, nobody is excluded */
  s = amcc_rmanp_source_new (&p, 0);
  amcc_rmanp_source_write (s, payload, 100 * 1041);
  for (uint32_t node = 1; node <= 2; node++) {
    n = ctl (b, AMCC_RMANP_ACK, node, 0, 0);
    amcc_rmanp_source_on_packet (s, 0, b, (size_t) n);
  }
  for (t = 0; t < 25 * SEC; t += 10 * MS)
    while (amcc_rmanp_source_poll (s, t, b, sizeof b, &dir) > 0)
      ;
  amcc_rmanp_source_get_stats (s, &st);
  AMT_CHECK (st.excluded == 0 && st.children == 2);
  amcc_rmanp_source_free (s);
}

/* 2.1: a receiver whose NACKs of one packet exceed nack_ci_threshold (3) signals a CI. */
static void
test_receiver_nack_threshold (void)
{
  struct amcc_rmanp_params p;
  uint8_t b[2048];
  amcc_rmanp_dir dir;
  amcc_rmanp_params_init (&p);
  p.nack_interval = 200 * MS;
  amcc_rmanp_receiver *rx = amcc_rmanp_receiver_new (&p, 3, 0);
  int n = data (b, 0, 20000, 0, 10);
  amcc_rmanp_receiver_on_packet (rx, 0, b, (size_t) n);
  n = data (b, 2, 20000, AMCC_RMANP_F_MARK, 10);
  amcc_rmanp_receiver_on_packet (rx, 0, b, (size_t) n);
  int nacks = 0, cis = 0, acks = 0;
  for (amcc_time t = 0; t <= 700 * MS; t += 50 * MS)
    while ((n = amcc_rmanp_receiver_poll (rx, t, b, sizeof b, &dir)) > 0) {
      struct amcc_rmanp_pkt k;
      amcc_rmanp_decode (&k, b, (size_t) n);
      nacks += k.type == AMCC_RMANP_NACK && k.seq == 1 && k.value == 1;
      acks += k.type == AMCC_RMANP_ACK && k.seq == 1;
      if (k.type == AMCC_RMANP_CI) {
        cis++;
        AMT_CHECK (t == 600 * MS && k.value == 16000 && k.seq == 1);
      }
    }
  AMT_CHECK (nacks == 4 && cis == 1 && acks == 1);            /* at 0, 0.2, 0.4, 0.6 s */
  n = data (b, 1, 20000, AMCC_RMANP_F_RETX, 10);
  amcc_rmanp_receiver_on_packet (rx, SEC, b, (size_t) n);
  uint8_t got[64];
  AMT_CHECK (amcc_rmanp_receiver_read (rx, got, sizeof got) == 30);
  amcc_rmanp_receiver_free (rx);
}

/* Adversarial input: whatever arrives, the relay's queues, cache and children stay within their
 * capacities and it allocates nothing after _new. */
static void
test_memory_bounded (void)
{
  struct amcc_rmanp_params p;
  struct amcc_rmanp_stats st;
  uint8_t b[2048];
  out o;
  uint64_t x = 88172645463325252u;
  amcc_rmanp_params_init (&p);
  p.cache_packets = 20;
  p.queue_packets = 5;
  p.repair_packets = 4;
  p.max_children = 3;
  amcc_rmanp_relay *r = amcc_rmanp_relay_new (&p, 1, 0);
  amcc_rmanp_receiver *rx = amcc_rmanp_receiver_new (&p, 2, 0);
  size_t mem = amcc_rmanp_relay_memory (r);
  AMT_CHECK (mem > 20 * 1041 + 9 * 1041);
  int bad = 0;
  for (int i = 0; i < 200000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    amcc_time now = i * MS;
    uint32_t seq = (x >> 8) % 5 ? (uint32_t) (i + (x >> 20) % 40) : (uint32_t) (x >> 32);
    int n;
    switch (x % 5) {
    case 0: case 1:
      n = data (b, seq, (uint32_t) (x >> 40) + 1, (uint8_t) ((x >> 16) & 7), (uint16_t) ((x >> 24) % 1042));
      break;
    case 2:
      n = ctl (b, AMCC_RMANP_CI, (uint32_t) (x >> 50), seq, (uint32_t) (x >> 33) + 1);
      break;
    case 3:
      n = ctl (b, AMCC_RMANP_NACK, (uint32_t) (x >> 50), seq, (uint32_t) (x >> 20) % 1024 + 1);
      break;
    default:
      n = ctl (b, AMCC_RMANP_ACK, (uint32_t) (x >> 50), seq, 0);
    }
    amcc_rmanp_relay_on_packet (r, now, x % 5 < 2, b, (size_t) n);
    amcc_rmanp_receiver_on_packet (rx, now, b, (size_t) n);
    if ((x >> 12) % 3 == 0) {
      drain_relay (r, now, &o);
      amcc_rmanp_dir dir;
      while (amcc_rmanp_receiver_poll (rx, now, b, sizeof b, &dir) > 0)
        ;
      amcc_rmanp_receiver_read (rx, b, sizeof b);
    }
    amcc_rmanp_relay_get_stats (r, &st);
    bad += st.queued > 5 || st.repair_queued > 4 || st.cached > 20
        || st.children + st.excluded > 3 || amcc_rmanp_relay_memory (r) != mem;
  }
  AMT_CHECK (bad == 0);
  amcc_rmanp_relay_get_stats (r, &st);
  AMT_CHECK (st.overflows > 0 && st.ci_received > 0 && st.nacks_received > 0 && st.ignored > 0);
  amcc_rmanp_relay_free (r);
  amcc_rmanp_receiver_free (rx);
}

/* The relay through amcc/controller.h: registered, relay table only. */
static void
test_controller_entry (void)
{
  const amcc_protocol *p = amcc_protocol_find ("rmanp");
  amcc_ctl_config c;
  uint8_t b[2048];
  int up = -1;
  AMT_CHECK (p && p->relay && !p->sender && !p->receiver && p->max_streams == 0);
  amcc_ctl_config_init (&c);
  c.min_bps = 4000;
  c.ssrc = 77;
  AMT_CHECK (amcc_sender_new (p, &c, 0) == NULL && amcc_receiver_new (p, &c, 0) == NULL);
  AMT_CHECK (amcc_relay_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);
  amcc_relay *r = amcc_relay_new (p, &c, 0);
  AMT_CHECK (r && amcc_relay_protocol (r) == p);
  int n = data (b, 0, 16000, 0, 100);
  AMT_CHECK (amcc_relay_on_packet (r, 0, 1, b, (size_t) n) == AMCC_OK);
  AMT_CHECK (amcc_relay_poll (r, 0, b, sizeof b, &up) == n && up == 0);
  n = ctl (b, AMCC_RMANP_CI, 9, 0, 8000);
  AMT_CHECK (amcc_relay_on_packet (r, 0, 0, b, (size_t) n) == AMCC_OK);
  AMT_NEAR (amcc_relay_rate (r, 0), 8000, 1e-9);
  AMT_CHECK (amcc_relay_poll (r, 0, b, sizeof b, &up) == AMCC_RMANP_CTL_LEN && up == 1);
  struct amcc_rmanp_pkt k;
  AMT_CHECK (amcc_rmanp_decode (&k, b, AMCC_RMANP_CTL_LEN) == AMCC_OK && k.node == 77
      && k.value == 7920);
  AMT_CHECK (amcc_relay_on_packet (r, 0, 0, b, 5) == AMCC_ERR_TRUNCATED);
  amcc_relay_free (r);
}

int
main (void)
{
  for (size_t i = 0; i < sizeof payload; i++)
    payload[i] = (uint8_t) (i * 7 + 1);
  AMT_RUN (test_wire);
  AMT_RUN (test_equations);
  AMT_RUN (test_source_rate_per_ack);
  AMT_RUN (test_source_ci);
  AMT_RUN (test_relay_ci);
  AMT_RUN (test_gap_and_mark);
  AMT_RUN (test_overflow_and_repair_order);
  AMT_RUN (test_cache_miss);
  AMT_RUN (test_ack_timeout);
  AMT_RUN (test_exclusion);
  AMT_RUN (test_receiver_nack_threshold);
  AMT_RUN (test_memory_bounded);
  AMT_RUN (test_controller_entry);
  return amt_summary ();
}
