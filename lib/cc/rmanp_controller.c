/* rmanp_controller.c - RMANP behind the controller interface (amcc/controller.h): the relay role
 * only, an adapter over amcc_rmanp_relay. RMANP's source and receiver carry a byte stream in
 * RMANP's own packets, which the RTP sender/receiver calls do not describe: callers use
 * amcc/rmanp.h for them. No RMANP arithmetic here. */
#include <stdlib.h>
#include "amcc/rmanp.h"
#include "controller_impl.h"

typedef struct {
  amcc_relay base;
  amcc_rmanp_relay *r;
} rmanp_relay;

static amcc_rmanp_relay *of (amcc_relay *r) { return ((rmanp_relay *) r)->r; }

static amcc_relay *
relay_create (const amcc_ctl_config *cfg, amcc_time now)
{
  struct amcc_rmanp_params p;
  rmanp_relay *a = calloc (1, sizeof *a);

  if (!a)
    return NULL;
  amcc_rmanp_params_init (&p);
  p.rm_bps = cfg->min_bps;
  if (!(a->r = amcc_rmanp_relay_new (&p, cfg->ssrc, now))) {
    free (a);
    return NULL;
  }
  return &a->base;
}

static void
relay_destroy (amcc_relay *r)
{
  amcc_rmanp_relay_free (of (r));
  free (r);
}

static int
relay_on_packet (amcc_relay *r, amcc_time now, int from_parent, const uint8_t *buf, size_t len)
{
  return amcc_rmanp_relay_on_packet (of (r), now, from_parent, buf, len);
}

static int
relay_poll (amcc_relay *r, amcc_time now, uint8_t *buf, size_t cap, int *to_parent)
{
  amcc_rmanp_dir dir = AMCC_RMANP_DOWN;
  int n = amcc_rmanp_relay_poll (of (r), now, buf, cap, &dir);
  *to_parent = dir == AMCC_RMANP_UP;
  return n;
}

static amcc_time
relay_next_due (amcc_relay *r, amcc_time now)
{
  return amcc_rmanp_relay_next_due (of (r), now);
}

static double
relay_rate (amcc_relay *r, amcc_time now)
{
  struct amcc_rmanp_stats st;
  (void) now;
  amcc_rmanp_relay_get_stats (of (r), &st);
  return st.rate_bps;
}

static const amcc_relay_ops relay_ops = {
  .create = relay_create, .destroy = relay_destroy, .on_packet = relay_on_packet,
  .poll = relay_poll, .next_due = relay_next_due, .rate = relay_rate,
};

const amcc_protocol amcc_rmanp_protocol = {
  .name = "rmanp",
  .description = "RMANP (papers/004: reliable multicast, active relays; relay role only here)",
  .rtp_profile = AMCC_RTP_AVP,        /* not RTP at all: no sender or receiver table */
  .max_streams = 0,                   /* carries no RTP stream: the elements' enum skips it */
  .sender = NULL,
  .receiver = NULL,
  .relay = &relay_ops,
};
