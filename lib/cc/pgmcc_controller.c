/* pgmcc_controller.c - PGMCC behind the controller interface (amcc/controller.h): an adapter
 * over amcc_pgmcc_sender / amcc_pgmcc_receiver and the "PGMC" codecs (pgmcc.h says how PGMCC
 * rides on RTCP). No PGMCC arithmetic here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/pgmcc.h"
#include "controller_impl.h"

/* AMCC_ERR_PARAM when the parameters are impossible (amcc_pgmcc_params_validate): no sender
 * or receiver is created with them. */
static int
params_from (struct amcc_pgmcc_params *p, const amcc_ctl_config *cfg)
{
  amcc_pgmcc_params_init (p);
  if (cfg->initial_bps > 0)
    p->initial_rate_bps = cfg->initial_bps;
  p->min_rate_bps = cfg->min_bps;
  p->max_rate_bps = cfg->max_bps;
  return amcc_pgmcc_params_validate (p);
}

/* ---------------------------------------------------------------- sender */

/* After a stall (the acker silent past the timeout) the rate rises at most STALL_RISE per RTCP
 * interval from where it was: the acker may only have lost its ACKs, as a receiver that expired
 * (controller.c's EXPIRY_RISE); PGMCC's own slow start would be back above it within RTTs. */
#define STALL_RISE 0.10

typedef struct {
  amcc_sender base;
  struct amcc_pgmcc_sender tx;
  uint64_t timeouts;            /* the stalls seen */
  int ramping;
  uint64_t ramp_reactions;      /* the window's loss reactions when the ramp began */
  double ramp_from;
  amcc_time ramp_at;
} pgmcc_tx;

static struct amcc_pgmcc_sender *tx_of (amcc_sender *s) { return &((pgmcc_tx *) s)->tx; }

static amcc_sender *
tx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  pgmcc_tx *a;
  struct amcc_pgmcc_params p;

  if (params_from (&p, cfg) != AMCC_OK || !(a = calloc (1, sizeof *a)))
    return NULL;
  amcc_pgmcc_sender_init (&a->tx, &p, now);
  return &a->base;
}

static void tx_destroy (amcc_sender *s) { free (s); }

static void
tx_on_rtp_sent (amcc_sender *s, amcc_time now, size_t bytes)
{
  amcc_pgmcc_sender_on_sent (tx_of (s), now, bytes);
}

static void
tx_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter, uint32_t lsr,
    uint32_t dlsr, uint32_t a_ntp32)
{
  amcc_peer *v = amcc_peers_get (&s->peers, reporter);

  (void) lsr, (void) dlsr, (void) a_ntp32;
  if (v)
    v->heard = now;
}

/* A receiver's RTT in seconds from its echo's RTT in packets (0: no echo), by the acker's
 * seconds per packet of RTT; contain.c's acker_vouch_rtt compares it. */
static double
peer_rtt_s (const struct amcc_pgmcc_sender *tx, double rtt_pkts)
{
  if (!(rtt_pkts > 0) || !(tx->acker_rtt_pkts > 0) || !(tx->srtt_s > 0))
    return 0;
  return rtt_pkts * tx->srtt_s / tx->acker_rtt_pkts;
}

/* The receiver's TCP-friendly rate for the stats: 1.22 s / (RTT sqrt p), the RTT in packets
 * turned into seconds by the acker's seconds per packet of RTT. */
static double
peer_rate (const struct amcc_pgmcc_sender *tx, double rtt_pkts, double p)
{
  double rtt_s = peer_rtt_s (tx, rtt_pkts);

  return p > 0 && rtt_s > 0 ? 1.22 * tx->mean_size * 8 / (rtt_s * sqrt (p)) : 0;
}

