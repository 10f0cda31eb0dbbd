/* pgmcc.h - PGMCC (Rizzo, SIGCOMM 2000; draft-ietf-rmt-bb-pgmcc), the second comparator for
 * ASMP after TFMCC: a TCP-like window W with tokens T, clocked by the ACKs of one receiver, the acker, which
 * the sender elects from every receiver's loss rate and RTT. The protocol restated: docs/pgmcc.md.
 *
 * Transport (read this first, element writers):
 *   PGMCC here runs over RTP/RTCP. Every message is an RTCP APP packet named "PGMC":
 *   - subtype 0, sender: names the current acker; appended to every sender RTCP packet, and the
 *     sender asks for an early one when the acker changed.
 *   - subtype 1, ACK: the acker's, in early RTCP packets (AVPF): the highest sequence number
 *     received, a 32-bit bitmap of the 32 before it (losses), a cumulative received-packet
 *     counter (the count acknowledged, also beyond the bitmap), the loss rate and the echo of
 *     the sender timestamp of that packet. One ACK covers every packet since the last (at most
 *     one per params.ack_interval_min), not one ACK per packet as in the paper.
 *   - subtype 2, report: every other receiver's loss rate and echo, at its RTCP interval (the
 *     paper's NAKs carry the same fields).
 *   - the sender timestamp is the send-time header extension (amcc_packet.send_time): the sender
 *     clock in us, low 32 bits. Without it there is no RTT and the acker is never switched.
 *   - the sender knows no RTP sequence numbers: it counts the packets it sends, and "RTT in
 *     packets" is the count of packets it sent between the echoed packet and the ACK (minus the
 *     receiver's hold), read from its record of send times.
 *   - our sender is rate-based: amcc_pgmcc_sender_rate() is W * s / RTT; the tokens are kept as
 *     the paper's and amcc_pgmcc_sender_may_send() answers "may I send" for a packet-clocked
 *     caller, but the video sender follows the rate (docs/pgmcc.md), and takes it only at key
 *     frames: the actuator parameters below (docs/pgmcc.md section 2.4).
 *
 * Containment (issue 14): lib/cc/contain.c holds elections for confirmation and demotes an
 * acker whose bitmaps claim far more loss than its p states (docs/pgmcc.md section 5); the
 * sender here keeps what that needs: claim_p, the reactions to undo, may_elect.
 *
 * Units: rates in bit/s, sizes in bytes, windows in packets, times in amcc_time (ns). */
#ifndef AMCC_PGMCC_H
#define AMCC_PGMCC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amcc/amcc.h>
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_PGMCC_WIRE_VERSION 1
#define AMCC_PGMCC_APP_NAME     "PGMC"
#define AMCC_PGMCC_SUB_SENDER   0
#define AMCC_PGMCC_SUB_ACK      1
#define AMCC_PGMCC_SUB_REPORT   2
#define AMCC_PGMCC_SENDER_LEN   8     /* payload bytes after the APP name */
#define AMCC_PGMCC_REPORT_LEN   16
#define AMCC_PGMCC_ACK_LEN      24
#define AMCC_PGMCC_SEND_RING    1024  /* sent packets the sender remembers (RTT in packets) */
#define AMCC_PGMCC_UNDO         32    /* the last window reactions the sender remembers */

