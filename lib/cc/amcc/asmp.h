/* asmp.h - ASMP, the Adaptive Smooth Multicast Protocol (spec/asmp.md, papers/000 3.1-3.8).
 * Receivers compute a smooth TCP-friendly rate and report it in an RTCP APP packet after their
 * RR; the sender takes the minimum over live receivers (eq. 1) and echoes per-receiver RTTs in an
 * APP packet after its SR. Rates cross the API in bit/s, times are amcc_time (ns). */
#ifndef AMCC_ASMP_H
#define AMCC_ASMP_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#include "seq.h"
#include "loss.h"
#include "jitter.h"
#include "rtt.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct amcc_asmp_params {
  double initial_rate_bps;   /* sender's rate before any report (500 kb/s) */
  double min_rate_bps;       /* clamp of every rate (16 kb/s) */
  double max_rate_bps;       /* clamp of every rate (100 Mb/s) */
  double default_rtt_s;      /* receiver RTT until the first echo (0.1 s) */
  double rho;                /* eq. 11 (0.5) */
  double gamma_unloaded;     /* eq. 19 (0.9) */
  double gamma_congested;    /* eq. 19 (0.2) */
  double ci_margin_s;        /* eq. 18 margin, seconds (0) */
  int ci_ge;                 /* eq. 18 as ">=" (0: strict ">", so constant delay is UNLOADED as the
                                paper says; 1: spec/asmp.md's literal ">=") */
  double rtt_clamp;          /* eq. 8 result kept within a factor of the last echoed RTT (8.0;
                                0 = off, the paper's literal eq. 8; else >= 1) */
  double similarity;         /* feedback suppression: rates within this fraction are similar (0.02) */
  int suppress_if_lower;     /* 1: also suppress after hearing any lower rate (0, spec: similar only) */
  amcc_time receiver_timeout;/* sender expires a receiver silent this long (15 s = 3 x 5 s RTCP) */
  amcc_time t_suspend;       /* RTCP interval above which eq. 20 replaces it (5 s) */
  amcc_time t_rand;          /* eq. 20 window T_rand (0 = t_suspend) */
  double lambda;             /* eq. 20 lambda (0 = ln(N) + 1 from the group size) */
  uint32_t max_receivers;    /* sender table bound (65536) */
  int cj_use_send_time;      /* cumulative jitter from the packets' send times when they carry
                                one (1), else from RTP timestamps as eq. 4 (0). Video packets of
                                one frame share an RTP timestamp but leave paced, which makes the
                                RTP-timestamp CJ a sawtooth; send times leave only the queue */
  double recv_rate_cap;      /* receiver: rate <= this x the rate received in the interval
                                (2.0; 0 = off, the paper's literal eq. 13 which lets a receiver
                                that is not the bottleneck grow without bound while another
                                holds the sender down; see asmp_receiver.c) */
  int step_limit;            /* receiver: no report raises the rate by more than one P / t_RTT,
                                whichever equation computed it (1; 0 = the literal eq. 12 + 14,
                                where PFTK of a filtered loss that is ageing out can exceed r_prev
                                by several P / t_RTT) */
  int recv_rate_step;        /* receiver: the rate rises only up to the rate received in the
                                interval + P / t_RTT (1; 0 = off). ASMP has no slow start, so one
                                packet per RTT above what arrives is all eq. 13 can justify while
                                the sender lags the reports; see asmp_receiver.c */
  int standing_queue_cap;    /* receiver: after 2 consecutive CONGESTED reports the rate is at
                                most what arrived over those 2 intervals (1; 0 = off: eq. 19 only
                                slows an increase, so a deep queue lets the rate sit above the
                                bottleneck until loss; see asmp_receiver.c) */
  int rtt_floor;             /* receiver: t_RTT never below the smallest echoed eq. 9 RTT (1;
                                0 = off: eq. 8 with an 'a' calibrated on a full queue can fall
                                below the propagation RTT once the queue drains) */
  /* Packet size in eq. 12-13 (RFC 4828 TFRC-SP manner): P = min(nominal_pkt_bytes,
   * pkt_rate_ratio x mean packet size). nominal_pkt_bytes 0 = the paper's mean P. */
  double nominal_pkt_bytes;  /* TCP's segment size (1448) */
  double pkt_rate_ratio;     /* packet-rate cap: at most this many times the packets/s of a TCP
                                flow with the same loss and RTT (4; 0 = no cap) */
  int loss_events;           /* eq. 12's l = loss event rate (RFC 5348 5.4 Average Loss Interval,
                                losses within one RTT are one event), as PFTK's model defines it
                                (1; 0 = the paper's eq. 2-3 packet loss rate) */
  int loss_per_segment;      /* the loss-event rate counted per TCP-sized segment (p x P / mean
                                packet size) instead of per packet, so small packets do not
                                dilute it (1; 0 = per packet) */
  /* Two regimes (asmp_regime.c): DELAY keeps the queue short when ASMP is alone;
   * COMPETING follows eq. 12-13 when a loss-based flow holds the queue. 0 = the paper's one mode. */
  int adaptive_mode;         /* (1) */
  double queue_target_s;     /* DELAY: an interval whose least queueing delay exceeds this holds
                                a standing queue (0.02 s) */
  double queue_hold_s;       /* start-up ends, and DELAY sends at most what arrives, while the
                                least queueing delay of an interval exceeds this (0.005 s; 0 =
                                off) */
  double drain_s;            /* DELAY: a standing queue is drained over this time (0.5 s) */
  double compete_after_s;    /* DELAY -> COMPETING when a standing queue outlives our draining
                                this long and still grows; a loss event counts toward
                                COMPETING only after the queue stood half of it (2 s) */
  double foreign_margin;     /* DELAY: a standing queue is another flow's when, measured on the
                                packets' send times, we send below (1 - this) x the most the
                                bottleneck gave us while it stood and it still does not shrink,
                                or loss comes then; alone it would drain at the difference
                                (0.1; 0 = the timing rules alone, compete_after_s) */
  double queue_cap_hold_s;   /* DELAY: that most is remembered this long after the queue last
                                stood, across the drained intervals between: a Reno flow's
                                sawtooth drains the queue every few seconds, and each fresh
                                episode measured the bottleneck at our own shrinking rate
                                (10 s; 0 = forgotten at the first drained interval) */
  double compete_hold_s;     /* DELAY -> COMPETING on a second such loss event within this time;
                                COMPETING -> DELAY after this long without either, or when the
                                queue stays drained (< queue_target_s / 2, no loss) for 3
                                reports (10 s) */
  double startup_gain;       /* start-up: the rate may grow by this factor per second over what
                                arrived, until the first loss event or a queue above
                                queue_hold_s (1.25; 0 = no start-up) */
  double delay_backoff;      /* DELAY: a loss event without a standing queue (a burst) sets the
                                rate to (1 - this) x what arrived (0.1) */
  double burst_cut_max;      /* DELAY, path drained: such a loss takes at most this x r_prev
                                (0.2; 0 = no bound) */
  double random_loss_q_s;    /* a loss event whose packets right after each gap (this report or
                                the one before) waited less than this in queues is random loss
                                on the path, not an overflow: no regime sees it (no backoff, no
                                knee, start-up goes on); eq. 12 at the filtered loss fraction
                                (eq. 2-3) still bounds the rate (0.005; 0 = every loss event
                                as the paper) */
  double random_loss_max;    /* ... only while the filtered loss fraction (eq. 2-3, the last 8
                                reports) is at most this: one that met a full queue from its
                                first packet has that queue in its least delay, and its
                                overflows look random; above this they back off (0.03) */
  double knee_step;          /* DELAY: within 10 % of the rate of the last such loss, rise by
                                at most this x r_prev per report (0.02) */
  double knee_hold_s;        /* DELAY: after such a loss the rate stays at most knee_hold_frac x
                                the target it came at for this long (20 s; 0 = off) */
  double knee_hold_frac;     /* (0.95) */
  double knee_loss_frac;     /* DELAY: a loss event where what arrived is below this x the
                                highest rate of a loss within compete_hold_s (rates over two
                                reports while the queue is drained) counts toward COMPETING: backing off did not stop the
                                losses (0.9; 0 = never) */
  double delay_rise;         /* DELAY: a report rises by at most this x what arrived over the
                                rate that arrived (0.05; 0 = eq. 13's P/t_RTT) */
  double step_frac;          /* COMPETING: a report may rise by max(P/t_RTT, this x r_prev) while
                                eq. 12 is above r_prev (0.25; 0 = P/t_RTT, the paper's bound) */
  double window_s;           /* while the RTCP interval (amcc_asmp_receiver_schedule) exceeds
                                this, a measurement interval also closes at a packet once it has
                                lasted this long, between reports; a report reuses the last closed
                                one while the open one is under half of it (1 s; 0 = the paper:
                                one interval per RTCP report, whose length grows with the group) */
  int drop_suppressed;       /* sender: a receiver whose RR came without a rate report (it
                                suppressed it) leaves eq. 1 until it reports again: a peer it
                                heard reported at most its rate (1; 0 = the paper: its last
                                report counts until it times out) */
  int recv_least_delay;      /* receiver: the rate received is measured between the packets of
                                least one-way delay of consecutive intervals, which a stall of
                                the application did not delay (1; 0 = the bytes over the interval
                                between reports: a receiver stalled 100-400 ms read half, then
                                twice, the path's rate, and went COMPETING alone) */
  double send_gap_s;         /* adaptive_mode: an interval into which the sender's send times
                                carry a pause of at least this long, and 3 x the stream's usual
                                longest one (a 1 fps stream pauses 1 s every frame), measured the
                                pause, not the path: the rate holds (0.3 s; 0 = off) */
  double resume_s;           /* receiver: when a new sender SSRC replaces one heard at most this
                                long ago (a sender restarted), the reports carry the rate the
                                path gave the old one until what arrives reaches 0.9 x it, a loss
                                or a standing queue, or resume_s pass; the start-up is skipped:
                                the path did not change with the SSRC (10 s; 0 = start afresh
                                from the initial rate, as for a new session) */
} amcc_asmp_params;