static amcc_app_result
tx_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len)
{
  struct amcc_pgmcc_sender *tx = tx_of (s);
  struct amcc_pgmcc_ack ack;
  const struct amcc_pgmcc_feedback *fb = &ack.fb;
  amcc_peer *v;

  if (memcmp (name, AMCC_PGMCC_APP_NAME, 4) != 0)
    return AMCC_APP_FOREIGN;
  if (subtype == AMCC_PGMCC_SUB_SENDER)
    return AMCC_APP_IGNORED;    /* another sender's */
  if (subtype == AMCC_PGMCC_SUB_ACK ? amcc_pgmcc_ack_decode (&ack, data, len) < 0
      : subtype != AMCC_PGMCC_SUB_REPORT || amcc_pgmcc_report_decode (&ack.fb, data, len) < 0)
    return AMCC_APP_MALFORMED;
  double rtt = amcc_pgmcc_sender_rtt_packets (tx, now, fb);
  int first = !(tx->has_acker && tx->acker == ssrc && tx->ack_started);
  int acking = amcc_pgmcc_sender_feedback (tx, now, ssrc, fb,
      subtype == AMCC_PGMCC_SUB_ACK ? &ack : NULL, !s->elect_held);
  amcc_time undo_from;
  /* the losses its bitmaps claim against what its own and the others' reports state */
  if (acking && subtype == AMCC_PGMCC_SUB_ACK && tx->ack_started
      && amcc_contain_acker_loss (s, now, ssrc, first, tx->claim_p, fb->loss, &undo_from))
    amcc_pgmcc_sender_demote (tx, now, undo_from);
  if ((v = amcc_peers_get (&s->peers, ssrc))) {
    v->heard = v->reported = now;
    v->loss = fb->loss;
    v->congested = fb->loss > 0;
    v->rate_bps = peer_rate (tx, rtt, fb->loss);
    v->rtt_s = tx->has_acker && tx->acker == ssrc ? tx->srtt_s : peer_rtt_s (tx, rtt);
  }
  return AMCC_APP_TAKEN;
}

_Static_assert (AMCC_ELECT_NONE == 0 && AMCC_ELECT_SWITCH == 1 && AMCC_ELECT_FIRST == 2,
    "amcc_pgmcc_sender_would_elect answers in amcc_claim.elect's values");

/* Containment (contain.c): a report states no rate, only what it does to the election; ACKs
 * come at the acker's pace (one per ack_interval_min at most), reports once per interval. */
static int
tx_claim (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len, amcc_claim *c)
{
  struct amcc_pgmcc_sender *tx = tx_of (s);
  struct amcc_pgmcc_ack ack;

  if (memcmp (name, AMCC_PGMCC_APP_NAME, 4) != 0
      || (subtype == AMCC_PGMCC_SUB_ACK ? amcc_pgmcc_ack_decode (&ack, data, len) < 0
          : subtype != AMCC_PGMCC_SUB_REPORT
          || amcc_pgmcc_report_decode (&ack.fb, data, len) < 0))
    return 0;
  c->loss = ack.fb.loss;
  c->elect = amcc_pgmcc_sender_would_elect (tx, now, ssrc, &ack.fb);
  if (subtype == AMCC_PGMCC_SUB_ACK)    /* contain.c takes 10 ms as the shortest period */
    c->period = tx->p.ack_interval_min > 0 ? tx->p.ack_interval_min : 1;
  return 1;
}

static void
tx_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc)
{
  (void) now;
  amcc_pgmcc_sender_on_bye (tx_of (s), ssrc);
}

static double
tx_rate (amcc_sender *s, amcc_time now)
{
  pgmcc_tx *a = (pgmcc_tx *) s;
  double r = amcc_pgmcc_sender_rate (&a->tx, now);

  if (a->tx.timeouts != a->timeouts) {
    a->timeouts = a->tx.timeouts;
    a->ramping = 1;
    a->ramp_from = s->last_rate > 0 ? s->last_rate : r;
    a->ramp_at = now;
    a->ramp_reactions = a->tx.reactions;
  }
  if (!a->ramping)
    return r;
  double k = (double) (now - a->ramp_at) / (double) s->cfg.rtcp_interval;
  double step = a->ramp_from * pow (1 + STALL_RISE, k);
  /* over once the new acker's path said where it is (a loss) or the cap stops mattering; not
   * when the rate is below the cap: right after the stall W is at its minimum */
  if (a->tx.reactions != a->ramp_reactions || step >= s->cfg.max_bps)
    a->ramping = 0;
  if (!a->ramping || r <= step)
    return r;
  amcc_pgmcc_sender_cap_window (&a->tx, step);
  return step;
}

static void
tx_set_limits (amcc_sender *s, double min_bps, double max_bps)
{
  tx_of (s)->p.min_rate_bps = min_bps;
  tx_of (s)->p.max_rate_bps = max_bps;
}