/* ---- parameters ---------------------------------------------------------------------------- */
struct amcc_pgmcc_params {
  double switch_c;            /* switch when T(candidate) < c T(acker); 2/3 (Rizzo) */
  uint32_t dupthresh;         /* a hole followed by 3 later sequence numbers is a loss */
  double min_window;          /* W never below 1 packet */
  double initial_ssthresh;    /* slow start until the first loss (INFINITY) */
  double start_from_initial_rate; /* 1: W at the first RTT sample = initial rate x RTT / s;
                                     0: W = 1 packet (the paper) */
  double app_limit_factor;    /* W <= this x packets sent in the last RTT (+1): 2; INFINITY =
                                 the paper (a packet-clocked sender is never app-limited) */
  double hold_rate;           /* 1: the window's rate W s / RTT is what a new RTT or mean packet
                                 size keeps (W moves), so a draining queue does not raise the
                                 target; 0: W in packets is kept (the paper) */
  /* The actuator: the elements and the ns-3 sim give the encoder the target at key frames
   * (a 1 s GOP), so the rate reaches the packets up to a GOP after it changed. */
  amcc_time actuator_hold;    /* losses of packets sent before a reaction + this are the same
                                 congestion event, 1 s; 0 = one RTT after it (the paper) */
  amcc_time actuator_growth;  /* W grows one step (slow start 1, congestion avoidance 1/W per
                                 packet acknowledged) per RTT + this, 1 s; 0 = per RTT (the
                                 paper) */
  double tested_fraction;     /* an ACK grows W only when the sender sent at least this share
                                 of the window's rate while the acked packets left, 0.9; 0 =
                                 always (the paper: a packet-clocked sender fills its window) */
  double rtt_gain;            /* EWMA gain of the acker's RTT (time and packets), 1/8 (TCP) */
  double timeout_rtts;        /* no ACK for this many RTTs (>= timeout_min): a stall, 4 */
  amcc_time timeout_min;      /* 1 s */
  double loss_filter;         /* receiver: weight of one packet in the loss EWMA, 1/64 */
  amcc_time ack_interval_min; /* receiver: ACKs at least this far apart, 10 ms; 0 = an ACK per
                                 packet (the paper) */
  uint32_t packet_size;       /* s before the first packet was sent, 1200 */
  double initial_rate_bps;    /* the rate until the first RTT sample, 500 kbit/s */
  double min_rate_bps, max_rate_bps;
};
void amcc_pgmcc_params_init (struct amcc_pgmcc_params *p);
/* AMCC_OK, or AMCC_ERR_PARAM when a parameter is NaN, negative or out of its range (docs/pgmcc.md
 * section 3): the controller refuses to create a sender or receiver with such parameters. */
int amcc_pgmcc_params_validate (const struct amcc_pgmcc_params *p);

/* ---- wire payloads (RTCP APP "PGMC", after the name) ---------------------------------------- */
struct amcc_pgmcc_sender_info {       /* subtype 0 */
  bool has_acker;
  uint32_t acker_ssrc;                /* 0 when !has_acker */
};

struct amcc_pgmcc_feedback {          /* subtype 2; the first fields of subtype 1 */
  double loss;                        /* the receiver's filtered loss rate p, [0, 1] */
  uint32_t rx_max;                    /* highest sequence number received (32-bit extended) */
  bool has_echo;
  uint32_t echo_ts_us;                /* sender timestamp of rx_max's packet (sender clock, us) */
  uint32_t hold_us;                   /* time from rx_max's arrival to this message */
};

struct amcc_pgmcc_ack {               /* subtype 1 */
  struct amcc_pgmcc_feedback fb;
  uint32_t bitmap;                    /* bit i: rx_max - 1 - i was received (i = 0..31) */
  uint32_t received;                  /* packets received so far, mod 2^32: the cumulative
                                         part, counts what the bitmaps miss between ACKs */
};

/* Encoders return the bytes written or AMCC_ERR_PARAM / AMCC_ERR_NOSPACE; decoders AMCC_OK or
 * AMCC_ERR_VERSION / AMCC_ERR_TRUNCATED / AMCC_ERR_FIELD (exact length, reserved bits zero). */
int amcc_pgmcc_sender_info_encode (const struct amcc_pgmcc_sender_info *in, uint8_t *buf,
    size_t cap);
int amcc_pgmcc_sender_info_decode (struct amcc_pgmcc_sender_info *out, const uint8_t *buf,
    size_t len);
int amcc_pgmcc_report_encode (const struct amcc_pgmcc_feedback *in, uint8_t *buf, size_t cap);
int amcc_pgmcc_report_decode (struct amcc_pgmcc_feedback *out, const uint8_t *buf, size_t len);
int amcc_pgmcc_ack_encode (const struct amcc_pgmcc_ack *in, uint8_t *buf, size_t cap);
int amcc_pgmcc_ack_decode (struct amcc_pgmcc_ack *out, const uint8_t *buf, size_t len);

