/* controller.h - one interface per role that every protocol of lib/cc implements, so that the
 * elements, the unit tests and a simulator drive ASMP, TFMCC and the protocols to come through
 * the same calls: packets and RTCP APP payloads in, time in, decisions out (target rate, the next
 * APP payload, when an extra RTCP packet is due).
 *
 *   element / test / simulator            lib/cc
 *   --------------------------            ---------------------------------------------------
 *   amcc_protocol_find ("tfmcc") ------>  registry (controller.c): name -> amcc_protocol
 *   amcc_sender_new (proto, cfg) ------>  generic policy (controller.c): limits, clamping,
 *   amcc_sender_on_app / _rate / ...        receiver timeout, per-receiver views, random numbers
 *                                                 |  proto->sender->on_app (...)
 *                                                 v
 *                                         adapter (asmp_controller.c, tfmcc_controller.c)
 *                                                 |  amcc_asmp_sender_on_report (...)
 *                                                 v
 *                                         algorithm (asmp_*.c, tfmcc_*.c)
 *
 * The caller parses RTCP (it owns the transport) and hands over report blocks, APP packets
 * (name, subtype, payload) and BYEs; it appends the APP payload that *_next_app returns to the
 * RTCP packet it is about to send. No role reads a clock or a random source: time is passed in,
 * random numbers come from a generator seeded by amcc_ctl_config.seed.
 *
 * Roles: sender, receiver (RTP streams, RTCP APP feedback) and relay (a node inside the tree
 * that forwards a session downstream and answers its children: RMANP). A protocol fills the
 * tables of the roles it has, NULL for the others: only RMANP has a relay;
 * RMANP carries a byte stream in its own packets (not RTP), so it has only the relay table here
 * and its source and receiver are RMANP's own API (amcc/rmanp.h). The relay calls move whole
 * packets: the caller hands over what arrived from the parent or a child and sends what
 * amcc_relay_poll returns, up to the parent or down to its children:
 *
 *   parent  --data-->  amcc_relay_on_packet (from_parent = 1)   amcc_relay_poll --data--> children
 *   parent <--control-- amcc_relay_poll (to_parent = 1)   amcc_relay_on_packet <--control-- children
 *
 * Streams: a simulcast protocol (ASSP) sends K streams on K groups, one sender controller per
 * stream tied together by amcc_sender_group; its receiver says which stream it wants
 * (amcc_receiver_wanted_stream) and is told when the caller switched (amcc_receiver_set_stream).
 * A single-rate protocol has one stream, 0.
 * Layers: a receiver-driven layered protocol (AVMRC, RMRC, VMRC: max_layers > 0) takes the
 * cumulative layers 1..n of a session, each its own RTP session and group (own SSRC and sequence
 * space), and hears from no sender: its sender role is NULL (the server only stamps packets with
 * amcc/avmrc.h's slot clock, a plain function) and its receiver sends no APP. The caller hands
 * over the packets of every layer (amcc_packet's slot fields, from the header extension; the
 * one-sender filter is off), asks amcc_receiver_wanted_layers after each packet and joins or
 * leaves groups to match it. The layer rates come in amcc_ctl_config.layer_bps. */
#ifndef AMCC_CONTROLLER_H
#define AMCC_CONTROLLER_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#include "proof.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_MAX_LAYERS 16          /* layers of a layered session (amcc/avmrc.h) */

/* RTP profile the protocol needs from the RTP stack: AVPF when it must send early RTCP
 * (RFC 4585) to work at all, AVP when regular RTCP suffices. */
typedef enum amcc_rtp_profile {
  AMCC_RTP_AVP = 0,
  AMCC_RTP_AVPF = 1
} amcc_rtp_profile;