static int
tx_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  struct amcc_pgmcc_sender *tx = tx_of (s);
  struct amcc_pgmcc_sender_info si = { tx->has_acker, tx->has_acker ? tx->acker : 0 };
  int w;

  (void) now;
  if (cap < AMCC_PGMCC_SENDER_LEN)
    return AMCC_ERR_NOSPACE;
  if ((w = amcc_pgmcc_sender_info_encode (&si, buf, cap)) < 0)
    return w;
  tx->announce = false;
  return amcc_app_made (out, AMCC_PGMCC_APP_NAME, AMCC_PGMCC_SUB_SENDER, (size_t) w);
}

/* a new acker must learn it at once: its ACKs clock the window */
static amcc_time
tx_early_due (amcc_sender *s, amcc_time now)
{
  return tx_of (s)->announce ? now : AMCC_TIME_NONE;
}

static void
tx_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st)
{
  struct amcc_pgmcc_sender *tx = tx_of (s);

  st->receivers = amcc_peers_alive (&s->peers, now, s->cfg.receiver_timeout);
  st->have_slowest = tx->has_acker;
  st->slowest_ssrc = tx->has_acker ? tx->acker : 0;
  st->slowest_rate_bps = tx->has_acker ? amcc_pgmcc_sender_window_rate (tx) : 0;
}

static const amcc_sender_ops sender_ops = {
  .create = tx_create, .destroy = tx_destroy, .on_rtp_sent = tx_on_rtp_sent,
  .on_report_block = tx_on_report_block, .on_app = tx_on_app, .on_bye = tx_on_bye,
  .rate = tx_rate, .set_limits = tx_set_limits, .next_app = tx_next_app,
  .early_due = tx_early_due, .get_stats = tx_get_stats, .claim = tx_claim,
};

/* ---------------------------------------------------------------- receiver */

typedef struct {
  amcc_receiver base;
  struct amcc_pgmcc_receiver rx;
  int have_ext;                 /* our own extension of the 16-bit sequence number */
  uint32_t ext_hi;
  uint64_t bytes, bytes_at;     /* received; at the last report (the receive rate, stats) */
  amcc_time report_at;
  double rate_bps;
} pgmcc_rx;

static amcc_receiver *
rx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  pgmcc_rx *a;
  struct amcc_pgmcc_params p;

  (void) now;
  if (params_from (&p, cfg) != AMCC_OK || !(a = calloc (1, sizeof *a)))
    return NULL;
  amcc_pgmcc_receiver_init (&a->rx, &p, cfg->ssrc);
  return &a->base;
}

static void rx_destroy (amcc_receiver *r) { free (r); }

static void
rx_reset (amcc_receiver *r, amcc_time now)
{
  pgmcc_rx *a = (pgmcc_rx *) r;
  struct amcc_pgmcc_params p = a->rx.p;

  (void) now;
  a->have_ext = 0;
  a->bytes = a->bytes_at = 0;
  a->report_at = 0;
  a->rate_bps = 0;
  amcc_pgmcc_receiver_init (&a->rx, &p, r->cfg.ssrc);
}

static void
rx_set_ssrc (amcc_receiver *r, uint32_t ssrc)
{
  ((pgmcc_rx *) r)->rx.ssrc = ssrc;
  ((pgmcc_rx *) r)->rx.is_acker = false;        /* until the sender names us again */
}

static void
rx_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt)
{
  pgmcc_rx *a = (pgmcc_rx *) r;
  uint32_t ext;
  int has_ts = pkt->send_time != AMCC_TIME_NONE;

  if (pkt->has_extseq)
    ext = pkt->extseq;
  else if (!a->have_ext)
    ext = pkt->seq;
  else
    ext = a->ext_hi + (uint32_t) (int32_t) (int16_t) (uint16_t) (pkt->seq - (uint16_t) a->ext_hi);
  if (!a->have_ext || (int32_t) (ext - a->ext_hi) > 0)
    a->ext_hi = ext;
  a->have_ext = 1;
  if (!a->bytes)
    a->report_at = now;
  a->bytes += pkt->bytes;
  /* pgmcc.h: sender timestamps are the sender clock in us, low 32 bits */
  amcc_pgmcc_receiver_on_rtp (&a->rx, now, ext, has_ts,
      has_ts ? (uint32_t) ((uint64_t) (pkt->send_time / AMCC_NS_PER_US)) : 0);
}

