/* tfmcc.h - TCP-Friendly Multicast Congestion Control (RFC 4654), the comparator for ASMP.
 *
 * Transport (read this first, element writers):
 *   TFMCC here runs over RTP/RTCP, not over its own data packets.
 *   - Sender fields (RFC 4654 2.2.1: X_supp, fb_nr, R_max, sender timestamp, echo of one receiver's
 *     timestamp + hold time, is_CLR) ride in an RTCP APP packet (name "TFMS") that the sender
 *     appends to EVERY RTCP packet it sends. The element may, and should, send extra early RTCP
 *     (e.g. every R_max / 4) so that feedback rounds and suppression work: the RFC puts these fields
 *     in every data packet, RTCP is much sparser. Call amcc_tfmcc_sender_fill_info() just before.
 *   - Receiver reports (RFC 4654 2.2.2) are RTCP APP packets (name "TFMR") carried in the
 *     receiver's RR. A receiver asks for an early RTCP packet when
 *     amcc_tfmcc_receiver_next_report_time() is due; the element then calls
 *     amcc_tfmcc_receiver_make_report() and sends the APP in a (reduced-size or compound) RR.
 *   - Receiver id = the SSRC of the RTCP packet carrying the report.
 *   - Every API below is event driven: call it whenever the event happens (RTP packet in, RTCP in,
 *     RTCP about to go out) with the current time; nothing here reads a clock or draws a random
 *     number (the feedback timer's x is passed in).
 *   - Wire timestamps are the low 32 bits of the sender's / receiver's clock in microseconds; only
 *     differences are used, so the two clocks need not be synchronised.
 *
 * Units: rates in bit/s (double), sizes in bytes, times in amcc_time (ns).
 * Byte-by-byte wire layout: docs/wire-formats-tfmcc.md.
 */
#ifndef AMCC_TFMCC_H
#define AMCC_TFMCC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <amcc/amcc.h>
#include <amcc/loss.h>
#include <amcc/seq.h>
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_TFMCC_WIRE_VERSION   1
#define AMCC_TFMCC_APP_SENDER     "TFMS"   /* RTCP APP name of the sender fields */
#define AMCC_TFMCC_APP_REPORT     "TFMR"   /* RTCP APP name of a receiver report */
#define AMCC_TFMCC_SENDER_INFO_LEN 32      /* payload bytes (after the APP name) */
#define AMCC_TFMCC_REPORT_LEN      28

/* ---- parameters ---------------------------------------------------------------------------- */
struct amcc_tfmcc_params {
  uint32_t packet_size;       /* s in bytes until packets have been seen (default 1200) */
  amcc_time r_max_initial;    /* initial R_max, >= 500 ms (RFC 4654 3.1) */
  double round_rmax_factor;   /* feedback round T = 6 R_max (3.4) */
  double n_receivers_bound;   /* N of the feedback timer, 10000 (4.5) */
  double supp_factor;         /* X_supp = 0.9 X_r (3.4) */
  double q_rtt;               /* RTT filter weight for non-CLR receivers, 0.5 (4.2) */
  double q_rtt_clr;           /* for the CLR, 0.9 (4.2) */
  double clr_halve_rtts;      /* no CLR report for 4 RTTs: halve (3.3) */
  double clr_grace_rtts;      /* ... unless the CLR was chosen < 10 RTTs ago (3.3) */
  double clr_gone_rtts;       /* no CLR report for 10 RTTs: CLR gone (3.3) */
  double nofb_halve_rtts;     /* no feedback at all: halve every 10 R_max (3.3) */
  double initial_rate_bps;    /* X at start, slowstart from there; 0 (default): 1 packet per
                                 R_max (3.1). Elements: the encoder's initial bitrate */
  double min_rate_bps;        /* floor; default 1 packet per 8 s = 8s/8 */
  double max_rate_bps;        /* ceiling (application limit), default 1e9 */
  bool history_discounting;   /* RFC 4654 5.4 / RFC 5348 5.5 (default on, DF floor 0.5) */
  amcc_time leave_after;      /* receiver leaves below 1 packet per 8 s for 120 s (4.) */
  amcc_time recv_window_min;  /* receive rate over >= this (default 500 ms: video is bursty) */
  uint32_t recv_window_packets; /* ... and over >= this many packets (default 16) */
};
void amcc_tfmcc_params_init (struct amcc_tfmcc_params *p);