typedef struct amcc_ctl_config {
  double initial_bps;         /* sender: target before any report; receiver: 0 = protocol default */
  double min_bps, max_bps;    /* sender: clamp of the target (amcc_sender_set_limits changes it) */
  amcc_time rtcp_interval;    /* the RTCP interval the caller uses (> 0) */
  amcc_time receiver_timeout; /* sender: a receiver silent this long is gone; 0 = 3 intervals */
  uint32_t clock_rate;        /* receiver: RTP clock rate (0 = 90000) */
  uint32_t ssrc;              /* own SSRC (amcc_*_set_ssrc changes it) */
  uint64_t seed;              /* seed of the role's random numbers (feedback timers) */
  uint32_t proofs;            /* sender: report blocks proving reception (LSR = one of our recent
                                 SRs, amcc_sender_on_sr_sent) a receiver must have sent before its
                                 APP reports count; 0 = every report counts */
  /* receiver of a layered protocol: the cumulative rates B_1..B_layers (bit/s, increasing) of
   * the session's layers; layers = 0: the protocol's default (AVMRC: the paper's 9 layers) */
  uint32_t layers;
  double layer_bps[AMCC_MAX_LAYERS];
  /* sender: an outlier is a live receiver whose reported rate stayed below outlier_ratio x the
   * next slowest receiver's for outlier_intervals RTCP intervals (amcc_sender_stats: timed from
   * the first amcc_sender_get_stats that saw it, so call that once per RTCP interval); the
   * application may exclude it (amcc_sender_exclude). outlier_ratio 0: never an outlier */
  double outlier_ratio;
  uint32_t outlier_intervals;
  /* sender, containment of a receiver lying in its own name (contain.c, issue 14); 0 = off.
   * plausible_margin (0..1): a rate report below margin x the lowest rate an honest receiver
   * could report (the lower of the protocol's own TCP equation at the loss and RTT it reports
   * and what reached it: the receive rate it reports, else what we sent less the loss fraction
   * it reports) is refused (AMCC_APP_IMPLAUSIBLE).
   * damp_drop ([0, 1)): a report taking the target down by more than this fraction counts as
   * target x (1 - damp_drop) until confirmed by a later low report of the same receiver (at
   * least half an RTCP interval later) or by another receiver already that low.
   * report_limit: reports one receiver may send per RTCP interval, or per the protocol's own
   * report period when shorter (amcc_claim.period), as a bucket of that many tokens refilled
   * at that rate; the rest are refused (AMCC_APP_LIMITED). */
  double plausible_margin;
  double damp_drop;
  uint32_t report_limit;
  /* sender, containment of an election (contain.c): a protocol whose rate follows one receiver
   * it elects (PGMCC's acker, whose ACKs clock the window) says which reports would elect
   * (amcc_claim.elect); 0 = off (the paper).
   * elect_confirm: a report that would take the acker's place from another receiver elects
   * only when a report of the same receiver at least elect_confirm x the RTCP interval earlier
   * (and within the receiver timeout) would have won too, with no losing report between; until
   * then it counts for everything but the election (stats `held`). With nobody acking the first
   * to speak is elected at once (the window needs a clock).
   * acker_loss_factor, acker_loss_time, acker_hold: the acker's ACK bitmaps claim losses; when
   * the loss they claim (the receivers' own loss filter run over them) stays above
   * acker_loss_factor x the larger of the loss its own reports state and every other live
   * receiver's, + 0.01, for acker_loss_time in all (suspicion drains at a quarter of that pace
   * while it is below, and stays while the receiver does not ack), the acker is demoted:
   * nobody acks, the rate its window reactions took is given back, and it may not be elected
   * for acker_hold (stats `demoted`; its reports then count in `held`). acker_loss_factor 0 =
   * off.
   * acker_vouch_rtt: another receiver's loss counts as a reference for the acker's only as far
   * as its RTT matches the acker's: p x min (1, (its RTT / the acker's)^2), the loss at the
   * acker's RTT that gives its TCP rate; a receiver with no measured RTT vouches for nothing.
   * So a second member that states a high p but never competes for the acker (no echo, or a
   * forged short RTT) cannot cover a liar's false holes. 0 = off (its p as stated). */
  double elect_confirm;
  double acker_loss_factor;
  amcc_time acker_loss_time;
  amcc_time acker_hold;
  int acker_vouch_rtt;
} amcc_ctl_config;

/* Fills the defaults: 500 kbit/s in [64 kbit/s, 20 Mbit/s], 1 s RTCP, timeout 0, 90 kHz,
 * outliers below 0.5 x the next slowest for 10 intervals, containment: plausible_margin 0.25,
 * damp_drop 0.5, report_limit 4, elect_confirm 0.5, acker_loss_factor 2, acker_loss_time 2 s,
 * acker_hold 60 s, acker_vouch_rtt 1. */