typedef enum amcc_asmp_mode {
  AMCC_ASMP_STARTUP = 0,     /* multiplicative start until the first loss or standing queue */
  AMCC_ASMP_DELAY = 1,       /* alone: keep the queue short (eq. 13 + drain) */
  AMCC_ASMP_COMPETING = 2    /* a loss-based flow holds the queue: eq. 12-13 with loss events */
} amcc_asmp_mode;

void amcc_asmp_params_init (amcc_asmp_params *p);
/* Sets the regime parameters to their literal values: one regime (adaptive_mode 0, eq. 18-19 +
 * standing_queue_cap), the mean packet size, eq. 2-3 loss, no start-up, steps of P/t_RTT. With
 * the other defaults this is the controller as it was before the regimes (tests of eq. 12-20). */
void amcc_asmp_params_single_regime (amcc_asmp_params *p);
/* AMCC_OK, or AMCC_ERR_PARAM naming no field: rates > 0 and ordered, gammas and rho in (0,1],
 * similarity in [0,1), timeouts > 0. */
int amcc_asmp_params_validate (const amcc_asmp_params *p);

/* What a receiver reports (also the decoded APP payload). */
typedef struct amcc_asmp_report {
  double rate_bps;           /* smooth TCP-friendly rate (eq. 14) */
  double loss;               /* smoothed interval loss rate (eq. 2-3), 0..1 */
  double rtt_s;              /* receiver's RTT estimate (eq. 11), 0 = unknown */
  double jitter_s;           /* RFC 3550 interarrival jitter (eq. 5), seconds */
  double cj_short_s;         /* A_short of the cumulative jitter (eq. 15-18), seconds */
  amcc_ci_state ci;          /* eq. 18 */
  int have_echo;             /* the RTT is calibrated by a sender echo (eq. 10) */
  uint32_t report_seq;       /* counter of this receiver's reports */
  /* local only (not on the wire) */
  amcc_asmp_mode mode;       /* regime after this report */
  double queue_s;            /* least queueing delay of the interval (one-way delay above the
                                smallest ever seen), seconds; 0 without send times */
  double loss_event_rate;    /* loss event rate (RFC 5348 5.4), 0 before any loss event */
} amcc_asmp_report;