/* The rate equation (RFC 4654 2.1) is amcc_tfmcc_rate() in <amcc/tcpmodel.h>; its inverse, used to
 * seed the loss history at the first loss, is amcc_tfmcc_loss_for_rate(). */

/* ---- wire payloads (RTCP APP, after the 4-char name) ---------------------------------------- */
struct amcc_tfmcc_sender_info {         /* RFC 4654 2.2.1 */
  uint16_t fb_nr;                       /* feedback round number */
  bool slowstart;
  bool has_supp;                        /* X_supp set in this round */
  bool has_echo;
  bool echo_is_clr;                     /* the echoed receiver is the CLR */
  uint32_t ts_us;                       /* sender timestamp (sender clock, us, low 32 bits) */
  uint32_t r_max_us;                    /* R_max, 1 us .. 60 s */
  double rate_bps;                      /* current sending rate X */
  double x_supp_bps;                    /* suppression rate (0 when !has_supp) */
  uint32_t echo_ssrc;                   /* receiver whose timestamp is echoed */
  uint32_t echo_ts_us;                  /* that receiver's timestamp */
  uint32_t echo_hold_us;                /* time the sender held it, <= 600 s */
};
struct amcc_tfmcc_report {              /* RFC 4654 2.2.2 */
  uint16_t fb_nr;
  bool have_rtt, have_loss, leaving, has_echo;
  uint32_t ts_us;                       /* receiver timestamp (receiver clock, us) */
  uint32_t echo_ts_us;                  /* sender timestamp echoed */
  uint32_t echo_hold_us;                /* time between receiving it and sending this report */
  double rate_bps;                      /* X_r (2 x receive rate in slowstart) */
  double loss_event_rate;               /* p, 0 when !have_loss (diagnostic) */
  double recv_rate_bps;                 /* measured receive rate (diagnostic) */
};
/* Payload codecs: return bytes written/consumed or a negative amcc_status. Decoders validate
 * every field (version, reserved flag bits, NaN/inf/negative/absurd rates, flag/field
 * consistency) and never read past len. */
int amcc_tfmcc_sender_info_encode (const struct amcc_tfmcc_sender_info *in, uint8_t *buf, size_t len);
int amcc_tfmcc_sender_info_decode (struct amcc_tfmcc_sender_info *out, const uint8_t *buf, size_t len);
int amcc_tfmcc_report_encode (const struct amcc_tfmcc_report *in, uint8_t *buf, size_t len);
int amcc_tfmcc_report_decode (struct amcc_tfmcc_report *out, const uint8_t *buf, size_t len);
/* Whole RTCP APP packets (header + name + payload): */
int amcc_tfmcc_sender_info_write_app (const struct amcc_tfmcc_sender_info *in, uint32_t ssrc,
                                      uint8_t *buf, size_t len);
int amcc_tfmcc_sender_info_read_app (struct amcc_tfmcc_sender_info *out, uint32_t *ssrc,
                                     const uint8_t *buf, size_t len);
int amcc_tfmcc_report_write_app (const struct amcc_tfmcc_report *in, uint32_t ssrc,
                                 uint8_t *buf, size_t len);
int amcc_tfmcc_report_read_app (struct amcc_tfmcc_report *out, uint32_t *ssrc,
                                const uint8_t *buf, size_t len);
/* Find the first TFMS / TFMR APP in a compound RTCP packet and decode it (AMCC_ERR_TYPE: none). */
int amcc_tfmcc_sender_info_find_app (struct amcc_tfmcc_sender_info *out, uint32_t *ssrc,
                                     const uint8_t *compound, size_t len);
