/* controller_impl.h - what a protocol adapter (asmp_controller.c, tfmcc_controller.c) builds on:
 * the base of each role, which the adapter's own struct embeds as its first member, the table of
 * receiver views and the random numbers. Not installed: callers see only amcc/controller.h. */
#ifndef AMCC_CONTROLLER_IMPL_H
#define AMCC_CONTROLLER_IMPL_H
#include "amcc/controller.h"

/* Receivers seen by a sender: open addressing on SSRC (linear probing, backward-shift removal),
 * O(1) per RTCP packet like the elements' hash table it replaces. */
typedef struct amcc_peer_slot {
  int used;
  amcc_peer p;
} amcc_peer_slot;

typedef struct amcc_peers {
  amcc_peer_slot *slot;
  size_t cap, n;               /* cap: 0 or a power of 2, at most half full */
} amcc_peers;

amcc_peer *amcc_peers_get (amcc_peers *t, uint32_t ssrc);        /* adds; NULL: out of memory */
amcc_peer *amcc_peers_find (const amcc_peers *t, uint32_t ssrc);
void amcc_peers_remove (amcc_peers *t, uint32_t ssrc);
/* Receivers whose `heard` is within `timeout` of now. */
uint32_t amcc_peers_alive (const amcc_peers *t, amcc_time now, amcc_time timeout);

struct amcc_sender {
  const amcc_protocol *proto;
  amcc_ctl_config cfg;         /* receiver_timeout resolved; min/max as last set */
  amcc_peers peers;
  struct { uint32_t ntp; amcc_time at; } sr[AMCC_SR_MEMORY];  /* our last SRs, a ring */
  unsigned sr_n, sr_next;
  amcc_time last_heard;        /* last report block or report taken, AMCC_TIME_NONE = never */
  double rate_heard;           /* the target while someone was still heard */
  uint32_t live;               /* the protocol's live receivers at the last rate call */
  int timeout_auto;            /* receiver_timeout follows the RTCP interval (cfg had 0) */
  int bye_seen;                /* a BYE since the last rate call */
  double last_rate;            /* the target the last rate call returned, 0 = none yet */
  int ramping;                 /* a receiver expired (no BYE): the target rises by steps */
  double ramp_from;
  amcc_time ramp_at;
  int outlier_on;              /* a candidate outlier is being timed */
  uint32_t outlier;
  amcc_time outlier_since;
  amcc_sender *group[AMCC_MAX_STREAMS];       /* the streams of the session, group[stream] */
  uint32_t group_n, stream;    /* 1 and 0 when not grouped */
};

struct amcc_relay {
  const amcc_protocol *proto;
};

struct amcc_receiver {
  const amcc_protocol *proto;
  amcc_ctl_config cfg;         /* cfg.ssrc follows amcc_receiver_set_ssrc */
  uint64_t rng;
  int have_sender;
  uint32_t sender;             /* the SSRC whose packets the protocol measures */
  amcc_time sender_last;       /* its last packet */
  uint64_t sender_changes;
  uint32_t stream;             /* the stream received (amcc_receiver_set_stream) */
  amcc_time rtcp_computed;     /* amcc_receiver_set_rtcp_interval, 0 = not told */
};

/* Names the APP payload a role's next_app wrote: returns 1, what next_app returns for "send". */
static inline int
amcc_app_made (amcc_app *out, const char name[4], uint8_t subtype, size_t len)
{
  for (int i = 0; i < 4; i++)
    out->name[i] = name[i];
  out->subtype = subtype;
  out->len = len;
  return 1;
}

/* Uniform in [0, 1) from the role's generator (splitmix64). */
double amcc_ctl_uniform (uint64_t *state);

extern const amcc_protocol amcc_asmp_protocol;
extern const amcc_protocol amcc_tfmcc_protocol;
extern const amcc_protocol amcc_assp_protocol;
extern const amcc_protocol amcc_pgmcc_protocol;
extern const amcc_protocol amcc_avmrc_protocol;
extern const amcc_protocol amcc_rmrc_protocol;
extern const amcc_protocol amcc_vmrc_protocol;
extern const amcc_protocol amcc_rmanp_protocol;

#endif