/* P of eq. 12-13 for a mean packet size: min(nominal_pkt_bytes, pkt_rate_ratio x mean), or the
 * mean itself when nominal_pkt_bytes is 0 (the paper). */
double amcc_asmp_packet_size (const amcc_asmp_params *p, double mean_pkt);

/* ---------------- receiver ---------------- */
typedef struct amcc_asmp_receiver {
  amcc_asmp_params p;
  uint32_t clock_rate;
  amcc_seq seq;
  amcc_interarrival ia;
  amcc_cumjitter cj;
  amcc_loss_filter lf;
  amcc_rtt_est rtt;
  double rate_Bps;           /* r_prev, bytes/s; valid when have_rate */
  int have_rate;
  double resume_Bps;         /* resume_s: the old sender's rate, held until confirmed, else 0 */
  amcc_time resume_until;
  double mean_pkt;           /* mean packet size P (bytes), EWMA 1/16 */
  amcc_time prev_owd;        /* previous packet's now - send_time (cj_use_send_time) */
  int have_prev_owd;
  uint64_t iv_bytes;         /* bytes received in the current interval */
  uint64_t prev_iv_bytes;    /* bytes and length of the interval before (standing_queue_cap) */
  double prev_iv_secs;
  uint32_t congested_run;    /* consecutive CONGESTED reports */
  amcc_time iv_start;        /* start of the current interval (first packet or last close) */
  uint32_t windows;          /* intervals closed by window_s since the last report */
  amcc_time report_at;       /* the last report, AMCC_TIME_NONE = none yet */
  amcc_time rtcp_iv;         /* the RTCP interval of the last round (window_s), 0 = none yet */
  amcc_time last_arrival;
  uint32_t report_seq;
  amcc_asmp_report last;     /* last report made */
  /* feedback suppression round */
  /* regimes (adaptive_mode) */
  amcc_asmp_mode mode;
  amcc_loss_events ev;       /* loss events (loss_events) */
  uint64_t ev_seen;          /* ev.events at the previous report */
  amcc_time base_owd;        /* smallest one-way delay seen (propagation + offset) */
  amcc_time iv_min_owd;      /* smallest one-way delay in the interval, AMCC_TIME_NONE = none */
  amcc_time iv_send_min, iv_send_max;   /* send times in the interval (AMCC_TIME_NONE: none) */
  amcc_time last_send;       /* latest send time seen (send_gap_s), AMCC_TIME_NONE = none */
  double iv_send_gap;        /* longest pause between send times reaching into the interval, s */
  double send_gap_norm;      /* that pause, averaged over intervals (1/8 gain), s; 0 = none yet */
  amcc_time lm_read;         /* read time of the interval's latest packet within 2 ms of its
                                least one-way delay (recv_least_delay), AMCC_TIME_NONE = none */
  uint64_t lm_after;         /* bytes read in the interval after it */
  amcc_time an_read;         /* the anchor: such a packet the last rate was measured up to */
  uint64_t an_bytes;         /* bytes read after the anchor and not yet measured */
  double an_secs;            /* time the anchor has been held without a measurement */
  uint64_t iv_send_bytes;    /* bytes of the packets that carried one */
  uint32_t iv_send_n;
  double queue_cap_Bps;      /* most received per second while a queue stood (queue_cap_hold_s) */
  amcc_time queue_cap_at;    /* when a queue last stood */
  uint32_t kept_run;         /* reports in a row in which that queue did not drain as ours would */
  amcc_time queue_since;     /* start of the current standing queue (DELAY), AMCC_TIME_NONE */
  double prev_q;             /* the previous report's queue_s */
  uint32_t drained_run;      /* loss-free reports in a row with the queue drained */
  double knee_Bps;           /* DELAY: rate received when the last burst loss came, 0 = none */
  double knee2_Bps;          /* knee_loss_frac's knee: the highest rate received over two
                                reports at a loss within compete_hold_s, 0 = none */
  amcc_time knee2_at;        /* when it was set */
  double hold_Bps;           /* knee_hold_s: the target of the last burst loss, 0 = none */
  amcc_time hold_at;         /* when it came */
  double rate_prev_Bps;      /* the target before rate_Bps (knee_hold_s's level), 0 = none */
  int was_lossy;             /* the previous report had a loss event (not a random one) */
  uint64_t hi_ext;           /* highest extended sequence number seen (random_loss_q_s) */
  int have_hi;
  double iv_gap_q;           /* most queueing delay of a packet right after a gap, this
                                interval, s; < 0 = none */
  double prev_gap_q;         /* the same for the interval before */
  uint64_t random_losses;    /* loss events taken as random (random_loss_q_s) */
  double prev_recv;          /* the previous report's received rate, bytes/s (0 = none) */
  double low_Bps;            /* the lowest rate set since the last lossy report, 0 = none */
  amcc_time event_at[2];     /* report times of the last two queued loss events, [0] newest */
  amcc_time evidence_at;     /* last queued loss event or queue held past compete_after_s */
  double recv_Bps;           /* rate received in the last closed interval, bytes/s */
  int suppressed;            /* this round's report is suppressed */
  int heard;                 /* peers heard this round */
  double heard_min_bps;
} amcc_asmp_receiver;