int amcc_tfmcc_report_find_app (struct amcc_tfmcc_report *out, uint32_t *ssrc,
                                const uint8_t *compound, size_t len);

/* ---- receiver ------------------------------------------------------------------------------ */
struct amcc_tfmcc_receiver {
  struct amcc_tfmcc_params p;
  /* sequence tracking, loss events (RFC 4654 5, RFC 5348 5.1-5.4: a packet is lost once 3 later
   * packets arrived; losses within one RTT of an event's first loss join it) */
  amcc_seq seq;
  amcc_loss_events ev;
  double df[AMCC_LOSS_N + 1];       /* history discounting DF_i of I_1..I_8 (df[0] unused) */
  uint64_t packets;
  double mean_size;                 /* s, EWMA of packet sizes */
  /* receive rate over 2-4 RTTs (two staggered windows), at least recv_window_min and
   * recv_window_packets */
  amcc_time win_a_start, win_b_start;
  double win_a_bytes, win_b_bytes;
  uint32_t win_a_packets, win_b_packets;
  double recv_rate_bps;
  /* RTT (RFC 4654 4.2) */
  bool have_rtt;
  double rtt_s;                     /* smoothed echo RTT */
  double rtt_min_s;                 /* smallest echo sample: floor of the adjusted RTT */
  bool have_owd_base;
  uint32_t owd_base_us;             /* (arrival - sender ts) when the last echo was taken */
  double owd_delta_s;               /* one-way delay change since then */
  /* sender state as last seen */
  bool have_info;
  uint16_t fb_nr;
  double r_max_s;
  bool sender_slowstart;
  bool is_clr;
  uint32_t ssrc;
  uint32_t last_sender_ts_us;       /* for the echo in our report */
  amcc_time last_sender_ts_arrival;
  /* feedback timer (RFC 4654 4.5) */
  amcc_time report_due;             /* AMCC_TIME_NONE when nothing is scheduled */
  amcc_time last_report;
  bool sent_this_round;             /* reported or suppressed in this round */
  amcc_time round_seen_at;          /* when this round's first sender APP arrived */
  double round_t_s;                 /* the feedback delay t drawn for this round */
  /* first-loss seeding with R_max before any RTT sample: redone with the first real RTT */
  bool seed_pending;
  double seed_rate_bps;
  bool leave_requested;
  amcc_time below_floor_since;
};

void amcc_tfmcc_receiver_init (struct amcc_tfmcc_receiver *rx, const struct amcc_tfmcc_params *p,
                               uint32_t own_ssrc, amcc_time now);
/* An RTP packet arrived. sender_ts_us: the sender's timestamp for it if the element has one
 * (RTP header extension), else pass has_sender_ts = false. */
void amcc_tfmcc_receiver_on_rtp (struct amcc_tfmcc_receiver *rx, amcc_time now, uint16_t seq16,
                                 size_t bytes, bool has_sender_ts, uint32_t sender_ts_us);
/* A sender APP arrived. uniform_x in (0,1] draws this receiver's feedback timer if the packet
 * starts a new feedback round (the element supplies a fresh uniform number each call). */
void amcc_tfmcc_receiver_on_sender_info (struct amcc_tfmcc_receiver *rx, amcc_time now,
                                         const struct amcc_tfmcc_sender_info *info,
                                         double uniform_x);
/* When this receiver wants to send a report (AMCC_TIME_NONE: nothing scheduled). */
amcc_time amcc_tfmcc_receiver_next_report_time (const struct amcc_tfmcc_receiver *rx);
/* Build a report now (due or not; e.g. with a regular RR) and mark it sent. */
void amcc_tfmcc_receiver_make_report (struct amcc_tfmcc_receiver *rx, amcc_time now,
                                      struct amcc_tfmcc_report *out);