/* ---- the equations -------------------------------------------------------------------------- */
/* Throughput up to a constant, 1 / (RTT sqrt(p)) (Rizzo); INFINITY when p = 0. */
double amcc_pgmcc_throughput (double rtt, double p);
/* The acker switch rule: candidate's throughput < c x the acker's. */
bool amcc_pgmcc_should_switch (double cand_rtt, double cand_p, double acker_rtt, double acker_p,
    double c);

/* ---- sender --------------------------------------------------------------------------------- */
struct amcc_pgmcc_sender {
  struct amcc_pgmcc_params p;
  double w, tokens, ssthresh;         /* window and tokens, packets */
  double x_bps;                       /* the window's rate (hold_rate), 0 = no RTT yet */
  bool has_acker;
  uint32_t acker;
  uint64_t acker_switches;
  double acker_p, acker_rtt_pkts;     /* the acker's last p and smoothed RTT in packets */
  /* the acker's ACK state, in its sequence space */
  bool ack_started, holding;
  uint32_t ack_hi, judged, recover;   /* highest acked; judged up to; hold until past recover */
  uint64_t seen;                      /* bit i: ack_hi - i reported received */
  uint64_t known;                     /* bit i: ack_hi - i covered by some ACK (else unknown) */
  uint32_t received;                  /* the acker's received counter in its last ACK */
  uint64_t acks, losses, reactions, timeouts;
  amcc_time react_at;                 /* the last halving */
  amcc_time echo_at;                  /* send time of the last ACK's RX_MAX, NONE = none */
  amcc_time last_ack, timeout_at;     /* AMCC_TIME_NONE before the first ACK */
  double srtt_s;                      /* acker RTT in seconds, 0 = none yet */
  double mean_size;                   /* EWMA of packet sizes, bytes */
  uint64_t sent;
  struct { amcc_time t; uint64_t n; double x; } ring[AMCC_PGMCC_SEND_RING];  /* x: window rate */
  size_t ring_n, ring_next;
  bool announce;                      /* the acker changed since the last sender APP */
  /* containment (lib/cc/contain.c judges; docs/pgmcc.md "Containment") */
  double claim_p;                     /* the acker's loss as its ACK bitmaps state it: the
                                         receivers' loss filter (loss_filter) run over the
                                         sequence numbers they judged; its reported p at its
                                         election */
  struct {                            /* the window's reactions to losses, a ring: */
    amcc_time t;                      /* when */
    uint32_t acker;                   /* whose losses */
    double taken;                     /* the window's rate it took, bit/s (0 = undone) */
  } undo[AMCC_PGMCC_UNDO];
  size_t undo_n, undo_next;
  uint64_t demotions;
};

void amcc_pgmcc_sender_init (struct amcc_pgmcc_sender *s, const struct amcc_pgmcc_params *p,
    amcc_time now);
void amcc_pgmcc_sender_on_sent (struct amcc_pgmcc_sender *s, amcc_time now, size_t bytes);
/* A report (ack == NULL) or an ACK from ssrc: the election, and from the acker the window.
 * Returns 1 when ssrc is the acker after it. */
int amcc_pgmcc_sender_on_feedback (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t ssrc,
    const struct amcc_pgmcc_feedback *fb, const struct amcc_pgmcc_ack *ack);
/* The same; may_elect false: the feedback elects nobody (an election held by containment). */
int amcc_pgmcc_sender_feedback (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t ssrc,
    const struct amcc_pgmcc_feedback *fb, const struct amcc_pgmcc_ack *ack, bool may_elect);
/* What the feedback would do to the election now: AMCC_ELECT_NONE (0, also from the acker),
 * AMCC_ELECT_SWITCH (1: it would replace the acker), AMCC_ELECT_FIRST (2: nobody acks). */