void amcc_ctl_config_init (amcc_ctl_config *c);

/* What became of an incoming APP packet (the caller counts these). */
typedef enum amcc_app_result {
  AMCC_APP_MALFORMED = -1,    /* ours by name, but the payload was rejected */
  AMCC_APP_FOREIGN = 0,       /* another name: ignored */
  AMCC_APP_TAKEN = 1,         /* ours, used */
  AMCC_APP_IGNORED = 2,       /* ours by name, not for this role (another sender's, our own) */
  AMCC_APP_UNPROVEN = 3,      /* from an SSRC that has not yet proven reception (cfg.proofs) */
  AMCC_APP_EXCLUDED = 4,      /* from a receiver the application excluded (amcc_sender_exclude) */
  AMCC_APP_IMPLAUSIBLE = 5,   /* a rate far below what its own report allows (plausible_margin) */
  AMCC_APP_LIMITED = 6        /* beyond the receiver's report_limit for this RTCP interval */
} amcc_app_result;

/* An APP packet to append: payload in the caller's buffer. */
typedef struct amcc_app {
  char name[4];               /* not NUL-terminated */
  uint8_t subtype;
  size_t len;                 /* payload bytes, a multiple of 4 */
} amcc_app;

/* An RTP packet as the receiver saw it. */
typedef struct amcc_packet {
  uint32_t ssrc;
  uint16_t seq;
  uint32_t rtp_ts;
  uint32_t bytes;             /* whole RTP packet */
  amcc_time send_time;        /* sender's clock (header extension), AMCC_TIME_NONE if absent */
  int has_extseq;             /* the sender's 32-bit extended sequence number is known */
  uint32_t extseq;
  /* layered protocols: the sender's stamp (header extension, amcc_avmrc_stamp) */
  int has_slot;               /* the stamp is present (then send_time is its send time) */
  uint32_t slot;              /* time slot of the sender's clock */
  int slot_flagged;           /* an add slot (every n_add-th) */
  uint32_t layer;             /* 0 = base layer */
} amcc_packet;

/* A receiver as the sender sees it (stats). */
typedef struct amcc_peer {
  uint32_t ssrc;
  amcc_time heard;            /* last sign of life the protocol counts, AMCC_TIME_NONE = none */
  amcc_time reported;         /* last rate report, AMCC_TIME_NONE = none yet */
  double rate_bps, loss, rtt_s, jitter_s;
  int congested;
  double sender_rtt_s;        /* RTT the sender measured for it (RR block), 0 = unknown */
  uint32_t proofs;            /* report blocks whose LSR was one of our recent SRs */
  amcc_time proven;           /* the last of them, AMCC_TIME_NONE = none */
  int excluded;               /* amcc_sender_exclude: its feedback is ignored */
  /* containment (contain.c) */
  double tokens;              /* report_limit's bucket */
  amcc_time tokens_at;        /* its last refill */
  amcc_time low_since;        /* first damped report of a drop now pending, NONE = none */
  double low_ref;             /* the target when that drop began */
  amcc_time elect_since;      /* first report of an election now pending (elect_confirm) */
  amcc_time demoted_until;    /* acker_hold: not electable before, NONE = never demoted */
  amcc_time suspicion;        /* acker_loss_time: the time its ACKs claimed too much, drained */
  amcc_time suspect_at;       /* its last ACK judged, NONE = none */
  amcc_time suspect_from;     /* when the suspicion last rose from 0, NONE = none */
} amcc_peer;

typedef struct amcc_sender_stats {
  uint32_t receivers;         /* live receivers (protocol's count) */
  int have_slowest;
  uint32_t slowest_ssrc;      /* the receiver that sets the rate (ASMP's minimum, TFMCC's CLR) */
  double slowest_rate_bps;
  int have_outlier;           /* cfg.outlier_ratio / outlier_intervals */
  uint32_t outlier_ssrc;
  double outlier_rate_bps, next_rate_bps;     /* its reported rate; the next slowest's */
  uint32_t excluded;          /* receivers excluded by the application */
  /* containment counters since amcc_sender_new (cfg.plausible_margin, damp_drop, report_limit,
   * elect_confirm, acker_loss_factor) */
  uint64_t implausible;       /* reports refused as implausibly low */
  uint64_t damped;            /* reports taken at a damped rate */
  uint64_t limited;           /* reports refused beyond the per-receiver rate limit */
  uint64_t held;              /* reports that would have elected, taken without electing
                                 (elect_confirm pending, or their receiver demoted) */
  uint64_t demoted;           /* ackers demoted for the losses they claimed (acker_loss_*) */
} amcc_sender_stats;

