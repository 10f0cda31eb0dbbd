/* avmrc_controller.c - AVMRC, RMRC and VMRC (amcc/avmrc.h) behind the controller interface:
 * three registry entries, one receiver adapter; the variant is the parameter set. Layered and
 * receiver-driven (amcc/controller.h, "Layers"): no sender role, no APP, every layer's packets
 * reach the receiver, whose decision is amcc_receiver_wanted_layers. */
#include <stdlib.h>
#include <string.h>
#include "amcc/avmrc.h"
#include "controller_impl.h"

typedef struct {
  amcc_receiver base;           /* first: the generic policy's part */
  amcc_avmrc_params p;
  double rates[AMCC_MAX_LAYERS];
  uint32_t n;                   /* 0: the paper's layers */
  amcc_avmrc_rx rx;
} avmrc_rx;

static amcc_receiver *
create (const amcc_ctl_config *cfg, const amcc_avmrc_params *p)
{
  avmrc_rx *a = calloc (1, sizeof *a);

  if (!a)
    return NULL;
  a->p = *p;
  a->n = cfg->layers;
  memcpy (a->rates, cfg->layer_bps, sizeof a->rates);
  if (amcc_avmrc_rx_init (&a->rx, &a->p, a->n ? a->rates : NULL, a->n) != AMCC_OK) {
    free (a);
    return NULL;
  }
  return &a->base;
}

static amcc_receiver *
avmrc_create (const amcc_ctl_config *cfg, amcc_time now)
{
  amcc_avmrc_params p;
  (void) now;
  amcc_avmrc_params_init (&p);
  return create (cfg, &p);
}

static amcc_receiver *
rmrc_create (const amcc_ctl_config *cfg, amcc_time now)
{
  amcc_avmrc_params p;
  (void) now;
  amcc_rmrc_params_init (&p);
  return create (cfg, &p);
}

/* VMRC with the paper's smaller static threshold, alpha = beta = 6 (5.4) */
static amcc_receiver *
vmrc_create (const amcc_ctl_config *cfg, amcc_time now)
{
  amcc_avmrc_params p;
  (void) now;
  amcc_vmrc_params_init (&p, 6.0);
  return create (cfg, &p);
}

/* papers/003 5.4 compares VMRC at both ends of its static thresholds: 6 and 30 packets */
static amcc_receiver *
vmrc30_create (const amcc_ctl_config *cfg, amcc_time now)
{
  amcc_avmrc_params p;
  (void) now;
  amcc_vmrc_params_init (&p, 30.0);
  return create (cfg, &p);
}

static void
destroy (amcc_receiver *r)
{
  free (r);
}

static void
on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt)
{
  avmrc_rx *a = (avmrc_rx *) r;
  amcc_avmrc_stamp st = { .send_time = pkt->send_time, .slot = pkt->slot,
    .flagged = pkt->slot_flagged, .layer = pkt->layer };

  if (pkt->layer >= a->rx.layers)
    return;                     /* a layer the session does not have */
  (void) amcc_avmrc_rx_on_packet (&a->rx, now, pkt->layer, pkt->seq, pkt->bytes,
      pkt->has_slot ? &st : NULL);
}

static amcc_app_result
on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len)
{
  (void) r, (void) now, (void) ssrc, (void) name, (void) subtype, (void) data, (void) len;
  return AMCC_APP_FOREIGN;      /* no feedback in either direction */
}

static int
next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  (void) r, (void) now, (void) buf, (void) cap, (void) out;
  return 0;
}

static void
get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  static const char *const phase[] = { "slow-start", "start-up", "steady" };
  const amcc_avmrc_rx *x = &((avmrc_rx *) r)->rx;
  (void) now;

  st->rate_bps = x->lambda_st < x->lambda_lt ? x->lambda_st : x->lambda_lt;
  st->loss = x->p_lt;
  st->rtt_s = x->delta_lt + x->p.r_s;           /* the model's RTT := delta + R */
  st->queue_s = x->delta_st;
  st->mode = phase[x->phase];
  st->packets_lost = (int64_t) x->lost;
  st->stream_ups = x->adds;
  st->stream_downs = x->drops;
  st->share_bps = x->rate[x->level];
  st->layers = x->level;
}

static void
reset (amcc_receiver *r, amcc_time now)
{
  avmrc_rx *a = (avmrc_rx *) r;
  (void) now;
  (void) amcc_avmrc_rx_init (&a->rx, &a->p, a->n ? a->rates : NULL, a->n);
}

static uint32_t
wanted_layers (amcc_receiver *r)
{
  return ((avmrc_rx *) r)->rx.level;
}

#define RX_OPS(create_fn) { .create = create_fn, .destroy = destroy, .on_rtp = on_rtp, \
  .on_app = on_app, .next_app = next_app, .get_stats = get_stats, .reset = reset, \
  .wanted_layers = wanted_layers }

static const amcc_receiver_ops avmrc_ops = RX_OPS (avmrc_create);
static const amcc_receiver_ops rmrc_ops = RX_OPS (rmrc_create);
static const amcc_receiver_ops vmrc_ops = RX_OPS (vmrc_create);
static const amcc_receiver_ops vmrc30_ops = RX_OPS (vmrc30_create);

const amcc_protocol amcc_avmrc_protocol = {
  .name = "avmrc", .description = "AVMRC (Adaptive Vegas Multicast Rate Control, layered)",
  .rtp_profile = AMCC_RTP_AVP, .max_streams = 1, .sender = NULL, .receiver = &avmrc_ops,
  .max_layers = AMCC_MAX_LAYERS,
};

const amcc_protocol amcc_rmrc_protocol = {
  .name = "rmrc", .description = "RMRC (AVMRC's rules with the TCP Reno model, layered)",
  .rtp_profile = AMCC_RTP_AVP, .max_streams = 1, .sender = NULL, .receiver = &rmrc_ops,
  .max_layers = AMCC_MAX_LAYERS,
};

const amcc_protocol amcc_vmrc_protocol = {
  .name = "vmrc", .description = "VMRC (AVMRC with static Vegas thresholds 6, layered)",
  .rtp_profile = AMCC_RTP_AVP, .max_streams = 1, .sender = NULL, .receiver = &vmrc_ops,
  .max_layers = AMCC_MAX_LAYERS,
};

const amcc_protocol amcc_vmrc30_protocol = {
  .name = "vmrc30", .description = "VMRC (AVMRC with static Vegas thresholds 30, layered)",
  .rtp_profile = AMCC_RTP_AVP, .max_streams = 1, .sender = NULL, .receiver = &vmrc30_ops,
  .max_layers = AMCC_MAX_LAYERS,
};