static amcc_app_result
rx_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  struct amcc_pgmcc_sender_info si;
  struct amcc_pgmcc_ack ack;

  (void) now, (void) ssrc;
  if (memcmp (name, AMCC_PGMCC_APP_NAME, 4) != 0)
    return AMCC_APP_FOREIGN;
  if (subtype == AMCC_PGMCC_SUB_ACK)    /* a peer's feedback: nothing for us, but checked */
    return amcc_pgmcc_ack_decode (&ack, data, len) < 0 ? AMCC_APP_MALFORMED : AMCC_APP_TAKEN;
  if (subtype == AMCC_PGMCC_SUB_REPORT)
    return amcc_pgmcc_report_decode (&ack.fb, data, len) < 0 ? AMCC_APP_MALFORMED
        : AMCC_APP_TAKEN;
  if (subtype != AMCC_PGMCC_SUB_SENDER || amcc_pgmcc_sender_info_decode (&si, data, len) < 0)
    return AMCC_APP_MALFORMED;
  amcc_pgmcc_receiver_on_sender_info (&((pgmcc_rx *) r)->rx, &si);
  return AMCC_APP_TAKEN;
}

/* The acker sends an ACK in every RTCP packet (early ones included), the others a report. */
static int
rx_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  struct amcc_pgmcc_receiver *rx = &((pgmcc_rx *) r)->rx;
  struct amcc_pgmcc_ack ack;
  int w;

  pgmcc_rx *a = (pgmcc_rx *) r;
  if (!rx->started)
    return 0;                   /* nothing heard: nothing to report */
  if (now > a->report_at) {     /* what arrived since the last report (stats only) */
    a->rate_bps = (double) (a->bytes - a->bytes_at) * 8 / amcc_time_to_s (now - a->report_at);
    a->bytes_at = a->bytes;
    a->report_at = now;
  }
  if (rx->is_acker) {
    if (cap < AMCC_PGMCC_ACK_LEN)
      return AMCC_ERR_NOSPACE;
    amcc_pgmcc_receiver_make_ack (rx, now, &ack);
    if ((w = amcc_pgmcc_ack_encode (&ack, buf, cap)) < 0)
      return w;
    return amcc_app_made (out, AMCC_PGMCC_APP_NAME, AMCC_PGMCC_SUB_ACK, (size_t) w);
  }
  if (cap < AMCC_PGMCC_REPORT_LEN)
    return AMCC_ERR_NOSPACE;
  amcc_pgmcc_receiver_feedback (rx, now, &ack.fb);
  if ((w = amcc_pgmcc_report_encode (&ack.fb, buf, cap)) < 0)
    return w;
  rx->reports++;
  return amcc_app_made (out, AMCC_PGMCC_APP_NAME, AMCC_PGMCC_SUB_REPORT, (size_t) w);
}

static amcc_time
rx_early_due (amcc_receiver *r, amcc_time now)
{
  (void) now;
  return amcc_pgmcc_receiver_ack_due (&((pgmcc_rx *) r)->rx);
}

static void
rx_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  const struct amcc_pgmcc_receiver *rx = &((pgmcc_rx *) r)->rx;

  (void) now;
  st->rate_bps = ((pgmcc_rx *) r)->rate_bps;
  st->loss = rx->loss;
  st->congested = rx->loss > 0;
  st->mode = rx->is_acker ? "acker" : "";
  st->packets_lost = (int64_t) rx->lost;
}

static const amcc_receiver_ops receiver_ops = {
  .create = rx_create, .destroy = rx_destroy, .set_ssrc = rx_set_ssrc, .on_rtp = rx_on_rtp,
  .on_app = rx_on_app, .next_app = rx_next_app, .early_due = rx_early_due,
  .get_stats = rx_get_stats, .reset = rx_reset,
};

const amcc_protocol amcc_pgmcc_protocol = {
  .name = "pgmcc",
  .description = "PGMCC (Rizzo 2000, comparator; rate-following)",
  .rtp_profile = AMCC_RTP_AVPF, /* the acker's ACKs are early RTCP packets */
  .max_streams = 1,
  .sender = &sender_ops,
  .receiver = &receiver_ops,
};