typedef struct amcc_receiver_stats {
  double rate_bps, loss, rtt_s, jitter_s, queue_s;
  int congested;
  const char *mode;           /* regime name, "" when the protocol has none */
  int64_t packets_lost;
  uint64_t reports_suppressed, echoes;
  uint64_t random_losses;     /* ASMP: loss events taken as random, not as overflows */
  uint32_t sender_ssrc;       /* the sender measured (0 before its first packet) */
  uint64_t sender_changes;    /* times a new sender took over (a restart: the state was reset) */
  uint32_t stream, wanted_stream;     /* the stream received; the one wanted (a switch pending) */
  uint64_t stream_ups, stream_downs;  /* decisions to move up / down */
  double share_bps;           /* the smoothed share the stream decisions use, 0 = none */
  uint32_t layers;            /* layered protocols: layers subscribed (wanted); 0 otherwise */
} amcc_receiver_stats;

typedef struct amcc_sender amcc_sender;
typedef struct amcc_receiver amcc_receiver;

/* What a rate report asks for, as the shared containment rules see it (sender_ops.claim). */
typedef struct amcc_claim {
  double rate_bps;            /* the rate it reports */
  double loss;                /* the fraction of packets it reports lost (then (1 - loss) x
                                 what we sent reached it); < 0: the report has no such fraction
                                 (TFMCC's p is a loss *event* rate) */
  double recv_bps;            /* the rate it reports having received, 0 = none */
  double model_bps;           /* the protocol's TCP equation at its loss and RTT; 0 = none
                                 (no loss, or no RTT known) */
  amcc_time period;           /* the shortest spacing of an honest receiver's reports when the
                                 protocol reports faster than RTCP's interval (TFMCC's CLR: one
                                 per RTT); 0 = one per RTCP interval */
  int elect;                  /* what the report does to an election (PGMCC's acker; rate_bps
                                 is then 0: no rate is stated): AMCC_ELECT_* */
} amcc_claim;

#define AMCC_ELECT_NONE   0   /* it elects nobody */
#define AMCC_ELECT_SWITCH 1   /* it would take the place of the receiver elected now */
#define AMCC_ELECT_FIRST  2   /* nobody is elected: it would be, at once */

/* ---- what a protocol implements (one file in lib/cc; callers use the functions below) ---- */
typedef struct amcc_sender_ops {
  amcc_sender *(*create) (const amcc_ctl_config *cfg, amcc_time now);
  void (*destroy) (amcc_sender *s);
  void (*on_rtp_sent) (amcc_sender *s, amcc_time now, size_t bytes);          /* optional */
  /* a report block about us; a_ntp32 = arrival time as NTP 16.16 on the SR's clock */
  void (*on_report_block) (amcc_sender *s, amcc_time now, uint32_t reporter, uint32_t lsr,
      uint32_t dlsr, uint32_t a_ntp32);
  amcc_app_result (*on_app) (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
      uint8_t subtype, const uint8_t *data, size_t len);
  void (*on_bye) (amcc_sender *s, amcc_time now, uint32_t ssrc);
  double (*rate) (amcc_sender *s, amcc_time now);                 /* before the clamp */
  void (*set_limits) (amcc_sender *s, double min_bps, double max_bps);        /* optional */
  int (*next_app) (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out);
  amcc_time (*early_due) (amcc_sender *s, amcc_time now);                     /* optional */
  void (*get_stats) (amcc_sender *s, amcc_time now, amcc_sender_stats *st);
  /* containment (optional; NULL: contain.c skips the protocol's reports):
   * claim decodes a report into c (1; a rate, or an election with rate_bps 0), 0 when the APP
   * is neither; while on_app runs for a report whose election contain.c holds, the base's
   * elect_held (controller_impl.h) is set and the protocol must not elect its sender;
   * set_claim_rate rewrites the rate of the report in buf (len bytes, as claim accepted it). */
  int (*claim) (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
      uint8_t subtype, const uint8_t *data, size_t len, amcc_claim *c);
  int (*set_claim_rate) (amcc_sender *s, uint8_t *buf, size_t len, double rate_bps);
} amcc_sender_ops;

