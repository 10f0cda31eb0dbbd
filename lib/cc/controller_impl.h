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
  amcc_sr_memory srs;          /* our last SRs (amcc/proof.h) */
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
  /* containment (contain.c) */
  amcc_time win_start;         /* the current window of what we sent, AMCC_TIME_NONE = none */
  double win_bytes, sent_prev[2];      /* its bytes; the last two complete windows' */
  uint32_t wins;               /* complete windows seen, up to 2 */
  double pkt_bytes;            /* mean packet size sent (the TCP equations' s) */
  uint64_t implausible, damped, limited, held, demoted;
  int elect_held;              /* set while the protocol's on_app runs for a report whose
                                  election contain.c holds: it must not elect the reporter */
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

/* Containment of receivers lying in their own name (contain.c): what we sent, then the rules
 * of cfg.plausible_margin, report_limit, elect_confirm and damp_drop in that order for an APP
 * that passed the exclusion and proof checks. AMCC_APP_TAKEN: hand *use (data, or buf with a
 * damped rate) on, with s->elect_held set when the report may not elect its sender. */
#define AMCC_CLAIM_MAX_LEN 64  /* a rate report longer than this is never damped */
void amcc_contain_init (amcc_sender *s);
void amcc_contain_on_sent (amcc_sender *s, amcc_time now, size_t bytes);
amcc_app_result amcc_contain_check (amcc_sender *s, amcc_time now, uint32_t ssrc,
    const char name[4], uint8_t subtype, const uint8_t *data, size_t len, uint8_t *buf,
    size_t cap, const uint8_t **use);
/* Our send rate as an honest receiver's report reflects it (bit/s), 0 = not known yet. */
double amcc_contain_sent_bps (amcc_sender *s, amcc_time now);
/* cfg.acker_loss_*: an ACK of the acker `ssrc` taken now (first: the first of its tenure);
 * `claimed` is the loss its bitmaps state so far (the receivers' loss filter run over them),
 * `own` the loss its report states. 1: demote it now (it may not be elected for
 * cfg.acker_hold, counted); *undo_from is then the earliest time from which the window's
 * reactions to its losses are to be undone. */
int amcc_contain_acker_loss (amcc_sender *s, amcc_time now, uint32_t ssrc, int first,
    double claimed, double own, amcc_time *undo_from);

/* Uniform in [0, 1) from the role's generator (splitmix64). */
double amcc_ctl_uniform (uint64_t *state);

extern const amcc_protocol amcc_asmp_protocol;
extern const amcc_protocol amcc_tfmcc_protocol;
extern const amcc_protocol amcc_assp_protocol;
extern const amcc_protocol amcc_pgmcc_protocol;
extern const amcc_protocol amcc_avmrc_protocol;
extern const amcc_protocol amcc_rmrc_protocol;
extern const amcc_protocol amcc_vmrc_protocol;
extern const amcc_protocol amcc_vmrc30_protocol;
extern const amcc_protocol amcc_rmanp_protocol;

#endif