void amcc_asmp_receiver_init (amcc_asmp_receiver *rx, const amcc_asmp_params *p,
    uint32_t clock_rate_hz);
/* A fresh receiver (just initialised) takes over from one that measured rate_bps on the same
 * path for a sender that has gone (resume_s): its reports hold that rate (clamped to its limits)
 * until it is confirmed (resume_s above), in DELAY (no start-up). AMCC_ERR_PARAM if resume_s is
 * 0, the rate is not positive and finite, or the receiver has reported already. */
int amcc_asmp_receiver_resume (amcc_asmp_receiver *rx, amcc_time now, double rate_bps);
/* One RTP packet. send_time: the sender's send time on the sender's clock (for eq. 6), or
 * AMCC_TIME_NONE; one more than 2^62 ns (146 years) away from now is ignored as garbage. Returns the amcc_seq_result (duplicates/probation are not counted). */
int amcc_asmp_receiver_on_rtp (amcc_asmp_receiver *rx, amcc_time now, uint16_t seq,
    uint32_t rtp_ts, amcc_time send_time, uint32_t packet_bytes);
/* Bytes on our link that are not media packets (FEC parity): added to the interval's received
 * bytes (the rate received, recv_rate_cap, the delay regime), not to the packet size of eq. 12. */
void amcc_asmp_receiver_on_extra_bytes (amcc_asmp_receiver *rx, uint32_t bytes);
/* The sender echoed this receiver's RTT (eq. 9 value, ns). AMCC_ERR_PARAM if <= 0 or > 60 s. */
int amcc_asmp_receiver_on_rtt_echo (amcc_asmp_receiver *rx, amcc_time now, amcc_time rtt);
/* At each RTCP report: closes the interval, runs eq. 2-3, 11, 12-14, 18-19, fills *out (with
 * window_s: the last interval a packet closed, when the open one is under window_s / 2). */