typedef struct amcc_receiver_ops {
  amcc_receiver *(*create) (const amcc_ctl_config *cfg, amcc_time now);
  void (*destroy) (amcc_receiver *r);
  void (*set_ssrc) (amcc_receiver *r, uint32_t ssrc);                         /* optional */
  void (*on_rtp) (amcc_receiver *r, amcc_time now, const amcc_packet *pkt);
  void (*on_sender_report) (amcc_receiver *r, amcc_time now, uint32_t ssrc,
      uint32_t members);                                                      /* optional */
  amcc_app_result (*on_app) (amcc_receiver *r, amcc_time now, uint32_t ssrc,
      const char name[4], uint8_t subtype, const uint8_t *data, size_t len);
  int (*next_app) (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out);
  amcc_time (*early_due) (amcc_receiver *r, amcc_time now);                   /* optional */
  void (*get_stats) (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st);
  /* back to the state of create (same config): a new sender took over; optional */
  void (*reset) (amcc_receiver *r, amcc_time now);
  /* streams (optional: single-rate protocols receive stream 0) */
  uint32_t (*wanted_stream) (amcc_receiver *r);
  void (*set_stream) (amcc_receiver *r, amcc_time now, uint32_t stream);
  /* layers (optional: non-layered protocols take 1) */
  uint32_t (*wanted_layers) (amcc_receiver *r);
  /* bytes of the session on this receiver's link that are not media packets; optional */
  void (*on_extra_bytes) (amcc_receiver *r, amcc_time now, size_t bytes);
} amcc_receiver_ops;

/* A relay: packets in from the parent or a child, packets out to either (see the top). */
typedef struct amcc_relay amcc_relay;
typedef struct amcc_relay_ops {
  amcc_relay *(*create) (const amcc_ctl_config *cfg, amcc_time now);
  void (*destroy) (amcc_relay *r);
  int (*on_packet) (amcc_relay *r, amcc_time now, int from_parent, const uint8_t *buf,
      size_t len);
  int (*poll) (amcc_relay *r, amcc_time now, uint8_t *buf, size_t cap, int *to_parent);
  amcc_time (*next_due) (amcc_relay *r, amcc_time now);
  double (*rate) (amcc_relay *r, amcc_time now);
} amcc_relay_ops;

typedef struct amcc_protocol {
  const char *name;           /* registry key and the elements' enum nick: "asmp", "tfmcc" */
  const char *description;
  amcc_rtp_profile rtp_profile;
  uint32_t max_streams;       /* streams a session may have (1: single-rate) */
  const amcc_sender_ops *sender;      /* NULL: role not implemented */
  const amcc_receiver_ops *receiver;
  uint32_t max_layers;        /* > 0: a layered protocol (see the top of this file); 0: not */
  const amcc_relay_ops *relay;        /* NULL: no relay role (every protocol but RMANP) */
} amcc_protocol;

/* ---- registry ---- */
const amcc_protocol *amcc_protocol_find (const char *name);   /* NULL if unknown */
size_t amcc_protocol_count (void);
const amcc_protocol *amcc_protocol_at (size_t i);             /* NULL past the end */

/* ---- sender ---- */
/* NULL when the protocol has no sender, cfg is invalid or memory ran out. */
amcc_sender *amcc_sender_new (const amcc_protocol *proto, const amcc_ctl_config *cfg,
    amcc_time now);
void amcc_sender_free (amcc_sender *s);
const amcc_protocol *amcc_sender_protocol (const amcc_sender *s);
void amcc_sender_set_ssrc (amcc_sender *s, uint32_t ssrc);
void amcc_sender_on_rtp_sent (amcc_sender *s, amcc_time now, size_t bytes);
/* The SR about to leave carries this NTP timestamp (its middle 32 bits). The sender keeps the
 * last AMCC_SR_MEMORY (amcc/proof.h): a report block whose LSR is one of them proves that its
 * reporter heard us (cfg.proofs), and eq. 9's A - LSR - DLSR is then taken on our own clock (now
 * - the SR's send time - DLSR), whatever clock stamped the SR. */