/* Current desired rate X_r (bit/s), loss event rate p, RTT (s) used. */
double amcc_tfmcc_receiver_rate (const struct amcc_tfmcc_receiver *rx);
double amcc_tfmcc_receiver_loss_event_rate (const struct amcc_tfmcc_receiver *rx);
double amcc_tfmcc_receiver_rtt (const struct amcc_tfmcc_receiver *rx);
double amcc_tfmcc_receiver_recv_rate (const struct amcc_tfmcc_receiver *rx); /* bit/s, 2-4 RTTs */
bool amcc_tfmcc_receiver_is_clr (const struct amcc_tfmcc_receiver *rx);
/* Ask to leave: the next report (due at once) carries the leave flag. */
void amcc_tfmcc_receiver_leave (struct amcc_tfmcc_receiver *rx, amcc_time now);
/* True once the rate stayed below 1 packet per 8 s for params.leave_after (RFC 4654 4). */
bool amcc_tfmcc_receiver_should_leave (const struct amcc_tfmcc_receiver *rx, amcc_time now);

/* p from the history with TFMCC discounting (RFC 4654 5.4 / RFC 5348 5.5, errata: W_tot
 * accumulates): max(I_mean with I_0 discounted by DF, I_mean without I_0); 0 before any loss.
 * df: DF_1..DF_8 in df[1..8] (NULL = all 1). Exposed for tests. */
double amcc_tfmcc_history_p (const amcc_loss_history *h, const double *df, bool discounting);

/* ---- sender -------------------------------------------------------------------------------- */
struct amcc_tfmcc_sender;  /* opaque: table of recently heard receivers */
struct amcc_tfmcc_sender *amcc_tfmcc_sender_new (const struct amcc_tfmcc_params *p, amcc_time now);
void amcc_tfmcc_sender_free (struct amcc_tfmcc_sender *tx);
/* A receiver report arrived (APP from SSRC ssrc). */
void amcc_tfmcc_sender_on_report (struct amcc_tfmcc_sender *tx, amcc_time now, uint32_t ssrc,
                                  const struct amcc_tfmcc_report *r);
/* RTCP BYE from ssrc: treated as a leave. */
void amcc_tfmcc_sender_on_bye (struct amcc_tfmcc_sender *tx, amcc_time now, uint32_t ssrc);
/* The element sent a packet of this size (mean s for the increase limit). Optional. */
void amcc_tfmcc_sender_on_packet_sent (struct amcc_tfmcc_sender *tx, amcc_time now, size_t bytes);
/* New application limits (params min_rate_bps / max_rate_bps) while running: X is clamped at
 * once, so the sender APP advertises the rate actually sent. NaN, min < 0 or max <= 0: ignored. */
void amcc_tfmcc_sender_set_limits (struct amcc_tfmcc_sender *tx, double min_rate_bps,
                                   double max_rate_bps);
/* Runs the timers (round end, CLR timeouts, no-feedback halving) and returns X in bit/s. */
double amcc_tfmcc_sender_rate (struct amcc_tfmcc_sender *tx, amcc_time now);
/* Fields of the next sender APP (runs the timers; picks and consumes the echo). */
void amcc_tfmcc_sender_fill_info (struct amcc_tfmcc_sender *tx, amcc_time now,
                                  struct amcc_tfmcc_sender_info *out);
/* Inter-packet interval 8 s / X for a packet of `bytes` (RFC 4654 3.7). */
amcc_time amcc_tfmcc_sender_pacing_interval (struct amcc_tfmcc_sender *tx, amcc_time now,
                                             size_t bytes);

struct amcc_tfmcc_sender_state {    /* for traces and tests */
  double rate_bps, x_supp_bps, r_max_s;
  bool slowstart, has_clr, increase_held;
  uint32_t clr_ssrc;
  double clr_rate_bps, clr_rtt_s;
  double clr_unit_s;                /* unit of the CLR timeouts: max(RTT, report interval) */
  uint16_t fb_nr;
  uint64_t reports, rounds;
};
void amcc_tfmcc_sender_get_state (const struct amcc_tfmcc_sender *tx,
                                  struct amcc_tfmcc_sender_state *st);

#ifdef __cplusplus
}
#endif
#endif