void amcc_asmp_receiver_make_report (amcc_asmp_receiver *rx, amcc_time now,
    amcc_asmp_report *out);

/* eq. 20: a sample of the truncated exponential on [0, t_rand] for u in [0,1):
 * z = (t_rand / lambda) ln(1 + u (e^lambda - 1)); lambda <= 0 gives the uniform u * t_rand. */
amcc_time amcc_asmp_feedback_delay (amcc_time t_rand, double lambda, double u);
/* Start a feedback round: returns when to send the report. rtcp_interval is the interval the
 * caller's RTCP computes now (RFC 3550 Td; window_s keeps it). rtcp_interval <= t_suspend: the plain
 * now + rtcp_interval; above: now + eq. 20 sample on [0, T_rand] with lambda from params or
 * ln(group_size) + 1. Call at each round start (e.g. on the sender's SR); clears suppression. */
amcc_time amcc_asmp_receiver_schedule (amcc_asmp_receiver *rx, amcc_time now,
    amcc_time rtcp_interval, uint32_t group_size, double uniform_u);
/* Another receiver's report was heard (its APP rate, bit/s). Returns 1 if this round's report
 * must now be suppressed: a peer reported a rate not above ours and within 'similarity' of it
 * (or any lower rate with suppress_if_lower). A receiver lower than every rate heard never
 * suppresses, so the slowest receiver is always heard. Before our first report: never. */
int amcc_asmp_receiver_on_peer_report (amcc_asmp_receiver *rx, amcc_time now, double peer_rate_bps);
int amcc_asmp_receiver_suppressed (const amcc_asmp_receiver *rx);

/* ---------------- sender ---------------- */
typedef struct amcc_asmp_sender amcc_asmp_sender;

typedef struct amcc_asmp_echo_entry {
  uint32_t ssrc;
  amcc_time rtt;             /* eq. 9, ns */
} amcc_asmp_echo_entry;

typedef struct amcc_asmp_sender_stats {
  uint32_t receivers;        /* in the table (reported a rate or an RTT, not expired) */
  uint32_t rated;            /* with a rate report (the ones eq. 1 runs over) */
  uint32_t slowest_ssrc;     /* valid when rated > 0 */
  double slowest_rate_bps;
  uint64_t reports, expired, byes, rejected;
  uint64_t stale;            /* rates dropped from eq. 1 after a suppressed report (drop_suppressed) */
} amcc_asmp_sender_stats;