void amcc_sender_on_sr_sent (amcc_sender *s, amcc_time now, uint32_t ntp_mid32);
/* Every report block of an incoming SR/RR; blocks about other SSRCs are skipped. a_ntp32 is
 * used only when lsr is none of the SRs amcc_sender_on_sr_sent recorded. */
void amcc_sender_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter,
    uint32_t about, uint32_t lsr, uint32_t dlsr, uint32_t a_ntp32);
amcc_app_result amcc_sender_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc,
    const char name[4], uint8_t subtype, const uint8_t *data, size_t len);
void amcc_sender_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc);
/* The target, bit/s, clamped to [min, max] (max wins if min > max). */
double amcc_sender_rate (amcc_sender *s, amcc_time now);
/* Takes effect at once, also for what the protocol advertises (TFMCC's X). */
void amcc_sender_set_limits (amcc_sender *s, double min_bps, double max_bps);
/* The APP payload for the RTCP packet about to leave, at most cap bytes into buf: 1 and *out
 * filled; 0 = nothing to send now; AMCC_ERR_NOSPACE = it does not fit in cap; other < 0: error. */
int amcc_sender_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap,
    amcc_app *out);
/* When the sender wants an extra (early) RTCP packet for its APP; a periodic cadence answers
 * the next time from now. AMCC_TIME_NONE: regular RTCP suffices. */
amcc_time amcc_sender_early_due (amcc_sender *s, amcc_time now);
/* Also forgets receiver views silent for 10 RTCP intervals (stats only). */
void amcc_sender_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st);
/* Receivers with a rate report, in no particular order: *it = 0 to start; NULL at the end. */
const amcc_peer *amcc_sender_next_peer (const amcc_sender *s, size_t *it);
/* The application excludes (exclude = 1) or readmits (0) a receiver, e.g. the outlier of
 * amcc_sender_get_stats, as RMANP excludes receivers below its minimum rate: from now on its APPs
 * answer AMCC_APP_EXCLUDED and its report blocks are skipped, and the protocol forgets it (as at
 * a BYE, but the target rises by the expiry ramp, not at once). Readmitted, its next reports count
 * again. AMCC_ERR_NOMEM when the receiver table is full. */
int amcc_sender_exclude (amcc_sender *s, amcc_time now, uint32_t ssrc, int exclude);
/* The silence after which a receiver is gone (cfg.receiver_timeout or 3 RTCP intervals). */
amcc_time amcc_sender_receiver_timeout (const amcc_sender *s);
/* The receivers' report interval the caller's RTCP computes now (RFC 3550 Td as a receiver
 * computes it; cfg.rtcp_interval is its minimum). With cfg.receiver_timeout 0 the timeout
 * becomes 3 x the larger of the two: a group whose reports come every 5 s is not expired
 * after 3 s. <= 0 is ignored. */
void amcc_sender_set_rtcp_interval (amcc_sender *s, amcc_time now, amcc_time interval);

/* Ties the sender controllers of one session's streams: streams[j] drives stream j (its limits
 * are that stream's) and sees the others. All of one protocol, n <= its max_streams (<=
 * AMCC_MAX_STREAMS), each in one group; AMCC_ERR_PARAM otherwise. Freeing one unties them all. */
#define AMCC_MAX_STREAMS 8
int amcc_sender_group (amcc_sender *const *streams, size_t n);
uint32_t amcc_sender_stream (const amcc_sender *s);           /* 0 when not grouped */
/* The target the last amcc_sender_rate returned (the initial rate before the first call). */
double amcc_sender_last_rate (const amcc_sender *s);

/* ---- receiver ---- */
amcc_receiver *amcc_receiver_new (const amcc_protocol *proto, const amcc_ctl_config *cfg,
    amcc_time now);
void amcc_receiver_free (amcc_receiver *r);
const amcc_protocol *amcc_receiver_protocol (const amcc_receiver *r);
void amcc_receiver_set_ssrc (amcc_receiver *r, uint32_t ssrc);
/* Packets of one sender are measured: another SSRC's are ignored while ours sends; once ours
 * has been silent for an RTCP interval the new one takes over and the protocol starts afresh
 * (a restarted sender is a new session: its rate starts again from its initial bitrate). */