int amcc_pgmcc_sender_would_elect (const struct amcc_pgmcc_sender *s, amcc_time now,
    uint32_t ssrc, const struct amcc_pgmcc_feedback *fb);
/* Demotes the acker (its claimed losses, contain.c): nobody acks, as after its BYE, and each
 * window reaction to its losses at or after undo_from, in any of its tenures, is undone: the
 * rate each took is added back (the growth in between kept, the other ackers' reactions too);
 * congestion avoidance from there. */
void amcc_pgmcc_sender_demote (struct amcc_pgmcc_sender *s, amcc_time now,
    amcc_time undo_from);
void amcc_pgmcc_sender_on_bye (struct amcc_pgmcc_sender *s, uint32_t ssrc);
/* The window's rate, bit/s: W s / RTT (hold_rate: the rate W stands for); 0 before an RTT. */
double amcc_pgmcc_sender_window_rate (const struct amcc_pgmcc_sender *s);
/* W x s / RTT (docs/pgmcc.md), clamped to the limits; checks the stall timeout first. */
double amcc_pgmcc_sender_rate (struct amcc_pgmcc_sender *s, amcc_time now);
bool amcc_pgmcc_sender_may_send (const struct amcc_pgmcc_sender *s);
/* Holds W to what rate_bps allows (W s / RTT <= rate_bps) when it is above: limits and ramps
 * apply to the window too, so that it does not grow untested behind them. */
void amcc_pgmcc_sender_cap_window (struct amcc_pgmcc_sender *s, double rate_bps);
/* RTT in packets of a report received now: packets sent from the echoed one to now - hold;
 * < 0 when the echo is older than the send record. */
double amcc_pgmcc_sender_rtt_packets (const struct amcc_pgmcc_sender *s, amcc_time now,
    const struct amcc_pgmcc_feedback *fb);
/* The pieces of the window update, exposed for the tests. */
void amcc_pgmcc_window_ack (struct amcc_pgmcc_sender *s, uint32_t n);     /* n packets acked */
void amcc_pgmcc_window_loss (struct amcc_pgmcc_sender *s);                /* halve */

/* ---- receiver ------------------------------------------------------------------------------- */
struct amcc_pgmcc_receiver {
  struct amcc_pgmcc_params p;
  uint32_t ssrc;
  bool started, is_acker;
  uint32_t hi, bitmap, received;      /* bitmap bit i: hi - 1 - i received */
  amcc_time hi_at;                    /* arrival of hi */
  bool hi_has_ts;
  uint32_t hi_ts_us;
  double loss;                        /* filtered p */
  uint64_t lost;                      /* sequence numbers skipped (not retracted by late ones) */
  uint32_t unacked;                   /* packets since the last ACK */
  amcc_time first_unacked, last_ack;
  uint64_t acks, reports;
};

void amcc_pgmcc_receiver_init (struct amcc_pgmcc_receiver *r, const struct amcc_pgmcc_params *p,
    uint32_t ssrc);
/* extseq: the 32-bit extended sequence number (the caller's or the sender's). */
void amcc_pgmcc_receiver_on_rtp (struct amcc_pgmcc_receiver *r, amcc_time now, uint32_t extseq,
    bool has_ts, uint32_t ts_us);
void amcc_pgmcc_receiver_on_sender_info (struct amcc_pgmcc_receiver *r,
    const struct amcc_pgmcc_sender_info *si);
/* When the acker wants its next ACK (an early RTCP packet); AMCC_TIME_NONE: nothing pending. */
amcc_time amcc_pgmcc_receiver_ack_due (const struct amcc_pgmcc_receiver *r);
void amcc_pgmcc_receiver_feedback (const struct amcc_pgmcc_receiver *r, amcc_time now,
    struct amcc_pgmcc_feedback *fb);
/* Fills the ACK and starts a new aggregation. */
void amcc_pgmcc_receiver_make_ack (struct amcc_pgmcc_receiver *r, amcc_time now,
    struct amcc_pgmcc_ack *ack);

#ifdef __cplusplus
}
#endif
#endif