/* NULL on allocation failure or invalid params. */
amcc_asmp_sender *amcc_asmp_sender_new (const amcc_asmp_params *p, amcc_time now);
void amcc_asmp_sender_free (amcc_asmp_sender *tx);
/* A receiver's APP report. O(log n). AMCC_ERR_FIELD for a NaN/negative rate,
 * AMCC_ERR_FULL when a new receiver would exceed max_receivers. */
int amcc_asmp_sender_on_report (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc,
    const amcc_asmp_report *report);
/* A report block from receiver ssrc gave rtt = A - LSR - DLSR (eq. 9; see amcc_rtcp_rtt()).
 * Queued for the next echo. Counts as a sign of life. */
int amcc_asmp_sender_on_report_block (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc,
    amcc_time rtt);
/* RTCP BYE: the receiver is removed at once. */
void amcc_asmp_sender_on_bye (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc);
/* Change the silence timeout (e.g. when the RTCP interval grows with the group). */
void amcc_asmp_sender_set_timeout (amcc_asmp_sender *tx, amcc_time timeout);
/* eq. 1: min over live receivers' latest rates, clamped to [min, max]; expires silent receivers
 * first (amortised O(1) each). Before any report: initial rate; when every receiver has gone:
 * the last rate is held. */
double amcc_asmp_sender_rate (amcc_asmp_sender *tx, amcc_time now);
/* Up to max entries of (ssrc, rtt) for the next SR's APP: every fresh RTT once, oldest first
 * (round robin when they do not all fit). Returns the count. */
size_t amcc_asmp_sender_fill_echo (amcc_asmp_sender *tx, amcc_time now,
    amcc_asmp_echo_entry *entries, size_t max_entries);
void amcc_asmp_sender_get_stats (const amcc_asmp_sender *tx, amcc_asmp_sender_stats *st);

/* ---------------- APP payloads (docs/wire-formats.md) ---------------- */
#define AMCC_ASMP_APP_NAME "ASMP"
#define AMCC_ASMP_SUBTYPE_REPORT 1   /* receiver rate report, appended to an RR */
#define AMCC_ASMP_SUBTYPE_ECHO 2     /* sender RTT echo list, appended to an SR */
#define AMCC_ASMP_WIRE_VERSION 1
#define AMCC_ASMP_REPORT_LEN 28
#define AMCC_ASMP_ECHO_HEADER_LEN 4
#define AMCC_ASMP_ECHO_ENTRY_LEN 8
#define AMCC_ASMP_MAX_WIRE_RTT (60 * AMCC_NS_PER_S)
/* Echo entries that fit in an APP payload of at most 'bytes' bytes. */
#define AMCC_ASMP_ECHO_FIT(bytes) \
  ((bytes) < AMCC_ASMP_ECHO_HEADER_LEN ? 0 : ((bytes) - AMCC_ASMP_ECHO_HEADER_LEN) / AMCC_ASMP_ECHO_ENTRY_LEN)

/* Encode into buf (cap bytes); *written = AMCC_ASMP_REPORT_LEN. Values are validated
 * (AMCC_ERR_FIELD for NaN/negative/out of range) and rounded to the wire units. */
int amcc_asmp_report_encode (const amcc_asmp_report *r, uint8_t *buf, size_t cap, size_t *written);
/* Decode exactly len bytes (the APP data). Never reads past len; rejects bad version,
 * truncation, wrong length, reserved bits, out-of-range values. */
int amcc_asmp_report_decode (const uint8_t *buf, size_t len, amcc_asmp_report *r);
int amcc_asmp_echo_encode (const amcc_asmp_echo_entry *e, size_t n, uint8_t *buf, size_t cap,
    size_t *written);
/* *n (in: capacity of e, out: entries decoded). AMCC_ERR_FIELD if count and length disagree
 * or an RTT is out of range; AMCC_ERR_NOSPACE if more entries than the capacity. */
int amcc_asmp_echo_decode (const uint8_t *buf, size_t len, amcc_asmp_echo_entry *e, size_t *n);
/* Look up one SSRC in an encoded echo payload without copying (AMCC_ERR_TYPE if absent). */
int amcc_asmp_echo_lookup (const uint8_t *buf, size_t len, uint32_t ssrc, amcc_time *rtt);

#ifdef __cplusplus
}
#endif
#endif