void amcc_receiver_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt);
/* The sender measured now: 1 and *ssrc; 0 before its first packet, and in a layered receiver. */
int amcc_receiver_sender (const amcc_receiver *r, uint32_t *ssrc);
/* Bytes of this session that crossed our link outside the media packets (the FEC parity we
 * joined): counted in the rate received, never in the loss or the packet size. A protocol that
 * does not count them ignores them. */
void amcc_receiver_on_extra_bytes (amcc_receiver *r, amcc_time now, size_t bytes);
/* An SR from a sender (ours are skipped); members: the RTCP group size as the caller knows it. */
void amcc_receiver_on_sender_report (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    uint32_t members);
/* The report interval the caller's RTCP computes now (RFC 3550 6.3.1's deterministic interval
 * Td, before randomisation): it grows with the group, cfg.rtcp_interval is only its minimum.
 * ASMP compares it with T_suspend (eq. 20). Call when it changes (e.g. at each SR); <= 0 is
 * ignored. Until called, cfg.rtcp_interval. */
void amcc_receiver_set_rtcp_interval (amcc_receiver *r, amcc_time now, amcc_time interval);
/* The interval in force: the last one set, else cfg.rtcp_interval. */
amcc_time amcc_receiver_rtcp_interval (const amcc_receiver *r);
amcc_app_result amcc_receiver_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    const char name[4], uint8_t subtype, const uint8_t *data, size_t len);
/* As amcc_sender_next_app; call at every RTCP packet (it may close a measurement interval
 * even when it returns 0, e.g. a suppressed report). */
int amcc_receiver_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_app *out);
amcc_time amcc_receiver_early_due (amcc_receiver *r, amcc_time now);
void amcc_receiver_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st);
/* The stream the receiver wants now (starts at 0). When it changes the caller joins that
 * stream's group, switches its output at the new stream's first key frame, leaves the old
 * group and calls amcc_receiver_set_stream. */
uint32_t amcc_receiver_wanted_stream (amcc_receiver *r);
/* From now on the caller hands over the packets and RTCP of `stream` only: the measurement
 * starts afresh on its sender (the protocol keeps what bridges the switch). The stream already
 * received cancels a pending switch (the caller could not make it) and restarts nothing.
 * AMCC_ERR_PARAM if the protocol has no such stream. */
int amcc_receiver_set_stream (amcc_receiver *r, amcc_time now, uint32_t stream);
/* Layered protocols: how many cumulative layers (1..) the receiver wants now; the caller joins
 * or leaves groups to match it. 1 for every other protocol. */
uint32_t amcc_receiver_wanted_layers (amcc_receiver *r);

/* ---- relay ---- */
/* NULL when the protocol has no relay, cfg is invalid or memory ran out. cfg: ssrc = the node id
 * the relay puts in what it sends up, min_bps = the session's minimum rate (RMANP's Rm); the
 * protocol's other parameters are its defaults (amcc/rmanp.h for all of them). */
amcc_relay *amcc_relay_new (const amcc_protocol *proto, const amcc_ctl_config *cfg,
    amcc_time now);
void amcc_relay_free (amcc_relay *r);
const amcc_protocol *amcc_relay_protocol (const amcc_relay *r);
/* A packet from the parent (from_parent = 1) or from a child: AMCC_OK or the decoder's status. */
int amcc_relay_on_packet (amcc_relay *r, amcc_time now, int from_parent, const uint8_t *buf,
    size_t len);
/* The next packet to send now, into buf: its length (*to_parent = 1: to the parent, 0: to the
 * children), 0 = nothing now, < 0 = amcc_status. Call until it returns 0 after each input. */
int amcc_relay_poll (amcc_relay *r, amcc_time now, uint8_t *buf, size_t cap, int *to_parent);
/* When to poll next, AMCC_TIME_NONE = only after new input. */
amcc_time amcc_relay_next_due (amcc_relay *r, amcc_time now);
/* The output rate in force, bit/s; 0 = not rate-controlled (forwards as packets come). */
double amcc_relay_rate (amcc_relay *r, amcc_time now);

#ifdef __cplusplus
}
#endif
#endif
